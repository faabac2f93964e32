/**
 * Travel along the headland rings between two poses of a route: along one
 * ring that passes near both, or from the ring near one to the ring near the
 * other where they come closest. The ways onto and off the rings are asked
 * of the route's links (route-links.ts), which hold them to the turn area
 * first.
 */

import type { EdgeIndex } from '../geometry/edge-index.ts';
import { hypot, polylineLength } from '../geometry/vec.ts';
import type { Point, Pose } from '../types/index.ts';
import type { Connection, ConnectOptions } from './connect.ts';
import type { RingDirection, RingPath } from './ring-path.ts';
import { RingVertices } from './ring-vertices.ts';
import { dist, leastWay, shortestOf, singleChord } from './route-geometry.ts';
import type { Found, RouteRing } from './route-links.ts';

/**
 * A stretch of a ring outside the turn area (a ring pulled round an
 * obstacle's corner nearer than half the working width) is driven round
 * from this far before it to as far after it [turning radii], the nearest first.
 */
const ROUND_MARGINS_RADII = [1, 2, 3];
/** ... forward, at most this much longer than the stretch of the ring it replaces [turning radii]. */
const ROUND_EXTRA_RADII = 2;
/** At most this many stretches of one travel along a ring are driven round. */
const MAX_ROUNDED = 4;
/** Travel along a ring longer than FAR_TIMES the distance between its ends and FAR_RADII turning radii tries more leads on and off. */
const FAR_TIMES = 3;
const FAR_RADII = 20;
/** Pieces of a ring between two ways round shorter than this [m] are left out (the ways meet there). */
const MIN_PIECE = 0.05;

export interface RingTravelSetup {
  /** The rings travel may follow. */
  rings: readonly RouteRing[];
  radius: number;
  swathWidth: number;
  /** The field shrunk by half the working width (null where nothing is left of it). */
  turnArea: EdgeIndex | null;
  /** A way between two poses, as the route's links find it. */
  link: (from: Pose, to: Pose, opts?: ConnectOptions) => Connection | null;
  /** True while ways are held to the turn area (then so is the travel along a ring). */
  held: () => boolean;
}

export class RingTravel {
  private readonly travelRings: readonly RouteRing[];
  private readonly R: number;
  private readonly w: number;
  private readonly turnArea: EdgeIndex | null;
  private readonly link: RingTravelSetup['link'];
  private readonly held: () => boolean;

  constructor(s: RingTravelSetup) {
    this.travelRings = s.rings;
    this.R = s.radius;
    this.w = s.swathWidth;
    this.turnArea = s.turnArea;
    this.link = s.link;
    this.held = s.held;
  }

  /**
   * From the ring near one end to the ring near the other (an obstacle ring
   * and the exterior pass, say), changing rings where they come closest.
   */
  viaTwoRings(from: Pose, to: Pose): Found | null {
    const R = this.R;
    const reach = 4 * R + 2 * this.w;
    const near = (p: Point) =>
      this.travelRings.filter(
        (r) => r.path.length >= 8 * R && dist(r.path.pointAt(r.path.project(p)), p) <= reach,
      );
    let best: Found | null = null;
    for (const A of near(from)) {
      for (const B of near(to)) {
        if (A === B) continue;
        // Where A and B come closest (A sampled every few metres).
        let sa = 0;
        let sb = 0;
        let bd = Number.POSITIVE_INFINITY;
        for (let s = 0; s < A.path.length; s += 3) {
          const p = A.path.pointAt(s);
          const t = B.path.project(p);
          const d = dist(p, B.path.pointAt(t));
          if (d < bd) {
            bd = d;
            sa = s;
            sb = t;
          }
        }
        if (bd > reach * 2) continue;
        for (const da of [1, -1] as RingDirection[]) {
          for (const db of [1, -1] as RingDirection[]) {
            const legs = this.chain(from, to, A.path, da, sa, B.path, db, sb);
            if (legs && (!best || legs.length < best.length)) best = legs;
          }
        }
      }
    }
    return best;
  }

  private chain(
    from: Pose,
    to: Pose,
    A: RingPath,
    da: RingDirection,
    sa: number,
    B: RingPath,
    db: RingDirection,
    sb: number,
  ): Found | null {
    const R = this.R;
    const a0 = A.snap(A.project(from) + da * 2 * R);
    const a1 = A.snap(sa);
    const b0 = B.snap(sb + db * 3 * R);
    const b1 = B.snap(B.project(to) - db * 2 * R);
    const la = A.distance(a0, a1, da);
    const lb = B.distance(b0, b1, db);
    const onA = A.stretch(a0, la, da);
    const onB = B.stretch(b0, lb, db);
    if (onA.length < 2 || onB.length < 2 || singleChord(onA) || singleChord(onB)) return null;
    if (this.held() && !(this.stretchInside(A, a0, la, da) && this.stretchInside(B, b0, lb, db))) return null;
    const c1 = this.link(from, A.poseAt(a0, da));
    if (!c1) return null;
    const c2 = this.link(A.arrivalPoseAt(a0 + da * la, da), B.poseAt(b0, db));
    if (!c2) return null;
    const c3 = this.link(B.arrivalPoseAt(b0 + db * lb, db), to);
    if (!c3) return null;
    const ta = polylineLength(onA);
    const tb = polylineLength(onB);
    return {
      length: c1.length + ta + c2.length + tb + c3.length,
      legs: [
        [c1, 'HeadlandConnector'],
        [ringLeg(onA, ta), 'HeadlandConnector'],
        [c2, 'HeadlandConnector'],
        [ringLeg(onB, tb), 'HeadlandConnector'],
        [c3, 'HeadlandConnector'],
      ],
    };
  }

  /**
   * True when the stretch of the ring from `a`, `travel` long in direction
   * `dir`, stays in the turn area (a ring pulled nearer the edge than half
   * the working width, round a sharp corner or in a narrow neck, does not
   * there).
   */
  private stretchInside(path: RingPath, a: number, travel: number, dir: RingDirection): boolean {
    const t = this.turnArea;
    if (!t) return true;
    const n = path.pts.length;
    const pre = this.vertices(path, t).leaving();
    if (pre[n] === 0) return true;
    if (travel >= path.length) return false;
    const start = path.wrap(dir === 1 ? a : a - travel);
    const i0 = segmentOf(path, start);
    const i1 = segmentOf(path, path.wrap(start + travel));
    const out = start + travel >= path.length ? pre[n] - pre[i0] + pre[i1 + 1] : pre[i1 + 1] - pre[i0];
    return out === 0;
  }

  /** Per ring, where its vertices and segments lie against the turn area (asked for as travels pass them). */
  private readonly ringVertices = new Map<RingPath, RingVertices>();

  private vertices(path: RingPath, t: EdgeIndex): RingVertices {
    let v = this.ringVertices.get(path);
    if (!v) {
      v = new RingVertices(path.pts, t);
      this.ringVertices.set(path, v);
    }
    return v;
  }

  /** Ways round a stretch of a ring, by ring, direction and ends (the same corner is passed by many travels). */
  private readonly rounded = new Map<RingPath, Map<string, Connection | null>>();

  /**
   * The travel along the ring from `a`, `travel` long in direction `dir`,
   * held to the turn area: along the ring where it runs in the turn area,
   * and round each stretch where it leaves it (an obstacle's corner the
   * ring is pulled round nearer than half the working width) by a way from
   * the ring before the stretch to the ring after it that keeps to the turn
   * area (outward of the corner). Null where some stretch has no such way.
   */
  private roundedStretch(path: RingPath, a: number, travel: number, dir: RingDirection): Connection[] | null {
    const t = this.turnArea;
    if (!t) return null;
    const pts = path.stretch(a, travel, dir);
    // Stretches [from, to] along the travel where the ring leaves the turn area.
    const out: [number, number][] = [];
    const v = this.vertices(path, t);
    let u = 0;
    for (let k = 0; k + 1 < pts.length; k++) {
      const p = pts[k];
      const q = pts[k + 1];
      const l = hypot(q.x - p.x, q.y - p.y);
      if (v.pointOutside(p) || v.pointOutside(q) || v.segmentCrosses(p, q)) {
        const last = out[out.length - 1];
        if (last && last[1] >= u - 1e-9) last[1] = u + l;
        else out.push([u, u + l]);
      }
      u += l;
    }
    if (out.length > MAX_ROUNDED) return null;
    const R = this.R;
    const legs: Connection[] = [];
    let done = 0;
    let cache = this.rounded.get(path);
    if (!cache) {
      cache = new Map();
      this.rounded.set(path, cache);
    }
    const along = (u0: number, u1: number) => {
      if (u1 - u0 < MIN_PIECE) return;
      const piece = path.stretch(a + dir * u0, u1 - u0, dir);
      if (piece.length >= 2) legs.push(ringLeg(piece, u1 - u0));
    };
    for (let i = 0; i < out.length; ) {
      let way: { c: Connection; u0: number; u1: number; next: number } | null = null;
      for (const k of ROUND_MARGINS_RADII) {
        const u0 = path.distance(a, path.snap(a + dir * (out[i][0] - k * R)), dir);
        if (u0 < done - 1e-9 || u0 > out[i][0]) break;
        // Stretches that start before the way joins the ring again are rounded by it too.
        let j = i;
        let end = out[i][1] + k * R;
        while (j + 1 < out.length && out[j + 1][0] <= end) {
          j++;
          end = out[j][1] + k * R;
        }
        const u1 = path.distance(a, path.snap(a + dir * end), dir);
        if (end > travel || u1 < out[j][1] || u1 > travel) break;
        const s0 = path.wrap(a + dir * u0);
        const s1 = path.wrap(a + dir * u1);
        const key = `${dir} ${s0} ${s1}`;
        let c = cache.get(key);
        if (c === undefined) {
          c = this.link(path.arrivalPoseAt(s0, dir), path.poseAt(s1, dir), { allowReverse: false });
          if (c && c.length > u1 - u0 + ROUND_EXTRA_RADII * R) c = null;
          cache.set(key, c);
        }
        if (c) {
          way = { c, u0, u1, next: j + 1 };
          break;
        }
      }
      if (!way) return null;
      along(done, way.u0);
      legs.push(way.c);
      done = way.u1;
      i = way.next;
    }
    along(done, travel);
    return legs;
  }

  alongRing(from: Pose, to: Pose, allowReverse: boolean): Found | null {
    const R = this.R;
    const w = this.w;
    const opts = { allowReverse };
    let best: Found | null = null;
    for (const leads of [[2 * R, 4 * R], [R]]) {
      // Where the usual leads on and off the ring find only a long way round
      // (the ways on or off do not fit where the ring squeezes past an
      // obstacle's end, say), leads of one turning radius are tried too.
      if (leads.length === 1 && !(best && best.length > FAR_TIMES * dist(from, to) + FAR_RADII * R)) break;
      // The ways along each ring that passes near both ends (each way round,
      // with each lead), the shortest of them at least first (shortestOf).
      const places: AlongPlace[] = [];
      for (const r of this.travelRings) {
        const p = r.path;
        if (p.length < 8 * R) continue;
        // Only rings that pass near both ends are worth a try.
        const reach = 4 * R + 2 * w;
        const s0 = p.project(from);
        if (dist(p.pointAt(s0), from) > reach) continue;
        const s1 = p.project(to);
        if (dist(p.pointAt(s1), to) > reach) continue;
        for (const dir of [1, -1] as RingDirection[]) {
          for (const la of leads) {
            const a = p.snap(s0 + dir * la);
            const b = p.snap(s1 - dir * la);
            const travel = p.distance(a, b, dir);
            // Held to the turn area, the travel along the ring too: round
            // the stretches where the ring leaves it.
            const round = this.held() && !this.stretchInside(p, a, travel, dir);
            const on = p.poseAt(a, dir);
            const off = p.arrivalPoseAt(a + dir * travel, dir);
            const leastOn = leastWay(from, on, R);
            const leastOff = leastWay(off, to, R);
            // Along the ring itself, as long as it; round a stretch, no shorter
            // than the straight distance (the ring turns sharper than the
            // machine at its corners: its heading tells nothing).
            const leastAlong = round ? dist(on, off) : travel;
            places.push({
              p,
              dir,
              a,
              travel,
              round,
              on,
              off,
              leastOn,
              leastOff,
              least: leastOn + leastAlong + leastOff,
            });
          }
        }
      }
      const found = shortestOf(places, (q, bound) => this.along(from, to, q, opts, bound));
      if (found && (!best || found.way.length < best.length)) best = found.way;
    }
    return best;
  }

  /**
   * The way from `from` along the ring of `q` to `to`; null where none is,
   * or none as short as `bound`.
   */
  private along(from: Pose, to: Pose, q: AlongPlace, opts: ConnectOptions, bound: number): Found | null {
    const { p, a, travel, dir } = q;
    const pts = p.stretch(a, travel, dir);
    if (pts.length < 2 || singleChord(pts)) return null;
    const along = q.round ? this.roundedStretch(p, a, travel, dir) : [ringLeg(pts, travel)];
    if (!along) return null;
    const alongLength = along.reduce((t, c) => t + c.length, 0);
    // No way on or off is shorter than its least way: no use linking a way that cannot be as short.
    if (q.leastOn + alongLength + q.leastOff > bound) return null;
    const c1 = this.link(from, q.on, opts);
    if (!c1 || c1.length + alongLength + q.leastOff > bound) return null;
    const c2 = this.link(q.off, to, opts);
    if (!c2) return null;
    return {
      length: c1.length + alongLength + c2.length,
      legs: [
        [c1, 'HeadlandConnector'],
        ...along.map((c): [Connection, 'HeadlandConnector'] => [c, 'HeadlandConnector']),
        [c2, 'HeadlandConnector'],
      ],
    };
  }
}

/** A way along a ring alongRing tries: from `a`, `travel` long in direction `dir`. */
interface AlongPlace {
  p: RingPath;
  dir: RingDirection;
  a: number;
  travel: number;
  /** Held to the turn area, round the stretches where the ring leaves it. */
  round: boolean;
  /** Where the way joins the ring and leaves it. */
  on: Pose;
  off: Pose;
  /** The least ways onto the ring and off it [m]. */
  leastOn: number;
  leastOff: number;
  /** No way along this place is shorter [m]. */
  least: number;
}

/** Travel along a ring as a connection. */
function ringLeg(pts: Point[], length: number): Connection {
  return { pieces: [{ points: pts, reverse: false }], length, kind: 'headland' };
}

/** Index of the ring's segment holding arc length s (in [0, length)). */
function segmentOf(path: RingPath, s: number): number {
  const cum = path.cum;
  let lo = 0;
  let hi = path.pts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (cum[mid] <= s) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
