/**
 * Slopes of a plan's geometry parts from an elevation sampler.
 *
 * The sampler gives the ground elevation [m] at a point of the plan's
 * metric frame (NaN where it is unknown); where it comes from (a DEM file,
 * a function in a test) is no concern of the planner. Along each part,
 * sample points lie every `step` metres (default: every 2 m, or every cell
 * of a coarser DEM; at least one per segment, at the middle of equal
 * stretches); at each, the gradient g of the ground comes from the
 * sampler's `gradientAt` when it has one (a DEM: the slope of the cell
 * holding the point), else from central differences `cellSize` apart:
 *
 *   g = ((z(x+h) - z(x-h)) / 2h, (z(y+h) - z(y-h)) / 2h)
 *   slope       = |g|                 (steepest slope, any direction)
 *   along-track = g . t               (t: unit heading of the segment in the
 *                                      order of the coordinates, which is the
 *                                      direction of driving; > 0 uphill)
 *   cross-track = |g x t|             (sideways tilt, unsigned)
 *
 * all in percent (100 x rise / run). A sample where the ground or its
 * gradient is unknown is a no-data sample: it is counted, never averaged.
 */
import type { PathPart, Point } from '../types/index.ts';

export interface ElevationSampler {
  /** Ground elevation [m] at (x, y) of the plan's metric frame [m]; NaN where unknown. */
  elevationAt(x: number, y: number): number;
  /** Ground spacing of the elevation data [m]: the half-distance of the gradient's differences. */
  readonly cellSize: number;
  /**
   * Optional, for samplers that know their surface (the bilinear surface
   * of a DEM's cells): the elevation and its gradient at once, out[0] = z
   * [m], out[1] = dz/dx, out[2] = dz/dy; false where unknown. Used instead
   * of the central differences when given.
   */
  gradientAt?(x: number, y: number, out: Float64Array): boolean;
}

export interface SlopeOptions {
  /** Distance between sample points along a part [m] (default: the sampler's cell size, at least 2 m). */
  step?: number;
  /**
   * The machine's limit of sideways slope [%] (default: the plan machine's
   * maxCrossSlopePercent): parts with samples over it are flagged, and the
   * zones' warnings name them.
   */
  maxCrossSlopePercent?: number;
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
  /** Steepest sideways slope of a sample [%]. */
  maxCrossTrackPercent?: number;
  /** With a machine limit (maxCrossSlopePercent): whether some of the part runs across a steeper slope ... */
  exceedsMaxCrossSlope?: boolean;
  /** ... and over what length [m]. */
  overMaxCrossSlopeLength?: number;
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
  /** With a machine limit of sideways slope: the driven parts of the zone's route over it, in words. */
  warnings?: string[];
  /** Over the driven parts of the active group (all its parts when it has no route). */
  summary: SlopeSummary;
}

export interface PlanSlopes {
  zones: ZoneSlopes[];
  /** Over the zones' summaries. */
  summary: SlopeSummary;
}

/** What planSlopes reads of a plan (a Plan is one; so is a stored plan's geometry taken into a metric frame). */
export interface SlopePlan {
  zones: readonly { activeGroup: number; groups: readonly { parts: readonly PathPart[] }[] }[];
  machine?: { maxCrossSlopePercent?: number };
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
  maxCross = 0;
  overLimit = 0;
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
    if (o.maxCross > this.maxCross) this.maxCross = o.maxCross;
    this.overLimit += o.overLimit;
    if (o.minZ < this.minZ) this.minZ = o.minZ;
    if (o.maxZ > this.maxZ) this.maxZ = o.maxZ;
    this.working += o.working;
    this.above2 += o.above2;
    this.above5 += o.above5;
    this.above10 += o.above10;
  }

  detail(limit?: number): SlopeDetail {
    const d: SlopeDetail = { samples: this.samples, noDataSamples: this.noData };
    if (this.samples === 0 || this.weight <= 0) return d;
    d.meanSlopePercent = r3(this.slope / this.weight);
    d.maxSlopePercent = r3(this.max);
    d.meanAlongTrackPercent = r3(this.along / this.weight);
    d.meanCrossTrackPercent = r3(this.cross / this.weight);
    d.maxCrossTrackPercent = r3(this.maxCross);
    if (limit !== undefined) {
      d.exceedsMaxCrossSlope = this.overLimit > 0;
      d.overMaxCrossSlopeLength = r3(this.overLimit);
    }
    d.minElevation = r3(this.minZ);
    d.maxElevation = r3(this.maxZ);
    return d;
  }

  summary(limit?: number): SlopeSummary {
    const s: SlopeSummary = this.detail(limit);
    if (s.meanSlopePercent === undefined) return s;
    const share = (v: number) => (this.working > 0 ? r3((100 * v) / this.working) : 0);
    s.workingShareAbove2Percent = share(this.above2);
    s.workingShareAbove5Percent = share(this.above5);
    s.workingShareAbove10Percent = share(this.above10);
    return s;
  }
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * The sampler's `gradientAt`, or central differences `cellSize` apart:
 * writes z, dz/dx, dz/dy into `out`; false where the ground is unknown.
 */
export function gradientReader(dem: ElevationSampler): (x: number, y: number, out: Float64Array) => boolean {
  // Called unbound, as samplers build it (closures over their cells).
  if (dem.gradientAt) return dem.gradientAt;
  const h = dem.cellSize;
  return (x, y, out) => {
    const z = (u: number, v: number) => dem.elevationAt(u, v);
    out[0] = z(x, y);
    out[1] = (z(x + h, y) - z(x - h, y)) / (2 * h);
    out[2] = (z(x, y + h) - z(x, y - h)) / (2 * h);
    return Number.isFinite(out[0]) && Number.isFinite(out[1]) && Number.isFinite(out[2]);
  };
}

/** Samples one part into `acc`. */
function samplePart(
  points: readonly Point[],
  working: boolean,
  dem: ElevationSampler,
  step: number,
  acc: Accumulator,
  crossLimit = Number.POSITIVE_INFINITY,
) {
  const out = new Float64Array(3);
  const known = gradientReader(dem);
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.sqrt(dx * dx + dy * dy);
    if (len < 1e-9) continue;
    const tx = dx / len;
    const ty = dy / len;
    const n = Math.max(1, Math.ceil(len / step - 1e-9));
    const w = len / n;
    for (let k = 0; k < n; k++) {
      const f = (k + 0.5) / n;
      if (!known(a.x + dx * f, a.y + dy * f, out)) {
        acc.noData++;
        continue;
      }
      const z0 = out[0];
      const gx = out[1];
      const gy = out[2];
      const slope = 100 * Math.sqrt(gx * gx + gy * gy);
      const along = 100 * (gx * tx + gy * ty);
      const cross = 100 * Math.abs(gx * ty - gy * tx);
      acc.samples++;
      acc.weight += w;
      acc.slope += slope * w;
      acc.along += along * w;
      acc.cross += cross * w;
      if (slope > acc.max) acc.max = slope;
      if (cross > acc.maxCross) acc.maxCross = cross;
      if (cross > crossLimit) acc.overLimit += w;
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

/** 1 when b holds the points of a, -1 when it holds them in reverse, else 0. */
function samePoints(a: readonly Point[], b: readonly Point[]): 1 | -1 | 0 {
  const n = a.length;
  if (n !== b.length || n === 0) return 0;
  let fwd = true;
  let rev = true;
  for (let i = 0; i < n && (fwd || rev); i++) {
    if (fwd && (a[i].x !== b[i].x || a[i].y !== b[i].y)) fwd = false;
    if (rev && (a[i].x !== b[n - 1 - i].x || a[i].y !== b[n - 1 - i].y)) rev = false;
  }
  return fwd ? 1 : rev ? -1 : 0;
}

/**
 * The samples of a worked part for a reference part with the same points
 * (sense -1: in reverse, which turns the along-track sign); nothing of it
 * is working distance.
 */
function reuse(from: Accumulator, sense: 1 | -1): Accumulator {
  const acc = new Accumulator();
  acc.add(from);
  acc.along *= sense;
  acc.working = 0;
  acc.above2 = 0;
  acc.above5 = 0;
  acc.above10 = 0;
  return acc;
}

function stepOf(dem: ElevationSampler, opts: SlopeOptions): number {
  if (!(dem.cellSize > 0) || !Number.isFinite(dem.cellSize)) {
    throw new RangeError(
      `The elevation sampler's cellSize must be a positive number of metres; found ${dem.cellSize}.`,
    );
  }
  const step = opts.step ?? Math.max(2, dem.cellSize);
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
  const limit = opts.maxCrossSlopePercent;
  samplePart(points, opts.working ?? true, dem, stepOf(dem, opts), acc, limit);
  return acc.summary(limit);
}

/**
 * Slopes of every geometry part of every group, with summaries of the
 * zones and the plan. A reference part with the same points as a route
 * part (a guidance track and the route track driving it) takes the route
 * part's samples instead of sampling the ground again. With a limit of
 * sideways slope (the options', else the plan machine's), every part says
 * whether it exceeds it, and a zone warning names the driven parts that do.
 */
export function planSlopes(plan: SlopePlan, dem: ElevationSampler, opts: SlopeOptions = {}): PlanSlopes {
  const step = stepOf(dem, opts);
  const limit = opts.maxCrossSlopePercent ?? plan.machine?.maxCrossSlopePercent;
  const total = new Accumulator();
  const zones: ZoneSlopes[] = plan.zones.map((zone) => {
    const zoneAcc = new Accumulator();
    const over: { part: PathPart; acc: Accumulator }[] = [];
    const groups = zone.groups.map((g, gi) => {
      const active = gi === zone.activeGroup;
      const hasRoute = g.parts.some((p) => p.sequence !== undefined);
      const accs: Accumulator[] = new Array(g.parts.length);
      // Route tracks by guidance track index, to be reused by their guidance tracks.
      const driven = new Map<number, { part: PathPart; acc: Accumulator }>();
      const order = g.parts.map((p, i) => ({ p, i }));
      order.sort((a, b) => Number(b.p.working) - Number(a.p.working));
      for (const { p, i } of order) {
        const twin = p.trackIndex !== undefined && !p.working ? driven.get(p.trackIndex) : undefined;
        const sense = twin ? samePoints(twin.part.points, p.points) : 0;
        if (twin && sense !== 0) {
          accs[i] = reuse(twin.acc, sense);
          continue;
        }
        const acc = new Accumulator();
        samplePart(p.points, p.working, dem, step, acc, limit);
        accs[i] = acc;
        if (p.working && p.trackIndex !== undefined && !driven.has(p.trackIndex))
          driven.set(p.trackIndex, { part: p, acc });
      }
      g.parts.forEach((p, i) => {
        if (!active || (hasRoute && p.sequence === undefined)) return;
        zoneAcc.add(accs[i]);
        if (accs[i].overLimit > 0) over.push({ part: p, acc: accs[i] });
      });
      return { parts: accs.map((a) => a.detail(limit)) };
    });
    total.add(zoneAcc);
    const warning = limit !== undefined && over.length ? crossSlopeWarning(over, limit) : undefined;
    return { groups, summary: zoneAcc.summary(limit), ...(warning ? { warnings: [warning] } : {}) };
  });
  return { zones, summary: total.summary(limit) };
}

/** What every warning of parts over the machine's limit of sideways slope contains (to find and replace them). */
export const CROSS_SLOPE_WARNING_MARK = '(equipment.maxCrossSlopePercent)';

/** The zone warning naming the driven parts over the machine's limit of sideways slope. */
function crossSlopeWarning(over: readonly { part: PathPart; acc: Accumulator }[], limit: number): string {
  const length = over.reduce((a, o) => a + o.acc.overLimit, 0);
  const steepest = over.reduce((a, o) => Math.max(a, o.acc.maxCross), 0);
  const named = over
    .slice(0, 10)
    .map((o) => `${o.part.type}${o.part.sequence !== undefined ? ` (sequence ${o.part.sequence})` : ''}`);
  const more = over.length > 10 ? ` and ${over.length - 10} more` : '';
  return `${over.length} driven part(s) run across slopes steeper than the machine's limit of ${limit} % sideways ${CROSS_SLOPE_WARNING_MARK} over ${length.toFixed(1)} m, at most ${steepest.toFixed(1)} %: ${named.join(', ')}${more}.`;
}
