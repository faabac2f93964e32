/**
 * From a direct planning request (either outline, already schema-valid) to
 * the planner's PlanRequest, after the checks a schema cannot express:
 * exactly one field, one swath width, each value in one outline only. The
 * direct interface, the job workers and the CLI share this mapping; the
 * TypeBox schemas of the HTTP interface describe the same body.
 */
import type { Machine, PlanRequest, RouteAlgorithm } from '../core/types/index.ts';
import { DEFAULT_OPERATION_TYPE } from './plan-model.ts';

/** Most vertices a field may have (all rings of all parts). */
export const MAX_FIELD_VERTICES = 100_000;

type Ring = number[][];
export interface PolygonInput {
  type: 'Polygon';
  coordinates: Ring[];
  bbox?: number[];
}
export interface MultiPolygonInput {
  type: 'MultiPolygon';
  coordinates: Ring[][];
  bbox?: number[];
}
export type GeometryInput = PolygonInput | MultiPolygonInput;
export interface FeatureInput {
  type: 'Feature';
  geometry: GeometryInput;
  properties?: object | null;
  id?: string | number;
  bbox?: number[];
}
export interface FeatureCollectionInput {
  type: 'FeatureCollection';
  features: FeatureInput[];
  properties?: object | null;
  bbox?: number[];
}
/** The field as GeoJSON in WGS84 [lon, lat]. */
export type BoundaryInput = GeometryInput | FeatureInput | FeatureCollectionInput;

/** The members of a direct request the mapping reads (units as on the wire). */
export interface DirectRequestBody {
  boundary?: BoundaryInput;
  field?: BoundaryInput;
  operationType?: string;
  exteriorHeadlandPasses?: number;
  interiorHeadlandPasses?: number;
  equipment?: {
    swathWidth?: number;
    minTurningRadius?: number;
    workingSpeed?: number;
    turningSpeed?: number;
    trackWidths?: number[];
    tireWidths?: number[];
    tankCapacity?: number;
    /** [1/m^2] */
    maxCurvatureRate?: number;
    /** [l/ha] */
    applicationRate?: number;
    ptoPowerKw?: number;
    fuelUseWorkingLph?: number;
    fuelUseNonWorkingLph?: number;
    fuelUseIdleLph?: number;
    fuelEmissionFactorKgPerL?: number;
    cost?: Machine['cost'];
    /** [%] */
    maxCrossSlopePercent?: number;
  };
  machine?: { widthMeters?: number };
  headland?: { passes?: number };
  trackBearing?: number;
  trackDirection?: 'Auto' | 'Contour';
  tracks?: { preferredDirectionDegrees?: number };
  extendTracks?: boolean;
  useDecomposition?: boolean;
  useCrossHatches?: boolean;
  trackType?: 'Straight' | 'Curved' | 'Spiral';
  curvedOptions?: { levelOfSmoothing?: number; smoothingIterations?: number; minAngleToSmooth?: number };
  referenceLine?: number[][];
  usePassable?: boolean;
  routeOptions?: {
    algorithm?: string;
    skipCount?: number;
    objective?: NonNullable<PlanRequest['route']>['objective'];
    headlandsFirst?: boolean;
    forcedDirection?: 'CW' | 'CCW';
    enableHeadlandDrivethrough?: boolean;
    calculateRefillPoints?: boolean;
    stagingArea?: number[];
    refillStrategyType?: NonNullable<PlanRequest['route']>['refillStrategyType'];
    startPointNodeIndex?: number;
    endPointNodeIndex?: number;
    maxOptimizerTime?: number;
  };
}

export interface FieldError {
  /** JSON pointer into the request body. */
  path: string;
  message: string;
}

/** Default time cap [s] (spec: maxOptimizerTime default 10). */
export const DEFAULT_MAX_OPTIMIZER_TIME_S = 10;

export interface DirectRequest {
  plan: PlanRequest;
  boundary: BoundaryInput;
  /** Pointer of the boundary in the body ('/boundary' or '/field'). */
  boundaryPath: string;
  operationType: string;
  pathPlanName: string;
  /** Time cap [s]. */
  maxOptimizerTime: number;
}

export type ReadResult = { ok: true; request: DirectRequest } | { ok: false; errors: FieldError[] };

export function readDirectRequest(body: DirectRequestBody): ReadResult {
  const errors: FieldError[] = [];
  const pick = <T>(
    a: [string, T | undefined],
    b: [string, T | undefined],
    required: string | null,
  ): T | undefined => {
    if (a[1] !== undefined && b[1] !== undefined) {
      errors.push({ path: b[0], message: `give either ${a[0]} or ${b[0]}, not both (they mean the same)` });
      return undefined;
    }
    const v = a[1] ?? b[1];
    if (v === undefined && required) errors.push({ path: a[0], message: required });
    return v;
  };
  const boundary = pick<BoundaryInput>(
    ['/boundary', body.boundary],
    ['/field', body.field],
    'the field is required: give boundary (or field in the quick-start outline)',
  );
  if (body.equipment !== undefined && body.machine !== undefined) {
    errors.push({ path: '/machine', message: 'give either equipment or machine, not both' });
  }
  const swathWidth = body.equipment?.swathWidth ?? body.machine?.widthMeters;
  if (swathWidth === undefined && body.equipment === undefined && body.machine === undefined) {
    errors.push({
      path: '/equipment/swathWidth',
      message:
        'the swath width is required: give equipment.swathWidth (or machine.widthMeters in the quick-start outline)',
    });
  }
  const exterior = pick<number>(
    ['/exteriorHeadlandPasses', body.exteriorHeadlandPasses],
    ['/headland/passes', body.headland?.passes],
    null,
  );
  const bearing = pick<number>(
    ['/trackBearing', body.trackBearing],
    ['/tracks/preferredDirectionDegrees', body.tracks?.preferredDirectionDegrees],
    null,
  );
  if (errors.length || boundary === undefined || swathWidth === undefined) return { ok: false, errors };
  const eq = body.equipment;
  const machine: PlanRequest['machine'] = { swathWidth };
  if (eq?.minTurningRadius !== undefined) machine.minTurningRadius = eq.minTurningRadius;
  if (eq?.workingSpeed !== undefined) machine.workingSpeed = eq.workingSpeed;
  if (eq?.turningSpeed !== undefined) machine.turningSpeed = eq.turningSpeed;
  if (eq?.trackWidths !== undefined) machine.trackWidths = [...eq.trackWidths];
  if (eq?.tireWidths !== undefined) machine.tireWidths = [...eq.tireWidths];
  if (eq?.tankCapacity !== undefined) machine.tankCapacity = eq.tankCapacity;
  if (eq?.maxCurvatureRate !== undefined) machine.maxCurvatureRate = eq.maxCurvatureRate;
  // l/ha on the wire, l/m^2 in the planner.
  if (eq?.applicationRate !== undefined) machine.applicationRate = eq.applicationRate / 10_000;
  for (const k of [
    'ptoPowerKw',
    'fuelUseWorkingLph',
    'fuelUseNonWorkingLph',
    'fuelUseIdleLph',
    'fuelEmissionFactorKgPerL',
  ] as const) {
    if (eq?.[k] !== undefined) machine[k] = eq[k];
  }
  if (eq?.cost !== undefined) machine.cost = { ...eq.cost };
  if (eq?.maxCrossSlopePercent !== undefined) machine.maxCrossSlopePercent = eq.maxCrossSlopePercent;
  const ro = body.routeOptions;
  const plan: PlanRequest = {
    boundary: planningBoundary(boundary),
    machine,
    exteriorHeadlandPasses: exterior ?? 0,
    interiorHeadlandPasses: body.interiorHeadlandPasses ?? 0,
    route: { algorithm: (ro?.algorithm ?? 'auto') as RouteAlgorithm },
  };
  if (ro?.skipCount !== undefined) plan.route!.skipCount = ro.skipCount;
  if (ro?.objective !== undefined) plan.route!.objective = ro.objective;
  if (ro?.headlandsFirst === true) plan.route!.headlandsFirst = true;
  if (ro?.forcedDirection !== undefined) plan.route!.forcedDirection = ro.forcedDirection;
  if (ro?.enableHeadlandDrivethrough === true) plan.route!.enableHeadlandDrivethrough = true;
  if (ro?.calculateRefillPoints === true) plan.route!.calculateRefillPoints = true;
  if (ro?.stagingArea !== undefined) plan.route!.stagingArea = [ro.stagingArea[0], ro.stagingArea[1]];
  if (ro?.refillStrategyType !== undefined) plan.route!.refillStrategyType = ro.refillStrategyType;
  if (bearing !== undefined) plan.preferredBearingDeg = bearing;
  if (body.trackDirection === 'Contour') plan.trackDirection = 'Contour';
  if (body.extendTracks === true) plan.extendTracks = true;
  if (body.useDecomposition === false) plan.decomposition = false;
  if (body.useCrossHatches === true) plan.useCrossHatches = true;
  if (body.trackType !== undefined) plan.trackType = body.trackType;
  if (body.curvedOptions !== undefined) plan.curvedOptions = { ...body.curvedOptions };
  if (body.referenceLine !== undefined)
    plan.referenceLine = body.referenceLine.map((p) => [p[0], p[1]] as [number, number]);
  if (body.usePassable === false) plan.usePassable = false;
  if (ro?.startPointNodeIndex !== undefined) plan.route!.startPointNodeIndex = ro.startPointNodeIndex;
  if (ro?.endPointNodeIndex !== undefined) plan.route!.endPointNodeIndex = ro.endPointNodeIndex;
  return {
    ok: true,
    request: {
      plan,
      boundary,
      boundaryPath: body.boundary !== undefined ? '/boundary' : '/field',
      operationType: body.operationType ?? DEFAULT_OPERATION_TYPE,
      pathPlanName: planName(boundary),
      maxOptimizerTime: ro?.maxOptimizerTime ?? DEFAULT_MAX_OPTIMIZER_TIME_S,
    },
  };
}

/** The plan's name: the first feature's `properties.name` when it is a short string. */
function planName(b: BoundaryInput): string {
  const props =
    b.type === 'Feature'
      ? b.properties
      : b.type === 'FeatureCollection'
        ? (b.features[0]?.properties ?? null)
        : null;
  const name = props && typeof props === 'object' ? (props as Record<string, unknown>).name : undefined;
  return typeof name === 'string' && name.trim() && name.length <= 200 ? name.trim() : 'Direct plan';
}

/**
 * The boundary as the planner needs it: geometry and the one property it
 * reads (`passable`). Free-form properties are dropped, so nothing a client
 * nests in them travels to the worker.
 */
export function planningBoundary(b: BoundaryInput): unknown {
  const feature = (f: { geometry: unknown; properties?: Record<string, unknown> | null }) => ({
    type: 'Feature',
    geometry: f.geometry,
    properties: f.properties && f.properties.passable === true ? { passable: true } : {},
  });
  if (b.type === 'Feature') return feature(b as never);
  if (b.type === 'FeatureCollection')
    return { type: 'FeatureCollection', features: b.features.map((f) => feature(f as never)) };
  return { type: b.type, coordinates: b.coordinates };
}
