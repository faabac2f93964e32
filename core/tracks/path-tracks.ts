/**
 * Shared geometry of tracks that are polylines (curved and spiral tracks):
 * level sets of the distance to an open reference line, clipping a drivable
 * polyline to the workable area, and the arc-length helpers the generators
 * need.
 *
 * A drivable polyline here is what filletRing makes: straight segments and
 * exact circular arcs of a radius >= the machine's turning radius, sampled at
 * most 1 m and 5 degrees (ARC_STEP) apart. Cutting such a line at an
 * arbitrary point close after a vertex of an arc makes the last three
 * vertices bend tighter than the arc (the last chord is short but turns as
 * much as a full one), so clipped ends are pulled back to the last whole
 * vertex where that happens.
 */
import {
  Clipper,
  Clipper64,
  ClipperOffset,
  ClipType,
  EndType,
  FillRule,
  JoinType,
  type Paths64,
  PolyTree64,
} from 'clipper2-ts';
import { fromPath, SCALE, toPath, toPaths, treeToPolygons } from '../geometry/clip.ts';
import { pushFilletArc } from '../geometry/fillet.ts';
import { hypot, nearestOnSegments } from '../geometry/vec.ts';
import { TRACK_ARC_STEP } from '../turn/path.ts';
import type { Point, Polygon } from '../types/index.ts';

/**
 * The rings of the set of points at distance exactly d from an open
 * polyline (the boundary of its round-jointed, flat-ended buffer).
 */
export function levelSetRings(line: readonly Point[], d: number, arcTolerance = 0.02): Point[][] {
  const co = new ClipperOffset(2, arcTolerance * SCALE);
  co.addPath(toPath(line), JoinType.Round, EndType.Butt);
  const out: Paths64 = [];
  co.execute(d * SCALE, out);
  return out.map(fromPath).filter((r) => r.length >= 3);
}

/**
 * The set of points within d of an open polyline (its round-jointed,
 * flat-ended buffer) as polygons; their rings are the level set at d.
 */
export function bufferLine(line: readonly Point[], d: number, arcTolerance = 0.02): Polygon[] {
  const co = new ClipperOffset(2, arcTolerance * SCALE);
  co.addPath(toPath(line), JoinType.Round, EndType.Butt);
  const tree = new PolyTree64();
  co.execute(d * SCALE, tree);
  return treeToPolygons(tree);
}

/**
 * The pieces of a polyline inside a region, in the polyline's order and
 * direction. A closed polyline (a ring, given without its closing vertex)
 * whose cut falls on its seam is joined back into one piece; a ring wholly
 * inside comes back as one piece that starts and ends at its first vertex.
 */
export function clipPolyline(pts: readonly Point[], closed: boolean, region: readonly Polygon[]): Point[][] {
  const path = closed ? [...pts, pts[0]] : pts.slice();
  if (path.length < 2) return [];
  const c = new Clipper64();
  c.addOpenSubject([toPath(path)]);
  c.addClip(toPaths(region));
  const closedOut: Paths64 = [];
  const openOut: Paths64 = [];
  c.execute(ClipType.Intersection, FillRule.NonZero, closedOut, openOut);
  if (openOut.length === 0) return [];
  // Position of each piece along the original (pieces may come back reversed and in any order).
  const cum = [0];
  for (let i = 1; i < path.length; i++) cum.push(cum[i - 1] + dist(path[i - 1], path[i]));
  const total = cum[cum.length - 1];
  const pieces = openOut
    .map(fromPath)
    .filter((p) => p.length >= 2)
    .map((p) => {
      let s0 = locate(path, cum, p[0]);
      let s1 = locate(path, cum, p[p.length - 1]);
      if (s1 < s0 || (s1 === s0 && p.length > 1 && locate(path, cum, p[1]) < s0)) {
        p.reverse();
        [s0, s1] = [s1, s0];
      }
      return { p, s0, s1 };
    })
    .sort((a, b) => a.s0 - b.s0);
  if (closed && pieces.length > 1) {
    const first = pieces[0];
    const last = pieces[pieces.length - 1];
    if (first.s0 < 1e-4 && total - last.s1 < 1e-4) {
      last.p = [...last.p, ...first.p.slice(1)];
      pieces.shift();
    }
  }
  return pieces.map(({ p }) => p);
}

/** Arc length along `path` of the point nearest to q. */
function locate(path: readonly Point[], cum: readonly number[], q: Point): number {
  if (path.length < 2) return 0;
  const { i, t } = nearestOnSegments(path, q, false, 1e-9);
  const dx = path[i + 1].x - path[i].x;
  const dy = path[i + 1].y - path[i].y;
  return cum[i] + t * Math.sqrt(dx * dx + dy * dy);
}

/**
 * Pull a clipped end back to the last whole vertex where the cut chord is
 * shorter than the chord before it and turns against it (see the header).
 */
export function tidyEnds(piece: readonly Point[], radius?: number): Point[] {
  // Vertices a few millimetres apart (where the clipper split an edge at the
  // area's boundary and joined it again) make three-point curvature meaningless.
  let p = dropNear(dropDuplicates(piece.slice()), NEAR);
  const bad = (a: Point, b: Point, c: Point) => {
    const ab = dist(a, b);
    const bc = dist(b, c);
    if (bc >= ab * 0.999) return false;
    const cr = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
    return Math.abs(cr) > 1e-9 * ab * bc;
  };
  while (p.length >= 3 && bad(p[p.length - 3], p[p.length - 2], p[p.length - 1])) p = p.slice(0, -1);
  while (p.length >= 3 && bad(p[2], p[1], p[0])) p = p.slice(1);
  if (radius !== undefined) {
    // A cut point on a chord of an arc, next to vertices the clipper inserted, can
    // make the end bend tighter than the machine turns: end at the vertex before.
    const kmax = 1 / radius;
    while (p.length >= 3 && threePointCurvature(p[p.length - 3], p[p.length - 2], p[p.length - 1]) > kmax)
      p = p.slice(0, -1);
    while (p.length >= 3 && threePointCurvature(p[0], p[1], p[2]) > kmax) p = p.slice(1);
  }
  return sampleCorners(p);
}

/** Curvature of the circle through three points [1/m]; 0 when two of them (nearly) coincide. */
function threePointCurvature(a: Point, b: Point, c: Point): number {
  const ab = dist(a, b);
  const bc = dist(b, c);
  const ca = dist(c, a);
  if (ab < 1e-6 || bc < 1e-6 || ca < 1e-6) return 0;
  return (2 * Math.abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x))) / (ab * bc * ca);
}

/**
 * A vertex that turns (however slightly: a fillet shorter than a millimetre
 * was merged into it) between two edges longer than a metre gets points half
 * a metre either side, so the line is drawn finely where it bends.
 */
function sampleCorners(p: Point[]): Point[] {
  if (p.length < 3) return p;
  const out: Point[] = [p[0]];
  for (let i = 1; i < p.length - 1; i++) {
    const a = p[i - 1];
    const b = p[i];
    const c = p[i + 1];
    const ab = dist(a, b);
    const bc = dist(b, c);
    const cr = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
    if (ab > 1 && bc > 1 && Math.abs(cr) > 1e-12 * ab * bc) {
      out.push({ x: b.x + ((a.x - b.x) * 0.5) / ab, y: b.y + ((a.y - b.y) * 0.5) / ab });
      out.push(b);
      out.push({ x: b.x + ((c.x - b.x) * 0.5) / bc, y: b.y + ((c.y - b.y) * 0.5) / bc });
    } else out.push(b);
  }
  out.push(p[p.length - 1]);
  return out;
}

/** Interior vertices closer than this to the previous one are dropped [m]. */
const NEAR = 0.01;

/** Without the vertices closer than eps to the one kept before them; the ends stay. */
function dropNear(pts: Point[], eps: number): Point[] {
  if (pts.length < 3) return pts;
  const out: Point[] = [pts[0]];
  for (let i = 1; i < pts.length - 1; i++) if (dist(out[out.length - 1], pts[i]) >= eps) out.push(pts[i]);
  const last = pts[pts.length - 1];
  if (out.length > 1 && dist(out[out.length - 1], last) < eps) out.pop();
  out.push(last);
  return out;
}

export function dropDuplicates(pts: Point[]): Point[] {
  const out: Point[] = [];
  for (const q of pts) {
    const last = out[out.length - 1];
    if (!last || dist(last, q) > 1e-6) out.push(q);
  }
  return out;
}

export function dist(a: Point, b: Point): number {
  return hypot(a.x - b.x, a.y - b.y);
}

/** Index of the vertex nearest to q. */
export function nearestVertex(pts: readonly Point[], q: Point): number {
  let best = 0;
  let bd = Number.POSITIVE_INFINITY;
  for (let i = 0; i < pts.length; i++) {
    const d = (pts[i].x - q.x) ** 2 + (pts[i].y - q.y) ** 2;
    if (d < bd) {
      bd = d;
      best = i;
    }
  }
  return best;
}

/** Parameter along an open polyline (arc length) of the point nearest to q. */
export function arcParam(pts: readonly Point[], q: Point): number {
  const cum = [0];
  for (let i = 1; i < pts.length; i++) cum.push(cum[i - 1] + dist(pts[i - 1], pts[i]));
  return locate(pts, cum, q);
}

export interface FilletOpenOptions {
  /** Simplification tolerance [m]. */
  tolerance?: number;
  /** Largest distance between samples of a rounding [m]; default 1. */
  maxStep?: number;
  /** Largest heading change between samples of a rounding [rad]; default TRACK_ARC_STEP (4.9 degrees). */
  maxAngle?: number;
}

/**
 * An open polyline made drivable: simplified within a tolerance, then every
 * interior corner replaced by the arc of the given radius tangent to both
 * edges (as filletRing does for rings). Corners too close together for their
 * arcs are merged into one corner where they turn the same way, else the
 * gentler one is dropped; the end vertices stay where they are.
 */
export function filletOpen(line: readonly Point[], radius: number, opts: FilletOpenOptions = {}): Point[] {
  const tol = opts.tolerance ?? 0.05;
  const maxStep = opts.maxStep ?? 1;
  const maxAngle = opts.maxAngle ?? TRACK_ARC_STEP;
  let v = dropDuplicates(Clipper.simplifyPathD(line as Point[], tol, false).map((p) => ({ x: p.x, y: p.y })));
  if (v.length < 3) return v;
  for (let guard = 0; guard < 4 * v.length + 100; guard++) {
    const n = v.length;
    if (n < 3) return v;
    const turn = openTurns(v);
    let worst = -1;
    let excess = 0;
    for (let i = 0; i < n - 1; i++) {
      const L = dist(v[i], v[i + 1]);
      const need = radius * (Math.tan(Math.abs(turn[i]) / 2) + Math.tan(Math.abs(turn[i + 1]) / 2));
      if (need - L > 1e-9 && need - L > excess) {
        excess = need - L;
        worst = i;
      }
    }
    if (worst < 0) break;
    const i = worst;
    const j = i + 1;
    if (i === 0) v.splice(j, 1);
    else if (j === n - 1) v.splice(i, 1);
    else {
      const sameSide = Math.sign(turn[i]) === Math.sign(turn[j]);
      const total = Math.abs(turn[i] + turn[j]);
      const p = sameSide && total < Math.PI * 0.97 ? lineCross(v[i - 1], v[i], v[j], v[j + 1]) : null;
      if (p) v.splice(i, 2, p);
      else v.splice(Math.abs(turn[i]) < Math.abs(turn[j]) ? i : j, 1);
    }
    v = dropDuplicates(v);
  }
  const n = v.length;
  if (n < 3) return v;
  const turn = openTurns(v);
  const out: Point[] = [v[0]];
  for (let i = 1; i < n - 1; i++) {
    const prev = v[i - 1];
    const cur = v[i];
    const th = turn[i];
    if (Math.abs(th) < 1e-12) {
      out.push(cur);
      continue;
    }
    const l = dist(prev, cur) || 1;
    pushFilletArc(
      out,
      cur,
      { x: (cur.x - prev.x) / l, y: (cur.y - prev.y) / l },
      th,
      radius,
      maxAngle,
      maxStep,
    );
  }
  out.push(v[n - 1]);
  return dropDuplicates(out);
}

/** Signed turn at each vertex of an open polyline (0 at the ends). */
function openTurns(v: readonly Point[]): number[] {
  const n = v.length;
  const out = new Array<number>(n).fill(0);
  for (let i = 1; i < n - 1; i++) {
    let d =
      Math.atan2(v[i + 1].y - v[i].y, v[i + 1].x - v[i].x) -
      Math.atan2(v[i].y - v[i - 1].y, v[i].x - v[i - 1].x);
    while (d > Math.PI) d -= 2 * Math.PI;
    while (d < -Math.PI) d += 2 * Math.PI;
    out[i] = d;
  }
  return out;
}

/** Intersection of line ab with line cd, or null when (nearly) parallel. */
function lineCross(a: Point, b: Point, c: Point, d: Point): Point | null {
  const r = { x: b.x - a.x, y: b.y - a.y };
  const s = { x: d.x - c.x, y: d.y - c.y };
  const den = r.x * s.y - r.y * s.x;
  if (Math.abs(den) < 1e-12 * hypot(r.x, r.y) * hypot(s.x, s.y)) return null;
  const t = ((c.x - a.x) * s.y - (c.y - a.y) * s.x) / den;
  return { x: a.x + t * r.x, y: a.y + t * r.y };
}
