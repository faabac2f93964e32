/**
 * Turn a closed ring into a drivable one made of straight segments and exact
 * circular arcs of a given radius: simplify within a tolerance, then replace
 * every corner by the arc of that radius tangent to both edges. Corners too
 * close together for their arcs are merged into one corner first.
 *
 *        V_i
 *   ----*----         T_in ---.__
 *        \                     `.  arc of radius r, centre on the inner side
 *         \        ->            \
 *          \                      T_out
 *
 * Arcs are sampled exactly on the circle (at most maxAngle of heading change
 * and maxStep metres between samples), so every three consecutive samples of
 * an arc have circumradius r.
 */
import { Clipper } from 'clipper2-ts';
import { ccCorner } from '../turn/cc-dubins.ts';
import { sampleCurvePath } from '../turn/clothoid.ts';
import { ARC_STEP, leastSteps } from '../turn/path.ts';
import type { Point } from '../types/index.ts';
import { hypot } from './vec.ts';

export interface FilletOptions {
  /** Simplification tolerance [m]. */
  tolerance?: number;
  /** Largest distance between samples of a rounding [m]; default 1. */
  maxStep?: number;
  /** Largest heading change between samples of a rounding [rad]; default ARC_STEP (5 degrees). */
  maxAngle?: number;
  /**
   * Curvature-rate limit [1/m^2]: corners become continuous-curvature curves
   * (clothoid, arc of the radius, clothoid; two clothoids for small corners)
   * instead of arcs, so the curvature never jumps.
   */
  curvatureRate?: number;
}

export function filletRing(ring: readonly Point[], radius: number, opts: FilletOptions = {}): Point[] | null {
  const tol = opts.tolerance ?? 0.05;
  const maxStep = opts.maxStep ?? 1;
  const maxAngle = opts.maxAngle ?? ARC_STEP;
  const sigma = opts.curvatureRate;
  /** Distance from a corner turning by th [rad] to where its rounding leaves the edge [m]. */
  const memo = new Map<number, number>();
  const tangent = (th: number) => {
    if (sigma === undefined) return radius * Math.tan(Math.abs(th) / 2);
    // Merging corners asks for the same corners again and again.
    let t = memo.get(th);
    if (t === undefined) {
      t = ccCorner(radius, sigma, th).tangent;
      memo.set(th, t);
    }
    return t;
  };
  let v: Point[] = Clipper.simplifyPathD(ring as Point[], tol, true).map((p) => ({ x: p.x, y: p.y }));
  v = dropDuplicates(v);
  if (v.length < 3) return null;
  // Merge corners whose arcs overlap, until every arc fits on its edges.
  for (let guard = 0; guard < 4 * ring.length + 100; guard++) {
    const n = v.length;
    if (n < 3) return null;
    const turn = turns(v);
    let worst = -1;
    let excess = 0;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      const L = dist(v[i], v[j]);
      const need = tangent(turn[i]) + tangent(turn[j]);
      if (need - L > 1e-9 && need - L > excess) {
        excess = need - L;
        worst = i;
      }
    }
    if (worst < 0) break;
    const i = worst;
    const j = (i + 1) % n;
    const sameSide = Math.sign(turn[i]) === Math.sign(turn[j]);
    const total = Math.abs(turn[i] + turn[j]);
    const p =
      sameSide && total < Math.PI * 0.97
        ? lineIntersection(v[(i - 1 + n) % n], v[i], v[j], v[(j + 1) % n])
        : null;
    if (p) {
      // Corners i and j = i + 1 become one corner at p.
      if (j > i) v.splice(i, 2, p);
      else {
        v.splice(i, 1, p);
        v.shift();
      }
    } else {
      // An S-bend or hairpin with no room: drop the gentler corner.
      v.splice(Math.abs(turn[i]) < Math.abs(turn[j]) ? i : j, 1);
    }
    v = dropDuplicates(v);
  }
  const n = v.length;
  if (n < 3) return null;
  const turn = turns(v);
  const out: Point[] = [];
  for (let i = 0; i < n; i++) {
    const prev = v[(i - 1 + n) % n];
    const cur = v[i];
    const th = turn[i];
    if (Math.abs(th) < 1e-12) {
      out.push(cur);
      continue;
    }
    const uin = unit(prev, cur);
    if (sigma !== undefined) {
      const corner = ccCorner(radius, sigma, th);
      const t = corner.tangent;
      const from = { x: cur.x - uin.x * t, y: cur.y - uin.y * t, heading: Math.atan2(uin.y, uin.x) };
      out.push({ x: from.x, y: from.y });
      const pieces = sampleCurvePath(
        from,
        { pieces: corner.pieces, length: 0, word: '' },
        { maxStep, maxAngleRad: maxAngle },
      );
      for (const pc of pieces) for (const q of pc.points.slice(1)) out.push(q);
      continue;
    }
    // The last sample is the exit tangent point cur + t * uout (up to rounding).
    pushFilletArc(out, cur, uin, th, radius, maxAngle, maxStep);
  }
  return dropDuplicates(out);
}

function turns(v: readonly Point[]): number[] {
  const n = v.length;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const a = v[(i - 1 + n) % n];
    const b = v[i];
    const c = v[(i + 1) % n];
    const h1 = Math.atan2(b.y - a.y, b.x - a.x);
    const h2 = Math.atan2(c.y - b.y, c.x - b.x);
    let d = h2 - h1;
    while (d > Math.PI) d -= 2 * Math.PI;
    while (d < -Math.PI) d += 2 * Math.PI;
    out[i] = d;
  }
  return out;
}

function dropDuplicates(v: Point[]): Point[] {
  const out: Point[] = [];
  for (const p of v) {
    const last = out[out.length - 1];
    if (!last || dist(last, p) > 1e-6) out.push(p);
  }
  while (out.length > 1 && dist(out[0], out[out.length - 1]) <= 1e-6) out.pop();
  return out;
}

function dist(a: Point, b: Point): number {
  return hypot(a.x - b.x, a.y - b.y);
}

function unit(a: Point, b: Point): Point {
  const l = dist(a, b) || 1;
  return { x: (b.x - a.x) / l, y: (b.y - a.y) / l };
}

/** Intersection of line ab with line cd, or null when (nearly) parallel. */
function lineIntersection(a: Point, b: Point, c: Point, d: Point): Point | null {
  const r = { x: b.x - a.x, y: b.y - a.y };
  const s = { x: d.x - c.x, y: d.y - c.y };
  const den = r.x * s.y - r.y * s.x;
  if (Math.abs(den) < 1e-12 * hypot(r.x, r.y) * hypot(s.x, s.y)) return null;
  const t = ((c.x - a.x) * s.y - (c.y - a.y) * s.x) / den;
  return { x: a.x + t * r.x, y: a.y + t * r.y };
}

/**
 * Push the samples of the arc of `radius` that rounds the corner `cur`,
 * entered along the unit direction `uin` and turning by `th` [rad] (left
 * positive): from the entry tangent point to the exit tangent point, at most
 * maxAngle [rad] and maxStep [m] apart and in at least leastSteps(length)
 * chords (so the arc's tangent at either end can be read from its samples).
 */
export function pushFilletArc(
  out: Point[],
  cur: Point,
  uin: Point,
  th: number,
  radius: number,
  maxAngle: number,
  maxStep: number,
): void {
  const t = radius * Math.tan(Math.abs(th) / 2);
  const tin = { x: cur.x - uin.x * t, y: cur.y - uin.y * t };
  const s = th > 0 ? 1 : -1;
  const c = { x: tin.x - s * uin.y * radius, y: tin.y + s * uin.x * radius };
  const steps = Math.max(
    leastSteps(Math.abs(th) * radius),
    Math.ceil(Math.abs(th) / maxAngle),
    Math.ceil((Math.abs(th) * radius) / maxStep),
  );
  const a0 = Math.atan2(tin.y - c.y, tin.x - c.x);
  for (let k = 0; k <= steps; k++) {
    const a = a0 + (th * k) / steps;
    out.push({ x: c.x + radius * Math.cos(a), y: c.y + radius * Math.sin(a) });
  }
}
