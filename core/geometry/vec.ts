import type { Point } from '../types/index.ts';

export const TAU = Math.PI * 2;

export function add(a: Point, b: Point): Point {
  return { x: a.x + b.x, y: a.y + b.y };
}

export function sub(a: Point, b: Point): Point {
  return { x: a.x - b.x, y: a.y - b.y };
}

export function scale(a: Point, s: number): Point {
  return { x: a.x * s, y: a.y * s };
}

export function dot(a: Point, b: Point): number {
  return a.x * b.x + a.y * b.y;
}

export function cross(a: Point, b: Point): number {
  return a.x * b.y - a.y * b.x;
}

/**
 * Math.hypot(x, y) to the bit: the same sum of the squares scaled by the
 * larger magnitude that V8 computes (and the same Infinity and NaN rules),
 * without the builtin's call and the array it allocates for its arguments
 * on every call (distances are asked for millions of times per plan).
 */
export function hypot(x: number, y: number): number {
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  if (ax === Number.POSITIVE_INFINITY || ay === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  if (Number.isNaN(ax) || Number.isNaN(ay)) return Number.NaN;
  const max = ax > ay ? ax : ay;
  if (max === 0) return 0;
  const n = ax / max;
  const m = ay / max;
  return Math.sqrt(n * n + m * m) * max;
}

export function dist(a: Point, b: Point): number {
  return hypot(a.x - b.x, a.y - b.y);
}

export function dist2(a: Point, b: Point): number {
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  return dx * dx + dy * dy;
}

export function len(a: Point): number {
  return hypot(a.x, a.y);
}

export function lerp(a: Point, b: Point, t: number): Point {
  return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t };
}

/** Unit vector of a heading [rad]. */
export function dir(heading: number): Point {
  return { x: Math.cos(heading), y: Math.sin(heading) };
}

/** Heading [rad] of the vector from a to b. */
export function headingOf(a: Point, b: Point): number {
  return Math.atan2(b.y - a.y, b.x - a.x);
}

/** Angle wrapped to (-pi, pi]. */
export function wrapAngle(a: number): number {
  let r = a % TAU;
  if (r <= -Math.PI) r += TAU;
  else if (r > Math.PI) r -= TAU;
  return r;
}

/** Bearing [deg clockwise from north] of a math heading [rad, CCW from east]. */
export function headingToBearingDeg(heading: number): number {
  const b = 90 - (heading * 180) / Math.PI;
  return ((b % 360) + 360) % 360;
}

/** Math heading [rad, CCW from east] of a bearing [deg clockwise from north]. */
export function bearingDegToHeading(bearingDeg: number): number {
  return wrapAngle(((90 - bearingDeg) * Math.PI) / 180);
}

/** Distance from p to the segment ab. */
export function distToSegment(p: Point, a: Point, b: Point): number {
  return distToSegmentXY(p.x, p.y, a.x, a.y, b.x, b.y);
}

/** distToSegment on coordinates (for hot loops over flat arrays: no points made). */
export function distToSegmentXY(
  px: number,
  py: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
): number {
  const abx = bx - ax;
  const aby = by - ay;
  const l2 = abx * abx + aby * aby;
  let t = l2 > 0 ? ((px - ax) * abx + (py - ay) * aby) / l2 : 0;
  t = t < 0 ? 0 : Math.min(t, 1);
  return hypot(px - (ax + t * abx), py - (ay + t * aby));
}

/**
 * Where on the polyline the point nearest to p lies: the segment from
 * vertex i (`closed`: a ring, its closing edge included), the fraction t
 * along it and the distance d. The first segment that comes nearer by more
 * than `eps` than those before it wins.
 */
export function nearestOnSegments(
  pts: readonly Point[],
  p: Point,
  closed = false,
  eps = 0,
): { i: number; t: number; d: number } {
  let best = { i: 0, t: 0, d: Number.POSITIVE_INFINITY };
  const n = pts.length;
  for (let i = 0; i < (closed ? n : n - 1); i++) {
    const a = pts[i];
    const b = pts[(i + 1) % n];
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const l2 = dx * dx + dy * dy;
    const t = l2 > 0 ? Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2)) : 0;
    const ex = a.x + t * dx - p.x;
    const ey = a.y + t * dy - p.y;
    const d = Math.sqrt(ex * ex + ey * ey);
    if (d < best.d - eps) best = { i, t, d };
  }
  return best;
}

/** The point of the polyline nearest to p (`closed`: a ring, its closing edge included). */
export function nearestOnPolyline(pts: readonly Point[], p: Point, closed = false): Point {
  if (pts.length < 2) return pts[0];
  const { i, t } = nearestOnSegments(pts, p, closed);
  const a = pts[i];
  const b = pts[(i + 1) % pts.length];
  return { x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y) };
}

/** Length of an open polyline [m]. */
export function polylineLength(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += dist(pts[i - 1], pts[i]);
  return s;
}

/** Length of a closed ring, its closing edge included [m]. */
export function ringLength(ring: readonly Point[]): number {
  return ring.length ? polylineLength(ring) + dist(ring[ring.length - 1], ring[0]) : 0;
}

/**
 * True for a polyline driven round a loop: it ends where it began (within a
 * micrometre) heading on within 30 degrees of how it began, so the swath
 * runs on through that point as a band. One that ends where it began facing
 * another way (a lane driven out and back round a strip, a loop begun at a
 * corner) has two ends there, each as wide as the swath across its heading.
 */
export function isLoop(pts: readonly Point[]): boolean {
  const n = pts.length;
  if (n < 4 || dist(pts[0], pts[n - 1]) >= 1e-6) return false;
  let i = 1;
  while (i < n - 1 && dist(pts[0], pts[i]) < 1e-9) i++;
  let j = n - 2;
  while (j > 0 && dist(pts[j], pts[n - 1]) < 1e-9) j--;
  const first = sub(pts[i], pts[0]);
  const last = sub(pts[n - 1], pts[j]);
  return dot(first, last) > Math.cos(Math.PI / 6) * len(first) * len(last);
}
