/**
 * The slopes of an area (a field's boundary) from an elevation sampler:
 * the ground's gradient at the points of a grid over the area, `step`
 * metres apart (default the sampler's cell size, at least 1 m, and coarser
 * where the area would need more than MAX_AREA_SAMPLES points). Each point
 * stands for step^2 of ground; a point where the ground is unknown is
 * counted apart, never averaged.
 */

import { hypot } from '../geometry/vec.ts';
import type { Polygon } from '../types/index.ts';
import { type ElevationSampler, gradientReader } from './slopes.ts';

export const MAX_AREA_SAMPLES = 250_000;

export interface AreaSlopes {
  /** Grid spacing [m]. */
  step: number;
  samples: number;
  noDataSamples: number;
  /** The following are present when samples > 0 [%]. */
  meanSlopePercent?: number;
  maxSlopePercent?: number;
  /** Slope exceeded by a tenth of the area [%]. */
  p90SlopePercent?: number;
  minElevation?: number;
  maxElevation?: number;
  /** Share of the area with known ground steeper than 2, 5 and 10 % [%]. */
  areaShareAbove2Percent?: number;
  areaShareAbove5Percent?: number;
  areaShareAbove10Percent?: number;
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * Visits the points of a grid over an area (cell centres of a grid
 * aligned with its bounding box) that lie inside it, with the ground's
 * elevation and gradient there (`out`: z, dz/dx, dz/dy), or null where
 * the ground is unknown. The spacing is `minStep`, or coarser so that the
 * bounding box holds at most `maxPoints`; answers the spacing. The
 * polygons are disjoint (a field, the parts of a workable area): a row of
 * the grid is inside between its crossings with their rings, taken in
 * pairs (even-odd, so holes stay out).
 */
export function walkGround(
  area: readonly Polygon[],
  ground: ElevationSampler,
  minStep: number,
  maxPoints: number,
  visit: (out: Float64Array | null) => void,
): number {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of area) {
    for (const q of p.outer) {
      minX = Math.min(minX, q.x);
      minY = Math.min(minY, q.y);
      maxX = Math.max(maxX, q.x);
      maxY = Math.max(maxY, q.y);
    }
  }
  const box = Math.max(0, (maxX - minX) * (maxY - minY));
  const s = Math.max(minStep, Math.sqrt(box / maxPoints));
  const read = gradientReader(ground);
  const out = new Float64Array(3);
  const rings = area.flatMap((p) => [p.outer, ...p.holes]);
  const xs: number[] = [];
  for (let y = minY + s / 2; y < maxY; y += s) {
    // The row's crossings with every ring: inside between the 1st and 2nd, the 3rd and 4th, ...
    xs.length = 0;
    for (const ring of rings) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const a = ring[i];
        const b = ring[j];
        if (a.y > y !== b.y > y) xs.push(a.x + ((y - a.y) * (b.x - a.x)) / (b.y - a.y));
      }
    }
    xs.sort((u, v) => u - v);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const first = Math.max(0, Math.floor((xs[k] - minX - s / 2) / s) + 1);
      for (let x = minX + s / 2 + first * s; x < xs[k + 1] && x < maxX; x += s) {
        visit(read(x, y, out) ? out : null);
      }
    }
  }
  return s;
}

export function areaSlopes(area: readonly Polygon[], ground: ElevationSampler, step?: number): AreaSlopes {
  const slopes: number[] = [];
  let unknown = 0;
  let minZ = Infinity;
  let maxZ = -Infinity;
  const s = walkGround(area, ground, step ?? Math.max(1, ground.cellSize), MAX_AREA_SAMPLES, (out) => {
    if (!out) {
      unknown++;
      return;
    }
    slopes.push(100 * hypot(out[1], out[2]));
    if (out[0] < minZ) minZ = out[0];
    if (out[0] > maxZ) maxZ = out[0];
  });
  const n = slopes.length;
  const a: AreaSlopes = { step: r3(s), samples: n, noDataSamples: unknown };
  if (n === 0) return a;
  const sorted = Float64Array.from(slopes).sort();
  const share = (limit: number) => r3((100 * slopes.filter((v) => v > limit).length) / n);
  return {
    ...a,
    meanSlopePercent: r3(slopes.reduce((t, v) => t + v, 0) / n),
    maxSlopePercent: r3(sorted[n - 1]),
    p90SlopePercent: r3(sorted[Math.min(n - 1, Math.floor(0.9 * n))]),
    minElevation: r3(minZ),
    maxElevation: r3(maxZ),
    areaShareAbove2Percent: share(2),
    areaShareAbove5Percent: share(5),
    areaShareAbove10Percent: share(10),
  };
}
