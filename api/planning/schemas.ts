/**
 * TypeBox schemas of the direct planning requests: the single source of
 * request validation, TypeScript types and the OpenAPI document.
 *
 * Validation is strict: no type coercion, no unknown properties (except
 * inside GeoJSON `properties`), numbers within documented bounds.
 */
import { type Static, Type } from 'typebox';
import { MAX_FIELD_VERTICES } from '../../formats/direct-request.ts';

/** Body size limit of every request [bytes]. */
export const BODY_LIMIT_BYTES = 5 * 1024 * 1024;
/** Most vertices a field may have (all rings of all parts); more gets 413. */
export { MAX_FIELD_VERTICES };

const strict = { additionalProperties: false } as const;

// ---- GeoJSON (RFC 7946), lon/lat -------------------------------------------

const Position = Type.Array(Type.Number(), {
  minItems: 2,
  maxItems: 3,
  description: '[lon, lat] in WGS84 degrees (an optional third value, height, is ignored).',
});
const Ring = Type.Array(Position, {
  description: 'Linear ring. Closing the ring (repeating the first position) is optional.',
});
const BBox = Type.Array(Type.Number(), { minItems: 4, maxItems: 6 });

export const GeoJsonPolygon = Type.Object(
  {
    type: Type.Literal('Polygon'),
    coordinates: Type.Array(Ring, {
      minItems: 1,
      description: 'First ring the exterior, further rings holes (non-passable obstacles).',
    }),
    bbox: Type.Optional(BBox),
  },
  { ...strict, $id: 'Polygon', title: 'Polygon' },
);

export const GeoJsonMultiPolygon = Type.Object(
  {
    type: Type.Literal('MultiPolygon'),
    coordinates: Type.Array(Type.Array(Ring, { minItems: 1 }), {
      minItems: 1,
      description: 'Each polygon is a separate field part and becomes its own zone.',
    }),
    bbox: Type.Optional(BBox),
  },
  { ...strict, $id: 'MultiPolygon', title: 'MultiPolygon' },
);

type Geometry = Static<typeof GeoJsonPolygon> | Static<typeof GeoJsonMultiPolygon>;

/** oneOf with a discriminator, so a wrong member reports only the errors of its own type. */
function byType<T>(members: unknown[], description: string) {
  return Type.Unsafe<T>({
    type: 'object',
    oneOf: members,
    discriminator: { propertyName: 'type' },
    description,
  });
}

const FeatureProperties = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
  description:
    'Free-form. `passable: true` marks a feature as a passable obstacle (not worked, may be driven across); `name` (string) names the plan.',
});

export const GeoJsonFeature = Type.Object(
  {
    type: Type.Literal('Feature'),
    geometry: byType<Geometry>([GeoJsonPolygon, GeoJsonMultiPolygon], 'Polygon or MultiPolygon.'),
    properties: Type.Optional(FeatureProperties),
    id: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Number()])),
    bbox: Type.Optional(BBox),
  },
  { ...strict, $id: 'Feature', title: 'Feature' },
);

export const GeoJsonFeatureCollection = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    features: Type.Array(GeoJsonFeature, { minItems: 1 }),
    properties: Type.Optional(FeatureProperties),
    bbox: Type.Optional(BBox),
  },
  { ...strict, $id: 'FeatureCollection', title: 'FeatureCollection' },
);

export type BoundaryInput =
  | Geometry
  | Static<typeof GeoJsonFeature>
  | Static<typeof GeoJsonFeatureCollection>;

const boundaryDescription =
  'The field as GeoJSON in WGS84 [lon, lat]: a Polygon, MultiPolygon, Feature of either, or FeatureCollection of such Features. ' +
  'Holes are non-passable obstacles; separate parts become separate zones. At most 100,000 vertices (else 413).';

export const Boundary = Type.Unsafe<BoundaryInput>({
  ...byType<BoundaryInput>(
    [GeoJsonPolygon, GeoJsonMultiPolygon, GeoJsonFeature, GeoJsonFeatureCollection],
    boundaryDescription,
  ),
  $id: 'Boundary',
  title: 'Boundary',
});

// ---- Equipment ------------------------------------------------------------------

const Width = (description: string) => Type.Number({ minimum: 0.5, maximum: 100, description });
const Speed = (description: string, def: number) =>
  Type.Number({ exclusiveMinimum: 0, maximum: 30, default: def, description });
const Passes = (description: string, def?: number) =>
  Type.Integer({ minimum: 0, maximum: 50, ...(def === undefined ? {} : { default: def }), description });

export const DEFAULT_OPERATION_TYPE = 'generic';

const NonNegative = (maximum: number, description: string) =>
  Type.Number({ minimum: 0, maximum, description });

/** Inputs of the machinery cost model (core/costs/machinery-cost.ts); each optional, with documented defaults. */
export const MachineCostInputs = Type.Object(
  {
    machineClass: Type.Optional(
      Type.Union([Type.Literal('tractor'), Type.Literal('tractor4wd')], {
        default: 'tractor',
        description:
          'Class for the repair factors of ASABE D497.7: tractor (2-wheel drive or front-wheel assist, RF1 0.007, RF2 2.0) or tractor4wd (RF1 0.003, RF2 2.0). Default tractor. The remaining-value coefficients follow the PTO power (small < 60 kW, medium 60..112 kW, large > 112 kW).',
      }),
    ),
    listPrice: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1e8,
        description:
          'List price of a comparable new machine. Default 1117.5 per kW of PTO power (the Iowa State A3-29 example: $150,000 for 180 hp).',
      }),
    ),
    purchasePrice: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1e8,
        description: 'Price paid. Default 85 % of the list price.',
      }),
    ),
    ageAtPurchaseYears: Type.Optional(NonNegative(50, 'Age of the machine when bought [years]. Default 0.')),
    ownershipYears: Type.Optional(
      Type.Number({ minimum: 1, maximum: 50, description: 'Years owned, 1..50. Default 15.' }),
    ),
    annualHours: Type.Optional(
      Type.Number({ minimum: 1, maximum: 8760, description: 'Hours of use a year, 1..8760. Default 400.' }),
    ),
    interestRate: Type.Optional(NonNegative(1, 'Interest rate a year, 0..1 (0.08 = 8 %). Default 0.08.')),
    thiRate: Type.Optional(
      NonNegative(
        1,
        'Taxes, housing and insurance a year, share of the purchase price, 0..1. Default 0.02 (ASAE EP496.3: 1 % + 0.75 % + 0.25 %).',
      ),
    ),
    fuelPrice: Type.Optional(NonNegative(100, 'Fuel price per litre. Default 0.898 ($3.40 per US gallon).')),
    labourRate: Type.Optional(
      NonNegative(10_000, 'Labour cost per hour; 1.1 labour hours are charged per machine hour. Default 20.'),
    ),
  },
  {
    ...strict,
    $id: 'MachineCostInputs',
    title: 'MachineCostInputs',
    description:
      'What owning and running the machine costs, after the ASABE machinery cost model (ASAE EP496.3 with ASABE D497.7) as the extension calculators use it (Iowa State Ag Decision Maker A3-29 "Estimating Farm Machinery Costs"): depreciation to the remaining value, interest on the average investment, taxes-housing-insurance, repairs from accumulated hours, fuel (from the plan) plus 15 % lubrication, labour. All prices in one currency; the defaults are US dollars. Gives stats.costTotal and stats.costPerHa.',
  },
);

export const Equipment = Type.Object(
  {
    swathWidth: Width('Working width [m], 0.5..100. Required.'),
    trackWidths: Type.Optional(
      Type.Array(Type.Number({ minimum: 0, maximum: 20 }), {
        maxItems: 16,
        default: [],
        description:
          "Distance between the wheels of each axle [m]. Default []. With tireWidths, also the machine's outside width (the widest axle's track plus its tyre): the field is not driven through gaps narrower than that (without them, 2.5 m); the sides of such a gap are planned as parts of their own.",
      }),
    ),
    tireWidths: Type.Optional(
      Type.Array(Type.Number({ minimum: 0, maximum: 5 }), {
        maxItems: 16,
        default: [],
        description: 'Tyre widths [m]. Default [].',
      }),
    ),
    minTurningRadius: Type.Optional(
      Type.Number({
        minimum: 0.5,
        maximum: 100,
        default: 6,
        description: 'Minimum turning radius of the machine centre line [m], 0.5..100. Default 6.',
      }),
    ),
    workingSpeed: Type.Optional(
      Speed('Speed while working [m/s], > 0 and <= 30. Default 2.778 (10 km/h).', 2.778),
    ),
    turningSpeed: Type.Optional(
      Speed('Speed in turns, connectors and transport [m/s], > 0 and <= 30. Default 1.667 (6 km/h).', 1.667),
    ),
    maxCurvatureRate: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 10,
        description:
          'How fast the machine can steer: the largest change of path curvature per metre driven [1/m^2] (steering rate / (wheelbase x speed)), e.g. 0.05 for a tractor. Given: every turn, connector and headland corner is a continuous-curvature curve (clothoid, arc of minTurningRadius, clothoid; CC-Dubins turns, reversing with cusps at curvature 0), so the curvature never jumps. Absent (the default): turns are Dubins and Reeds-Shepp paths whose arcs start abruptly. Either way the turn at each track end is a U-turn where twice the radius fits the track spacing, a bulb (omega) where it does not but the headland has room, a fishtail (reversing) where only that fits, and otherwise travel along the headland.',
      }),
    ),
    tankCapacity: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1_000_000,
        description: 'Tank or hopper capacity [l]. Needed by routeOptions.calculateRefillPoints.',
      }),
    ),
    applicationRate: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1_000_000,
        description: 'Application rate [l/ha]. Needed by routeOptions.calculateRefillPoints.',
      }),
    ),
    ptoPowerKw: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 2000,
        description:
          'Rated PTO power of the power unit [kW], for the fuel and cost defaults. Default 25 x sqrt(swathWidth), within 20..300 (a planning default, not a figure of a standard).',
      }),
    ),
    fuelUseWorkingLph: Type.Optional(
      NonNegative(
        1000,
        'Fuel use while working [l/h]. Default the ASABE year-round average for diesel tractors (ASAE EP496.3 / D497.7; Iowa State A3-29): 0.044 gal/hp-h = 0.2234 l/kWh x ptoPowerKw.',
      ),
    ),
    fuelUseNonWorkingLph: Type.Optional(
      NonNegative(
        1000,
        'Fuel use in turns, connectors and transport [l/h]. Default the ASABE D497.7 partial-load equation (0.22 X + 0.096) l/kWh x ptoPowerKw at X = 0.2 of rated power.',
      ),
    ),
    fuelUseIdleLph: Type.Optional(
      NonNegative(
        1000,
        "Fuel use standing at a reversing cusp (stop, shift, start) [l/h]; only routeOptions.objective 'fuel' uses it. Default the D497.7 partial-load equation at X = 0 (0.096 l/kWh x ptoPowerKw), at most fuelUseNonWorkingLph.",
      ),
    ),
    fuelEmissionFactorKgPerL: Type.Optional(
      NonNegative(
        10,
        'Greenhouse gas per litre of fuel [kg CO2e/l]. Default 2.68, diesel (IPCC 2006 Guidelines: 74,100 kg CO2/TJ x 43.0 TJ/Gg x 0.84 kg/l).',
      ),
    ),
    cost: Type.Optional(MachineCostInputs),
    maxCrossSlopePercent: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 100,
        description:
          "Steepest sideways slope the machine may drive across [%], e.g. 15 for a tractor with a mounted implement. With includeSlopes: every geometry part's slopeDetails says whether it exceeds it (exceedsMaxCrossSlope, overMaxCrossSlopeLength) and the zone's warnings name the driven parts that do. Only with includeSlopes true (422 OPTION_NOT_SUPPORTED otherwise).",
      }),
    ),
  },
  {
    ...strict,
    $id: 'Equipment',
    title: 'Equipment',
    description: 'The machine. Only swathWidth is required.',
  },
);

// ---- Route options (spec 2.3) --------------------------------------------------------

export const ROUTE_ALGORITHMS_KNOWN = [
  'auto',
  'boustrophedon',
  'snake',
  'clusteredSpiral',
  'optimized',
] as const;

export const RouteOptions = Type.Object(
  {
    startPointNodeIndex: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_FIELD_VERTICES,
        description:
          'Route start: index of a route node, i.e. an exterior boundary vertex numbered from 0 in input order across all parts (the closing repeat of the first vertex is not a node).',
      }),
    ),
    endPointNodeIndex: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_FIELD_VERTICES,
        description: 'Route end, numbered like startPointNodeIndex.',
      }),
    ),
    algorithm: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        default: 'auto',
        description:
          "Route ordering: 'auto' (default: per block of tracks, the next track by the shortest turn that fits inside the field, which skips lines where the turning radius needs it), 'boustrophedon' (every line in turn, back and forth), 'snake' (every other line out, the lines between on the way back), 'clusteredSpiral' (clusters of 2s+1 lines driven i, i+s+1, i+1, i+s+2, ...; s = skipCount) or 'optimized' (an anytime optimizer of driving order and direction that minimizes non-working distance, time or fuel within maxOptimizerTime and reports its gain over 'boustrophedon'). Other values get 422 OPTION_NOT_SUPPORTED.",
      }),
    ),
    skipCount: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1000,
        description:
          "Lines skipped per turn for algorithm 'clusteredSpiral' (default: the fewest for which every turn is a U-turn, skipCount x swath >= 2 x turning radius). With any other algorithm: 422 OPTION_NOT_SUPPORTED.",
      }),
    ),
    objective: Type.Optional(
      Type.Union([Type.Literal('distance'), Type.Literal('time'), Type.Literal('fuel')], {
        default: 'distance',
        description:
          "What algorithm 'optimized' minimizes over turns and connectors: 'distance' (default), 'time' (at the turning speed, plus a stop at each reversing cusp) or 'fuel' (that time at 15 l/h). With any other algorithm: 422 OPTION_NOT_SUPPORTED.",
      }),
    ),
    enableHeadlandDrivethrough: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: connectors between tracks and blocks drive straight through the headland (a direct turn or fishtail, else straight legs across the field), never along a headland pass. false (default): whichever way is shorter, along a headland pass included.',
      }),
    ),
    headlandsFirst: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: the exterior headland passes are driven first, outermost first, then the tracks, then the passes around obstacles. false (default): tracks first, then the obstacle passes, then the exterior passes inner to outer, so the route ends at the field edge.',
      }),
    ),
    calculateRefillPoints: Type.Optional(
      Type.Boolean({
        description:
          'true: refill points where the tank runs out along the route (the tank starts full; rate x swath x distance worked on tracks and headland passes), placed by refillStrategyType. Needs equipment.tankCapacity and equipment.applicationRate (else 400 INVALID_OPTION). Answered as refillPoint features (GeoJSON) and zones[].refillPoints (model).',
      }),
    ),
    stagingArea: Type.Optional(
      Type.Array(Type.Number(), {
        minItems: 2,
        maxItems: 2,
        description:
          "[lon, lat] (WGS84) of the staging area the machine comes from and returns to. Each zone's route starts and ends at the point of the zone's edge nearest to it (startPointNodeIndex / endPointNodeIndex take precedence); the transport legs between are answered as stagingLeg features (GeoJSON) and zones[].stagingEntry / stagingExit (model), straight lines outside the planned route.",
      }),
    ),
    refillStrategyType: Type.Optional(
      Type.Union(
        [Type.Literal('Exact'), Type.Literal('StartOfTrack'), Type.Literal('ClosestExternalHeadland')],
        {
          description:
            "Where refill points go (with calculateRefillPoints): 'Exact' (default: where the tank is empty), 'StartOfTrack' (the start of the track or pass on which it would run out) or 'ClosestExternalHeadland' (the nearest point of the outermost headland pass, else of the field edge). Without calculateRefillPoints: 422.",
        },
      ),
    ),
    maxOptimizerTime: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 60,
        default: 10,
        description:
          "Time cap [s], 1..60, default 10. The optimizer of algorithm 'optimized' stops at this time from the start of planning (earlier when it converges) and keeps the best order found. The whole planning gets a few seconds more to drive that order; planning that needs longer is ended and answered 422 PLAN_TOO_COMPLEX.",
      }),
    ),
    forcedDirection: Type.Optional(
      Type.Union([Type.Literal('CW'), Type.Literal('CCW')], {
        description:
          'Winding of every headland pass (exterior and around obstacles): clockwise or counter-clockwise. Absent: each pass is driven in whichever direction joins the route best.',
      }),
    ),
  },
  { ...strict, $id: 'RouteApiOptions', title: 'RouteOptions' },
);

// ---- Requests ------------------------------------------------------------------------

const Bearing = (description: string) => Type.Number({ minimum: -360, maximum: 360, description });

/**
 * The direct request: the v2.0.0 outline (spec 2.2 with 2.3 routeOptions)
 * and the quick-start outline in one object. Which members belong together
 * is checked after validation (see `readDirectRequest`).
 */
export const DirectPlanRequest = Type.Object(
  {
    boundary: Type.Optional(Boundary),
    operationType: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        default: DEFAULT_OPERATION_TYPE,
        description: `Free text naming the operation (e.g. 'tillage', 'seeding', 'spraying'); reported back in the plan. Default '${DEFAULT_OPERATION_TYPE}'.`,
      }),
    ),
    exteriorHeadlandPasses: Type.Optional(
      Passes('Headland passes along the field edge, 0..50. Default 0.', 0),
    ),
    interiorHeadlandPasses: Type.Optional(
      Passes('Headland passes around each obstacle (hole), 0..50. Default 0.', 0),
    ),
    equipment: Type.Optional(Equipment),
    trackBearing: Type.Optional(
      Bearing(
        'Extension of the v2.0.0 outline (it has no direction field): bearing of the tracks [deg clockwise from north], -360..360, read modulo 180. Omitted: the planner chooses the best bearing. Same meaning as the trackBearing of a geometry group in the response.',
      ),
    ),
    trackDirection: Type.Optional(
      Type.Union([Type.Literal('Auto'), Type.Literal('Contour')], {
        default: 'Auto',
        description:
          "How the direction of straight tracks is chosen when no trackBearing is given. Default Auto: fewest tracks and turns (the usual search, with decomposition). Contour: tracks along the contour against erosion, the direction of least along-track slope over each zone's workable area (the usual candidate directions scored on the GeoTIFF DEMs of the server, TRAMLINE_DEM_DIR, by the root mean square of the along-track slope, refined to 0.01 degree); zones[].contour reports the bearing taken, and a zone on nearly level ground (mean slope under 0.5 %) or mostly outside the DEM keeps the usual direction with a warning. Contour lays straight tracks and plans each field part as one zone; with trackBearing or another trackType it is refused (422). 422 DEM_NOT_AVAILABLE when no DEM covers the field.",
      }),
    ),
    includeSlopes: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Default false. true: every geometry part carries slopeDetails (SlopeDetail: mean and steepest slope, mean along-track slope in the direction of driving, mean cross-track slope, elevation range, samples with and without ground data), zones and the plan a slopeSummary (SlopeSummary, with the share of working distance above 2, 5 and 10 % along-track slope), from the GeoTIFF DEMs of the server (TRAMLINE_DEM_DIR). 422 DEM_NOT_AVAILABLE when no DEM covers the field. false: no DEM is read.',
      }),
    ),
    extendTracks: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Default false. true: each guidance track runs on into the headland until its whole swath has reached the edge of the area inside the headlands, so the wedges between track ends and a slanted headland are worked, and on for what the headland passes leave unworked beyond (a bay of an obstacle, a rounded corner); exterior headland passes run on past their square corners to work the corner outside them. Less missed area, more overlap, both reported; tracks and passes stay at least half a swath inside the field and clear of obstacles.',
      }),
    ),
    useCrossHatches: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Default false. true: each geometry group also holds Crosshatch geometry parts, straight guidance lines one swath apart at right angles to the tracks across the same workable area, for a second, crossing pass; they are reference lines (not driven, no sequence). The field part is then planned as one zone (no decomposition).',
      }),
    ),
    useDecomposition: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          'Default true: a non-convex field part is split into zones, each with straight tracks in its own best direction (cuts along the straight edges of its concave corners, as POST /api/geometry-operations/automatic-decomposition answers them), when the planned route confirms the saving against the part planned as one zone: at least 10 % less non-working distance (turns and connectors) and 1 % less time, with no more than 0.5 % of the field less covered. The cells are zones of their own and the headland band around the part is one more zone (zones[].decomposition says which); the route runs through them as one, from cell to cell inside the field. false: every field part is one zone. A trackBearing keeps every part in one zone too.',
      }),
    ),
    usePassable: Type.Optional(
      Type.Boolean({
        description:
          'Default true: features with properties.passable = true are passable obstacles (not worked; the machine may cross them). false: they are non-passable obstacles like the holes of the boundary (interior headland passes go round them, tracks stop at them, no turn or connector crosses them; a field part they cut through becomes separate zones).',
      }),
    ),
    trackType: Type.Optional(
      Type.Union([Type.Literal('Straight'), Type.Literal('Curved'), Type.Literal('Spiral')], {
        description:
          'Default Straight. Curved: tracks at (k + 1/2) swaths from a reference curve (referenceLine, else the longest run of the boundary of the workable area without a corner sharper than 40 degrees), smoothed as curvedOptions ask and rounded wherever they would bend tighter than equipment.minTurningRadius. Spiral: loops of the workable area from its edge inwards, one swath apart, corners rounded to the turning radius, each passing into the next by a lane change; loops round obstacles are tracks of their own; the exterior headland passes are driven first. A zone where no such track fits falls back to straight tracks, and zones[].warnings says so. Curved and Spiral parts are not decomposed.',
      }),
    ),
    curvedOptions: Type.Optional(
      Type.Object(
        {
          levelOfSmoothing: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 0.5,
              description:
                'Share of each edge that corner cutting (Chaikin) takes off a smoothed corner of the reference, 0..0.5. Default 0.25; 0: the reference is not smoothed.',
            }),
          ),
          smoothingIterations: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 10,
              description: 'Passes of corner cutting, 0..10. Default 3.',
            }),
          ),
          minAngleToSmooth: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 180,
              description:
                'Reference vertices that turn by less than this [deg] are kept as they are. Default 5. Whatever the smoothing, no track bends tighter than the turning radius.',
            }),
          ),
        },
        {
          ...strict,
          $id: 'CurvedOptions',
          title: 'CurvedOptions',
          description:
            'Smoothing of the reference curve of Curved tracks (the SmoothingStrategyType of release 1.5.0 is corner cutting here); with another trackType: 400 INVALID_OPTION.',
        },
      ),
    ),
    referenceLine: Type.Optional(
      Type.Array(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }), {
        minItems: 2,
        maxItems: 10000,
        description:
          'Extension of the v2.0.0 outline: the reference line of Curved tracks, [lon, lat] positions (WGS84), for instance a line answered by POST /api/reference-lines/default-lines. Default: the longest smooth run of the boundary. Only with trackType Curved.',
      }),
    ),
    routeOptions: Type.Optional(RouteOptions),
    // Quick-start outline.
    field: Type.Optional(
      byType<BoundaryInput>(
        [GeoJsonPolygon, GeoJsonMultiPolygon, GeoJsonFeature, GeoJsonFeatureCollection],
        `Quick-start name of boundary. ${boundaryDescription}`,
      ),
    ),
    machine: Type.Optional(
      Type.Object(
        { widthMeters: Width('Quick-start name of equipment.swathWidth [m], 0.5..100.') },
        { ...strict, description: 'Quick-start machine.' },
      ),
    ),
    headland: Type.Optional(
      Type.Object(
        { passes: Passes('Quick-start name of exteriorHeadlandPasses, 0..50.') },
        { ...strict, description: 'Quick-start headland.' },
      ),
    ),
    tracks: Type.Optional(
      Type.Object(
        {
          preferredDirectionDegrees: Bearing(
            'Quick-start name of trackBearing: track bearing [deg clockwise from north], -360..360, read modulo 180.',
          ),
        },
        { ...strict, description: 'Quick-start tracks.' },
      ),
    ),
  },
  {
    ...strict,
    $id: 'DirectPlanRequest',
    title: 'DirectPlanRequest',
    description:
      'A direct planning request in the v2.0.0 outline (boundary, equipment, exteriorHeadlandPasses, trackBearing, ...) or in the quick-start outline (field, machine.widthMeters, headland.passes, tracks.preferredDirectionDegrees). ' +
      'Required: the field (boundary or field) and the swath width (equipment.swathWidth or machine.widthMeters). Each value may be given in one outline only. ' +
      'The 1.5.0 `options` string is removed: use includeSlopes, extendTracks, useCrossHatches and usePassable. Options the planner cannot honour yet are refused with 422 OPTION_NOT_SUPPORTED, never ignored.',
  },
);
export type DirectPlanRequest = Static<typeof DirectPlanRequest>;

/** `POST /api/path-plan`: the 2.2 subset. */
export const PathPlanRequest = Type.Object(
  {
    boundary: Boundary,
    operationType: DirectPlanRequest.properties.operationType,
    exteriorHeadlandPasses: DirectPlanRequest.properties.exteriorHeadlandPasses,
    interiorHeadlandPasses: DirectPlanRequest.properties.interiorHeadlandPasses,
    equipment: Equipment,
  },
  {
    ...strict,
    $id: 'PathPlanRequest',
    title: 'PathPlanRequest',
    description:
      'The 2.2 subset: boundary, operationType, exteriorHeadlandPasses, interiorHeadlandPasses, equipment (boundary and equipment.swathWidth required).',
  },
);
export type PathPlanRequest = Static<typeof PathPlanRequest>;
