/**
 * Segments ordered by where they lie across one heading: by their offset
 * along its normal. A point's offset changes no faster than the point moves,
 * so the segments within r of a segment are among those whose offsets come
 * within r of its own. Across parallel tracks a swath apart, each track has
 * few such neighbours however long the tracks are and however they slant.
 */
export class OffsetIndex {
  /** Least and greatest offset of each segment. */
  private readonly lo: Float64Array;
  private readonly hi: Float64Array;
  /** Segment indices by least offset, and those offsets. */
  private readonly order: Int32Array;
  private readonly sorted: Float64Array;
  /** The widest spread of offsets of one segment. */
  private readonly spread: number;

  /**
   * Segment i runs from (ax[i], ay[i]) to (bx[i], by[i]), for i below
   * `count`; offsets are taken across `heading` [rad].
   */
  constructor(
    ax: Float64Array,
    ay: Float64Array,
    bx: Float64Array,
    by: Float64Array,
    count: number,
    heading: number,
  ) {
    const nx = -Math.sin(heading);
    const ny = Math.cos(heading);
    this.lo = new Float64Array(count);
    this.hi = new Float64Array(count);
    let spread = 0;
    for (let i = 0; i < count; i++) {
      const a = nx * ax[i] + ny * ay[i];
      const b = nx * bx[i] + ny * by[i];
      this.lo[i] = Math.min(a, b);
      this.hi[i] = Math.max(a, b);
      spread = Math.max(spread, this.hi[i] - this.lo[i]);
    }
    this.spread = spread;
    const lo = this.lo;
    this.order = Int32Array.from({ length: count }, (_, i) => i).sort((i, j) => lo[i] - lo[j] || i - j);
    this.sorted = Float64Array.from(this.order, (i) => lo[i]);
  }

  /**
   * Calls f for every segment whose offsets come within r of those of
   * segment e (e itself among them), by least offset: a superset of the
   * segments with a point within r of e.
   */
  forEachNear(e: number, r: number, f: (i: number) => void): void {
    // (Widened a little for the rounding of the offsets.)
    const reach = r + 1e-6;
    const from = this.lo[e] - reach;
    const to = this.hi[e] + reach;
    // The first segment whose least offset may lie within reach: none starts
    // more than the widest spread below its greatest.
    let a = 0;
    let b = this.sorted.length;
    const start = from - this.spread;
    while (a < b) {
      const m = (a + b) >> 1;
      if (this.sorted[m] < start) a = m + 1;
      else b = m;
    }
    for (let k = a; k < this.sorted.length && this.sorted[k] <= to; k++) {
      const i = this.order[k];
      if (this.hi[i] >= from) f(i);
    }
  }
}
