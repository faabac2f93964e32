/**
 * Corridor passes in a zone's plan: where the route leaves much of the zone
 * unworked, the route with its corridors worked (corridor-passes.ts) is
 * taken, and the zone's parts, workable area and statistics follow it.
 */
import { bufferLines, intersection, union } from '../geometry/clip.ts';
import type { PathPart, PlanStats, Polygon } from '../types/index.ts';
import type { RouteResult } from './route-types.ts';

/** Half-width of the band round a corridor pass taken into the workable area [m]. */
const CENTRE_BAND = 0.25;
/** Routes covering less than this share of the zone [%] are looked at for corridors. */
const CORRIDOR_COVERED_PERCENT = 97;

export interface ZoneCorridorInput {
  route: RouteResult;
  /** The zone's parts: guidance first, the route's driven parts (with sequence) last; changed in place. */
  parts: PathPart[];
  workable: Polygon[];
  /** The worked field of the zone (the zone less obstacles and passable areas). */
  field: readonly Polygon[];
  /** Number of the zone's tracks (corridor passes are numbered on from it). */
  firstIndex: number;
  stats: PlanStats;
  statsOf: (parts: readonly PathPart[], workable: readonly Polygon[]) => PlanStats;
}

/**
 * Where the route leaves much of the zone unworked, the route with its
 * corridors worked (withCorridors), taken when it covers more: the zone's
 * parts gain the passes' guidance tracks and the route's new parts, the
 * workable area the corridors, and the statistics are measured again.
 */
export function withZoneCorridors(z: ZoneCorridorInput): {
  route: RouteResult;
  workable: Polygon[];
  stats: PlanStats;
} {
  const same = { route: z.route, workable: z.workable, stats: z.stats };
  if (!z.route.withCorridors || z.stats.coveredPercent >= CORRIDOR_COVERED_PERCENT) return same;
  const route = z.route.withCorridors();
  const c = route.corridors;
  if (!c || route.failures > z.route.failures) return same;
  const driven = z.parts.findIndex((p) => p.sequence !== undefined);
  const parts = z.parts.slice();
  parts.splice(
    driven < 0 ? z.parts.length : driven,
    z.parts.length,
    ...c.guidance.map(
      (line, k): PathPart => ({
        type: 'GuidanceTrack',
        points: line.slice(),
        working: false,
        trackIndex: z.firstIndex + k,
      }),
    ),
    ...route.parts.map((p) => ({ ...p, sequence: 0 })),
  );
  // The corridors, and a narrow band round each pass (its centre line may
  // stray a little from the corridor), join the area tracks work.
  const band = bufferLines(c.guidance, CENTRE_BAND, 'butt');
  const workable = union(z.workable, intersection([...c.areas, ...band], z.field));
  const stats = z.statsOf(parts, workable);
  // A route that reaches its corridors by leaving other ground unworked is not taken.
  if (stats.coveredPercent <= z.stats.coveredPercent) return same;
  z.parts.splice(0, z.parts.length, ...parts);
  return { route, workable, stats };
}
