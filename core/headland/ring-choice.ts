/**
 * Choosing the driven rings of an exterior pass among the drivable ring
 * sets made for it (the pass at its distance from the edge, pulled in
 * locally round the bends the turning radius cannot follow, or pulled in
 * by a little more all round): by how much of the planned pass each set
 * follows, part of the pass by part.
 *
 * A point of the planned pass at distance e from a driven ring counts
 * (1 - e / w) of its length: the share of its swath the ring still works.
 * So a ring on the planned line wins over one pulled in all round, and
 * where a pass pinches off in a narrow neck the pieces on both sides (on
 * the line) win over one ring pulled in everywhere to get through. Where
 * the chosen set leaves a stretch of a pass unfollowed, a ring of another
 * set that follows it (and crosses none chosen) is driven as well.
 */
import { EdgeIndex } from '../geometry/edge-index.ts';
import { pointInRing, ringBBox } from '../geometry/polygon.ts';
import { hypot, ringLength } from '../geometry/vec.ts';
import type { Point } from '../types/index.ts';

/** Points along the planned rings of one pass, each standing for a length of it. */
export interface PassSamples {
  x: Float64Array;
  y: Float64Array;
  /** Length each stands for [m]. */
  len: Float64Array;
  /** Index of the planned ring it lies on. */
  part: Int32Array;
  /** Length of each planned ring [m]. */
  partLength: number[];
  w: number;
}

/** A planned ring is followed when this share of it lies within half a swath of a driven ring ... */
const FOLLOWED = 0.9;
/** ... or when the driven rings inside it are this share of its length. */
const ALMOST = 0.96;

export function passSamples(rings: readonly (readonly Point[])[], w: number): PassSamples {
  const step = Math.min(2, Math.max(0.5, w / 4));
  const xs: number[] = [];
  const ys: number[] = [];
  const ls: number[] = [];
  const ps: number[] = [];
  const partLength: number[] = [];
  rings.forEach((ring, j) => {
    let total = 0;
    for (let i = 0; i < ring.length; i++) {
      const a = ring[i];
      const b = ring[(i + 1) % ring.length];
      const L = hypot(b.x - a.x, b.y - a.y);
      if (L === 0) continue;
      total += L;
      const n = Math.ceil(L / step);
      for (let s = 0; s < n; s++) {
        const t = (s + 0.5) / n;
        xs.push(a.x + (b.x - a.x) * t);
        ys.push(a.y + (b.y - a.y) * t);
        ls.push(L / n);
        ps.push(j);
      }
    }
    partLength.push(total);
  });
  return {
    x: Float64Array.from(xs),
    y: Float64Array.from(ys),
    len: Float64Array.from(ls),
    part: Int32Array.from(ps),
    partLength,
    w,
  };
}

interface ScoredRing {
  ring: Point[];
  set: number;
  /** Its place in its set. */
  order: number;
  /** The planned ring it follows most. */
  part: number;
  score: number;
  /** Samples within half a swath of it. */
  claimed: number[];
  box: { minX: number; minY: number; maxX: number; maxY: number };
  index: EdgeIndex;
}

/** Ring sets scored against one pass's samples, in the order they were offered (earlier wins ties). */
export class RingChoice {
  private readonly planned: readonly (readonly Point[])[];
  private readonly w: number;
  private sampled: PassSamples | null = null;
  private readonly scored: ScoredRing[] = [];
  private readonly pending: (readonly Point[][])[] = [];
  private sets = 0;

  /** For the planned rings of a pass of swath w. */
  constructor(planned: readonly (readonly Point[])[], w: number) {
    this.planned = planned;
    this.w = w;
  }

  private get samples(): PassSamples {
    this.sampled ??= passSamples(this.planned, this.w);
    return this.sampled;
  }

  /** Offer a set of rings (scored when a choice is asked for). */
  add(rings: readonly Point[][]): void {
    this.pending.push(rings);
  }

  private score(): void {
    for (const rings of this.pending) this.scoreSet(rings, this.sets++);
    this.pending.length = 0;
  }

  private scoreSet(rings: readonly Point[][], set: number): void {
    const s = this.samples;
    const w = s.w;
    for (const [order, ring] of rings.entries()) {
      const box = ringBBox(ring);
      const index = ringIndex(ring, box, w);
      const byPart = new Map<number, number>();
      const claimed: number[] = [];
      let score = 0;
      for (let i = 0; i < s.x.length; i++) {
        const x = s.x[i];
        const y = s.y[i];
        if (x < box.minX - w || x > box.maxX + w || y < box.minY - w || y > box.maxY + w) continue;
        const e = index.clearance({ x, y }, w);
        if (e >= w) continue;
        const v = s.len[i] * (1 - e / w);
        score += v;
        byPart.set(s.part[i], (byPart.get(s.part[i]) ?? 0) + v);
        if (e < w / 2) claimed.push(i);
      }
      let part = -1;
      let best = 0;
      for (const [j, v] of byPart)
        if (v > best) {
          best = v;
          part = j;
        }
      if (part < 0) continue;
      this.scored.push({ ring, set, order, part, score, claimed, box, index });
    }
  }

  /**
   * The rings to drive: for each planned ring the set that follows it best,
   * then rings of other sets along stretches those leave unfollowed.
   */
  choose(): Point[][] {
    this.score();
    const s = this.samples;
    const parts = s.partLength.length;
    const bySet = new Map<string, number>();
    for (const r of this.scored) {
      const key = `${r.part}:${r.set}`;
      bySet.set(key, (bySet.get(key) ?? 0) + r.score);
    }
    const bestSet = new Array<number>(parts).fill(-1);
    const bestScore = new Array<number>(parts).fill(0);
    for (const [key, v] of bySet) {
      const [part, set] = key.split(':').map(Number);
      if (v > bestScore[part] + 1e-9 || (v > bestScore[part] - 1e-9 && set < bestSet[part] && v > 0)) {
        bestScore[part] = v;
        bestSet[part] = set;
      }
    }
    const order = this.scored.slice().sort((a, b) => b.score - a.score || a.set - b.set);
    const first = order.filter((r) => bestSet[r.part] === r.set);
    const rest = order.filter((r) => bestSet[r.part] !== r.set);
    const taken = new Uint8Array(s.x.length);
    const chosen: ScoredRing[] = [];
    const accept = (r: ScoredRing): void => {
      if (r.score <= 0) return;
      let overlap = 0;
      let mine = 0;
      for (const i of r.claimed) {
        mine += s.len[i];
        if (taken[i]) overlap += s.len[i];
      }
      if (overlap > Math.min(2 * s.w, 0.1 * mine)) return;
      if (chosen.some((c) => clash(c, r))) return;
      chosen.push(r);
      for (const i of r.claimed) taken[i] = 1;
    };
    for (const r of first) accept(r);
    for (const r of rest) accept(r);
    // In the order of the planned rings they follow, as offered for each
    // (the route starts from the first ring of pass 1).
    return chosen.sort((a, b) => a.part - b.part || a.set - b.set || a.order - b.order).map((r) => r.ring);
  }

  /** The least share of a planned ring's length the rings inside it have. */
  lengthShare(rings: readonly Point[][]): number {
    const driven = new Array<number>(this.planned.length).fill(0);
    for (const r of rings) {
      const j = this.planned.findIndex((p) => pointInRing(r[0], p));
      if (j >= 0) driven[j] += ringLength(r);
    }
    let least = Number.POSITIVE_INFINITY;
    driven.forEach((l, j) => {
      least = Math.min(least, l / Math.max(1e-9, ringLength(this.planned[j])));
    });
    return least;
  }

  /** True when the rings follow every planned ring (most of its length within half a swath). */
  followsAll(rings: readonly Point[][]): boolean {
    // As long as the planned ring it lies in, nearly: on its line all round
    // but for the roundings (the sampling below is what costs).
    if (this.lengthShare(rings) >= ALMOST) return true;
    const s = this.samples;
    const followed = new Array<number>(s.partLength.length).fill(0);
    const indexes = rings.map((r) => {
      const box = ringBBox(r);
      return { box, index: ringIndex(r, box, s.w) };
    });
    const h = s.w / 2;
    for (let i = 0; i < s.x.length; i++) {
      const x = s.x[i];
      const y = s.y[i];
      for (const { box, index } of indexes) {
        if (x < box.minX - h || x > box.maxX + h || y < box.minY - h || y > box.maxY + h) continue;
        if (index.clearance({ x, y }, h) < h) {
          followed[s.part[i]] += s.len[i];
          break;
        }
      }
    }
    return followed.every((f, j) => f >= FOLLOWED * s.partLength[j]);
  }
}

/** The ring's edges in cells of about half a swath (queries reach no farther than a swath). */
function ringIndex(ring: readonly Point[], box: ScoredRing['box'], w: number): EdgeIndex {
  const area = (box.maxX - box.minX) * (box.maxY - box.minY);
  return new EdgeIndex([ring], { cell: Math.max(w / 2, Math.sqrt(area / 40000)) });
}

/** True when two rings of one pass cross or one lies inside the other. */
function clash(a: ScoredRing, b: ScoredRing): boolean {
  if (
    a.box.maxX < b.box.minX ||
    b.box.maxX < a.box.minX ||
    a.box.maxY < b.box.minY ||
    b.box.maxY < a.box.minY
  )
    return false;
  if (pointInRing(b.ring[0], a.ring) || pointInRing(a.ring[0], b.ring)) return true;
  const ring = b.ring;
  for (let i = 0; i < ring.length; i++)
    if (a.index.segmentCrosses(ring[i], ring[(i + 1) % ring.length])) return true;
  return false;
}
