/**
 * Response schemas, for the OpenAPI document. Plans and error bodies are
 * sent pre-serialised, so these schemas document them without reshaping
 * them; the small object answers (health, current user) are serialised by
 * them.
 */
import { Type } from 'typebox';

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
  { title: 'ErrorResponse' },
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
  { title: 'ValidationErrorResponse' },
);

export const CreditsErrorResponse = Type.Object(
  {
    creditsAvailable: Type.Integer(),
    creditsRequired: Type.Integer(),
    message: Type.String(),
    correlationId,
    errorCode: Type.Literal('INSUFFICIENT_CREDITS'),
  },
  { title: 'InsufficientCreditsResponse' },
);

export const RateLimitResponse = Type.Object(
  {
    error: Type.Object({ code: Type.Literal('RATE_LIMIT_EXCEEDED'), message: Type.String() }),
    limit: Type.Integer({ description: 'Requests allowed per window.' }),
    windowSeconds: Type.Integer({ description: 'Window length [s] (60).' }),
    retryAfterSeconds: Type.Integer({ description: 'Seconds until the window resets; also in Retry-After.' }),
    correlationId,
  },
  { title: 'RateLimitResponse' },
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

/** Attaches the headers every response carries. */
function withHeaders<T extends object>(
  schema: T,
  description: string,
  extraHeaders: Record<string, unknown> = {},
) {
  return { ...schema, description, headers: { ...rateHeaders, ...extraHeaders } } as T;
}

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

const Stats = Type.Object(
  {
    fieldArea: Type.Number({ description: '[m^2]' }),
    workableArea: Type.Number({ description: '[m^2]' }),
    coveredArea: Type.Number({ description: '[m^2]' }),
    missedArea: Type.Number({ description: '[m^2]' }),
    overlapArea: Type.Number({ description: '[m^2]' }),
    trackCount: Type.Integer(),
    turnCount: Type.Integer(),
    headlandPassCount: Type.Integer(),
    workingDistance: Type.Number({ description: '[m]' }),
    headlandDistance: Type.Number({ description: '[m]' }),
    turnDistance: Type.Number({ description: '[m]' }),
    connectorDistance: Type.Number({ description: '[m]' }),
    totalDistance: Type.Number({ description: '[m]' }),
    nonWorkingDistance: Type.Number({ description: '[m]' }),
    workingTime: Type.Number({ description: '[s]' }),
    nonWorkingTime: Type.Number({ description: '[s]' }),
    totalTime: Type.Number({ description: '[s]' }),
    coveredPercent: Type.Number(),
    overlapPercent: Type.Number(),
  },
  { additionalProperties: true, title: 'PlanStats' },
);

export const PathPlanNormalizedModel = Type.Object(
  {
    pathPlanId: Type.String({ description: 'UUIDv7, new for every request (nothing is stored).' }),
    pathPlanName: Type.String({ description: "The first feature's properties.name, else 'Direct plan'." }),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    operationType: Type.String(),
    boundary: Type.Object({}, { additionalProperties: true, description: 'MultiPolygon of the zones.' }),
    area: Type.Number({ description: 'Field area less holes [m^2].' }),
    totalArea: Type.Number({ description: 'Same as area [m^2].' }),
    areaHa: Type.Number(),
    numberOfTracks: Type.Integer(),
    equipment: Type.Object(
      {},
      { additionalProperties: true, description: 'The machine as planned, defaults filled in.' },
    ),
    stats: Stats,
    repairs: Type.Array(Type.String(), { description: 'What the planner repaired in the boundary.' }),
    zones: Type.Array(
      Type.Object(
        {
          zoneId: Type.String(),
          zoneIndex: Type.Integer(),
          zoneBoundary: Type.Object({}, { additionalProperties: true }),
          innerBoundaries: Type.Object({}, { additionalProperties: true }),
          stats: Stats,
          activeGeometryGroupId: Type.String(),
          geometryGroups: Type.Array(
            Type.Object({}, { additionalProperties: true, title: 'GeometryGroupModel' }),
          ),
        },
        { additionalProperties: true, title: 'PathPlanZoneModel' },
      ),
    ),
  },
  {
    additionalProperties: true,
    title: 'PathPlanNormalizedModel',
    description:
      'The v2.0.0 normalized path plan model, camelCase on the wire: zones > geometryGroups > geometryParts, statistics at each level. Geometry is GeoJSON in WGS84 [lon, lat] with 9 decimals; metres, square metres, seconds; bearings in degrees clockwise from north.',
  },
);

export const PlanFeatureCollection = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    properties: Type.Object({ pathPlanId: Type.String(), pathPlanName: Type.String() }),
    features: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  {
    additionalProperties: true,
    title: 'PlanFeatureCollection',
    description:
      'The plan as a GeoJSON FeatureCollection (spec 2.5). Each feature has properties.featureType: zoneBoundary, zonesBoundary, geometryPart (with geometryPartType, zoneId, zoneIndex, working, length; driven parts add sequence and reverse), abLine, routeStartPoint, routeEndPoint, zoneStatistics, pathPlanStatistics. Media type application/geo+json.',
  },
);

export { rateHeaders, withHeaders };
