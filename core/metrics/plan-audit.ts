/**
 * The plan audit: what a plan leaves undone or does twice, measured from its
 * geometry so that no defect passes unsaid.
 *
 * - Undriven passes and tracks: the stretches of the planned headland passes
 *   (the exact offsets of the field edge and obstacles) and tracks that no
 *   driven working part (headland pass or track) runs along within
 *   `tolerance`; a pass stretch along which one runs within a quarter swath
 *   all through (OFF_LINE) is driven, a little off its line. A corner of a pass that the drivable pass rounds (turning
 *   radius) is not counted where a driven line runs within the rounding's
 *   reach; a whole pass, or a stretch longer than its bends explain, is.
 * - Duplicate tracks: driven track length lying closer than a quarter swath
 *   (DUPLICATE_SPACING) to another driven track part running (nearly)
 *   parallel: more than three quarters of a strip worked twice (a strip
 *   applied twice). Both parts count. A last track laid for a remainder of
 *   a third of a swath or more lies farther off and is not one.
 * - Turn overhang: where the centre line of a turn or connector comes closer
 *   than half the working width to the field edge or an obstacle, or leaves
 *   the field: the length of those stretches, and the area of (the union
 *   of) their half-width strips outside the field or inside obstacles
 *   (turn-overhang.ts).
 *
 * Lengths are exact on the polylines (no sampling): every segment is clipped
 * against the capsules of the segments near it (segment-grid.ts).
 */
import { bufferLines, difference } from '../geometry/clip.ts';
import { signedArea } from '../geometry/polygon.ts';
import { hypot, ringLength } from '../geometry/vec.ts';
import type { PathPart, Point, Polygon } from '../types/index.ts';
import { OffsetIndex } from './offset-index.ts';
import { capsuleInterval, mergeIntervals, SegmentGrid, segDist } from './segment-grid.ts';
import { markNecks, type Overhang, outsideArea, overhang } from './turn-overhang.ts';

export type { Overhang } from './turn-overhang.ts';

/** Driven segments followed at most from one planned piece's start to its end. */
const CHAIN = 32;
/** Planned lines are checked in pieces no longer than this [m]. */
const PIECE = 5;
/** Stretches closer than this to a driven working part are driven [m]. */
export const DRIVEN_TOLERANCE = 0.25;
/**
 * A stretch of a planned pass along which a driven line runs within this
 * many swaths all through is driven, off its line by no more than the
 * spacing at which two tracks are the same one (DUPLICATE_SPACING): a pass
 * pulled in or out a little round a corner, not a pass left out. What that
 * leaves unworked counts in the coverage.
 */
export const OFF_LINE = 0.25;
/**
 * Driven tracks closer than this many swaths to a parallel one are worked
 * twice (more than three quarters of the strip): neighbours lie a whole
 * swath apart.
 */
export const DUPLICATE_SPACING = 0.25;
/** Track parts within this angle of each other are parallel [rad]. */
const PARALLEL = (15 * Math.PI) / 180;
/** A pass stretch bending by at least this much may be a corner rounded for driving [rad] ... */
const MIN_CORNER = (5 * Math.PI) / 180;
/** Points of a stretch checked for a corner's reach. */
const CORNER_SAMPLES = 12;
/** ... and its rounding reaches no farther from the corner than at this bend [rad]. */
const MAX_CORNER = (150 * Math.PI) / 180;
/** Undriven stretches shorter than this are not listed (their length still counts) [m]. */
const MIN_STRETCH = 0.5;

export interface PlannedPass {
  kind: 'exterior' | 'interior';
  passNumber: number;
  obstacleIndex?: number;
  /** The planned centre line (exact offset), a closed ring (no repeated vertex). */
  ring: readonly Point[];
}

export interface PlannedTrack {
  trackIndex: number;
  points: readonly Point[];
}

export interface AuditInput {
  /** The field the turns must keep inside: outer ring, holes = obstacles. */
  boundary: Polygon;
  /** Headland passes the headland stage planned. */
  passes: readonly PlannedPass[];
  /** Tracks the track stage planned. */
  tracks: readonly PlannedTrack[];
  /** The zone's parts; driven ones carry `sequence`. */
  parts: readonly PathPart[];
  /**
   * Driven parts of the other zones of the same field part (a decomposed
   * part): they drive passes too, and their tracks may lie on this zone's.
   */
  others?: readonly PathPart[];
  swathWidth: number;
  /** Working width for the overhang [m] (default the swath). */
  width?: number;
  turningRadius: number;
  /** Default DRIVEN_TOLERANCE. */
  tolerance?: number;
}

export interface UndrivenStretch {
  kind: 'exterior' | 'interior' | 'track';
  passNumber?: number;
  obstacleIndex?: number;
  trackIndex?: number;
  /** Length [m]. */
  length: number;
  /** Where it starts and its middle (for the warning and the picture). */
  from: Point;
  at: Point;
  /** The stretch's centre line. */
  points: Point[];
  /**
   * Passes: how far the nearest driven headland pass runs from the stretch
   * (median over it) when one runs within a swath less the tolerance, a pass
   * driven off its planned line; absent when none does (not driven at all).
   */
  offset?: number;
}

export interface ZoneAudit {
  undrivenPassLength: number;
  undrivenPasses: UndrivenStretch[];
  undrivenTrackLength: number;
  undrivenTracks: UndrivenStretch[];
  /** Driven track length [m]. */
  trackLength: number;
  duplicateTrackLength: number;
  overhangLength: number;
  /** Of overhangLength, on parts that cross a neck narrower than the working width [m]. */
  overhangAcrossNecksLength: number;
  overhangArea: number;
  overhangs: Overhang[];
}

export function auditZone(input: AuditInput): ZoneAudit {
  const w = input.swathWidth;
  const tol = input.tolerance ?? DRIVEN_TOLERANCE;
  const driven = input.parts.filter((p) => p.sequence !== undefined && p.points.length >= 2);
  const others = (input.others ?? []).filter((p) => p.sequence !== undefined && p.points.length >= 2);
  const working = [...driven, ...others].filter((p) => p.working);
  const workGrid = new SegmentGrid(
    working.map((p) => p.points),
    Math.max(2, w),
  );
  // The driven passes, for how far off its line a pass was driven.
  const passGrid = new SegmentGrid(
    working.filter((p) => p.type.endsWith('HeadlandPass')).map((p) => p.points),
    Math.max(2, w),
  );
  // Passes are rounded at the turning radius, the outer ones at up to a swath per pass more.
  const outermost = (kind: PlannedPass['kind']) =>
    input.passes.reduce((m, p) => (p.kind === kind ? Math.max(m, p.passNumber) : m), 1);
  const cornerRadius = (p: PlannedPass) =>
    input.turningRadius + Math.max(0, outermost(p.kind) - p.passNumber) * w;
  const undrivenPasses: UndrivenStretch[] = [];
  for (const pass of input.passes) {
    if (pass.ring.length < 3) continue;
    const ring = signedArea(pass.ring) < 0 ? pass.ring.slice().reverse() : pass.ring.slice();
    const stretches = undrivenStretches([...ring, ring[0]], true, workGrid, tol);
    const whole = stretches.length === 1 && stretches[0].length >= ringLength(ring) - 1e-6;
    for (const s of stretches) {
      if (!whole && smoothedCorner(s.points, workGrid, cornerRadius(pass), tol)) continue;
      // Driven along its line all through, a little off it (the same line, as for duplicate tracks).
      if (alongside(s.points, workGrid, OFF_LINE * w)) continue;
      const off = offLine(s.points, passGrid, w - tol);
      undrivenPasses.push({
        kind: pass.kind,
        passNumber: pass.passNumber,
        ...(pass.obstacleIndex !== undefined ? { obstacleIndex: pass.obstacleIndex } : {}),
        ...s,
        ...(off !== undefined ? { offset: off } : {}),
      });
    }
  }
  const undrivenTracks: UndrivenStretch[] = [];
  // A track driven as planned (its very line, either way) has no undriven stretch.
  const drivenLines = new Map<number, PathPart[]>();
  for (const p of working) {
    const k = lineKey(p.points);
    const same = drivenLines.get(k);
    if (same) same.push(p);
    else drivenLines.set(k, [p]);
  }
  const drivenAsPlanned = (pts: readonly Point[]) =>
    drivenLines.get(lineKey(pts))?.some((p) => sameLine(p.points, pts)) ?? false;
  for (const t of input.tracks) {
    if (t.points.length < 2 || drivenAsPlanned(t.points)) continue;
    for (const s of undrivenStretches(t.points, false, workGrid, tol))
      undrivenTracks.push({ kind: 'track', trackIndex: t.trackIndex, ...s });
  }
  const tracks = driven.filter((p) => p.type === 'RouteTrack');
  const otherTracks = others.filter((p) => p.type === 'RouteTrack');
  const { trackLength, duplicateTrackLength } = duplicates(tracks, otherTracks, DUPLICATE_SPACING * w);
  const overhangs = overhang(input.boundary, input.parts, (input.width ?? w) / 2);
  markNecks(input.boundary, input.parts, (input.width ?? w) / 2, overhangs);
  const sum = (xs: readonly { length: number }[]) => xs.reduce((a, x) => a + x.length, 0);
  return {
    undrivenPassLength: sum(undrivenPasses),
    undrivenPasses: undrivenPasses.filter((s) => s.length >= MIN_STRETCH),
    undrivenTrackLength: sum(undrivenTracks),
    undrivenTracks: undrivenTracks.filter((s) => s.length >= MIN_STRETCH),
    trackLength,
    duplicateTrackLength,
    overhangLength: sum(overhangs),
    overhangAcrossNecksLength: sum(overhangs.filter((o) => o.acrossNeck)),
    overhangArea: outsideArea(
      overhangs.flatMap((o) => o.stretches),
      input.boundary,
      (input.width ?? w) / 2,
    ),
    overhangs,
  };
}

type Stretch = Omit<UndrivenStretch, 'kind'>;

/** The same number for a polyline and its reverse (from its ends and vertex count; equal lines have equal keys). */
function lineKey(pts: readonly Point[]): number {
  const a = pts[0];
  const b = pts[pts.length - 1];
  return pts.length + (a.x + b.x) * 1.000001 + (a.y + b.y) * 0.999997;
}

/** True when a and b have the same vertices, in the same or the reverse order. */
function sameLine(a: readonly Point[], b: readonly Point[]): boolean {
  const n = a.length;
  if (b.length !== n) return false;
  let fwd = true;
  let rev = true;
  for (let i = 0; i < n && (fwd || rev); i++) {
    fwd &&= a[i].x === b[i].x && a[i].y === b[i].y;
    rev &&= a[i].x === b[n - 1 - i].x && a[i].y === b[n - 1 - i].y;
  }
  return fwd || rev;
}

/**
 * The stretches of a polyline farther than tol from every segment of the
 * grid. A closed polyline (first point repeated) joins a stretch running
 * through its start.
 */
function undrivenStretches(
  line: readonly Point[],
  closed: boolean,
  grid: SegmentGrid,
  tol: number,
): Stretch[] {
  const out: Run[] = [];
  let cur: Run | null = null;
  const pts = densify(line, PIECE);
  let buf = new Float64Array(64);
  const one = new Float64Array(2);
  const merged = new Int32Array(1);
  const startsAtZero: boolean[] = [];
  let hint = -1;
  // True when segment pq runs along the driven polyline from its segment e:
  // p within tol of e, q within tol of e or a segment a few on (either way),
  // and every vertex between within tol of pq. The driven line then crosses
  // every perpendicular of pq within tol of it (up to tol at pq's ends).
  const near = (e: number, p: Point, q: Point) => {
    if (e < 0 || e >= grid.count) return false;
    if (segDist(p.x, p.y, grid.ax[e], grid.ay[e], grid.bx[e], grid.by[e]) > tol) return false;
    const own = grid.owner[e];
    for (let dir = 1; dir >= -1; dir -= 2) {
      for (
        let j = e, steps = 0;
        j >= 0 && j < grid.count && grid.owner[j] === own && steps < CHAIN;
        j += dir, steps++
      ) {
        if (j !== e) {
          // The vertex shared with the previous segment of the walk.
          const vx = dir === 1 ? grid.ax[j] : grid.bx[j];
          const vy = dir === 1 ? grid.ay[j] : grid.by[j];
          if (segDist(vx, vy, p.x, p.y, q.x, q.y) > tol) break;
        }
        if (segDist(q.x, q.y, grid.ax[j], grid.ay[j], grid.bx[j], grid.by[j]) <= tol) {
          hint = j;
          return true;
        }
      }
    }
    return false;
  };
  for (let k = 1; k < pts.length; k++) {
    const p = pts[k - 1];
    const q = pts[k];
    const L = Math.sqrt((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y));
    if (L === 0) continue;
    // Mostly a planned line is driven along: follow the driven line that held the last piece.
    if (hint >= 0 && near(hint, p, q)) {
      if (cur) out.push(cur);
      cur = null;
      continue;
    }
    let n = 0;
    const found = grid.nearSegments(p.x, p.y, q.x, q.y, tol);
    for (let i = 0; i < found; i++) {
      const e = grid.found[i];
      if (!capsuleInterval(p.x, p.y, q.x, q.y, grid.ax[e], grid.ay[e], grid.bx[e], grid.by[e], tol, one))
        continue;
      hint = e;
      if (2 * n + 2 > buf.length) {
        const b = new Float64Array(buf.length * 2);
        b.set(buf);
        buf = b;
      }
      buf[2 * n] = one[0];
      buf[2 * n + 1] = one[1];
      n++;
    }
    mergeIntervals(buf, n, merged);
    // The complement of the merged intervals in [0, 1]: undriven pieces.
    let t = 0;
    for (let i = 0; i < merged[0]; i++) {
      cur = addPiece(out, cur, startsAtZero, p, q, L, k, t, buf[2 * i]);
      t = buf[2 * i + 1];
      if (cur && t > 1e-9) {
        out.push(cur);
        cur = null;
      }
    }
    if (t < 1) cur = addPiece(out, cur, startsAtZero, p, q, L, k, t, 1);
  }
  if (cur) out.push(cur);
  // A closed ring: the stretch through its start is one.
  if (closed && out.length > 1 && startsAtZero[0]) {
    const last = out[out.length - 1];
    const lp = last.pts[last.pts.length - 1];
    const end = pts[pts.length - 1];
    if (hypot(lp.x - end.x, lp.y - end.y) < 1e-9) {
      const first = out.shift() as { pts: Point[]; length: number };
      last.pts.push(...first.pts.slice(1));
      last.length += first.length;
    }
  }
  return out.map((s) => ({
    length: s.length,
    from: s.pts[0],
    at: pointAlong(s.pts, s.length / 2),
    points: s.pts,
  }));
}

/** An undriven stretch of a line being measured, as its points and length. */
interface Run {
  pts: Point[];
  length: number;
}

/**
 * The undriven piece [s0, s1] of segment pq (length L, the k-th of the
 * line) added to the run `cur` when it goes on from it, else as a new run
 * (`cur` pushed to `out`); the run still open after it returned.
 */
function addPiece(
  out: Run[],
  cur: Run | null,
  startsAtZero: boolean[],
  p: Point,
  q: Point,
  L: number,
  k: number,
  s0: number,
  s1: number,
): Run | null {
  if (s1 - s0 <= 1e-9) return cur;
  const b = { x: p.x + s1 * (q.x - p.x), y: p.y + s1 * (q.y - p.y) };
  if (cur && s0 <= 1e-9) {
    cur.pts.push(b);
    cur.length += (s1 - s0) * L;
  } else {
    if (cur) out.push(cur);
    cur = { pts: [{ x: p.x + s0 * (q.x - p.x), y: p.y + s0 * (q.y - p.y) }, b], length: (s1 - s0) * L };
    startsAtZero.push(k === 1 && s0 <= 1e-9);
  }
  if (s1 < 1 - 1e-9) {
    out.push(cur);
    return null;
  }
  return cur;
}

/**
 * True when an undriven stretch of a pass is one of its corners rounded for
 * driving: the drivable pass rounds sharp convex corners it does not drive
 * square, and concave bends tighter than the turning radius, with arcs of
 * radius up to `radius`. Such a stretch bends, is no longer than the
 * rounding (radius times its bend, and where the arc is within the
 * tolerance of the straight, sqrt(2 radius tol) at each end), and stays
 * within the rounding's reach of a driven line, radius (1 / cos(phi / 2) - 1)
 * for a corner turning by phi.
 */
function smoothedCorner(pts: readonly Point[], grid: SegmentGrid, radius: number, tol: number): boolean {
  if (pts.length < 3) return false;
  let bending = 0;
  for (let i = 1; i + 1 < pts.length; i++) {
    const a = Math.atan2(pts[i].y - pts[i - 1].y, pts[i].x - pts[i - 1].x);
    const b = Math.atan2(pts[i + 1].y - pts[i].y, pts[i + 1].x - pts[i].x);
    bending += Math.abs(wrap(b - a));
  }
  if (bending < MIN_CORNER) return false;
  // The ends of the rounding lie within tol of the driven line: the corner turns by that much more.
  const phi = Math.min(bending + 2 * Math.acos(Math.max(-1, 1 - tol / radius)), MAX_CORNER);
  if (pathLength(pts) > radius * bending + 2 * Math.sqrt(2 * radius * tol) + 1) return false;
  const reach = radius * (1 / Math.cos(phi / 2) - 1) + tol;
  // Its ends and evenly spaced points between (the rounding bulges smoothly).
  const L = pathLength(pts);
  for (let i = 0; i <= CORNER_SAMPLES; i++) {
    const p = pointAlong(pts, (L * i) / CORNER_SAMPLES);
    if (grid.nearest(p.x, p.y, reach) > reach) return false;
  }
  return true;
}

/** True when every point along the stretch (its ends and CORNER_SAMPLES between) lies within reach of a driven line. */
function alongside(pts: readonly Point[], grid: SegmentGrid, reach: number): boolean {
  const L = pathLength(pts);
  for (let i = 0; i <= CORNER_SAMPLES; i++) {
    const p = pointAlong(pts, (L * i) / CORNER_SAMPLES);
    if (grid.nearest(p.x, p.y, reach) > reach) return false;
  }
  return true;
}

/** Median distance from points along the stretch to the nearest driven line, if that is within reach. */
function offLine(pts: readonly Point[], grid: SegmentGrid, reach: number): number | undefined {
  const L = pathLength(pts);
  const d: number[] = [];
  for (let i = 0; i <= CORNER_SAMPLES; i++) {
    const p = pointAlong(pts, (L * (i + 0.5)) / (CORNER_SAMPLES + 1));
    d.push(grid.nearest(p.x, p.y, reach));
  }
  d.sort((a, b) => a - b);
  const m = d[d.length >> 1];
  return Number.isFinite(m) ? m : undefined;
}

/**
 * Driven track length and the part of it within r of another, parallel
 * driven track part (of this zone or `others`).
 */
function duplicates(
  tracks: readonly PathPart[],
  others: readonly PathPart[],
  r: number,
): { trackLength: number; duplicateTrackLength: number } {
  // The segments of all the track parts (this zone's first), with the part each is of.
  const lines = [...tracks, ...others].map((p) => p.points);
  let count = 0;
  for (const l of lines) count += Math.max(0, l.length - 1);
  const seg = {
    ax: new Float64Array(count),
    ay: new Float64Array(count),
    bx: new Float64Array(count),
    by: new Float64Array(count),
    owner: new Int32Array(count),
  };
  let k = 0;
  let heading = 0;
  let longest = -1;
  lines.forEach((l, i) => {
    for (let j = 1; j < l.length; j++, k++) {
      seg.ax[k] = l[j - 1].x;
      seg.ay[k] = l[j - 1].y;
      seg.bx[k] = l[j].x;
      seg.by[k] = l[j].y;
      seg.owner[k] = i;
      const l2 = (l[j].x - l[j - 1].x) ** 2 + (l[j].y - l[j - 1].y) ** 2;
      if (l2 > longest) {
        longest = l2;
        heading = Math.atan2(l[j].y - l[j - 1].y, l[j].x - l[j - 1].x);
      }
    }
  });
  // Straight tracks: neighbours looked for across their heading (parallel
  // tracks a swath apart are none however long they are); curved ones
  // (spiral loops run every way) in the grid cells along them.
  const straight = lines.every((l) => l.length === 2);
  const across = straight ? new OffsetIndex(seg.ax, seg.ay, seg.bx, seg.by, count, heading) : null;
  const grid = straight ? null : new SegmentGrid(lines, Math.max(1, 4 * r));
  const near = (e0: number, f: (e: number) => void) =>
    across
      ? across.forEachNear(e0, r, f)
      : grid?.forEachNearSegment(seg.ax[e0], seg.ay[e0], seg.bx[e0], seg.by[e0], r, f);
  let own = 0;
  for (const t of tracks) own += Math.max(0, t.points.length - 1);
  const sinMax = Math.sin(PARALLEL);
  let buf = new Float64Array(64);
  const one = new Float64Array(2);
  const merged = new Int32Array(1);
  let trackLength = 0;
  let dup = 0;
  for (let e0 = 0; e0 < own; e0++) {
    const px = seg.ax[e0];
    const py = seg.ay[e0];
    const qx = seg.bx[e0];
    const qy = seg.by[e0];
    const L = Math.sqrt((qx - px) * (qx - px) + (qy - py) * (qy - py));
    trackLength += L;
    if (L === 0) continue;
    const self = seg.owner[e0];
    let n = 0;
    const x0 = Math.min(px, qx) - r;
    const x1 = Math.max(px, qx) + r;
    const y0 = Math.min(py, qy) - r;
    const y1 = Math.max(py, qy) + r;
    near(e0, (e) => {
      if (seg.owner[e] === self) return;
      // Boxes apart by more than r: nothing near (as capsuleInterval finds first).
      const ax = seg.ax[e];
      const bx = seg.bx[e];
      const ay = seg.ay[e];
      const by = seg.by[e];
      if (x0 > Math.max(ax, bx) || x1 < Math.min(ax, bx) || y0 > Math.max(ay, by) || y1 < Math.min(ay, by))
        return;
      const ex = seg.bx[e] - seg.ax[e];
      const ey = seg.by[e] - seg.ay[e];
      const el = Math.sqrt(ex * ex + ey * ey);
      if (el === 0) return;
      if (Math.abs((qx - px) * ey - (qy - py) * ex) > sinMax * L * el) return;
      if (!capsuleInterval(px, py, qx, qy, seg.ax[e], seg.ay[e], seg.bx[e], seg.by[e], r, one, false)) return;
      if (2 * n + 2 > buf.length) {
        const b = new Float64Array(buf.length * 2);
        b.set(buf);
        buf = b;
      }
      buf[2 * n] = one[0];
      buf[2 * n + 1] = one[1];
      n++;
    });
    if (n) dup += mergeIntervals(buf, n, merged) * L;
  }
  return { trackLength, duplicateTrackLength: dup };
}

export interface MissedPiece {
  /** Area [m^2]. */
  area: number;
  /** Centroid. */
  at: Point;
  /** Mean width (twice the area over the perimeter) [m]. */
  meanWidth: number;
  polygon: Polygon;
}

/**
 * The pieces of the worked field no swath covers, largest first (at most
 * `count`): the driven working parts buffered by half a swath, taken from
 * the field. As dear as the covered area, so for plans that miss much.
 */
export function missedPieces(
  field: readonly Polygon[],
  parts: readonly PathPart[],
  w: number,
  count = 3,
): MissedPiece[] {
  const lines: Point[][] = [];
  for (const p of parts)
    if (p.sequence !== undefined && p.working && p.points.length >= 2) lines.push(p.points);
  return describeMissed(difference(field, bufferLines(lines, w / 2, 'butt')), count);
}

/** Missed pieces (polygons no swath covers) with their area, centre and mean width, largest first (at most `count`). */
export function describeMissed(pieces: readonly Polygon[], count = 3): MissedPiece[] {
  const out: MissedPiece[] = [];
  for (const poly of pieces) {
    let a = 0;
    let cx = 0;
    let cy = 0;
    let perimeter = 0;
    for (const ring of [poly.outer, ...poly.holes]) {
      for (let i = 0; i < ring.length; i++) {
        const p = ring[i];
        const q = ring[(i + 1) % ring.length];
        const c = p.x * q.y - q.x * p.y;
        a += c;
        cx += (p.x + q.x) * c;
        cy += (p.y + q.y) * c;
        perimeter += hypot(q.x - p.x, q.y - p.y);
      }
    }
    const area = a / 2;
    if (area <= 0) continue;
    out.push({
      area,
      at: { x: cx / (3 * a), y: cy / (3 * a) },
      meanWidth: perimeter > 0 ? (2 * area) / perimeter : 0,
      polygon: poly,
    });
  }
  out.sort((p, q) => q.area - p.area);
  return out.slice(0, count);
}

/** The polyline with no segment longer than step (points added along long ones). */
function densify(pts: readonly Point[], step: number): readonly Point[] {
  let long = false;
  for (let i = 1; i < pts.length && !long; i++)
    long = (pts[i].x - pts[i - 1].x) ** 2 + (pts[i].y - pts[i - 1].y) ** 2 > step * step;
  if (!long) return pts;
  const out: Point[] = [pts[0]];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    const n = Math.ceil(hypot(b.x - a.x, b.y - a.y) / step);
    for (let k = 1; k < n; k++) out.push({ x: a.x + ((b.x - a.x) * k) / n, y: a.y + ((b.y - a.y) * k) / n });
    out.push(b);
  }
  return out;
}

function wrap(a: number): number {
  let d = a % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d < -Math.PI) d += 2 * Math.PI;
  return d;
}

function pathLength(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
  return s;
}

function pointAlong(pts: readonly Point[], s: number): Point {
  let left = s;
  for (let i = 1; i < pts.length; i++) {
    const l = hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
    if (left <= l && l > 0) {
      const t = left / l;
      return {
        x: pts[i - 1].x + t * (pts[i].x - pts[i - 1].x),
        y: pts[i - 1].y + t * (pts[i].y - pts[i - 1].y),
      };
    }
    left -= l;
  }
  return pts[pts.length - 1];
}
