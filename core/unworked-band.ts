/**
 * The workable area of a zone with the band of any headland pass that does
 * not go round added to it (the tracks work it instead).
 */
import { difference, offset, union } from './geometry/clip.ts';
import { polygonArea } from './geometry/polygon.ts';
import { ringLength } from './geometry/vec.ts';
import { type HeadlandResult, type HeadlandRing, ringSwaths } from './headland/generate-headlands.ts';
import type { Polygon } from './types/index.ts';

/**
 * The workable area, and where the field is too narrow for a headland pass
 * to go round, the band that pass would have worked: a narrow strip or
 * neck of the field that no driven pass reaches is worked by tracks instead
 * of being left out. Tracks there keep half a swath off the field edge and
 * obstacles (where no exterior pass goes round, the band reaches the edge
 * and the tracks' swaths do); slivers (narrower than 3 m or a
 * half swath, under 4 w^2 beside a workable area, under w^2 and 100 m^2
 * where there is none) are left.
 */
export function withUnworkedBand(headlands: HeadlandResult, zone: Polygon, w: number): Polygon[] {
  const workable = headlands.workable;
  // Where every pass goes round (nearly) as far as its exact centre line, no band is left out.
  const length = (rings: readonly HeadlandRing[]) => rings.reduce((a, r) => a + ringLength(r.ring), 0);
  if (
    workable.length &&
    length(headlands.drivenExterior) >= 0.9 * length(headlands.exterior) &&
    length(headlands.drivenInterior) >= 0.9 * length(headlands.interior)
  )
    return workable;
  // No exterior pass goes round at all: the part is a strip worked by tracks
  // alone, lengthwise across its whole width (its tracks half a swath inside
  // the edge). Otherwise the band lies inside the passes that do go round,
  // and keeps half a swath off the edge besides.
  const base = headlands.drivenExterior.length ? offset([zone], -w / 2, 'round', 0.05) : [zone];
  const band = difference(base, [
    ...workable,
    ...ringSwaths(
      [...headlands.drivenExterior, ...headlands.drivenInterior].map((r) => r.ring),
      w,
    ),
  ]);
  if (band.length === 0) return workable;
  // Small pieces beside a workable area are mostly corners outside a rounded
  // pass, which the route drives square: only larger ones get tracks there.
  const minArea = workable.length ? 4 * w * w : Math.max(100, w * w);
  const r = Math.min(w / 4, 1.5);
  const opened = offset(offset(band, -r), r).filter((p) => polygonArea(p) >= minArea);
  if (opened.length === 0) return workable;
  return workable.length ? union(workable, opened) : opened;
}
