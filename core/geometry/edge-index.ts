/**
 * A uniform grid over the edges of a set of rings, for the questions the
 * route asks thousands of times per plan: does this segment cross a
 * boundary, is this point inside, how far is the nearest edge.
 * Flat typed arrays, no allocation per query.
 */

import type { Point } from '../types/index.ts';
import { bucketSegments, cellOf } from './cell-buckets.ts';
import { distToSegmentXY, hypot } from './vec.ts';

/** How a segment meets an edge (EdgeIndex.meets). */
const NONE = 0;
const CROSSES = 1;
const VERTEX = 2;

export class EdgeIndex {
  private readonly ax: Float64Array;
  private readonly ay: Float64Array;
  private readonly bx: Float64Array;
  private readonly by: Float64Array;
  private readonly minX: number;
  private readonly minY: number;
  private readonly cell: number;
  private readonly nx: number;
  private readonly ny: number;
  private readonly cellStart: Int32Array;
  private readonly cellItems: Int32Array;
  private readonly stamp: Int32Array;
  private query = 0;
  readonly edgeCount: number;

  /** `cell` sets the grid's cell size [m] (tests compare with one cell over everything). */
  constructor(rings: readonly (readonly Point[])[], opts: { cell?: number } = {}) {
    let n = 0;
    for (const r of rings) n += r.length;
    this.edgeCount = n;
    this.ax = new Float64Array(n);
    this.ay = new Float64Array(n);
    this.bx = new Float64Array(n);
    this.by = new Float64Array(n);
    let minX = Number.POSITIVE_INFINITY;
    let minY = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    let k = 0;
    for (const r of rings) {
      for (let i = 0; i < r.length; i++) {
        const a = r[i];
        const b = r[(i + 1) % r.length];
        this.ax[k] = a.x;
        this.ay[k] = a.y;
        this.bx[k] = b.x;
        this.by[k] = b.y;
        k++;
        if (a.x < minX) minX = a.x;
        if (a.y < minY) minY = a.y;
        if (a.x > maxX) maxX = a.x;
        if (a.y > maxY) maxY = a.y;
      }
    }
    if (n === 0) {
      minX = minY = 0;
      maxX = maxY = 1;
    }
    const w = Math.max(maxX - minX, 1e-6);
    const h = Math.max(maxY - minY, 1e-6);
    // About two edges per cell on average, cells no smaller than 0.5 m.
    const cell = opts.cell ?? Math.max(0.5, Math.sqrt((w * h) / Math.max(1, n * 0.5)));
    this.cell = cell;
    this.minX = minX - cell;
    this.minY = minY - cell;
    this.nx = Math.ceil((w + 2 * cell) / cell) + 1;
    this.ny = Math.ceil((h + 2 * cell) / cell) + 1;
    const grid = { minX: this.minX, minY: this.minY, cell: this.cell, nx: this.nx, ny: this.ny };
    const buckets = bucketSegments(grid, n, this.ax, this.ay, this.bx, this.by);
    this.cellStart = buckets.start;
    this.cellItems = buckets.items;
    this.stamp = new Int32Array(n);
  }

  private cx(x: number): number {
    return cellOf(x, this.minX, this.cell, this.nx);
  }

  private cy(y: number): number {
    return cellOf(y, this.minY, this.cell, this.ny);
  }

  /**
   * True when segment pq properly crosses an edge (passes from one side to
   * the other). Touching or running along an edge is not a crossing.
   */
  segmentCrosses(p: Point, q: Point): boolean {
    const stamp = ++this.query;
    const loY = Math.min(p.y, q.y);
    const hiY = Math.max(p.y, q.y);
    const y0 = this.cy(loY);
    const y1 = this.cy(hiY);
    const dx = q.x - p.x;
    const dy = q.y - p.y;
    // Only the cells the segment passes: in each row of cells, those between
    // where it enters and leaves the row's band (widened by a micrometre
    // against rounding). A crossing lies in one of them, and so does the
    // crossed edge, which is listed in every cell of its bounding box.
    const slope = dy !== 0 ? dx / dy : 0;
    const eps = 1e-6;
    let vertexPass = false;
    for (let y = y0; y <= y1; y++) {
      let x0: number;
      let x1: number;
      if (y0 === y1 || dy === 0) {
        x0 = this.cx(Math.min(p.x, q.x));
        x1 = this.cx(Math.max(p.x, q.x));
      } else {
        const ya = Math.max(loY, this.minY + y * this.cell - eps);
        const yb = Math.min(hiY, this.minY + (y + 1) * this.cell + eps);
        const xa = p.x + (ya - p.y) * slope;
        const xb = p.x + (yb - p.y) * slope;
        x0 = this.cx(Math.min(xa, xb) - eps);
        x1 = this.cx(Math.max(xa, xb) + eps);
      }
      for (let x = x0; x <= x1; x++) {
        const c = y * this.nx + x;
        for (let i = this.cellStart[c]; i < this.cellStart[c + 1]; i++) {
          const e = this.cellItems[i];
          if (this.stamp[e] === stamp) continue;
          this.stamp[e] = stamp;
          const k = this.meets(e, p, q);
          if (k === CROSSES) return true;
          if (k === VERTEX) vertexPass = true;
        }
      }
    }
    return vertexPass && this.leavesThroughVertex(p, q);
  }

  /**
   * How segment pq meets edge e: CROSSES (from one side to the other),
   * VERTEX (within 1 mm of a vertex of the edge: it may graze the boundary
   * or leave through the vertex), or NONE (apart, or touching: endpoints of
   * pq within 1 mm of the edge count as touching).
   */
  private meets(e: number, p: Point, q: Point): number {
    return this.meetsXY(e, p.x, p.y, q.x, q.y);
  }

  /** meets for the segment from (px, py) to (qx, qy). */
  private meetsXY(e: number, px: number, py: number, qx: number, qy: number): number {
    const dx = qx - px;
    const dy = qy - py;
    const ax = this.ax[e];
    const ay = this.ay[e];
    const bx = this.bx[e];
    const by = this.by[e];
    const d1 = dx * (ay - py) - dy * (ax - px);
    const d2 = dx * (by - py) - dy * (bx - px);
    if ((d1 > 0 && d2 > 0) || (d1 < 0 && d2 < 0) || d1 === d2) return NONE;
    const ex = bx - ax;
    const ey = by - ay;
    const d3 = ex * (py - ay) - ey * (px - ax);
    const d4 = ex * (qy - ay) - ey * (qx - ax);
    if ((d3 > 0 && d4 > 0) || (d3 < 0 && d4 < 0)) return NONE;
    const el = hypot(ex, ey) || 1;
    const sl = hypot(dx, dy) || 1;
    if (Math.abs(d3) / el < 1e-3 || Math.abs(d4) / el < 1e-3) return NONE;
    if (Math.abs(d1) / sl < 1e-3 || Math.abs(d2) / sl < 1e-3) return VERTEX;
    return CROSSES;
  }

  /**
   * For a segment pq that passes within 1 mm of a vertex and crosses no
   * edge: true when it leaves the region there, decided by where its far
   * end and its middle lie against its start (points within 1 mm of an
   * edge decide nothing).
   */
  private leavesThroughVertex(p: Point, q: Point): boolean {
    const mid = { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
    const ps = this.clearance(p, 2e-3) < 1e-3 ? null : this.contains(p);
    for (const r of [q, mid]) {
      if (this.clearance(r, 2e-3) < 1e-3) continue;
      const inside = this.contains(r);
      if (ps !== null && inside !== ps) return true;
    }
    return false;
  }

  /** True when any segment of the polyline crosses an edge. */
  polylineCrosses(pts: readonly Point[]): boolean {
    for (let i = 1; i < pts.length; i++) if (this.segmentCrosses(pts[i - 1], pts[i])) return true;
    return false;
  }

  /**
   * True when a chord of the polyline properly crosses an edge, as
   * polylineCrosses finds, where `edges` hold every edge any chord meets:
   * those near the ring and box an arc's chords lie in, say
   * (edgesNearRing). Each chord is tested against the listed edges whose
   * boxes reach its own, as segmentCrosses tests it against all.
   */
  chordsCross(pts: readonly Point[], edges: ArrayLike<number>): boolean {
    for (let i = 1; i < pts.length; i++)
      if (this.chordCrosses(pts[i - 1].x, pts[i - 1].y, pts[i].x, pts[i].y, edges)) return true;
    return false;
  }

  /** chordsCross for the polyline of the first n points (xs[i], ys[i]). */
  chordsCrossXY(xs: Float64Array, ys: Float64Array, n: number, edges: ArrayLike<number>): boolean {
    for (let i = 1; i < n; i++) if (this.chordCrosses(xs[i - 1], ys[i - 1], xs[i], ys[i], edges)) return true;
    return false;
  }

  /** True when the chord from (px, py) to (qx, qy) properly crosses one of `edges` (see chordsCross). */
  private chordCrosses(px: number, py: number, qx: number, qy: number, edges: ArrayLike<number>): boolean {
    const margin = 1e-3;
    const x0 = Math.min(px, qx) - margin;
    const x1 = Math.max(px, qx) + margin;
    const y0 = Math.min(py, qy) - margin;
    const y1 = Math.max(py, qy) + margin;
    let vertexPass = false;
    for (let k = 0; k < edges.length; k++) {
      const e = edges[k];
      if (Math.max(this.ax[e], this.bx[e]) < x0 || Math.min(this.ax[e], this.bx[e]) > x1) continue;
      if (Math.max(this.ay[e], this.by[e]) < y0 || Math.min(this.ay[e], this.by[e]) > y1) continue;
      const m = this.meetsXY(e, px, py, qx, qy);
      if (m === CROSSES) return true;
      if (m === VERTEX) vertexPass = true;
    }
    return vertexPass && this.leavesThroughVertex({ x: px, y: py }, { x: qx, y: qy });
  }

  /**
   * The edges that meet the box (x0, y0)-(x1, y1) and come between radii lo
   * and hi of (cx, cy), or null where none do: an arc whose samples and
   * chords lie in that ring and box crosses none, and any edge one of its
   * chords meets is among these (chordsCross).
   */
  edgesNearRing(
    cx: number,
    cy: number,
    lo: number,
    hi: number,
    x0: number,
    y0: number,
    x1: number,
    y1: number,
  ): Int32Array | null {
    const n = this.nearRing(cx, cy, lo, hi, x0, y0, x1, y1);
    return n === 0 ? null : (this.nearBuf as Int32Array).slice(0, n);
  }

  private nearBuf: Int32Array | null = null;

  /**
   * The edges (listed in nearBuf; their count returned) that meet the box
   * (x0, y0)-(x1, y1) and come between radii lo and hi of (cx, cy).
   */
  private nearRing(
    cx: number,
    cy: number,
    lo: number,
    hi: number,
    x0: number,
    y0: number,
    x1: number,
    y1: number,
  ): number {
    this.nearBuf ??= new Int32Array(this.edgeCount);
    const buf = this.nearBuf;
    const lo2 = lo > 0 ? lo * lo : -1;
    const hi2 = hi * hi;
    const stamp = ++this.query;
    let n = 0;
    const r0 = this.cy(y0);
    const r1 = this.cy(y1);
    const c0 = this.cx(x0);
    const c1 = this.cx(x1);
    for (let y = r0; y <= r1; y++) {
      for (let x = c0; x <= c1; x++) {
        const c = y * this.nx + x;
        for (let i = this.cellStart[c]; i < this.cellStart[c + 1]; i++) {
          const e = this.cellItems[i];
          if (this.stamp[e] === stamp) continue;
          this.stamp[e] = stamp;
          if (this.inRing(e, cx, cy, lo2, hi2, x0, y0, x1, y1)) buf[n++] = e;
        }
      }
    }
    return n;
  }

  /** True when edge e meets the box (x0, y0)-(x1, y1) and comes between radii sqrt(lo2) and sqrt(hi2) of (cx, cy). */
  private inRing(
    e: number,
    cx: number,
    cy: number,
    lo2: number,
    hi2: number,
    x0: number,
    y0: number,
    x1: number,
    y1: number,
  ): boolean {
    const ax = this.ax[e];
    const ay = this.ay[e];
    const bx = this.bx[e];
    const by = this.by[e];
    if (Math.max(ax, bx) < x0 || Math.min(ax, bx) > x1) return false;
    if (Math.max(ay, by) < y0 || Math.min(ay, by) > y1) return false;
    // Farthest from the centre at an end: wholly inside the ring's hole.
    const da2 = (ax - cx) * (ax - cx) + (ay - cy) * (ay - cy);
    const db2 = (bx - cx) * (bx - cx) + (by - cy) * (by - cy);
    if (Math.max(da2, db2) < lo2) return false;
    // Wholly outside the ring.
    const d = distToSegmentXY(cx, cy, ax, ay, bx, by);
    return d * d <= hi2;
  }

  /**
   * Distance from p to the nearest edge, searching outwards ring by ring of
   * cells. Where no edge lies within maxDist, some distance above maxDist
   * (the nearest edge of the cells up to maxDist away).
   */
  distance(p: Point, maxDist = Number.POSITIVE_INFINITY): number {
    return this.nearest(p, maxDist, false);
  }

  /**
   * Distance from p to the nearest edge where that is at most `reach`;
   * Infinity where no edge is that near.
   */
  clearance(p: Point, reach: number): number {
    const d = this.nearest(p, reach, true);
    return d <= reach ? d : Number.POSITIVE_INFINITY;
  }

  /**
   * The nearest edge's distance, found searching outwards ring by ring of
   * cells. Once an edge within maxDist is found, the search ends at the
   * first ring that cannot hold a nearer one and passes cells farther than
   * it; before that (and throughout where `bounded`), it ends where the
   * rings lie beyond maxDist (`bounded`: and passes cells beyond it).
   */
  private nearest(p: Point, maxDist: number, bounded: boolean): number {
    const cx = this.cx(p.x);
    const cy = this.cy(p.y);
    const cell = this.cell;
    // The least distance from p to the sides of its own cell: every point of
    // a cell in ring r >= 1 round it is at least (r - 1) * cell + inset away
    // (less a little for rounding).
    const fx = p.x - (this.minX + cx * cell);
    const fy = p.y - (this.minY + cy * cell);
    const side = Math.min(fx, cell - fx, fy, cell - fy) - 1e-7;
    const inset = side > 0 ? side : 0;
    let best = Number.POSITIVE_INFINITY;
    let cut = Number.POSITIVE_INFINITY;
    const maxRing = Math.max(this.nx, this.ny);
    for (let r = 0; r <= maxRing; r++) {
      if (r > 0) {
        // Any edge in ring r is at least (r - 1) * cell + inset away.
        const near = (r - 1) * cell + inset;
        if (best <= maxDist || bounded ? near > Math.min(best, maxDist) : (r - 1) * cell > maxDist) break;
      }
      for (let y = cy - r; y <= cy + r; y++) {
        if (y < 0 || y >= this.ny) continue;
        const edgeRow = y === cy - r || y === cy + r;
        for (let x = cx - r; x <= cx + r; x += edgeRow ? 1 : 2 * r || 1) {
          if (x < 0 || x >= this.nx) continue;
          if (r > 0 && (bounded || best <= maxDist)) {
            // A cell farther than the distance sought holds no nearer edge
            // (every point of an edge lies in a cell it is listed in).
            const x0 = this.minX + x * cell;
            const y0 = this.minY + y * cell;
            const gx = x0 > p.x ? x0 - p.x : p.x > x0 + cell ? p.x - x0 - cell : 0;
            const gy = y0 > p.y ? y0 - p.y : p.y > y0 + cell ? p.y - y0 - cell : 0;
            const lim = (best < maxDist ? best : maxDist) + 1e-7;
            if (gx * gx + gy * gy > lim * lim) continue;
          }
          const c = y * this.nx + x;
          for (let i = this.cellStart[c]; i < this.cellStart[c + 1]; i++) {
            const e = this.cellItems[i];
            // Measured exactly (hypot) only where it may beat the best: the
            // square, a little rounding aside, rules the farther ones out.
            const ax = this.ax[e];
            const ay = this.ay[e];
            const abx = this.bx[e] - ax;
            const aby = this.by[e] - ay;
            const l2 = abx * abx + aby * aby;
            let t = l2 > 0 ? ((p.x - ax) * abx + (p.y - ay) * aby) / l2 : 0;
            t = t < 0 ? 0 : Math.min(t, 1);
            const x = p.x - (ax + t * abx);
            const y = p.y - (ay + t * aby);
            if (x * x + y * y > cut) continue;
            const d = hypot(x, y);
            if (d < best) {
              best = d;
              cut = best * best * (1 + 1e-9);
            }
          }
        }
      }
    }
    return best;
  }

  /**
   * Crossing-number point-in-region test over all indexed rings (even-odd),
   * along a ray to +x or to -x through the cells of p's row, whichever
   * passes fewer cells: the crossings either way have the same parity,
   * unless an edge runs through p's row exactly at p (then +x decides).
   */
  contains(p: Point): boolean {
    const x0 = this.cx(p.x);
    return (x0 < this.nx - 1 - x0 ? this.rayParity(p, true) : null) ?? this.rayParity(p, false) === true;
  }

  /**
   * The parity of the edges the ray from p crosses (to -x with `toLeft`,
   * else to +x): true for odd. Null to -x where an edge meets the ray
   * exactly at p.
   */
  private rayParity(p: Point, toLeft: boolean): boolean | null {
    const y = this.cy(p.y);
    const x0 = this.cx(p.x);
    const stamp = ++this.query;
    let odd = false;
    for (let x = toLeft ? 0 : x0; x <= (toLeft ? x0 : this.nx - 1); x++) {
      const c = y * this.nx + x;
      for (let i = this.cellStart[c]; i < this.cellStart[c + 1]; i++) {
        const e = this.cellItems[i];
        if (this.stamp[e] === stamp) continue;
        this.stamp[e] = stamp;
        const ay = this.ay[e];
        const by = this.by[e];
        if (ay > p.y !== by > p.y) {
          const ax = this.ax[e];
          const bx = this.bx[e];
          const xi = ax + ((p.y - ay) * (bx - ax)) / (by - ay);
          if (toLeft ? xi < p.x : p.x < xi) odd = !odd;
          else if (toLeft && xi === p.x) return null;
        }
      }
    }
    return odd;
  }
}
