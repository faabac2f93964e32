/**
 * Strips: field parts no headland pass goes round, worked by tracks alone.
 * Where such a strip bends, straight tracks in one direction break into short pieces
 * across the bend and leave much of it unworked, and turn over its edge at
 * every end; a farmer drives it lengthwise instead. Three plans along the
 * strip are tried beside the straight one:
 *
 *   curved tracks     level sets of the longest smooth run of its edge
 *                     (core/tracks/curved-tracks.ts), for strips several
 *                     swaths wide that bend gently;
 *   lanes by offsets  the sides of the strip's inward offsets, half a swath
 *                     in and a swath further each (core/tracks/strip-lanes.ts):
 *                     they follow the edge through bends and hooks;
 *   lanes by corridor passes down the strip's corridors, half a swath inside
 *                     either side or one down the middle
 *                     (core/tracks/centre-line-passes.ts), as the route
 *                     works corridors it leaves.
 *
 * Of the plans that leave no more route gaps and cover within STRIP_SPREAD
 * of the most any covers, the one that costs least is taken (cost: below);
 * the straight plan only gives way to one that costs clearly less. Only where
 * straight tracks were not asked for explicitly (by a direction, the
 * contour, extended tracks or crosshatches) and cover less than
 * STRIP_COVERED of the part.
 */
import { PlanningError, type PlanOptions, type Zone } from './types/index.ts';

/** Straight tracks alone covering less than this share of a part: plans along it are tried. */
const STRIP_COVERED = 0.97;
/** A plan along the strip is taken where it costs at least this share less than the straight one. */
const STRIP_SAVING = 0.1;
/** Plans covering less than the one that covers most by more than this share of the part are not taken. */
const STRIP_SPREAD = 0.03;
/**
 * What a plan of a strip costs, as area [m2]: the ground it leaves unworked,
 * half the ground it works twice (input applied twice, time spent on it),
 * the ground the implement could have worked while the machine drove empty
 * (a quarter: driving empty is quicker than working), and the implement's
 * width over the edge along every metre of turn overhang.
 */
const OVERLAP_COST = 0.5;
const NON_WORKING_COST = 0.25;
const OVERHANG_COST = 1;

type Plan = Zone[] | PlanningError;

/** Lanes along a strip: the sides of its inward offsets, or passes down its corridors. */
export type StripLanes = 'offsets' | 'corridors';

/**
 * The plan of a part along its strip where one pays: of the plans within
 * STRIP_SPREAD of the best coverage, the least costly, `straight` kept
 * unless another costs STRIP_SAVING less; `plan` plans the part with other
 * options, as lanes when asked.
 */
export function alongStrip(
  straight: Plan,
  plan: (options: PlanOptions, lanes?: StripLanes) => Plan,
  options: PlanOptions,
  index: number,
): Plan {
  if (
    straight instanceof PlanningError ||
    (options.trackType ?? 'Straight') !== 'Straight' ||
    options.preferredBearingDeg !== undefined ||
    options.trackDirection === 'Contour' ||
    options.extendTracks ||
    options.useCrossHatches
  )
    return straight;
  // A pass round an obstacle in the strip does not make it less of a strip.
  const passes = straight.some((z) =>
    z.groups[z.activeGroup].parts.some((p) => p.type === 'ExteriorHeadlandPass'),
  );
  const field = straight.reduce((a, z) => a + z.stats.fieldArea, 0);
  if (passes || field <= 0 || covered(straight) >= STRIP_COVERED * field) return straight;
  const w = options.machine.swathWidth;
  const cost = (zs: Zone[]) =>
    zs.reduce(
      (a, z) =>
        a +
        (z.stats.fieldArea - z.stats.coveredArea) +
        OVERLAP_COST * z.stats.overlapArea +
        NON_WORKING_COST * w * z.stats.nonWorkingDistance +
        OVERHANG_COST * w * (z.audit?.overhangLength ?? 0),
      0,
    );
  const gaps = (zs: Zone[]) => zs.reduce((a, z) => a + (z.routeFailures ?? 0), 0);
  const candidates: { plan: Zone[]; name: string }[] = [];
  const consider = (plan: Plan, name: string) => {
    if (!(plan instanceof PlanningError) && gaps(plan) <= gaps(straight)) candidates.push({ plan, name });
  };
  const curved = plan({ ...options, trackType: 'Curved' });
  if (
    !(curved instanceof PlanningError) &&
    curved.every((z) => z.groups[z.activeGroup].trackType === 'Curved')
  )
    consider(curved, 'curved tracks along it');
  for (const how of ['offsets', 'corridors'] as const) consider(plan(options, how), 'passes along it');
  // Coverage first: only plans within STRIP_SPREAD of the best coverage
  // compete, on cost; the straight plan keeps its place unless one costs
  // clearly less.
  const most = Math.max(covered(straight), ...candidates.map((c) => covered(c.plan)));
  const near = (zs: Zone[]) => covered(zs) >= most - STRIP_SPREAD * field;
  let best = straight;
  let bestCost = near(straight) ? (1 - STRIP_SAVING) * cost(straight) : Number.POSITIVE_INFINITY;
  let kind = 'straight tracks';
  for (const c of candidates) {
    if (!near(c.plan)) continue;
    const k = cost(c.plan);
    if (k < bestCost) {
      best = c.plan;
      bestCost = k;
      kind = c.name;
    }
  }
  if (best === straight) return straight;
  const pct = (zs: Zone[]) => ((100 * covered(zs)) / field).toFixed(1);
  for (const z of best) {
    z.warnings = [
      ...(z.warnings ?? []),
      `Field part ${index} is a strip no headland pass goes round; ${kind} cover ${pct(best)} % (straight tracks ${pct(straight)} %).`,
    ];
  }
  return best;
}

const covered = (zs: Zone[]) => zs.reduce((a, z) => a + z.stats.coveredArea, 0);
