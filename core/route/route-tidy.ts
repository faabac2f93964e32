/**
 * No driven part shorter than a few centimetres: a turn whose first or last
 * piece is a stub (a fishtail's 2 cm forward creep before it reverses, say)
 * or a piece of no length would be a stop and start, or a cusp, with no way
 * between. Such a part is merged into the turn or connector beside it that
 * is driven the same way, else it is dropped and the turn or connector
 * beside it (driven the other way) ends or starts where the stub did: the
 * route stays continuous, and tracks keep the geometry of their guidance
 * tracks.
 */

import { hypot } from '../geometry/vec.ts';
import type { PathPart, Point } from '../types/index.ts';

/** Driven parts shorter than this are merged or dropped [m]. */
export const MIN_PART_LENGTH = 0.05;

/** Parts shorter than this are rounding, not driving, and are dropped [m]: coordinates are kept to the micrometre. */
const ROUNDING_LENGTH = 1e-5;

export function withoutDegenerateParts(parts: readonly PathPart[]): PathPart[] {
  // Trimming a neighbour to where a stub ended can leave that neighbour a stub in turn.
  let cur = parts.slice();
  for (let round = 0; round < 4; round++) {
    const next = tidyOnce(cur);
    if (next.length === cur.length && next.every((q, i) => q === cur[i])) return next;
    cur = next;
  }
  return cur;
}

function tidyOnce(parts: readonly PathPart[]): PathPart[] {
  const list = parts.slice();
  const out: PathPart[] = [];
  for (let i = 0; i < list.length; i++) {
    const p = list[i];
    const l = length(p.points, MIN_PART_LENGTH);
    if (l >= MIN_PART_LENGTH || list.length === 1) {
      out.push(p);
      continue;
    }
    // No length but rounding (two pieces of one track whose ends were
    // rounded apart, say): nothing to drive, and the neighbours meet where it is.
    if (l < ROUNDING_LENGTH) continue;
    const prev = out[out.length - 1] as PathPart | undefined;
    const next = list[i + 1] as PathPart | undefined;
    const same = (q: PathPart | undefined) => q !== undefined && !!q.reverse === !!p.reverse;
    // Tracks keep their geometry (they follow their guidance tracks); passes and turns may take a stub.
    const free = (q: PathPart | undefined): q is PathPart => q !== undefined && q.type !== 'RouteTrack';
    // A back-and-forth between two parts driven the same way (a cusp, the stub, a cusp) where
    // dropping the stub would join them with a kink (a tight bend over centimetres): the part before runs on along its end tangent instead,
    // and the stub, as long as a part must be, comes back from there.
    if (
      prev &&
      next &&
      !same(prev) &&
      !same(next) &&
      free(prev) &&
      !prev.working &&
      prev.points.length >= 2 &&
      next.points.length >= 2 &&
      kinkDeg(prev.points[prev.points.length - 2], last(p.points), next.points[1]) > KINK_DEG
    ) {
      const a = prev.points[prev.points.length - 2];
      const b = last(prev.points);
      const ab = hypot(b.x - a.x, b.y - a.y);
      if (ab > 1e-9) {
        const d = 1.2 * MIN_PART_LENGTH - l;
        const tip = runOn(prev.points, d);
        out[out.length - 1] = { ...prev, points: [...prev.points, tip] };
        out.push({ ...p, points: [tip, ...p.points.slice(1)] });
        continue;
      }
    }
    if (free(next) && same(next) && !next.working) {
      list[i + 1] = { ...next, points: [...p.points.slice(0, -1), ...next.points] };
    } else if (free(prev) && same(prev) && !prev.working) {
      out[out.length - 1] = { ...prev, points: [...prev.points, ...p.points.slice(1)] };
    } else if (free(prev) && !prev.working) {
      // Driven the other way: the previous part ends where the stub did.
      out[out.length - 1] = { ...prev, points: [...prev.points.slice(0, -1), last(p.points)] };
    } else if (free(next) && !next.working) {
      list[i + 1] = { ...next, points: [p.points[0], ...next.points.slice(1)] };
    } else if (free(next) && same(next)) {
      list[i + 1] = { ...next, points: [...p.points.slice(0, -1), ...next.points] };
    } else if (free(prev) && same(prev)) {
      out[out.length - 1] = { ...prev, points: [...prev.points, ...p.points.slice(1)] };
    } else out.push(p);
  }
  return out;
}

/** Joining parts whose chords meet at more than this [deg] keeps the back-and-forth between them. */
const KINK_DEG = 1;

/** The heading change at b of the way a -> b -> c [deg]. */
function kinkDeg(a: Point, b: Point, c: Point): number {
  const h1 = Math.atan2(b.y - a.y, b.x - a.x);
  const h2 = Math.atan2(c.y - b.y, c.x - b.x);
  const d = Math.abs(((h2 - h1 + 3 * Math.PI) % (2 * Math.PI)) - Math.PI);
  return (d * 180) / Math.PI;
}

/** Bends between chords above this [deg] are corners, not a sampled curve. */
const CURVE_BEND_DEG = 20;

/**
 * The point d metres on from the end of pts along the curve it ends on: on
 * the circle through its last three points (a chord of a sampled arc turns
 * away from the arc's tangent by half a sampling step, and running on
 * along it would bend the path by that at its end), else along its last
 * chord.
 */
function runOn(pts: readonly Point[], d: number): Point {
  const n = pts.length;
  const b = pts[n - 1];
  const a = pts[n - 2];
  const ab = hypot(b.x - a.x, b.y - a.y);
  const straight = { x: b.x + ((b.x - a.x) / ab) * d, y: b.y + ((b.y - a.y) / ab) * d };
  if (n < 3) return straight;
  const o = pts[n - 3];
  // Circumcentre of o, a, b.
  const den = 2 * ((a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x));
  const ao = (a.x - o.x) ** 2 + (a.y - o.y) ** 2;
  const bo = (b.x - o.x) ** 2 + (b.y - o.y) ** 2;
  if (Math.abs(den) < 1e-12) return straight;
  const cx = o.x + ((b.y - o.y) * ao - (a.y - o.y) * bo) / den;
  const cy = o.y + ((a.x - o.x) * bo - (b.x - o.x) * ao) / den;
  const r = hypot(b.x - cx, b.y - cy);
  // A corner, not a sampled curve (the chords bend more than CURVE_BEND_DEG): straight on.
  const bend = Math.abs(
    ((Math.atan2(b.y - a.y, b.x - a.x) - Math.atan2(a.y - o.y, a.x - o.x) + 3 * Math.PI) % (2 * Math.PI)) -
      Math.PI,
  );
  if (bend > (CURVE_BEND_DEG * Math.PI) / 180) return straight;
  // Nearly straight (a radius of a kilometre or more): the chord will do.
  if (!(r < 1000)) return straight;
  // Turning left (den > 0) the curve runs counter-clockwise round the centre.
  const th = Math.atan2(b.y - cy, b.x - cx) + (den > 0 ? d / r : -d / r);
  return { x: cx + r * Math.cos(th), y: cy + r * Math.sin(th) };
}

function last(pts: readonly Point[]): Point {
  return pts[pts.length - 1];
}

/** Length of the polyline, or as much of it as reaches `enough` (no need to measure on). */
function length(pts: readonly Point[], enough: number): number {
  let s = 0;
  for (let i = 1; i < pts.length && s < enough; i++)
    s += hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
  return s;
}
