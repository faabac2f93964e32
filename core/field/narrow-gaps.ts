/**
 * Field parts an obstacle cuts in two but for gaps no machine passes: a
 * ditch or a hedge drawn as an obstacle that stops less than a metre short
 * of the field edge at both ends, say; or whose own edge pinches them so
 * (two blocks drawn as one outline that touch at a corner). Planned as one
 * part, the route cannot reach the far side (no path through such a gap)
 * and leaves it all unworked; planned as parts of their own, each side is
 * worked and the machine goes round outside the field between them, as it
 * would.
 */
import { difference, intersection, offset, union } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { multiPolygonArea, polygonArea, ringBBox } from '../geometry/polygon.ts';
import type { Polygon } from '../types/index.ts';

/** Gaps between an obstacle and the field edge or another obstacle narrower than this part the field [m]. */
export const MIN_GAP = 1;
/**
 * Outside width of the machine where its axles are not given [m]: a
 * tractor for such work is about as wide as the road allows (2.55 m in
 * the EU); a gap narrower than this it does not pass.
 */
export const DEFAULT_MACHINE_WIDTH = 2.5;

/**
 * The narrowest gap the machine itself passes [m]: its outside width (the
 * widest axle's track width plus its tyre width), else DEFAULT_MACHINE_WIDTH.
 * The implement may be wider (folded or lifted to pass, its overhang reported).
 */
export function machineGap(machine: {
  trackWidths: readonly number[];
  tireWidths: readonly number[];
}): number {
  let width = 0;
  machine.trackWidths.forEach((t, i) => {
    width = Math.max(width, t + (machine.tireWidths[i] ?? machine.tireWidths[0] ?? 0));
  });
  return width > 0 ? Math.max(MIN_GAP, width) : DEFAULT_MACHINE_WIDTH;
}
/** ... where each side holds at least this much [m^2] (less is a crumb, not a side). */
const MIN_SIDE = 100;
/** Sides are taken as parts only if they hold all of the part but this share (crumbs in the gaps). */
const MAX_LOST_SHARE = 1e-3;

export interface NarrowSplit {
  /** The sides, each a part of its own; the part itself where it is not cut. */
  parts: Polygon[];
  /** The narrowest gap between an obstacle and the edge or another obstacle, where an obstacle cuts the part [m]. */
  gap?: number;
  /** The part's own edge pinches it in two (it narrows to under the gap cut at where its sides meet). */
  pinched?: boolean;
}

/**
 * The part cut at gaps narrower than `passes` (the machine's width,
 * machineGap) between its obstacles and its edge (or each other), else
 * where its own edge pinches it to less than that (two blocks drawn as
 * one outline joined by a strip narrower than the machine, say). What the
 * sides grown back do not reach of such a strip joins the side it touches
 * first (no pass fits it: it stays unworked, and is reported so). Where no
 * such cut is found, cut at MIN_GAP, losing only crumbs.
 */
export function splitAtNarrowGaps(part: Polygon, passes = MIN_GAP): NarrowSplit {
  if (passes > MIN_GAP) {
    const split = splitAt(part, passes);
    if (split.parts.length > 1) return split;
  }
  return splitAt(part, MIN_GAP);
}

function splitAt(part: Polygon, minGap: number): NarrowSplit {
  const keepAll = minGap > MIN_GAP;
  if (part.holes.length) {
    const obstacles = part.holes.map((h) => ({ outer: h.slice().reverse(), holes: [] }));
    const closed = offset(obstacles, minGap);
    const parts = grownBack(part, difference([{ outer: part.outer, holes: [] }], closed), minGap, keepAll);
    if (parts) return { parts, gap: narrowestGap(part, minGap) };
  }
  // Eroded by half the gap, the part falls apart where it is narrower.
  const parts = grownBack(part, offset([part], -minGap / 2), minGap / 2, keepAll);
  return parts ? { parts, pinched: true } : { parts: [part] };
}

/**
 * The sides of a part (its pieces less a margin m) grown back over the
 * margin, in the part; where two meet, the first takes it. With `keepAll`,
 * the rest of the part (the middle of a gap longer than the margin) joins
 * the first side it touches. Undefined unless there are two sides or more
 * and they hold all of the part but crumbs in the gaps.
 */
function grownBack(
  part: Polygon,
  pieces: readonly Polygon[],
  m: number,
  keepAll: boolean,
): Polygon[] | undefined {
  const sides = pieces.filter((p) => polygonArea(p) >= MIN_SIDE);
  if (sides.length < 2) return undefined;
  const parts: Polygon[] = [];
  let taken: Polygon[] = [];
  for (const s of sides) {
    let mine = intersection([part], offset([s], m + 0.01));
    if (taken.length) mine = difference(mine, taken);
    parts.push(...mine.filter((p) => polygonArea(p) >= MIN_SIDE));
    taken = union(taken, mine);
  }
  if (keepAll && parts.length >= 2) {
    for (const rest of difference([part], parts)) {
      const near = offset([rest], 0.01);
      const box = ringBBox(near[0]?.outer ?? rest.outer);
      for (let j = 0; j < parts.length; j++) {
        const b = ringBBox(parts[j].outer);
        if (b.minX > box.maxX || b.maxX < box.minX || b.minY > box.maxY || b.maxY < box.minY) continue;
        if (intersection([parts[j]], near).length === 0) continue;
        // (Touching at a point only, the two stay apart: the next side it touches.)
        const joined = union([parts[j]], [rest]);
        if (joined.length !== 1) continue;
        parts[j] = joined[0];
        break;
      }
    }
  }
  const whole = multiPolygonArea([part]);
  if (parts.length < 2 || whole - multiPolygonArea(parts) > MAX_LOST_SHARE * whole) return undefined;
  return parts;
}

/** The least distance from an obstacle's vertex to the edge or another obstacle, under minGap [m]. */
function narrowestGap(part: Polygon, minGap: number): number {
  let gap = minGap;
  part.holes.forEach((h, i) => {
    const others = new EdgeIndex([part.outer, ...part.holes.filter((_, j) => j !== i)]);
    for (const p of h) gap = Math.min(gap, others.distance(p, minGap));
  });
  return gap;
}
