/**
 * Logged positions of a field operation: packed into compact batches for
 * storage, merged back into one time-ordered log (the first position stored
 * for a time wins, so a resent or overlapping batch changes nothing), and
 * measured against the field and the plan with core/coverage.
 *
 * Packed batch: n as a float64, then n times [ms since epoch], lon, lat,
 * heading [deg] and speed [m/s] as float64 (NaN where not given), then n
 * working flags as bytes.
 */

import proj4 from 'proj4';
import { type CoverageResult, type DrivenLog, measureCoverage } from '../core/coverage/as-driven.ts';
import {
  crossTrackDeviation,
  type PlannedTrackLine,
  type TrackDeviation,
} from '../core/coverage/cross-track.ts';
import { prepareField } from '../core/field/prepare-field.ts';
import { wrapLon } from '../core/geometry/projection.ts';
import type { MetricFrame, Point, Polygon } from '../core/types/index.ts';
import {
  type GeoJSONMultiPolygon,
  multiPolygonGeometry,
  type PathPlanNormalizedModel,
} from './plan-model.ts';

/** Positions as columns; times in ms since the epoch. */
export interface PositionColumns {
  t: Float64Array;
  lon: Float64Array;
  lat: Float64Array;
  heading: Float64Array;
  speed: Float64Array;
  working: Uint8Array;
}

export interface PositionInput {
  /** ms since the epoch. */
  t: number;
  lon: number;
  lat: number;
  heading?: number;
  speed?: number;
  working: boolean;
}

export function columnsOf(points: readonly PositionInput[]): PositionColumns {
  const n = points.length;
  const c = emptyColumns(n);
  for (let i = 0; i < n; i++) {
    const p = points[i];
    c.t[i] = p.t;
    c.lon[i] = p.lon;
    c.lat[i] = p.lat;
    c.heading[i] = p.heading ?? Number.NaN;
    c.speed[i] = p.speed ?? Number.NaN;
    c.working[i] = p.working ? 1 : 0;
  }
  return c;
}

function emptyColumns(n: number): PositionColumns {
  return {
    t: new Float64Array(n),
    lon: new Float64Array(n),
    lat: new Float64Array(n),
    heading: new Float64Array(n),
    speed: new Float64Array(n),
    working: new Uint8Array(n),
  };
}

export function packPositions(c: PositionColumns): Buffer {
  const n = c.t.length;
  const buf = Buffer.alloc(8 + 40 * n + n);
  const f = new Float64Array(buf.buffer, buf.byteOffset, 1 + 5 * n);
  f[0] = n;
  f.set(c.t, 1);
  f.set(c.lon, 1 + n);
  f.set(c.lat, 1 + 2 * n);
  f.set(c.heading, 1 + 3 * n);
  f.set(c.speed, 1 + 4 * n);
  buf.set(c.working, 8 + 40 * n);
  return buf;
}

export function unpackPositions(buf: Uint8Array): PositionColumns {
  // Copied into an aligned buffer: a driver's Buffer may start at any byte.
  const bytes = new Uint8Array(buf.byteLength);
  bytes.set(buf);
  const n = new Float64Array(bytes.buffer, 0, 1)[0];
  if (!Number.isInteger(n) || n < 0 || bytes.byteLength !== 8 + 41 * n)
    throw new Error('packed positions are damaged');
  const f = new Float64Array(bytes.buffer, 8, 5 * n);
  return {
    t: f.subarray(0, n),
    lon: f.subarray(n, 2 * n),
    lat: f.subarray(2 * n, 3 * n),
    heading: f.subarray(3 * n, 4 * n),
    speed: f.subarray(4 * n, 5 * n),
    working: bytes.subarray(8 + 40 * n, 8 + 41 * n),
  };
}

/**
 * Time-ordered batches (as stored) merged into one time-ordered log; of
 * equal times the earlier batch's position is kept. Pairwise, balanced: O(n log k).
 */
export function mergePositions(batches: readonly PositionColumns[]): PositionColumns {
  if (batches.length === 0) return emptyColumns(0);
  let level = [...batches];
  while (level.length > 1) {
    const next: PositionColumns[] = [];
    for (let i = 0; i < level.length; i += 2)
      next.push(i + 1 < level.length ? mergeTwo(level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return level[0];
}

/** Two time-ordered logs merged; on equal times `a` wins. */
function mergeTwo(a: PositionColumns, b: PositionColumns): PositionColumns {
  const out = emptyColumns(a.t.length + b.t.length);
  let i = 0;
  let j = 0;
  let n = 0;
  const put = (c: PositionColumns, k: number) => {
    out.t[n] = c.t[k];
    out.lon[n] = c.lon[k];
    out.lat[n] = c.lat[k];
    out.heading[n] = c.heading[k];
    out.speed[n] = c.speed[k];
    out.working[n] = c.working[k];
    n++;
  };
  while (i < a.t.length || j < b.t.length) {
    if (j >= b.t.length || (i < a.t.length && a.t[i] <= b.t[j])) {
      if (j < b.t.length && a.t[i] === b.t[j]) j++;
      put(a, i++);
    } else put(b, j++);
  }
  return sliceColumns(out, n);
}

function sliceColumns(c: PositionColumns, n: number): PositionColumns {
  return {
    t: c.t.subarray(0, n),
    lon: c.lon.subarray(0, n),
    lat: c.lat.subarray(0, n),
    heading: c.heading.subarray(0, n),
    speed: c.speed.subarray(0, n),
    working: c.working.subarray(0, n),
  };
}

/**
 * The positions of `fresh` whose time is not in `known` (time-ordered) nor
 * earlier in `fresh`, time-ordered.
 */
export function newPositions(known: PositionColumns, fresh: PositionColumns): PositionColumns {
  const keep: number[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < fresh.t.length; i++) {
    const t = fresh.t[i];
    if (seen.has(t) || sortedHas(known.t, t)) continue;
    seen.add(t);
    keep.push(i);
  }
  keep.sort((p, q) => fresh.t[p] - fresh.t[q]);
  const out = emptyColumns(keep.length);
  keep.forEach((i, k) => {
    out.t[k] = fresh.t[i];
    out.lon[k] = fresh.lon[i];
    out.lat[k] = fresh.lat[i];
    out.heading[k] = fresh.heading[i];
    out.speed[k] = fresh.speed[i];
    out.working[k] = fresh.working[i];
  });
  return out;
}

function sortedHas(a: Float64Array, v: number): boolean {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (a[m] < v) lo = m + 1;
    else hi = m;
  }
  return lo < a.length && a[lo] === v;
}

/** What a field operation measured: the figures lists show and the deviation per planned track. */
export interface OperationFigures {
  pointCount: number;
  firstPointAt: Date | null;
  lastPointAt: Date | null;
  fieldArea: number;
  coveredArea: number;
  coveredPercent: number;
  overlapArea: number;
  missedArea: number;
  workingDistance: number;
  workingTime: number;
  tracks: TrackDeviation[] | null;
}

export interface CoverageContext {
  /** WGS84 rings of the boundary, exterior first. */
  rings: number[][][];
  swathWidth: number;
  /** The linked plan, for the deviation per track. */
  plan?: PathPlanNormalizedModel | null;
}

/** The field and the plan's route tracks in one metric frame; prepared once per context. */
export interface PreparedContext {
  frame: MetricFrame;
  field: Polygon[];
  tracks: PlannedTrackLine[] | null;
  swathWidth: number;
}

export function prepareContext(ctx: CoverageContext): PreparedContext {
  const { field, frame } = prepareField({ type: 'Polygon', coordinates: ctx.rings });
  const parts = [...field.parts];
  let tracks: PlannedTrackLine[] | null = null;
  if (ctx.plan) {
    tracks = [];
    for (const zone of ctx.plan.zones) {
      const group =
        zone.geometryGroups.find((g) => g.geometryGroupId === zone.activeGeometryGroupId) ??
        zone.geometryGroups[0];
      for (const part of group?.geometryParts ?? []) {
        if (part.geometryPartType !== 'RouteTrack' || part.sequence === undefined) continue;
        tracks.push({
          zoneIndex: zone.zoneIndex,
          trackIndex: part.trackDetail?.trackIndex ?? tracks.length,
          points: part.geometry.coordinates.map(([lon, lat]) => frame.toMetric(lon, lat)),
        });
      }
    }
  }
  return { frame, field: parts, tracks, swathWidth: ctx.swathWidth };
}

/** The log in the metric frame, times in seconds. */
const D2R = Math.PI / 180;

export function drivenLog(frame: MetricFrame, c: PositionColumns): DrivenLog {
  // The frame's projection called directly (radians in): the generic
  // transform around it does nothing for WGS84 and costs twice the time per
  // position; results agree to nanometres.
  const projection = new proj4.Proj(frame.definition);
  const lon0 = Number(/\+lon_0=(\S+)/.exec(frame.definition)?.[1] ?? 0);
  const n = c.t.length;
  const log: DrivenLog = {
    t: new Float64Array(n),
    x: new Float64Array(n),
    y: new Float64Array(n),
    working: c.working,
  };
  for (let i = 0; i < n; i++) {
    // Unwrapped next to the centre, as the frame does, so a field across 180 degrees stays whole.
    const p: Point = projection.forward({ x: (lon0 + wrapLon(c.lon[i] - lon0)) * D2R, y: c.lat[i] * D2R });
    log.t[i] = c.t[i] / 1000;
    log.x[i] = p.x;
    log.y[i] = p.y;
  }
  return log;
}

export function measureOperation(
  ctx: PreparedContext,
  c: PositionColumns,
  withGeometry = false,
): { figures: OperationFigures; coverage: CoverageResult; log: DrivenLog } {
  const log = drivenLog(ctx.frame, c);
  const coverage = measureCoverage(ctx.field, ctx.swathWidth, log, { withGeometry });
  const n = c.t.length;
  return {
    log,
    coverage,
    figures: {
      pointCount: n,
      firstPointAt: n ? new Date(c.t[0]) : null,
      lastPointAt: n ? new Date(c.t[n - 1]) : null,
      fieldArea: coverage.fieldArea,
      coveredArea: coverage.coveredArea,
      coveredPercent: coverage.coveredPercent,
      overlapArea: coverage.overlapArea,
      missedArea: coverage.missedArea,
      workingDistance: coverage.workingDistance,
      workingTime: coverage.workingTime,
      tracks: ctx.tracks ? crossTrackDeviation(ctx.tracks, log, ctx.swathWidth) : null,
    },
  };
}

/** The covered ground as a GeoJSON MultiPolygon (WGS84). */
export function coveredGeometry(ctx: PreparedContext, coverage: CoverageResult): GeoJSONMultiPolygon {
  return multiPolygonGeometry(ctx.frame, coverage.covered ?? []);
}
