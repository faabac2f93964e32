/**
 * Strips: field parts no headland pass goes round, worked by tracks alone.
 * Where such a strip bends, straight tracks in one direction break into stubs
 * across the bend and leave much of it unworked; a farmer drives it
 * lengthwise instead. Two plans along the strip are tried beside the
 * straight one:
 *
 *   curved tracks  level sets of the longest smooth run of its edge
 *                  (core/tracks/curved-tracks.ts), for strips several
 *                  swaths wide;
 *   lanes          passes down the strip's corridors, half a swath inside
 *                  either side or one down the middle
 *                  (core/tracks/centre-line-passes.ts), for strips up to
 *                  about two and a half swaths wide, whose ends and bends
 *                  level sets break.
 *
 * Only where straight tracks were not asked for explicitly (by a direction,
 * the contour, extended tracks or crosshatches) and cover less than
 * STRIP_COVERED of the part.
 */
import { PlanningError, type PlanOptions, type Zone } from './types/index.ts';

/** Straight tracks alone covering less than this share of a part: plans along it are tried. */
const STRIP_COVERED = 0.97;
/** ... and one is taken where it covers at least this share of the part more, with no more route gaps, ... */
const STRIP_GAIN = 0.01;
/**
 * ... or covers no less than this share of the part less and drives at most
 * this share of the turn overhang and of the non-working distance of the
 * plan it would replace (lanes keep the machine on the strip, where stubs
 * across it turn over the edge at every end).
 */
const STRIP_LOSS = 0.005;
const STRIP_CLEANER = 0.5;

type Plan = Zone[] | PlanningError;

/**
 * The plan of a part along its strip, where one covers clearly more than
 * `straight` (or about as much, far more cleanly); `plan` plans the part
 * with other options, as lanes when asked.
 */
export function alongStrip(
  straight: Plan,
  plan: (options: PlanOptions, lanes?: boolean) => Plan,
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
  let best = straight;
  let kind = 'straight tracks';
  const curved = plan({ ...options, trackType: 'Curved' });
  if (
    !(curved instanceof PlanningError) &&
    curved.every((z) => z.groups[z.activeGroup].trackType === 'Curved')
  ) {
    if (better(curved, best, field)) {
      best = curved;
      kind = 'curved tracks along it';
    }
  }
  const lanes = plan(options, true);
  if (!(lanes instanceof PlanningError) && better(lanes, best, field)) {
    best = lanes;
    kind = 'passes along it';
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
const gaps = (zs: Zone[]) => zs.reduce((a, z) => a + (z.routeFailures ?? 0), 0);
const overhang = (zs: Zone[]) => zs.reduce((a, z) => a + (z.audit?.overhangLength ?? 0), 0);
const nonWorking = (zs: Zone[]) => zs.reduce((a, z) => a + z.stats.nonWorkingDistance, 0);

/** `a` is the better plan of the strip than `b` (see STRIP_GAIN and STRIP_LOSS). */
function better(a: Zone[], b: Zone[], field: number): boolean {
  if (gaps(a) > gaps(b)) return false;
  if (covered(a) >= covered(b) + STRIP_GAIN * field) return true;
  return (
    covered(a) >= covered(b) - STRIP_LOSS * field &&
    overhang(a) <= STRIP_CLEANER * overhang(b) &&
    nonWorking(a) <= STRIP_CLEANER * nonWorking(b)
  );
}
