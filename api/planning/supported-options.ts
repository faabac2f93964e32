/**
 * What the planner can plan today. THE one list of request options that are
 * accepted by the schema but refused with 422 OPTION_NOT_SUPPORTED; remove
 * an entry when the planner learns it. An option is never silently ignored:
 * a value is accepted only when the planner does exactly what it asks.
 */
import { ROUTE_ALGORITHMS } from '../../core/types/index.ts';
import type { DirectPlanRequest } from './schemas.ts';

export interface UnsupportedOption {
  /** JSON pointer of the option in the request. */
  path: string;
  value: unknown;
  /** What is accepted today. */
  supported: string;
}

interface Rule {
  path: string;
  get: (r: DirectPlanRequest) => unknown;
  /** true when the given (present) value is plannable (in this request). */
  ok: (v: unknown, r: DirectPlanRequest) => boolean;
  supported: string;
}

export const SUPPORTED_ROUTE_ALGORITHMS = ROUTE_ALGORITHMS;

const RULES: Rule[] = [
  {
    path: '/routeOptions/algorithm',
    get: (r) => r.routeOptions?.algorithm,
    ok: (v) => (SUPPORTED_ROUTE_ALGORITHMS as readonly unknown[]).includes(v),
    supported: SUPPORTED_ROUTE_ALGORITHMS.map((a) => `'${a}'`).join(', '),
  },
  {
    path: '/routeOptions/skipCount',
    get: (r) => r.routeOptions?.skipCount,
    ok: (_v, r) => r.routeOptions?.algorithm === 'clusteredSpiral',
    supported: "with algorithm 'clusteredSpiral' only",
  },
  {
    path: '/routeOptions/objective',
    get: (r) => r.routeOptions?.objective,
    ok: (_v, r) => r.routeOptions?.algorithm === 'optimized',
    supported: "with algorithm 'optimized' only",
  },
  {
    path: '/routeOptions/refillStrategyType',
    get: (r) => r.routeOptions?.refillStrategyType,
    ok: (_v, r) => r.routeOptions?.calculateRefillPoints === true,
    supported: 'with calculateRefillPoints true only',
  },
  {
    path: '/equipment/maxCrossSlopePercent',
    get: (r) => r.equipment?.maxCrossSlopePercent,
    ok: (_v, r) => r.includeSlopes === true,
    supported: 'with includeSlopes true only (the parts over it are flagged in their slopeDetails)',
  },
  // Supported: trackDirection (Contour where `slopes` is given), includeSlopes where `slopes` is given (422 DEM_NOT_AVAILABLE when no DEM covers the field), trackType (Straight, Curved, Spiral), curvedOptions and referenceLine (with Curved), useCrossHatches, extendTracks, usePassable, routeOptions.enableHeadlandDrivethrough, routeOptions.startPointNodeIndex, endPointNodeIndex, algorithm, headlandsFirst, forcedDirection, stagingArea, calculateRefillPoints, maxOptimizerTime (a time cap), trackBearing.
];

/**
 * includeSlopes and trackDirection 'Contour': planned by the direct
 * interface (`slopes: true`, which reads the DEMs); the other plans (jobs,
 * stored plans, re-routing) do not read DEMs while planning and refuse them.
 */
const DEM_RULES: Rule[] = [
  {
    path: '/includeSlopes',
    get: (r) => r.includeSlopes,
    ok: (v) => v === false,
    supported: 'false here (slopes are planned by POST /api/path-plans/direct and /direct/geojson)',
  },
  {
    path: '/trackDirection',
    get: (r) => r.trackDirection,
    ok: (v) => v === 'Auto',
    supported:
      "'Auto' here (tracks along the contour are planned by POST /api/path-plans/direct and /direct/geojson)",
  },
];

/** The options of a (schema-valid) request that the planner cannot honour yet (here: `slopes` says whether slopes are). */
export function unsupportedOptions(
  req: DirectPlanRequest,
  opts: { slopes?: boolean } = {},
): UnsupportedOption[] {
  const out: UnsupportedOption[] = [];
  for (const rule of opts.slopes ? RULES : [...DEM_RULES, ...RULES]) {
    const v = rule.get(req);
    if (v !== undefined && !rule.ok(v, req))
      out.push({ path: rule.path, value: v, supported: rule.supported });
  }
  return out;
}

export function describeUnsupported(list: readonly UnsupportedOption[]): string {
  const parts = list.map(
    (u) => `${u.path.slice(1).replaceAll('/', '.')} = ${JSON.stringify(u.value)} (supported: ${u.supported})`,
  );
  return `The planner cannot plan ${list.length === 1 ? 'this option' : 'these options'} yet: ${parts.join('; ')}. Remove ${list.length === 1 ? 'it' : 'them'} or use a supported value.`;
}
