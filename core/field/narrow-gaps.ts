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
import { multiPolygonArea, polygonArea } from '../geometry/polygon.ts';
import type { Polygon } from '../types/index.ts';

/** Gaps between an obstacle and the field edge or another obstacle narrower than this part the field [m]. */
export const MIN_GAP = 1;
/** ... where each side holds at least this much [m^2] (less is a crumb, not a side). */
const MIN_SIDE = 100;
/** Sides are taken as parts only if they hold all of the part but this share (crumbs in the gaps). */
const MAX_LOST_SHARE = 1e-3;

export interface NarrowSplit {
  /** The sides, each a part of its own; the part itself where it is not cut. */
  parts: Polygon[];
  /** The narrowest gap between an obstacle and the edge or another obstacle, where an obstacle cuts the part [m]. */
  gap?: number;
  /** The part's own edge pinches it in two (it narrows to under MIN_GAP where its sides meet). */
  pinched?: boolean;
}

/**
 * The part cut at gaps narrower than MIN_GAP between its obstacles and its
 * edge (or each other), else where its own edge pinches it to less than
 * that (two blocks drawn as one outline that meet at a corner, say).
 */
export function splitAtNarrowGaps(part: Polygon): NarrowSplit {
  if (part.holes.length) {
    const obstacles = part.holes.map((h) => ({ outer: h.slice().reverse(), holes: [] }));
    const closed = offset(obstacles, MIN_GAP);
    const parts = grownBack(part, difference([{ outer: part.outer, holes: [] }], closed), MIN_GAP);
    if (parts) return { parts, gap: narrowestGap(part) };
  }
  // Eroded by half the gap, the part falls apart where it is narrower.
  const parts = grownBack(part, offset([part], -MIN_GAP / 2), MIN_GAP / 2);
  return parts ? { parts, pinched: true } : { parts: [part] };
}

/**
 * The sides of a part (its pieces less a margin m) grown back over the
 * margin, in the part; where two meet, the first takes it. Undefined unless
 * there are two sides or more and they hold all of the part but crumbs in
 * the gaps.
 */
function grownBack(part: Polygon, pieces: readonly Polygon[], m: number): Polygon[] | undefined {
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
  const whole = multiPolygonArea([part]);
  if (parts.length < 2 || whole - multiPolygonArea(parts) > MAX_LOST_SHARE * whole) return undefined;
  return parts;
}

/** The least distance from an obstacle's vertex to the edge or another obstacle, under MIN_GAP [m]. */
function narrowestGap(part: Polygon): number {
  let gap = MIN_GAP;
  part.holes.forEach((h, i) => {
    const others = new EdgeIndex([part.outer, ...part.holes.filter((_, j) => j !== i)]);
    for (const p of h) gap = Math.min(gap, others.distance(p, MIN_GAP));
  });
  return gap;
}
