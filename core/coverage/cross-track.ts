/**
 * Deviation of a drive from its plan: each working position is matched to
 * the planned track it drives along (within half a swath of the track, beside
 * it rather than beyond its ends, heading along it within 30 degrees) and its
 * signed cross-track error measured (positive right of the planned driving
 * direction [m]). Per track: the error statistics and how much of the track
 * was driven; a track driven for less than a tenth of its length is missed.
 */

import { hypot } from '../geometry/vec.ts';
import { SegmentGrid } from '../metrics/segment-grid.ts';
import type { Point } from '../types/index.ts';
import type { DrivenLog } from './as-driven.ts';

export interface PlannedTrackLine {
  zoneIndex: number;
  trackIndex: number;
  /** Centre line in the planned driving direction [m]. */
  points: readonly Point[];
}

export type TrackDriveStatus = 'driven' | 'partial' | 'missed';

export interface TrackDeviation {
  zoneIndex: number;
  trackIndex: number;
  /** Planned length [m]. */
  length: number;
  /** Length of the track along which working positions were logged [m]. */
  drivenLength: number;
  drivenPercent: number;
  status: TrackDriveStatus;
  /** Working positions matched to the track. */
  pointCount: number;
  /** Cross-track error [m]: signed mean, mean of magnitudes, root mean square, 95th percentile and maximum of magnitudes; null without positions. */
  meanError: number | null;
  meanAbsError: number | null;
  rmsError: number | null;
  p95AbsError: number | null;
  maxAbsError: number | null;
}

/** Driven at least this share of its length: driven; below MISSED_SHARE: missed. */
export const DRIVEN_SHARE = 0.9;
export const MISSED_SHARE = 0.1;
/** Stations along a track closer than this are one driven stretch [m]. */
const STATION_GAP = 5;
/** Heading is taken over ±this time around a position [s]. */
const HEADING_WINDOW = 1;
const HEADING_TOLERANCE = Math.cos((30 * Math.PI) / 180);

export function crossTrackDeviation(
  tracks: readonly PlannedTrackLine[],
  log: DrivenLog,
  swathWidth: number,
): TrackDeviation[] {
  const hw = swathWidth / 2;
  const grid = new SegmentGrid(
    tracks.map((t) => t.points),
    hw,
  );
  // Per segment: the station [m] of its start along its track, and whether it ends the track.
  const station = new Float64Array(grid.count);
  const first = new Uint8Array(grid.count);
  const last = new Uint8Array(grid.count);
  const lengths = new Float64Array(tracks.length);
  for (let e = 0; e < grid.count; e++) {
    const o = grid.owner[e];
    first[e] = e === 0 || grid.owner[e - 1] !== o ? 1 : 0;
    last[e] = e === grid.count - 1 || grid.owner[e + 1] !== o ? 1 : 0;
    station[e] = lengths[o];
    lengths[o] += hypot(grid.bx[e] - grid.ax[e], grid.by[e] - grid.ay[e]);
  }
  const errors: number[][] = tracks.map(() => []);
  const stations: number[][] = tracks.map(() => []);
  const n = log.t.length;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) {
    if (!log.working[i]) continue;
    const px = log.x[i];
    const py = log.y[i];
    while (log.t[lo] < log.t[i] - HEADING_WINDOW) lo++;
    if (hi < i) hi = i;
    while (hi + 1 < n && log.t[hi + 1] <= log.t[i] + HEADING_WINDOW) hi++;
    const hx = log.x[hi] - log.x[lo];
    const hy = log.y[hi] - log.y[lo];
    const hl = hypot(hx, hy);
    let best = hw;
    let bestE = -1;
    let bestSigned = 0;
    let bestStation = 0;
    grid.forEachNear(px, py, px, py, hw, (e) => {
      const ax = grid.ax[e];
      const ay = grid.ay[e];
      const dx = grid.bx[e] - ax;
      const dy = grid.by[e] - ay;
      const l2 = dx * dx + dy * dy;
      if (l2 === 0) return;
      const u = ((px - ax) * dx + (py - ay) * dy) / l2;
      // Beyond the ends of the track: not along it.
      if ((u < 0 && first[e]) || (u > 1 && last[e])) return;
      const l = Math.sqrt(l2);
      if (hl > 0 && Math.abs(hx * dx + hy * dy) / (hl * l) < HEADING_TOLERANCE) return;
      const uc = u < 0 ? 0 : u > 1 ? 1 : u;
      const d = hypot(px - (ax + uc * dx), py - (ay + uc * dy));
      if (d > best) return;
      best = d;
      bestE = e;
      // Right of the direction of travel is negative cross product.
      bestSigned = ((px - ax) * dy - (py - ay) * dx) / l;
      bestStation = station[e] + uc * l;
    });
    if (bestE < 0) continue;
    const o = grid.owner[bestE];
    errors[o].push(bestSigned);
    stations[o].push(bestStation);
  }
  return tracks.map((t, k) => {
    const err = errors[k];
    const drivenLength = Math.min(lengths[k], drivenAlong(stations[k]));
    const share = lengths[k] > 0 ? drivenLength / lengths[k] : 0;
    const stats = errorStats(err);
    return {
      zoneIndex: t.zoneIndex,
      trackIndex: t.trackIndex,
      length: lengths[k],
      drivenLength,
      drivenPercent: 100 * share,
      status: share >= DRIVEN_SHARE ? 'driven' : share < MISSED_SHARE ? 'missed' : 'partial',
      pointCount: err.length,
      ...stats,
    };
  });
}

/** Length covered by sorted stations, joining neighbours closer than STATION_GAP. */
function drivenAlong(st: number[]): number {
  if (st.length < 2) return 0;
  st.sort((a, b) => a - b);
  let sum = 0;
  for (let i = 1; i < st.length; i++) {
    const d = st[i] - st[i - 1];
    if (d <= STATION_GAP) sum += d;
  }
  return sum;
}

function errorStats(err: number[]) {
  if (err.length === 0)
    return { meanError: null, meanAbsError: null, rmsError: null, p95AbsError: null, maxAbsError: null };
  let s = 0;
  let sa = 0;
  let s2 = 0;
  const abs = new Float64Array(err.length);
  for (let i = 0; i < err.length; i++) {
    s += err[i];
    abs[i] = Math.abs(err[i]);
    sa += abs[i];
    s2 += err[i] * err[i];
  }
  abs.sort();
  const m = err.length;
  return {
    meanError: s / m,
    meanAbsError: sa / m,
    rmsError: Math.sqrt(s2 / m),
    p95AbsError: abs[Math.min(m - 1, Math.ceil(0.95 * m) - 1)],
    maxAbsError: abs[m - 1],
  };
}
