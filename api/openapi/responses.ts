/**
 * Response schemas, for the OpenAPI document. Plans and error bodies are
 * sent pre-serialised, so these schemas document them without reshaping
 * them; the small object answers (health, current user) are serialised by
 * them.
 */
import { type TSchema, Type } from 'typebox';
import { SlopeDetail, SlopeSummary } from '../planning/slope-schemas.ts';

const correlationId = Type.String({
  description:
    "The request's correlation id, also in the X-Correlation-Id header. Quote it when reporting a problem.",
});

export const ErrorResponse = Type.Object(
  {
    correlationId,
    errorCode: Type.String({ description: 'Machine-readable code.' }),
    message: Type.String({ description: 'What was expected and what was found.' }),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'ErrorResponse', title: 'ErrorResponse' },
);

export const FieldErrorSchema = Type.Object({
  path: Type.String({
    description: 'JSON pointer into the request body, e.g. /equipment/swathWidth ("" = the body).',
  }),
  message: Type.String(),
});

export const ValidationErrorResponse = Type.Object(
  {
    correlationId,
    errorCode: Type.String({
      description:
        "VALIDATION_ERROR for schema and outline problems (also unparseable JSON); for a field the planner cannot read the planner's code: FIELD_INVALID, FIELD_SELF_INTERSECTION, FIELD_TOO_FEW_POINTS, FIELD_NOT_LONLAT, FIELD_EMPTY, FIELD_UNSUPPORTED_GEOMETRY; INVALID_OPTION for an option out of range for this field (e.g. a node index).",
    }),
    message: Type.String(),
    errors: Type.Array(FieldErrorSchema),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'ValidationErrorResponse', title: 'ValidationErrorResponse' },
);

export const CreditsErrorResponse = Type.Object(
  {
    creditsAvailable: Type.Integer(),
    creditsRequired: Type.Integer(),
    message: Type.String(),
    correlationId,
    errorCode: Type.Literal('INSUFFICIENT_CREDITS'),
  },
  { $id: 'InsufficientCreditsResponse', title: 'InsufficientCreditsResponse' },
);

export const RateLimitResponse = Type.Object(
  {
    error: Type.Object({ code: Type.Literal('RATE_LIMIT_EXCEEDED'), message: Type.String() }),
    limit: Type.Integer({ description: 'Requests allowed per window.' }),
    windowSeconds: Type.Integer({ description: 'Window length [s] (60).' }),
    retryAfterSeconds: Type.Integer({ description: 'Seconds until the window resets; also in Retry-After.' }),
    correlationId,
  },
  { $id: 'RateLimitResponse', title: 'RateLimitResponse' },
);

const rateHeaders = {
  'X-RateLimit-Limit': {
    type: 'integer',
    description: 'Requests allowed per 60 s window (per API key; per client address without a valid key).',
  },
  'X-RateLimit-Remaining': {
    type: 'integer',
    description: 'Requests left in the current window.',
  },
  'X-RateLimit-Reset': {
    type: 'integer',
    description: 'Seconds until the current window ends and the count starts again (1..60), not a timestamp.',
  },
  'X-Correlation-Id': {
    description:
      'Correlation id of the request (the incoming one when it is 1-128 characters of A-Z a-z 0-9 . _ : -, else a generated UUIDv7).',
    type: 'string',
  },
};

/**
 * A response: its description, the headers every response carries, and the
 * schema as content of its media type (default application/json); a named
 * schema stays whole there, so the document refers to it by name.
 * `Type.Null()` is a response without body.
 */
function withHeaders<T extends TSchema>(
  schema: T,
  description: string,
  extraHeaders: Record<string, unknown> = {},
  mediaType = 'application/json',
): ResponseOf<T> {
  const headers = { ...rateHeaders, ...extraHeaders };
  if ((schema as { type?: unknown }).type === 'null') return { ...schema, description, headers } as never;
  return { description, headers, content: { [mediaType]: { schema } } } as never;
}

/** What `withHeaders` makes, typed for the reply typing of the TypeBox provider. */
export type ResponseOf<T extends TSchema> = {
  description: string;
  headers: Record<string, unknown>;
  content: { 'application/json': { schema: T } };
};

export const commonErrors = {
  401: withHeaders(
    Type.Null(),
    'API key missing, invalid or revoked. No body. Checked before anything else about the request.',
  ),
  413: withHeaders(
    ErrorResponse,
    'PAYLOAD_TOO_LARGE: the body exceeds 5 MB, or the field has more than 100,000 vertices.',
  ),
  415: withHeaders(ErrorResponse, 'UNSUPPORTED_MEDIA_TYPE: send application/json (or application/geo+json).'),
  429: withHeaders(RateLimitResponse, 'RATE_LIMIT_EXCEEDED. Honour Retry-After and back off exponentially.', {
    'Retry-After': { type: 'integer', description: 'Seconds until the window resets.' },
  }),
};

export const planErrors = {
  400: withHeaders(
    ValidationErrorResponse,
    'Invalid request: schema violations (types are never coerced, unknown properties are refused), the removed 1.5.0 options string, a missing field or swath width, or a field the planner cannot read.',
  ),
  ...commonErrors,
  402: withHeaders(
    CreditsErrorResponse,
    'The account (the company of the key) has no credit left. A plan costs 1 credit, charged only when it succeeds.',
  ),
  422: withHeaders(
    ErrorResponse,
    'The planner understood the request but will not plan it. errorCode: OPTION_NOT_SUPPORTED (details.options names each option and the supported value), PLAN_TOO_COMPLEX (too large to plan at once, or not finished within maxOptimizerTime + 5 s), HEADLAND_EXHAUSTS_FIELD, SWATH_WIDER_THAN_FIELD.',
  ),
  503: withHeaders(
    ErrorResponse,
    'SERVICE_BUSY: every planning worker is busy and the queue is full. Retry after Retry-After seconds.',
    {
      'Retry-After': { type: 'integer', description: 'Seconds to wait.' },
    },
  ),
};

// GeoJSON geometry (RFC 7946), WGS84 [lon, lat], 9 decimals.
// A plain array schema (OpenAPI tools read prefixItems poorly), typed as the [lon, lat] pair it is.
const Position = Type.Unsafe<[number, number]>({
  type: 'array',
  items: { type: 'number' },
  minItems: 2,
  maxItems: 2,
  description: '[lon, lat] in degrees (WGS84).',
});
const LinearRing = Type.Array(Position, { minItems: 4, description: 'Closed ring: first = last position.' });

export const GeoJSONPoint = Type.Object(
  { type: Type.Literal('Point'), coordinates: Position },
  { additionalProperties: false, $id: 'GeoJSONPoint', title: 'GeoJSONPoint' },
);
export const GeoJSONLineString = Type.Object(
  { type: Type.Literal('LineString'), coordinates: Type.Array(Position, { minItems: 2 }) },
  { additionalProperties: false, $id: 'GeoJSONLineString', title: 'GeoJSONLineString' },
);
export const GeoJSONPolygon = Type.Object(
  {
    type: Type.Literal('Polygon'),
    coordinates: Type.Array(LinearRing, {
      minItems: 1,
      description: 'Outer ring counter-clockwise, then the holes clockwise.',
    }),
  },
  { additionalProperties: false, $id: 'GeoJSONPolygon', title: 'GeoJSONPolygon' },
);
export const GeoJSONMultiPolygon = Type.Object(
  { type: Type.Literal('MultiPolygon'), coordinates: Type.Array(Type.Array(LinearRing, { minItems: 1 })) },
  { additionalProperties: false, $id: 'GeoJSONMultiPolygon', title: 'GeoJSONMultiPolygon' },
);

const statMembers = {
  fieldArea: Type.Number({ description: '[m^2]' }),
  workableArea: Type.Number({ description: 'Inside the headlands [m^2].' }),
  coveredArea: Type.Number({ description: '[m^2]' }),
  missedArea: Type.Number({ description: '[m^2]' }),
  overlapArea: Type.Number({ description: '[m^2]' }),
  trackCount: Type.Integer({ minimum: 0 }),
  turnCount: Type.Integer({ minimum: 0 }),
  headlandPassCount: Type.Integer({ minimum: 0 }),
  workingDistance: Type.Number({ description: '[m]' }),
  headlandDistance: Type.Number({ description: '[m]' }),
  turnDistance: Type.Number({ description: '[m]' }),
  connectorDistance: Type.Number({ description: '[m]' }),
  totalDistance: Type.Number({ description: '[m]' }),
  nonWorkingDistance: Type.Number({ description: '[m]' }),
  workingTime: Type.Number({ description: '[s]' }),
  nonWorkingTime: Type.Number({ description: '[s]' }),
  totalTime: Type.Number({ description: '[s]' }),
  coveredPercent: Type.Number({ description: 'Covered share of the field [%].' }),
  overlapPercent: Type.Number({ description: 'Worked twice, share of the field [%].' }),
  // The plan audit (absent on plans stored before it).
  undrivenPassLength: Type.Optional(
    Type.Number({ description: 'Planned headland pass length no driven working part runs along [m].' }),
  ),
  undrivenTrackLength: Type.Optional(
    Type.Number({ description: 'Planned track length no driven working part runs along [m].' }),
  ),
  duplicateTrackLength: Type.Optional(
    Type.Number({
      description:
        'Driven track length within a quarter swath of another, parallel driven track (both counted) [m].',
    }),
  ),
  overhangLength: Type.Optional(
    Type.Number({
      description:
        'Turn and connector length closer than half the working width to the field edge or an obstacle, or outside [m].',
    }),
  ),
  overhangArea: Type.Optional(
    Type.Number({
      description:
        "Area of the machine's width over the field edge or an obstacle in turns and connectors [m^2].",
    }),
  ),
};

// Fuel, emissions and machinery cost (core/costs; absent on plans stored before them).
const costMembers = {
  fuelLitres: Type.Optional(
    Type.Number({
      description:
        'Fuel burnt [l]: working time x equipment.fuelUseWorkingLph + non-working time x equipment.fuelUseNonWorkingLph (defaults after ASABE D497.7 from the PTO power).',
    }),
  ),
  ghgKgCo2e: Type.Optional(
    Type.Number({
      description:
        'Greenhouse gas of that fuel [kg CO2e] = fuelLitres x equipment.fuelEmissionFactorKgPerL (default 2.68, diesel, IPCC 2006).',
    }),
  ),
  costTotal: Type.Optional(
    Type.Number({
      description:
        'Machinery cost of the plan after the ASABE cost model (EP496.3 / D497.7, as in Iowa State A3-29): ownership, repairs and labour per machine hour x totalTime, plus fuel and 15 % lubrication; in the currency of equipment.cost (default inputs in US dollars).',
    }),
  ),
  costPerHa: Type.Optional(Type.Number({ description: 'costTotal per hectare covered.' })),
  traffickedArea: Type.Optional(
    Type.Number({
      description:
        'Ground in the field the wheels run on [m²]: the union of the wheel tracks (equipment.trackWidths, equipment.tireWidths) of every driven part, ground run on twice counted once; 0 without tyre widths. POST /api/wheel-traffic-summary/{pathPlanId}/geojson answers the tracks by passes.',
    }),
  ),
  traffickedAreaPercent: Type.Optional(Type.Number({ description: 'traffickedArea / fieldArea [%].' })),
};

const Stats = Type.Object(
  { ...statMembers, ...costMembers },
  {
    additionalProperties: true,
    $id: 'PlanStats',
    title: 'PlanStats',
    description:
      'Every member listed is always present on a new plan (plans stored before the plan audit lack its members, those before fuel and cost lack fuelLitres, ghgKgCo2e, costTotal and costPerHa, those before wheel traffic traffickedArea and traffickedAreaPercent); later versions may add members.',
  },
);

const OptimizerReport = Type.Object(
  {
    objective: Type.Union([Type.Literal('distance'), Type.Literal('time'), Type.Literal('fuel')]),
    baselineCost: Type.Number({ description: 'Cost of the plain boustrophedon order (m, s or l).' }),
    cost: Type.Number({
      description:
        'Cost of the chosen order. Both orders are driven; when the plain boustrophedon order, driven, reaches as much and has fewer metres of turns and connectors, it is the route, and cost = baselineCost.',
    }),
    gainPercent: Type.Number({
      description: '100 (1 - cost / baselineCost) [%]; 0 when the plain order is kept.',
    }),
    evaluations: Type.Integer({ minimum: 0 }),
    improvements: Type.Integer({ minimum: 0 }),
    converged: Type.Boolean({
      description: 'false when the time cap (maxOptimizerTime) or the evaluation cap ended it.',
    }),
  },
  {
    additionalProperties: false,
    $id: 'OptimizerReport',
    title: 'OptimizerReport',
    description: "What the route optimizer gained (routeOptions.algorithm 'optimized' only).",
  },
);

const GeometryPartType = Type.Union(
  [
    'GuidanceTrack',
    'ExteriorHeadlandPass',
    'InteriorHeadlandPass',
    'RouteTrack',
    'Turn',
    'HeadlandTurn',
    'HeadlandConnector',
    'Connector',
    'Crosshatch',
  ].map((t) => Type.Literal(t)),
  {
    $id: 'GeometryPartType',
    description:
      'Reference geometry (GuidanceTrack, ExteriorHeadlandPass, InteriorHeadlandPass, Crosshatch: the GuidanceGeometryType and Crosshatch of release 1.5.0) and route parts (RouteTrack, Turn, HeadlandTurn, HeadlandConnector, Connector).',
  },
);

const Direction = Type.Union([Type.Literal('CW'), Type.Literal('CCW')], {
  $id: 'HeadlandDirection',
  description: 'Sense of travel around the pass on a north-up map.',
});

const GeometryPartModel = Type.Object(
  {
    geometryPartId: Type.String(),
    geometryPartType: GeometryPartType,
    geometry: { ...GeoJSONLineString, description: 'Centre line; driven parts in the direction of driving.' },
    sequence: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Driving order across the whole plan; only on route parts.' }),
    ),
    reverse: Type.Optional(Type.Literal(true, { description: 'Present only when driven backwards.' })),
    working: Type.Boolean({ description: 'The implement works along this part.' }),
    length: Type.Number({ description: '[m]' }),
    trackDetail: Type.Optional(
      Type.Object(
        {
          trackIndex: Type.Integer({ minimum: 0 }),
          bearing: Type.Number({ description: '[deg clockwise from north, 0..180)' }),
          width: Type.Number({ description: 'Working width [m].' }),
        },
        { additionalProperties: false, $id: 'GeometryPartTrackDetail' },
      ),
    ),
    headlandDetail: Type.Optional(
      Type.Object(
        {
          passNumber: Type.Integer({
            minimum: 1,
            description: 'Exterior: 1 = outermost. Interior: 1 = closest to the obstacle.',
          }),
          direction: Direction,
          obstacleIndex: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false, $id: 'GeometryPartHeadlandDetail' },
      ),
    ),
    turnDetail: Type.Optional(
      Type.Object(
        { turnKind: Type.String({ description: "'U', 'bulb', 'K', 'headland', ..." }) },
        { additionalProperties: false, $id: 'GeometryPartTurnDetail' },
      ),
    ),
    slopeDetails: Type.Optional(SlopeDetail),
  },
  { additionalProperties: false, $id: 'GeometryPartModel', title: 'GeometryPartModel' },
);

const GeometryGroupModel = Type.Object(
  {
    geometryGroupId: Type.String(),
    isActive: Type.Boolean(),
    trackType: Type.Union([Type.Literal('Straight'), Type.Literal('Curved'), Type.Literal('Spiral')], {
      $id: 'TrackType',
    }),
    trackBearing: Type.Number({ description: '[deg clockwise from north, 0..180)' }),
    abLine: { ...GeoJSONLineString, description: 'The reference line the tracks are parallel to.' },
    referenceLine: Type.Optional({
      ...GeoJSONLineString,
      description: 'Curved tracks: the (smoothed) reference curve they follow.',
    }),
    stats: Stats,
    geometryParts: Type.Array(GeometryPartModel, {
      description: 'Reference geometry first (guidance tracks, headland passes), then the route parts.',
    }),
  },
  { additionalProperties: false, $id: 'GeometryGroupModel', title: 'GeometryGroupModel' },
);

const ContourReport = Type.Object(
  {
    bearingDeg: Type.Number({
      description: 'Bearing of the tracks taken [deg clockwise from north, 0..180).',
    }),
    meanAlongTrackPercent: Type.Number({
      description: 'Mean |along-track slope| of tracks in that direction over the workable area [%].',
    }),
    meanSlopePercent: Type.Number({ description: 'Mean steepest slope of the workable area [%].' }),
  },
  {
    additionalProperties: false,
    description:
      "trackDirection 'Contour' only: the direction of least along-track slope the zone's tracks take, from the DEM. Absent where the ground is too level or mostly unknown (zone warnings say so; the usual direction is planned).",
  },
);

const PathPlanZoneModel = Type.Object(
  {
    zoneId: Type.String(),
    zoneIndex: Type.Integer({ minimum: 0 }),
    zoneBoundary: { ...GeoJSONPolygon, description: "The zone's field polygon; holes are obstacles." },
    innerBoundaries: { ...GeoJSONMultiPolygon, description: 'The workable area inside the headlands.' },
    stats: Stats,
    slopeSummary: Type.Optional(SlopeSummary),
    activeGeometryGroupId: Type.String(),
    routeStartPoint: Type.Optional({
      ...GeoJSONPoint,
      description: 'Where the route of the active group starts; absent when the zone has no route.',
    }),
    routeEndPoint: Type.Optional({
      ...GeoJSONPoint,
      description: 'Where the route of the active group ends; absent when the zone has no route.',
    }),
    routeFailures: Type.Integer({
      minimum: 0,
      description:
        'Route connections that could not be made inside the field, headland rings left out included (0 on a complete plan; `warnings` say what was left out).',
    }),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'What the planner could not do as asked and did instead, in words: a zone where no Curved or Spiral track fits falls back to straight tracks; tracks or headland rings no path inside the field reaches at the turning radius are left out (with their number and area; their area shows as missed).',
      }),
    ),
    optimizer: Type.Optional(OptimizerReport),
    refillPoints: Type.Optional(
      Type.Array(
        Type.Object(
          {
            point: GeoJSONPoint,
            sequence: Type.Integer({ minimum: 0 }),
            volumeApplied: Type.Number({ description: '[l] up to this point.' }),
          },
          { additionalProperties: false, $id: 'RefillPoint' },
        ),
        { description: 'routeOptions.calculateRefillPoints only.' },
      ),
    ),
    stagingEntry: Type.Optional({
      ...GeoJSONLineString,
      description: 'routeOptions.stagingArea only: from the staging area to the route start.',
    }),
    stagingExit: Type.Optional({
      ...GeoJSONLineString,
      description: 'routeOptions.stagingArea only: from the route end back to the staging area.',
    }),
    fieldPartIndex: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'The field part (input polygon) the zone belongs to. A decomposed part has several zones with the same fieldPartIndex, driven as one route. Absent in plans stored before zones carried it.',
      }),
    ),
    decomposition: Type.Optional(
      Type.Object(
        {
          role: Type.Union([Type.Literal('cell'), Type.Literal('headland')], {
            description:
              "'cell': a piece of the part's workable area with tracks in its own direction; 'headland': the headland band around the whole part.",
          }),
          cells: Type.Integer({ minimum: 2, description: 'Cells the part was split into.' }),
          baseline: Type.Object(
            {
              turnCount: Type.Integer({ minimum: 0 }),
              nonWorkingDistance: Type.Number({ description: '[m]' }),
              totalTime: Type.Number({ description: '[s]' }),
            },
            {
              additionalProperties: false,
              description: 'The same part planned as one zone: what the decomposition is measured against.',
            },
          ),
        },
        {
          additionalProperties: false,
          description:
            'Set on the zones of a decomposed field part (useDecomposition): the route through its zones saves at least 10 % non-working distance and 1 % time against the baseline.',
        },
      ),
    ),
    contour: Type.Optional(ContourReport),
    geometryGroups: Type.Array(GeometryGroupModel, { minItems: 1 }),
  },
  { additionalProperties: false, $id: 'PathPlanZoneModel', title: 'PathPlanZoneModel' },
);

const EquipmentModel = Type.Object(
  {
    swathWidth: Type.Number({ description: '[m]' }),
    minTurningRadius: Type.Number({ description: 'Of the centre line [m] (default 6).' }),
    workingSpeed: Type.Number({ description: '[m/s]' }),
    turningSpeed: Type.Number({ description: 'In turns and connectors [m/s].' }),
    trackWidths: Type.Array(Type.Number(), { description: '[m] (default empty)' }),
    tireWidths: Type.Array(Type.Number(), { description: '[m] (default empty)' }),
    maxCurvatureRate: Type.Optional(
      Type.Number({ description: '[1/m^2]; absent when turns may start abruptly.' }),
    ),
  },
  {
    additionalProperties: true,
    $id: 'EquipmentModel',
    title: 'EquipmentModel',
    description:
      "The machine as planned, defaults filled in; other members of the request's equipment are echoed.",
  },
);

/** The model exactly as the planner writes it (the direct endpoints' answers). */
export const DirectPathPlanModel = Type.Object(
  {
    pathPlanId: Type.String({ description: 'UUIDv7, new for every request (nothing is stored).' }),
    pathPlanName: Type.String({
      description:
        "The request's pathPlanName, else the first feature's properties.name, else 'Direct plan'.",
    }),
    name: Type.String({ description: 'Same as pathPlanName.' }),
    createdAt: Type.String({ format: 'date-time' }),
    operationType: Type.String({
      description: "Echo of the request's operationType ('generic' when not given).",
    }),
    boundary: { ...GeoJSONMultiPolygon, description: 'The field: all zones.' },
    area: Type.Number({ description: 'Field area less holes [m^2].' }),
    totalArea: Type.Number({ description: 'Same as area [m^2].' }),
    areaHa: Type.Number({ description: '[ha]' }),
    numberOfTracks: Type.Integer({ minimum: 0 }),
    equipment: EquipmentModel,
    stats: Stats,
    slopeSummary: Type.Optional(SlopeSummary),
    repairs: Type.Array(Type.String(), {
      description:
        'What the planner repaired in the boundary, in words: rings closed and reoriented, duplicate, collinear and spike points removed, degenerate holes and passable obstacles without area dropped, overlapping parts merged.',
    }),
    zones: Type.Array(PathPlanZoneModel),
  },
  {
    additionalProperties: false,
    $id: 'PathPlanNormalizedModel',
    title: 'PathPlanNormalizedModel',
    description:
      'The v2.0.0 normalized path plan model, camelCase on the wire: zones > geometryGroups > geometryParts, statistics at each level. Geometry is GeoJSON in WGS84 [lon, lat] with 9 decimals; metres, square metres, seconds; bearings in degrees clockwise from north.',
  },
);

/**
 * A copy of a schema that allows members beyond those listed, at every
 * level; a named part that changes so is named `Stored<name>`.
 */
function allowingMore<T extends object>(schema: T): T {
  const copy = JSON.parse(JSON.stringify(schema), (k, v) =>
    k === 'additionalProperties' && v === false ? true : v,
  );
  type Node = Record<string, unknown>;
  const rename = (c: unknown, o: unknown): void => {
    if (typeof c !== 'object' || c === null) return;
    for (const k of Object.keys(c)) rename((c as Node)[k], (o as Node)[k]);
    const id = (o as Node).$id;
    if (typeof id === 'string' && JSON.stringify(c) !== JSON.stringify(o)) (c as Node).$id = `Stored${id}`;
  };
  rename(copy, schema);
  return copy;
}

/**
 * The model as stored plans take and give it: the same members, and others
 * (from clients or later versions) kept rather than refused.
 */
export const PathPlanNormalizedModel = allowingMore(DirectPathPlanModel);

// The GeoJSON answer: one schema per featureType.
const zoneRef = { zoneId: Type.String(), zoneIndex: Type.Integer({ minimum: 0 }) };
const feature = (featureType: string, geometry: object, props: Record<string, object>, description: string) =>
  Type.Object(
    {
      type: Type.Literal('Feature'),
      id: Type.String(),
      geometry: geometry as never,
      properties: Type.Object(
        { featureType: Type.Literal(featureType), ...(props as Record<string, never>) },
        { additionalProperties: false },
      ),
    },
    {
      additionalProperties: false,
      $id: `${featureType[0]!.toUpperCase()}${featureType.slice(1)}Feature`,
      title: `${featureType}Feature`,
      description,
    },
  );

const statProps = { ...statMembers, ...costMembers } as Record<string, object>;

export const PlanFeature = Type.Union(
  [
    feature(
      'zonesBoundary',
      GeoJSONMultiPolygon,
      { pathPlanId: Type.String(), zoneCount: Type.Integer({ minimum: 0 }) },
      'The whole field.',
    ),
    feature('zoneBoundary', GeoJSONPolygon, zoneRef, 'One per zone; holes are obstacles.'),
    feature(
      'abLine',
      GeoJSONLineString,
      { ...zoneRef, geometryGroupId: Type.String(), trackBearing: Type.Number() },
      "The reference line of the zone's tracks (left out for a zone without tracks).",
    ),
    feature(
      'geometryPart',
      GeoJSONLineString,
      {
        geometryPartId: Type.String(),
        geometryPartType: GeometryPartType,
        ...zoneRef,
        geometryGroupId: Type.String(),
        working: Type.Boolean(),
        length: Type.Number({ description: '[m]' }),
        sequence: Type.Optional(
          Type.Integer({ minimum: 0, description: 'Route parts: driving order over the whole collection.' }),
        ),
        reverse: Type.Optional(Type.Literal(true)),
        trackIndex: Type.Optional(Type.Integer({ minimum: 0 })),
        bearing: Type.Optional(Type.Number()),
        passNumber: Type.Optional(Type.Integer({ minimum: 1 })),
        direction: Type.Optional(Direction),
        obstacleIndex: Type.Optional(Type.Integer({ minimum: 0 })),
        turnKind: Type.Optional(Type.String()),
        slopeDetails: Type.Optional(SlopeDetail),
      },
      'A centre line: reference parts (guidance tracks, headland passes), then route parts in driving order.',
    ),
    feature('routeStartPoint', GeoJSONPoint, zoneRef, "Where the zone's route starts."),
    feature('routeEndPoint', GeoJSONPoint, zoneRef, "Where the zone's route ends."),
    feature(
      'stagingLeg',
      GeoJSONLineString,
      { ...zoneRef, leg: Type.Union([Type.Literal('entry'), Type.Literal('exit')]) },
      'routeOptions.stagingArea only: transport to the route start and back.',
    ),
    feature(
      'refillPoint',
      GeoJSONPoint,
      {
        ...zoneRef,
        refillIndex: Type.Integer({ minimum: 0 }),
        sequence: Type.Integer({ minimum: 0 }),
        volumeApplied: Type.Number({ description: '[l]' }),
      },
      'routeOptions.calculateRefillPoints only.',
    ),
    feature(
      'zoneStatistics',
      GeoJSONPoint,
      {
        ...zoneRef,
        routeFailures: Type.Integer({ minimum: 0 }),
        warnings: Type.Optional(Type.Array(Type.String())),
        optimizer: Type.Optional(OptimizerReport),
        slopeSummary: Type.Optional(SlopeSummary),
        contour: Type.Optional(ContourReport),
        ...statProps,
      },
      'The zone statistics; the point lies inside the zone, to label it.',
    ),
    feature(
      'pathPlanStatistics',
      Type.Null(),
      {
        pathPlanId: Type.String(),
        pathPlanName: Type.String(),
        slopeSummary: Type.Optional(SlopeSummary),
        ...statProps,
      },
      'The aggregated statistics; geometry null. Always the last feature.',
    ),
  ],
  { $id: 'PlanFeature', title: 'PlanFeature' },
);

export const PlanFeatureCollection = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    properties: Type.Object(
      { pathPlanId: Type.String(), pathPlanName: Type.String() },
      { additionalProperties: false },
    ),
    features: Type.Array(PlanFeature),
  },
  {
    additionalProperties: false,
    $id: 'PlanFeatureCollection',
    title: 'PlanFeatureCollection',
    description:
      'The plan as a GeoJSON FeatureCollection (spec 2.5), the active geometry group of each zone. Order: the field, then per zone its boundary, AB line, reference parts, route parts in driving order, route ends and statistics; the plan statistics last. Coordinates WGS84 [lon, lat], 9 decimals. Media type application/geo+json.',
  },
);

export { rateHeaders, withHeaders };
