/**
 * Tracks along the contour: the track direction with the least
 * along-track slope over an area, from an elevation sampler.
 *
 * The ground's gradient g is read at the points of a grid over the area
 * (about CONTOUR_GRID_POINTS of them, never closer than the sampler's cell
 * size). A heading h (unit vector t) is scored by the root mean square of
 * g . t over those points: 0 where every track runs level, |g| where it
 * runs straight up the slope. The headings tried are the planner's usual
 * direction candidates (long edges, hull edges, every 2 degrees), and
 * around the best of them finer and finer steps down to a hundredth of a
 * degree.
 *
 * On a plane the minimum is exactly at right angles to the gradient, where
 * the mean |along-track slope| is 0 too. On curved ground the square
 * weighs steep stretches more than the plain mean would: in a valley whose
 * floor falls gently between steep sides the tracks run down the valley
 * (the plain mean would slant them across, level on one side and twice as
 * steep on the other).
 */
import { headingToBearingDeg, hypot } from '../geometry/vec.ts';
import type { Polygon } from '../types/index.ts';
import { walkGround } from './area-slopes.ts';
import type { ElevationSampler } from './slopes.ts';

/** Grid points the gradient is read at over an area (about). */
export const CONTOUR_GRID_POINTS = 2500;
/** Ground flatter than this on average [%] has no contour worth following. */
export const CONTOUR_MIN_SLOPE_PERCENT = 0.5;
/** Share of the grid points that must have known ground. */
export const CONTOUR_MIN_KNOWN_SHARE = 0.5;

export interface ContourDirection {
  /** Heading of the tracks [rad, CCW from east, in [0, pi)]. */
  heading: number;
  /** The same as a bearing [deg clockwise from north, in [0, 180)]. */
  bearingDeg: number;
  /** Mean |along-track slope| of tracks in that direction over the area [%] (the search minimises its root mean square). */
  meanAlongPercent: number;
  /** Mean steepest slope of the area [%]. */
  meanSlopePercent: number;
  /** Grid points with known ground, and without. */
  samples: number;
  noDataSamples: number;
  /**
   * Why the contour cannot be followed (too few points with ground, or
   * ground too flat); `heading` is then the best of a useless search and
   * the caller plans its usual direction.
   */
  unusable?: string;
}

/** The gradients (dz/dx, dz/dy pairs) at the grid points of the area with known ground. */
function sampleGradients(
  area: readonly Polygon[],
  ground: ElevationSampler,
): { g: Float64Array; n: number; unknown: number } {
  const g: number[] = [];
  let unknown = 0;
  // About CONTOUR_GRID_POINTS points over the bounding box, never closer than the DEM's cells.
  walkGround(area, ground, ground.cellSize, CONTOUR_GRID_POINTS, (out) => {
    if (out) g.push(out[1], out[2]);
    else unknown++;
  });
  return { g: Float64Array.from(g), n: g.length / 2, unknown };
}

/** Mean |g . t| of heading h over the gradients [%]. */
function meanAlong(g: Float64Array, n: number, h: number): number {
  const c = Math.cos(h);
  const s = Math.sin(h);
  let sum = 0;
  for (let i = 0; i < 2 * n; i += 2) sum += Math.abs(g[i] * c + g[i + 1] * s);
  return (100 * sum) / n;
}

/** Mean (g . t)^2 of any heading from the gradients' second moments: xx c^2 + 2 xy c s + yy s^2. */
function moments(g: Float64Array, n: number): (h: number) => number {
  let xx = 0;
  let xy = 0;
  let yy = 0;
  for (let i = 0; i < 2 * n; i += 2) {
    xx += g[i] * g[i];
    xy += g[i] * g[i + 1];
    yy += g[i + 1] * g[i + 1];
  }
  return (h) => {
    const c = Math.cos(h);
    const s = Math.sin(h);
    return (xx * c * c + 2 * xy * c * s + yy * s * s) / n;
  };
}

const fold = (h: number) => {
  let r = h % Math.PI;
  if (r < 0) r += Math.PI;
  return r >= Math.PI - 1e-12 ? 0 : r;
};

/**
 * The contour direction of `area` among `candidates` (headings [rad]),
 * refined around the best; `unusable` says when the area has too little
 * known ground or is too flat for it to mean anything.
 */
export function contourDirection(
  area: readonly Polygon[],
  ground: ElevationSampler,
  candidates: readonly number[],
): ContourDirection {
  const { g, n, unknown } = sampleGradients(area, ground);
  const total = n + unknown;
  const base = { samples: n, noDataSamples: unknown };
  if (n === 0 || n < CONTOUR_MIN_KNOWN_SHARE * total) {
    return {
      heading: 0,
      bearingDeg: 90,
      meanAlongPercent: 0,
      meanSlopePercent: 0,
      ...base,
      unusable: `the elevation model knows the ground at ${n} of ${total} points of the area (at least ${CONTOUR_MIN_KNOWN_SHARE * 100} % needed)`,
    };
  }
  let slope = 0;
  for (let i = 0; i < 2 * n; i += 2) slope += hypot(g[i], g[i + 1]);
  const meanSlopePercent = (100 * slope) / n;
  const score = moments(g, n);
  let best = fold(candidates[0] ?? 0);
  let bestScore = score(best);
  for (const c of candidates) {
    const h = fold(c);
    const v = score(h);
    if (v < bestScore) {
      bestScore = v;
      best = h;
    }
  }
  // Around the best: the 2-degree grid's neighbours, then ever finer steps.
  for (const stepDeg of [1, 0.25, 0.05, 0.01]) {
    const step = (stepDeg * Math.PI) / 180;
    let improved = true;
    while (improved) {
      improved = false;
      for (const k of [-1, 1]) {
        const h = fold(best + k * step);
        const v = score(h);
        if (v < bestScore - 1e-12) {
          bestScore = v;
          best = h;
          improved = true;
        }
      }
    }
  }
  const r3 = (v: number) => Math.round(v * 1000) / 1000;
  return {
    heading: best,
    bearingDeg: headingToBearingDeg(best) % 180,
    meanAlongPercent: r3(meanAlong(g, n, best)),
    meanSlopePercent: r3(meanSlopePercent),
    ...base,
    ...(meanSlopePercent < CONTOUR_MIN_SLOPE_PERCENT
      ? {
          unusable: `the ground is nearly level (mean slope ${meanSlopePercent.toFixed(2)} %, below ${CONTOUR_MIN_SLOPE_PERCENT} %)`,
        }
      : {}),
  };
}
