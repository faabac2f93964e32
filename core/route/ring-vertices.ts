import type { EdgeIndex } from '../geometry/edge-index.ts';
import type { Point } from '../types/index.ts';

/**
 * Whether a ring's vertices lie outside the turn area and its segments
 * cross its edge, each found once (travels along the ring pass the same
 * vertices again and again). Points of a stretch that are the ring's own
 * vertices are known by identity (RingPath.stretch hands them out).
 */
export class RingVertices {
  private readonly pts: readonly Point[];
  private readonly t: EdgeIndex;
  private readonly index = new Map<Point, number>();
  /** Per vertex: 0 unknown, 1 inside, 2 outside. */
  private readonly side: Uint8Array;
  /** Per segment i (vertex i to i + 1), forward and backward: 0 unknown, 1 clear, 2 crosses. */
  private readonly forward: Uint8Array;
  private readonly backward: Uint8Array;

  constructor(pts: readonly Point[], t: EdgeIndex) {
    this.pts = pts;
    this.t = t;
    const n = pts.length;
    for (let i = 0; i < n; i++) this.index.set(pts[i], i);
    this.side = new Uint8Array(n);
    this.forward = new Uint8Array(n);
    this.backward = new Uint8Array(n);
  }

  outside(i: number): boolean {
    if (this.side[i] === 0) this.side[i] = this.t.contains(this.pts[i]) ? 1 : 2;
    return this.side[i] === 2;
  }

  /** Whether the segment from vertex i to vertex j (neighbours on the ring) crosses the edge. */
  crosses(i: number, j: number): boolean {
    const n = this.pts.length;
    const fwd = j === (i + 1) % n;
    const k = fwd ? i : j;
    const known = fwd ? this.forward : this.backward;
    if (known[k] === 0) known[k] = this.t.segmentCrosses(this.pts[i], this.pts[j]) ? 2 : 1;
    return known[k] === 2;
  }

  private prefix: Int32Array | null = null;

  /** Prefix counts of the ring's segments that leave the turn area: a vertex outside, or a crossing on to the next. */
  leaving(): Int32Array {
    if (!this.prefix) {
      const n = this.pts.length;
      const pre = new Int32Array(n + 1);
      for (let i = 0; i < n; i++)
        pre[i + 1] = pre[i] + (this.outside(i) || this.crosses(i, (i + 1) % n) ? 1 : 0);
      this.prefix = pre;
    }
    return this.prefix;
  }

  pointOutside(p: Point): boolean {
    const i = this.index.get(p);
    return i === undefined ? !this.t.contains(p) : this.outside(i);
  }

  segmentCrosses(p: Point, q: Point): boolean {
    const i = this.index.get(p);
    const j = this.index.get(q);
    const n = this.pts.length;
    if (i !== undefined && j !== undefined && (j === (i + 1) % n || i === (j + 1) % n) && i !== j)
      return this.crosses(i, j);
    return this.t.segmentCrosses(p, q);
  }
}
