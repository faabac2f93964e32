/**
 * A closed drivable ring (a smoothed headland pass) addressed by arc length:
 * project a point onto it, take the pose at a position in either driving
 * direction, cut out the stretch between two positions, or the whole loop
 * from one position back to itself.
 */
import { endTangent, startTangent } from '../geometry/tangent.ts';
import { hypot } from '../geometry/vec.ts';
import type { Point, Pose } from '../types/index.ts';

export type RingDirection = 1 | -1;

/** Segments at least this long [m] are straights (curves are sampled at most 1 m apart). */
const STRAIGHT_MIN = 1.05;

/** Vertices curving less than this [1/m] count as where the curvature passes through 0. */
const FLAT_CURVATURE = 0.01;

/** Segments per bounding box in project(). */
const CHUNK = 16;

/** A square above which a distance surely exceeds d (the square's rounding aside). */
function above(d: number): number {
  return d * d * (1 + 1e-9);
}

/** A square below which a distance is surely less than d. */
function below(d: number): number {
  return d * d * (1 - 1e-9);
}

function chunkBoxes(pts: readonly Point[]): Float64Array {
  const n = pts.length;
  const chunks = Math.ceil(n / CHUNK);
  const out = new Float64Array(4 * chunks);
  for (let c = 0; c < chunks; c++) {
    let x0 = Number.POSITIVE_INFINITY;
    let y0 = Number.POSITIVE_INFINITY;
    let x1 = Number.NEGATIVE_INFINITY;
    let y1 = Number.NEGATIVE_INFINITY;
    // Segment i runs from pts[i] to pts[i + 1] (the last one back to pts[0]).
    const to = Math.min(n, (c + 1) * CHUNK);
    for (let i = c * CHUNK; i <= to; i++) {
      const q = pts[i % n];
      if (q.x < x0) x0 = q.x;
      if (q.y < y0) y0 = q.y;
      if (q.x > x1) x1 = q.x;
      if (q.y > y1) y1 = q.y;
    }
    out[4 * c] = x0;
    out[4 * c + 1] = y0;
    out[4 * c + 2] = x1;
    out[4 * c + 3] = y1;
  }
  return out;
}

export class RingPath {
  readonly pts: Point[];
  /** cum[i] = arc length from pts[0] to pts[i]; cum[n] = total length. */
  readonly cum: Float64Array;
  readonly length: number;
  /** Bounding boxes [minX, minY, maxX, maxY] of each CHUNK segments. */
  private boxes: Float64Array | undefined;

  /**
   * Joins only on straight stretches (segments longer than STRAIGHT_MIN),
   * for machines whose curvature must not jump where a turn meets the ring.
   */
  readonly straightJoins: boolean;

  constructor(ring: readonly Point[], straightJoins = false) {
    this.straightJoins = straightJoins;
    this.pts = ring.slice();
    const n = ring.length;
    this.cum = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) {
      const a = ring[i];
      const b = ring[(i + 1) % n];
      this.cum[i + 1] = this.cum[i] + hypot(b.x - a.x, b.y - a.y);
    }
    this.length = this.cum[n];
  }

  /**
   * Arc length position of the point of the ring nearest to p (the first of
   * equally near segments). Segments are taken in chunks with bounding boxes:
   * a chunk whose box is farther than the best distance so far is skipped.
   */
  project(p: Point): number {
    const n = this.pts.length;
    if (!this.boxes) this.boxes = chunkBoxes(this.pts);
    const boxes = this.boxes;
    // An upper bound to start from: the nearest chunk start vertex.
    // Distances are compared by their squares first; only those that may
    // come out equal to the best or below it are measured (hypot) and
    // compared as they are.
    let best = Number.POSITIVE_INFINITY;
    let cut = Number.POSITIVE_INFINITY;
    for (let c = 0; c * CHUNK < n; c++) {
      const a = this.pts[c * CHUNK];
      const dx = p.x - a.x;
      const dy = p.y - a.y;
      if (dx * dx + dy * dy > cut) continue;
      const d = hypot(dx, dy);
      if (d < best) {
        best = d;
        cut = above(best);
      }
    }
    let bestI = -1;
    let bestS = 0;
    for (let c = 0; c * CHUNK < n; c++) {
      const dx = Math.max(boxes[4 * c] - p.x, 0, p.x - boxes[4 * c + 2]);
      const dy = Math.max(boxes[4 * c + 1] - p.y, 0, p.y - boxes[4 * c + 3]);
      const box2 = dx * dx + dy * dy;
      if (box2 > cut || (box2 > below(best) && hypot(dx, dy) > best)) continue;
      const to = Math.min(n, (c + 1) * CHUNK);
      for (let i = c * CHUNK; i < to; i++) {
        const a = this.pts[i];
        const b = this.pts[(i + 1) % n];
        const abx = b.x - a.x;
        const aby = b.y - a.y;
        const l2 = abx * abx + aby * aby;
        let t = l2 > 0 ? ((p.x - a.x) * abx + (p.y - a.y) * aby) / l2 : 0;
        t = t < 0 ? 0 : Math.min(t, 1);
        const x = p.x - (a.x + t * abx);
        const y = p.y - (a.y + t * aby);
        if (x * x + y * y > cut) continue;
        const d = hypot(x, y);
        if (d < best || (d === best && bestI < 0)) {
          cut = above(d);
          best = d;
          bestI = i;
          bestS = this.cum[i] + t * (this.cum[i + 1] - this.cum[i]);
        }
      }
    }
    return bestS;
  }

  /**
   * s moved onto the nearest vertex when within tol [m], so joins never sit
   * a hair off a vertex, and always on a curve (a segment shorter than
   * STRAIGHT_MIN): a stretch cut inside a chord of an arc ends with a short
   * chord that turns as much as a whole one (tighter than the arc) and no
   * longer lies on the arc. With straightJoins, s moves instead into the
   * nearest straight segment (curves are sampled at most 1 m apart; a join
   * inside a straight has curvature 0 on both sides), at least tol from its ends.
   */
  snap(s: number, tol = 0.3): number {
    s = this.wrap(s);
    const i = this.segmentAt(s);
    if (this.straightJoins) return this.snapStraight(s, i, tol);
    const len = this.cum[i + 1] - this.cum[i];
    const near = len < STRAIGHT_MIN ? len / 2 : tol;
    if (s - this.cum[i] <= near) return this.cum[i];
    if (this.cum[i + 1] - s <= near) return this.wrap(this.cum[i + 1]);
    return s;
  }

  private snapStraight(s: number, i: number, tol: number): number {
    const n = this.pts.length;
    const segLen = (j: number) => this.cum[j + 1] - this.cum[j];
    const inside = (j: number, at: number) => {
      const e = Math.min(tol, segLen(j) / 4);
      return Math.min(Math.max(at, this.cum[j] + e), this.cum[j + 1] - e);
    };
    if (segLen(i) >= STRAIGHT_MIN) return this.wrap(inside(i, s));
    const L = this.length;
    for (let k = 1; k < n; k++) {
      const f = (i + k) % n;
      const b = (i - k + n) % n;
      const fOk = segLen(f) >= STRAIGHT_MIN;
      const bOk = segLen(b) >= STRAIGHT_MIN;
      if (!fOk && !bOk) continue;
      // Distances along the ring to the near end of each candidate.
      const df = (((this.cum[f] - s) % L) + L) % L;
      const db = (((s - this.cum[b + 1]) % L) + L) % L;
      if (fOk && (!bOk || df <= db)) return this.wrap(inside(f, this.cum[f]));
      return this.wrap(inside(b, this.cum[b + 1]));
    }
    // No straight at all (a ring of curves): the nearest vertex where the
    // curvature passes through 0 (where two rounded corners meet), else the
    // vertex of least curvature.
    const curv = (j: number): number => {
      const a = this.pts[(j - 1 + n) % n];
      const b = this.pts[j];
      const c = this.pts[(j + 1) % n];
      const t1 = Math.atan2(b.y - a.y, b.x - a.x);
      const t2 = Math.atan2(c.y - b.y, c.x - b.x);
      return (
        Math.abs(Math.atan2(Math.sin(t2 - t1), Math.cos(t2 - t1))) /
        ((hypot(b.x - a.x, b.y - a.y) + hypot(c.x - b.x, c.y - b.y)) / 2 || 1)
      );
    };
    const ks = Array.from({ length: n }, (_, j) => curv(j));
    let best = -1;
    let bestD = Number.POSITIVE_INFINITY;
    let flat = 0;
    for (let j = 0; j < n; j++) {
      const k = ks[j];
      if (k < ks[flat]) flat = j;
      if (k > FLAT_CURVATURE || k > ks[(j - 1 + n) % n] || k > ks[(j + 1) % n]) continue;
      const d = Math.min(Math.abs(this.cum[j] - s), L - Math.abs(this.cum[j] - s));
      if (d < bestD) {
        bestD = d;
        best = j;
      }
    }
    return this.cum[best >= 0 ? best : flat];
  }

  wrap(s: number): number {
    const L = this.length;
    return ((s % L) + L) % L;
  }

  /** Segment index containing s (s in [0, L)), preferring the segment that starts at s. */
  private segmentAt(s: number): number {
    let lo = 0;
    let hi = this.pts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.cum[mid] <= s) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  pointAt(s: number): Point {
    s = this.wrap(s);
    const i = this.segmentAt(s);
    const a = this.pts[i];
    const b = this.pts[(i + 1) % this.pts.length];
    const l = this.cum[i + 1] - this.cum[i];
    const t = l > 0 ? (s - this.cum[i]) / l : 0;
    return { x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y) };
  }

  /**
   * Pose at s leaving in direction dir: along the curve the ring draws
   * there (tangent), so a path joining here continues smoothly onto it.
   */
  poseAt(s: number, dir: RingDirection): Pose {
    const p = this.pointAt(s);
    return { x: p.x, y: p.y, heading: this.tangentAt(s, dir, false) };
  }

  /** Pose at the end of a stretch arriving at s in direction dir (along the curve there). */
  arrivalPoseAt(s: number, dir: RingDirection): Pose {
    const p = this.pointAt(s);
    return { x: p.x, y: p.y, heading: this.tangentAt(s, dir, true) };
  }

  /**
   * Heading of the ring's curve at s in direction dir. Inside a segment:
   * the segment's. At a vertex, the tangent read from the samples of the
   * side driven on (endTangent, startTangent: exact on sampled arcs and
   * straights, and what a stretch cut there reads by itself). On a ring of
   * continuous curvature (straightJoins) with no straight at the vertex,
   * where curvature passes through zero between two clothoids, the mean of
   * both sides' readings: they lean apart there by the same amount, and
   * their mean is exact to second order.
   */
  private tangentAt(s: number, dir: RingDirection, arriving: boolean): number {
    s = this.wrap(s);
    const n = this.pts.length;
    const i = this.segmentAt(s);
    const pt = (k: number) => this.pts[((k % n) + n) % n];
    let v = -1;
    if (s - this.cum[i] < 1e-9) v = i;
    else if (this.cum[i + 1] - s < 1e-9) v = i + 1;
    let h: number;
    if (v < 0) {
      const a = pt(i);
      const b = pt(i + 1);
      h = Math.atan2(b.y - a.y, b.x - a.x);
    } else {
      const back = endTangent([pt(v - 2), pt(v - 1), pt(v)]);
      const fwd = startTangent([pt(v), pt(v + 1), pt(v + 2)]);
      const segLen = (k: number) => hypot(pt(k + 1).x - pt(k).x, pt(k + 1).y - pt(k).y);
      if (!this.straightJoins || segLen(v - 1) >= STRAIGHT_MIN || segLen(v) >= STRAIGHT_MIN) {
        // Driving forwards the segment after v is driven when leaving, the one before when arriving.
        h = (dir === 1) !== arriving ? fwd : back;
      } else {
        let d = fwd - back;
        d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
        h = back + d / 2;
      }
    }
    return dir === 1 ? h : h + (h > 0 ? -Math.PI : Math.PI);
  }

  /** Points from s0 travelling dist (>= 0) in direction dir. */
  stretch(s0: number, dist: number, dir: RingDirection): Point[] {
    const out: Point[] = [this.pointAt(s0)];
    if (dist <= 0) return out;
    const n = this.pts.length;
    const L = this.length;
    s0 = this.wrap(s0);
    if (dir === 1) {
      // Vertices strictly after s0 up to s0 + dist.
      let i = this.segmentAt(s0) + 1;
      let base = 0;
      for (let guard = 0; guard < 2 * n + 2; guard++) {
        if (i > n - 1) {
          i = 0;
          base += L;
        }
        const s = this.cum[i] + base;
        if (s - s0 >= dist - 1e-9) break;
        if (s - s0 > 1e-9) out.push(this.pts[i]);
        i++;
      }
    } else {
      let i = this.segmentAt(s0);
      if (s0 - this.cum[i] < 1e-9) i = i - 1;
      let base = 0;
      for (let guard = 0; guard < 2 * n + 2; guard++) {
        if (i < 0) {
          i = n - 1;
          base -= L;
        }
        const s = this.cum[i] + base;
        if (s0 - s >= dist - 1e-9) break;
        if (s0 - s > 1e-9) out.push(this.pts[i]);
        i--;
      }
    }
    const end = this.pointAt(s0 + dir * dist);
    const last = out[out.length - 1];
    if (hypot(end.x - last.x, end.y - last.y) > 1e-9) out.push(end);
    return out;
  }

  /** Distance from s0 to s1 driving in direction dir. */
  distance(s0: number, s1: number, dir: RingDirection): number {
    const d = dir === 1 ? s1 - s0 : s0 - s1;
    return this.wrap(d);
  }
}
