/**
 * Slopes of a plan's geometry parts from an elevation sampler.
 *
 * The sampler gives the ground elevation [m] at a point of the plan's
 * metric frame (NaN where it is unknown); where it comes from (a DEM file,
 * a function in a test) is no concern of the planner. Along each part,
 * sample points lie every `step` metres (at least one per segment, at the
 * middle of equal stretches); at each, the gradient of the ground comes
 * from central differences `cellSize` apart along x and y:
 *
 *   g = ((z(x+h) - z(x-h)) / 2h, (z(y+h) - z(y-h)) / 2h)
 *   slope       = |g|                 (steepest slope, any direction)
 *   along-track = g . t               (t: unit heading of the segment in the
 *                                      order of the coordinates, which is the
 *                                      direction of driving; > 0 uphill)
 *   cross-track = |g x t|             (sideways tilt, unsigned)
 *
 * all in percent (100 x rise / run). A sample whose five elevations are not
 * all known is a no-data sample: it is counted, never averaged.
 */
import type { PathPart, Plan, Point } from '../types/index.ts';

export interface ElevationSampler {
  /** Ground elevation [m] at (x, y) of the plan's metric frame [m]; NaN where unknown. */
  elevationAt(x: number, y: number): number;
  /** Ground spacing of the elevation data [m]: the half-distance of the gradient's differences. */
  readonly cellSize: number;
}

export interface SlopeOptions {
  /** Distance between sample points along a part [m] (default: the sampler's cell size, at least 1 m). */
  step?: number;
}

/** Slope figures of one geometry part (GeometryPartSlopeDetail). */
export interface SlopeDetail {
  /** Sample points with known ground. */
  samples: number;
  /** Sample points where the ground is unknown (outside the DEM or on no-data cells). */
  noDataSamples: number;
  /** The following are present when samples > 0. Mean of the steepest slope [%], weighted by length. */
  meanSlopePercent?: number;
  maxSlopePercent?: number;
  /** Mean slope in the direction of the coordinates (of driving) [%]; > 0 uphill. */
  meanAlongTrackPercent?: number;
  /** Mean sideways slope [%], unsigned. */
  meanCrossTrackPercent?: number;
  /** [m] */
  minElevation?: number;
  maxElevation?: number;
}

/** Slopes of a whole route (a zone's active group, the plan). */
export interface SlopeSummary extends SlopeDetail {
  /** Working distance over which |along-track slope| exceeds 2, 5 and 10 % [% of the working distance]. */
  workingShareAbove2Percent?: number;
  workingShareAbove5Percent?: number;
  workingShareAbove10Percent?: number;
}

export interface GroupSlopes {
  /** One per geometry part, in the order of the group's parts. */
  parts: SlopeDetail[];
}

export interface ZoneSlopes {
  groups: GroupSlopes[];
  /** Over the driven parts of the active group (all its parts when it has no route). */
  summary: SlopeSummary;
}

export interface PlanSlopes {
  zones: ZoneSlopes[];
  /** Over the zones' summaries. */
  summary: SlopeSummary;
}

/** Running sums of the samples of one or more parts. */
class Accumulator {
  samples = 0;
  noData = 0;
  weight = 0;
  slope = 0;
  along = 0;
  cross = 0;
  max = 0;
  minZ = Number.POSITIVE_INFINITY;
  maxZ = Number.NEGATIVE_INFINITY;
  working = 0;
  above2 = 0;
  above5 = 0;
  above10 = 0;

  add(o: Accumulator): void {
    this.samples += o.samples;
    this.noData += o.noData;
    this.weight += o.weight;
    this.slope += o.slope;
    this.along += o.along;
    this.cross += o.cross;
    if (o.max > this.max) this.max = o.max;
    if (o.minZ < this.minZ) this.minZ = o.minZ;
    if (o.maxZ > this.maxZ) this.maxZ = o.maxZ;
    this.working += o.working;
    this.above2 += o.above2;
    this.above5 += o.above5;
    this.above10 += o.above10;
  }

  detail(): SlopeDetail {
    const d: SlopeDetail = { samples: this.samples, noDataSamples: this.noData };
    if (this.samples === 0 || this.weight <= 0) return d;
    d.meanSlopePercent = r3(this.slope / this.weight);
    d.maxSlopePercent = r3(this.max);
    d.meanAlongTrackPercent = r3(this.along / this.weight);
    d.meanCrossTrackPercent = r3(this.cross / this.weight);
    d.minElevation = r3(this.minZ);
    d.maxElevation = r3(this.maxZ);
    return d;
  }

  summary(): SlopeSummary {
    const s: SlopeSummary = this.detail();
    if (s.meanSlopePercent === undefined) return s;
    const share = (v: number) => (this.working > 0 ? r3((100 * v) / this.working) : 0);
    s.workingShareAbove2Percent = share(this.above2);
    s.workingShareAbove5Percent = share(this.above5);
    s.workingShareAbove10Percent = share(this.above10);
    return s;
  }
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/** Samples one part into `acc`. */
function samplePart(
  points: readonly Point[],
  working: boolean,
  dem: ElevationSampler,
  step: number,
  acc: Accumulator,
) {
  const h = dem.cellSize;
  const z = (x: number, y: number) => dem.elevationAt(x, y);
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy);
    if (len < 1e-9) continue;
    const tx = dx / len;
    const ty = dy / len;
    const n = Math.max(1, Math.ceil(len / step - 1e-9));
    const w = len / n;
    for (let k = 0; k < n; k++) {
      const f = (k + 0.5) / n;
      const x = a.x + dx * f;
      const y = a.y + dy * f;
      const z0 = z(x, y);
      const gx = (z(x + h, y) - z(x - h, y)) / (2 * h);
      const gy = (z(x, y + h) - z(x, y - h)) / (2 * h);
      if (!Number.isFinite(z0) || !Number.isFinite(gx) || !Number.isFinite(gy)) {
        acc.noData++;
        continue;
      }
      const slope = 100 * Math.hypot(gx, gy);
      const along = 100 * (gx * tx + gy * ty);
      const cross = 100 * Math.abs(gx * ty - gy * tx);
      acc.samples++;
      acc.weight += w;
      acc.slope += slope * w;
      acc.along += along * w;
      acc.cross += cross * w;
      if (slope > acc.max) acc.max = slope;
      if (z0 < acc.minZ) acc.minZ = z0;
      if (z0 > acc.maxZ) acc.maxZ = z0;
      if (working) {
        acc.working += w;
        const aa = Math.abs(along);
        if (aa > 2) acc.above2 += w;
        if (aa > 5) acc.above5 += w;
        if (aa > 10) acc.above10 += w;
      }
    }
  }
}

function stepOf(dem: ElevationSampler, opts: SlopeOptions): number {
  if (!(dem.cellSize > 0) || !Number.isFinite(dem.cellSize)) {
    throw new RangeError(
      `The elevation sampler's cellSize must be a positive number of metres; found ${dem.cellSize}.`,
    );
  }
  const step = opts.step ?? Math.max(1, dem.cellSize);
  if (!(step > 0) || !Number.isFinite(step))
    throw new RangeError(`The sample step must be positive; found ${step}.`);
  return step;
}

/** Slopes of one polyline (in the order of its points). */
export function slopeAlong(
  points: readonly Point[],
  dem: ElevationSampler,
  opts: SlopeOptions & { working?: boolean } = {},
): SlopeSummary {
  const acc = new Accumulator();
  samplePart(points, opts.working ?? true, dem, stepOf(dem, opts), acc);
  return acc.summary();
}

/** Slopes of every geometry part of every group, with summaries of the zones and the plan. */
export function planSlopes(plan: Plan, dem: ElevationSampler, opts: SlopeOptions = {}): PlanSlopes {
  const step = stepOf(dem, opts);
  const total = new Accumulator();
  const zones: ZoneSlopes[] = plan.zones.map((zone) => {
    const zoneAcc = new Accumulator();
    const groups = zone.groups.map((g, gi) => {
      const active = gi === zone.activeGroup;
      const hasRoute = g.parts.some((p) => p.sequence !== undefined);
      const parts = g.parts.map((p: PathPart) => {
        const acc = new Accumulator();
        samplePart(p.points, p.working, dem, step, acc);
        if (active && (!hasRoute || p.sequence !== undefined)) zoneAcc.add(acc);
        return acc.detail();
      });
      return { parts };
    });
    total.add(zoneAcc);
    return { groups, summary: zoneAcc.summary() };
  });
  return { zones, summary: total.summary() };
}
