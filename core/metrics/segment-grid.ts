/**
 * Segments of many polylines in a uniform grid, each tagged with the
 * polyline it belongs to, for the plan audit's questions: which segments lie
 * within r of this one, and over which stretch of it. Flat typed arrays, no
 * allocation per query.
 */
import { bucketSegments, cellOf } from '../geometry/cell-buckets.ts';
import type { Point } from '../types/index.ts';

/** At most this many grid cells (the cell grows on very large fields). */
const MAX_CELLS = 1 << 20;

export class SegmentGrid {
  readonly ax: Float64Array;
  readonly ay: Float64Array;
  readonly bx: Float64Array;
  readonly by: Float64Array;
  /** Index of the polyline each segment belongs to. */
  readonly owner: Int32Array;
  readonly count: number;
  private readonly minX: number;
  private readonly minY: number;
  private readonly cell: number;
  private readonly nx: number;
  private readonly ny: number;
  private readonly cellStart: Int32Array;
  private readonly cellItems: Int32Array;
  private readonly stamp: Int32Array;
  private query = 0;

  /**
   * `lines[i]` is polyline i (closed rings repeat their first point at the
   * end); `cell` is the least cell size [m], best about the query radius.
   */
  constructor(lines: readonly (readonly Point[])[], cell: number) {
    let n = 0;
    for (const l of lines) n += Math.max(0, l.length - 1);
    this.count = n;
    this.ax = new Float64Array(n);
    this.ay = new Float64Array(n);
    this.bx = new Float64Array(n);
    this.by = new Float64Array(n);
    this.owner = new Int32Array(n);
    let minX = Number.POSITIVE_INFINITY;
    let minY = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    let k = 0;
    lines.forEach((l, i) => {
      for (let j = 1; j < l.length; j++) {
        const a = l[j - 1];
        const b = l[j];
        this.ax[k] = a.x;
        this.ay[k] = a.y;
        this.bx[k] = b.x;
        this.by[k] = b.y;
        this.owner[k] = i;
        k++;
        minX = Math.min(minX, a.x, b.x);
        minY = Math.min(minY, a.y, b.y);
        maxX = Math.max(maxX, a.x, b.x);
        maxY = Math.max(maxY, a.y, b.y);
      }
    });
    if (n === 0) {
      minX = minY = 0;
      maxX = maxY = 1;
    }
    const w = maxX - minX;
    const h = maxY - minY;
    // About two segments per cell, and no smaller than asked: long straight
    // segments (tracks) then share a few large cells with their neighbours.
    let c = Math.max(cell, 0.25, Math.sqrt((Math.max(w, 1e-6) * Math.max(h, 1e-6)) / Math.max(1, n * 0.5)));
    while ((w / c + 3) * (h / c + 3) > MAX_CELLS) c *= 2;
    this.cell = c;
    this.minX = minX - c;
    this.minY = minY - c;
    this.nx = Math.ceil(w / c) + 3;
    this.ny = Math.ceil(h / c) + 3;
    const grid = { minX: this.minX, minY: this.minY, cell: this.cell, nx: this.nx, ny: this.ny };
    const buckets = bucketSegments(grid, n, this.ax, this.ay, this.bx, this.by);
    this.cellStart = buckets.start;
    this.cellItems = buckets.items;
    this.stamp = new Int32Array(n);
    this.found = new Int32Array(n);
  }

  private cx(x: number): number {
    return cellOf(x, this.minX, this.cell, this.nx);
  }

  private cy(y: number): number {
    return cellOf(y, this.minY, this.cell, this.ny);
  }

  /** Calls f once for every segment whose grid cells meet the box of pq widened by r. */
  forEachNear(px: number, py: number, qx: number, qy: number, r: number, f: (e: number) => void): void {
    const stamp = ++this.query;
    const x0 = this.cx(Math.min(px, qx) - r);
    const x1 = this.cx(Math.max(px, qx) + r);
    const y0 = this.cy(Math.min(py, qy) - r);
    const y1 = this.cy(Math.max(py, qy) + r);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const c = y * this.nx + x;
        for (let i = this.cellStart[c]; i < this.cellStart[c + 1]; i++) {
          const e = this.cellItems[i];
          if (this.stamp[e] === stamp) continue;
          this.stamp[e] = stamp;
          f(e);
        }
      }
    }
  }

  /**
   * Calls f once for every segment whose grid cells meet the segment pq
   * widened by r (those of nearSegments, in its order).
   */
  forEachNearSegment(
    px: number,
    py: number,
    qx: number,
    qy: number,
    r: number,
    f: (e: number) => void,
  ): void {
    const n = this.nearSegments(px, py, qx, qy, r);
    // Copied: f may ask the grid again.
    const found = this.found.slice(0, n);
    for (let i = 0; i < n; i++) f(found[i]);
  }

  /**
   * The segments whose grid cells meet the segment pq widened by r, listed
   * in `found` (their count returned; the list holds until the next query):
   * pq is walked in pieces a cell long, so a long diagonal segment visits
   * the cells along it, not its whole box.
   */
  nearSegments(px: number, py: number, qx: number, qy: number, r: number): number {
    const found = this.found;
    let m = 0;
    const stamp = ++this.query;
    const L = Math.sqrt((qx - px) * (qx - px) + (qy - py) * (qy - py));
    const n = Math.max(1, Math.ceil(L / this.cell));
    // The cells of the piece before: every segment listed there is stamped.
    let px0 = 0;
    let px1 = -1;
    let py0 = 0;
    let py1 = -1;
    for (let k = 0; k < n; k++) {
      // One piece: pq's whole box.
      const ax = n === 1 ? px : px + ((qx - px) * k) / n;
      const ay = n === 1 ? py : py + ((qy - py) * k) / n;
      const bx = n === 1 ? qx : px + ((qx - px) * (k + 1)) / n;
      const by = n === 1 ? qy : py + ((qy - py) * (k + 1)) / n;
      const x0 = this.cx(Math.min(ax, bx) - r);
      const x1 = this.cx(Math.max(ax, bx) + r);
      const y0 = this.cy(Math.min(ay, by) - r);
      const y1 = this.cy(Math.max(ay, by) + r);
      for (let y = y0; y <= y1; y++) {
        const rowSeen = y >= py0 && y <= py1;
        for (let x = x0; x <= x1; x++) {
          if (rowSeen && x >= px0 && x <= px1) continue;
          const c = y * this.nx + x;
          for (let i = this.cellStart[c]; i < this.cellStart[c + 1]; i++) {
            const e = this.cellItems[i];
            if (this.stamp[e] === stamp) continue;
            this.stamp[e] = stamp;
            found[m++] = e;
          }
        }
      }
      px0 = x0;
      px1 = x1;
      py0 = y0;
      py1 = y1;
    }
    return m;
  }

  /** The segments the last nearSegments found (each segment at most once). */
  readonly found: Int32Array;

  /** Index of the segment nearest (px, py) within r (the first of equally near ones), or -1 when none is. */
  nearestSegment(px: number, py: number, r: number): number {
    const e = this.closest(px, py, r, -1);
    return this.closestDistance <= r ? e : -1;
  }

  /** Distance from (px, py) to segment e. */
  distanceTo(e: number, px: number, py: number): number {
    return segDist(px, py, this.ax[e], this.ay[e], this.bx[e], this.by[e]);
  }

  /** Distance from (px, py) to the nearest segment not owned by `skip` within r (Infinity if none). */
  nearest(px: number, py: number, r: number, skip = -1): number {
    this.closest(px, py, r, skip);
    return this.closestDistance <= r ? this.closestDistance : Number.POSITIVE_INFINITY;
  }

  /** Distance of the segment the last `closest` found [m]. */
  private closestDistance = Number.POSITIVE_INFINITY;

  /**
   * The segment nearest (px, py) among those of forEachNear's box round it
   * (in its order, the first of equally near ones) not owned by `skip` (-1:
   * none is skipped), -1 when the box holds none; its distance in
   * closestDistance.
   */
  private closest(px: number, py: number, r: number, skip: number): number {
    let best = Number.POSITIVE_INFINITY;
    let bestE = -1;
    const stamp = ++this.query;
    const x0 = this.cx(px - r);
    const x1 = this.cx(px + r);
    const y0 = this.cy(py - r);
    const y1 = this.cy(py + r);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const c = y * this.nx + x;
        for (let i = this.cellStart[c]; i < this.cellStart[c + 1]; i++) {
          const e = this.cellItems[i];
          if (this.stamp[e] === stamp) continue;
          this.stamp[e] = stamp;
          if (this.owner[e] === skip) continue;
          const d = segDist(px, py, this.ax[e], this.ay[e], this.bx[e], this.by[e]);
          if (d < best) {
            best = d;
            bestE = e;
          }
        }
      }
    }
    this.closestDistance = best;
    return bestE;
  }
}

export function segDist(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const abx = bx - ax;
  const aby = by - ay;
  const l2 = abx * abx + aby * aby;
  let t = l2 > 0 ? ((px - ax) * abx + (py - ay) * aby) / l2 : 0;
  t = t < 0 ? 0 : Math.min(t, 1);
  const x = px - (ax + t * abx);
  const y = py - (ay + t * aby);
  return Math.sqrt(x * x + y * y);
}

/**
 * The stretch of segment pq (as parameters t0 <= t1 in [0, 1]) whose points
 * lie within r of segment ab, written to out[0], out[1]; false when none
 * does. The capsule round ab is convex, so the stretch is one interval: the
 * hull of where pq meets its rectangle and its two end discs. Without
 * `ends`, the rectangle alone (points beside ab, not beyond its ends).
 */
export function capsuleInterval(
  px: number,
  py: number,
  qx: number,
  qy: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  r: number,
  out: Float64Array,
  ends = true,
): boolean {
  // Boxes apart by more than r: nothing near.
  if (
    Math.min(px, qx) - r > Math.max(ax, bx) ||
    Math.max(px, qx) + r < Math.min(ax, bx) ||
    Math.min(py, qy) - r > Math.max(ay, by) ||
    Math.max(py, qy) + r < Math.min(ay, by)
  )
    return false;
  const dx = qx - px;
  const dy = qy - py;
  const ex = bx - ax;
  const ey = by - ay;
  const L = Math.sqrt(ex * ex + ey * ey);
  out[0] = Number.POSITIVE_INFINITY;
  out[1] = Number.NEGATIVE_INFINITY;
  if (L > 0) {
    // Rectangle: |n.(X - a)| <= r and 0 <= u.(X - a) <= L, each linear in t.
    const ux = ex / L;
    const uy = ey / L;
    const rx = px - ax;
    const ry = py - ay;
    slab(-uy * rx + ux * ry, -uy * dx + ux * dy, -r, r, out);
    slab(ux * rx + uy * ry, ux * dx + uy * dy, 0, L, out);
  }
  if (ends) {
    disc(px - ax, py - ay, dx, dy, r, out);
    disc(px - bx, py - by, dx, dy, r, out);
  }
  return out[0] <= out[1];
}

// Scratch for the rectangle's interval (out holds the running hull).
const RECT = new Float64Array(2);
let rectOpen = false;

/** Clips [0, 1] by min <= g0 + g1 t <= max; two calls make the rectangle's interval, merged into out. */
function slab(g0: number, g1: number, min: number, max: number, out: Float64Array): void {
  if (!rectOpen) {
    RECT[0] = 0;
    RECT[1] = 1;
    rectOpen = true;
  }
  if (Math.abs(g1) < 1e-15) {
    if (g0 < min || g0 > max) RECT[0] = 2;
  } else {
    let a = (min - g0) / g1;
    let b = (max - g0) / g1;
    if (a > b) {
      const t = a;
      a = b;
      b = t;
    }
    if (a > RECT[0]) RECT[0] = a;
    if (b < RECT[1]) RECT[1] = b;
  }
  if (min === 0) {
    // The second slab closes the rectangle.
    rectOpen = false;
    if (RECT[0] <= RECT[1]) {
      if (RECT[0] < out[0]) out[0] = RECT[0];
      if (RECT[1] > out[1]) out[1] = RECT[1];
    }
  }
}

/** Merges into out where |f + t d| <= r for t in [0, 1] (f = p - c). */
function disc(fx: number, fy: number, dx: number, dy: number, r: number, out: Float64Array): void {
  const A = dx * dx + dy * dy;
  const B = 2 * (fx * dx + fy * dy);
  const C = fx * fx + fy * fy - r * r;
  if (A < 1e-18) {
    if (C <= 0) {
      if (0 < out[0]) out[0] = 0;
      if (1 > out[1]) out[1] = 1;
    }
    return;
  }
  const D = B * B - 4 * A * C;
  if (D < 0) return;
  const s = Math.sqrt(D);
  const t0 = Math.max(0, (-B - s) / (2 * A));
  const t1 = Math.min(1, (-B + s) / (2 * A));
  if (t0 <= t1) {
    if (t0 < out[0]) out[0] = t0;
    if (t1 > out[1]) out[1] = t1;
  }
}

/**
 * Merges intervals (pairs in buf[0 .. 2n)) in place and returns their
 * covered length within [0, 1]; the merged pairs are left in buf, their
 * count returned through `merged[0]`.
 */
export function mergeIntervals(buf: Float64Array, n: number, merged: Int32Array): number {
  // Insertion sort by start: a segment meets few others.
  for (let i = 1; i < n; i++) {
    const s = buf[2 * i];
    const e = buf[2 * i + 1];
    let j = i - 1;
    while (j >= 0 && buf[2 * j] > s) {
      buf[2 * j + 2] = buf[2 * j];
      buf[2 * j + 3] = buf[2 * j + 1];
      j--;
    }
    buf[2 * j + 2] = s;
    buf[2 * j + 3] = e;
  }
  let m = 0;
  let covered = 0;
  for (let i = 0; i < n; i++) {
    const s = Math.max(0, buf[2 * i]);
    const e = Math.min(1, buf[2 * i + 1]);
    if (e <= s) continue;
    if (m > 0 && s <= buf[2 * m - 1]) {
      if (e > buf[2 * m - 1]) {
        covered += e - buf[2 * m - 1];
        buf[2 * m - 1] = e;
      }
    } else {
      buf[2 * m] = s;
      buf[2 * m + 1] = e;
      covered += e - s;
      m++;
    }
  }
  merged[0] = m;
  return covered;
}
