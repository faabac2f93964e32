/** Small geometric helpers of the route modules. */
import { hypot, polylineLength } from '../geometry/vec.ts';
import type { PathPart, Point, Pose } from '../types/index.ts';
import type { RingDirection, RingPath } from './ring-path.ts';

/** A pose at p heading towards target (used where a route node starts or ends the route). */
export function entryPose(p: Point, target: Pose, arriving = false): Pose {
  const h = Math.atan2(target.y - p.y, target.x - p.x);
  return { x: p.x, y: p.y, heading: arriving ? Math.atan2(p.y - target.y, p.x - target.x) : h };
}

export function angleDiffRad(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d < -Math.PI) d += 2 * Math.PI;
  return d;
}

export function pickShorter<T extends { length: number }, U extends { length: number }>(
  a: T | null,
  b: U | null,
): T | U | null {
  if (!a) return b;
  if (!b) return a;
  return b.length < a.length ? b : a;
}

/** Signed area of a ring [m^2] (positive: counter-clockwise). */
export function ringArea(r: readonly Point[]): number {
  let a = 0;
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) a += r[j].x * r[i].y - r[i].x * r[j].y;
  return a / 2;
}

export function dist(a: Point, b: Point): number {
  return hypot(a.x - b.x, a.y - b.y);
}

/**
 * No way from pose `a` to pose `b` at turning radius `r` is shorter than
 * this [m]: the straight distance, and the heading change at one radian per
 * radius of arc (a little less, for rounding).
 */
export function leastWay(a: Pose, b: Pose, r: number): number {
  return Math.max(dist(a, b), r * Math.abs(angleDiffRad(b.heading, a.heading))) - 1e-6;
}

/**
 * The shortest way `find` finds to one of the places (the first of the
 * shortest, in their order), at most `maxLength` long; null where none is.
 * A place whose least way is longer than the best found (or than
 * `maxLength`) is not looked for; `find` is told that length (`bound`) and
 * may give up on a way it knows to be longer.
 */
export function shortestOf<P extends { least: number }, W extends { length: number }>(
  places: readonly P[],
  find: (place: P, bound: number) => W | null,
  maxLength = Number.POSITIVE_INFINITY,
): { place: P; way: W } | null {
  const order = [...places.keys()].sort((i, j) => places[i].least - places[j].least || i - j);
  let best: { place: P; way: W } | null = null;
  let bestAt = -1;
  for (const k of order) {
    const place = places[k];
    const bound = best ? Math.min(maxLength, best.way.length) : maxLength;
    if (place.least > bound) break;
    const way = find(place, bound);
    if (!way || !(way.length <= maxLength)) continue;
    if (!best || way.length < best.way.length || (way.length === best.way.length && k < bestAt)) {
      best = { place, way };
      bestAt = k;
    }
  }
  return best;
}

/**
 * Places on a ring `offsets` on from where `from` projects (s0), either way
 * round as `dirs` go (up to half the ring), each with the least way to it
 * from `from`.
 */
export function ringPlaces(
  from: Pose,
  path: RingPath,
  s0: number,
  dirs: readonly RingDirection[],
  offsets: readonly number[],
  R: number,
): { s: number; dir: RingDirection; to: Pose; least: number }[] {
  const places: { s: number; dir: RingDirection; to: Pose; least: number }[] = [];
  for (const dir of dirs) {
    for (const off of offsets) {
      if (off > path.length / 2) break;
      const s = path.snap(s0 + dir * off);
      const to = path.poseAt(s, dir);
      places.push({ s, dir, to, least: leastWay(from, to, R) });
    }
  }
  return places;
}

/** The point `d` along `heading` from `p` (back from it for d < 0). */
export function along(p: Point, heading: number, d: number): Point {
  return { x: p.x + d * Math.cos(heading), y: p.y + d * Math.sin(heading) };
}

/** True for the same pose, exactly. */
export function samePose(a: Pose, b: Pose): boolean {
  return a.x === b.x && a.y === b.y && a.heading === b.heading;
}

/**
 * A stretch of a ring shorter than a sample step of its curves, one chord:
 * as a part of its own it reads as a straight, its ends off the headings of
 * the turns before and after it (tangent to the ring's curve there) by half a
 * sampling step. Travel along a ring is kept at least two samples long.
 */
export function singleChord(pts: readonly Point[]): boolean {
  return pts.length === 2 && hypot(pts[1].x - pts[0].x, pts[1].y - pts[0].y) < 1.05;
}

/** The longest stretch of the driven parts run backwards [m]. */
export function longestReverse(parts: readonly PathPart[]): number {
  let longest = 0;
  for (const p of parts)
    if (p.reverse && p.sequence !== undefined) longest = Math.max(longest, polylineLength(p.points));
  return longest;
}
