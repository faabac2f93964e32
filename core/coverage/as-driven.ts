/**
 * As-driven coverage: what a machine actually worked, measured from its
 * logged positions, against the field.
 *
 * Positions (time-ordered, metric frame) are cut into working runs where the
 * implement was on and the log has no gap; each run is smoothed over a short
 * time window (GNSS noise zig-zags a 10 Hz log), simplified, cut into pieces
 * at U-turns and buffered by half the swath with flat ends:
 *
 *     run  o--o--o--o--o--o--o        strip  +---------------------+
 *                                            |  o--o--o--o--o--o   |  w/2 each side
 *                                            +---------------------+
 *
 * covered = (union of strips) ∩ field; overlap = Σ(strip ∩ field) - covered
 * (ground worked twice or more counts once per extra pass); missed = field -
 * covered. The same clipping engine as the planner's metrics (core/geometry/clip.ts).
 */
import { Clipper } from 'clipper2-ts';
import { bufferLines, intersection, intersectionArea } from '../geometry/clip.ts';
import { multiPolygonArea } from '../geometry/polygon.ts';
import { hypot } from '../geometry/vec.ts';
import { longestSegmentAngle, rotatePolygons } from '../metrics/compute-stats.ts';
import type { Point, Polygon } from '../types/index.ts';

/** Logged positions as flat arrays, sorted by time. */
export interface DrivenLog {
  /** Time [s] (any origin), ascending. */
  t: Float64Array;
  /** Metric frame [m]. */
  x: Float64Array;
  y: Float64Array;
  /** 1 where the implement was working. */
  working: Uint8Array;
}

export interface CoverageOptions {
  /** A gap longer than this between working positions ends a run [s] (default 5). */
  maxGapSeconds?: number;
  /** A jump longer than this between working positions ends a run [m] (default 30). */
  maxJump?: number;
  /** Half-width of the centred smoothing window [s] (default 1: 0.3 m of noise at 10 Hz averages to about 0.07 m). */
  smoothingSeconds?: number;
  /** Simplification of the smoothed runs [m] (default 0.2: the noise left after smoothing would keep nearly every vertex). */
  tolerance?: number;
  /** Also return the covered polygons (exports). */
  withGeometry?: boolean;
}

export interface CoverageResult {
  /** Field area [m^2]. */
  fieldArea: number;
  /** Ground worked at least once, inside the field [m^2]. */
  coveredArea: number;
  coveredPercent: number;
  /** Ground worked more than once, counted once per extra pass [m^2]. */
  overlapArea: number;
  /** Field not worked [m^2]. */
  missedArea: number;
  /** Length driven while working [m]. */
  workingDistance: number;
  /** Working time [s]: the sum of time steps within runs. */
  workingTime: number;
  /** Working runs found. */
  runCount: number;
  /** The smoothed, simplified centre line of each run (for cross-track matching and exports). */
  runs: Point[][];
  /** Covered polygons inside the field (withGeometry only). */
  covered?: Polygon[];
}

/** A piece turning further than this from its first direction is cut (a U-turn) [rad]. */
const PIECE_TURN = (2 * Math.PI) / 3;

/** Where the implement was working runs: index ranges [start, end) of the log, cut at gaps. */
export function workingRuns(log: DrivenLog, maxGapSeconds = 5, maxJump = 30): [number, number][] {
  const out: [number, number][] = [];
  const n = log.t.length;
  let start = -1;
  for (let i = 0; i < n; i++) {
    if (!log.working[i]) {
      if (start >= 0) out.push([start, i]);
      start = -1;
      continue;
    }
    if (start >= 0) {
      const dt = log.t[i] - log.t[i - 1];
      const dx = log.x[i] - log.x[i - 1];
      const dy = log.y[i] - log.y[i - 1];
      if (dt > maxGapSeconds || dx * dx + dy * dy > maxJump * maxJump) {
        out.push([start, i]);
        start = i;
      }
    } else start = i;
  }
  if (start >= 0) out.push([start, n]);
  return out.filter(([a, b]) => b - a >= 2);
}

/**
 * Centred moving average over ±h seconds of positions [a, b), shrunk
 * symmetrically near the ends so the run keeps its length. Prefix sums: O(n).
 */
export function smoothRun(log: DrivenLog, a: number, b: number, h: number): Point[] {
  const n = b - a;
  const sx = new Float64Array(n + 1);
  const sy = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    sx[i + 1] = sx[i] + log.x[a + i];
    sy[i + 1] = sy[i] + log.y[a + i];
  }
  const out: Point[] = new Array(n);
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) {
    const t = log.t[a + i];
    while (lo < i && log.t[a + lo] < t - h) lo++;
    if (hi < i) hi = i;
    while (hi + 1 < n && log.t[a + hi + 1] <= t + h) hi++;
    const k = Math.min(i - lo, hi - i);
    const c = k + 1 + k;
    out[i] = { x: (sx[i + k + 1] - sx[i - k]) / c, y: (sy[i + k + 1] - sy[i - k]) / c };
  }
  return out;
}

/** Cuts a polyline where it has turned by more than PIECE_TURN from the piece's first direction. */
function piecesOf(line: readonly Point[]): Point[][] {
  const out: Point[][] = [];
  let piece: Point[] = [line[0]];
  let ux = 0;
  let uy = 0;
  for (let i = 1; i < line.length; i++) {
    const dx = line[i].x - line[i - 1].x;
    const dy = line[i].y - line[i - 1].y;
    const l = hypot(dx, dy);
    if (l === 0) continue;
    if (ux === 0 && uy === 0) {
      ux = dx / l;
      uy = dy / l;
    } else if ((ux * dx + uy * dy) / l < Math.cos(PIECE_TURN)) {
      out.push(piece);
      piece = [line[i - 1]];
      ux = dx / l;
      uy = dy / l;
    }
    piece.push(line[i]);
  }
  out.push(piece);
  return out.filter((p) => p.length >= 2);
}

export function measureCoverage(
  field: readonly Polygon[],
  swathWidth: number,
  log: DrivenLog,
  opts: CoverageOptions = {},
): CoverageResult {
  const hw = swathWidth / 2;
  const fieldArea = multiPolygonArea(field);
  const runs: Point[][] = [];
  const strips: Polygon[] = [];
  let stripAreaInField = 0;
  let workingDistance = 0;
  let workingTime = 0;
  for (const [a, b] of workingRuns(log, opts.maxGapSeconds, opts.maxJump)) {
    for (let i = a + 1; i < b; i++) {
      workingDistance += hypot(log.x[i] - log.x[i - 1], log.y[i] - log.y[i - 1]);
      workingTime += log.t[i] - log.t[i - 1];
    }
    const smooth = smoothRun(log, a, b, opts.smoothingSeconds ?? 1);
    const line = smooth.length > 2 ? Clipper.simplifyPathD(smooth, opts.tolerance ?? 0.2, false) : smooth;
    runs.push(line);
    for (const piece of piecesOf(line)) {
      const strip = bufferLines([piece], hw, 'butt');
      strips.push(...strip);
      stripAreaInField += intersectionArea(strip, field);
    }
  }
  const covered = opts.withGeometry ? intersection(strips, field) : undefined;
  // As the planner's metrics do: turned so the longest straight runs along the
  // clipper's sweep, parallel strips meet few scanbeams (areas do not change).
  const angle = longestSegmentAngle(runs);
  const coveredArea = covered
    ? multiPolygonArea(covered)
    : intersectionArea(rotatePolygons(strips, angle), rotatePolygons(field, angle));
  return {
    fieldArea,
    coveredArea,
    coveredPercent: fieldArea > 0 ? (100 * coveredArea) / fieldArea : 0,
    overlapArea: Math.max(0, stripAreaInField - coveredArea),
    missedArea: Math.max(0, fieldArea - coveredArea),
    workingDistance,
    workingTime,
    runCount: runs.length,
    runs,
    ...(covered ? { covered } : {}),
  };
}
