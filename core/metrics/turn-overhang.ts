/**
 * Turn overhang, measured for the plan audit (plan-audit.ts): where the
 * centre line of a turn or connector comes closer than half the working
 * width to the field edge or an obstacle, or leaves the field: the length
 * of those stretches, and the area of (the union of) their half-width
 * strips outside the field or inside obstacles. A way leaving or joining a
 * headland pass that itself runs nearer the edge is not counted while it
 * stays no nearer than the pass.
 *
 * Lengths are exact on the polylines (no sampling): every segment is clipped
 * against the capsules of the edge segments near it (segment-grid.ts).
 */
import { Clipper, Clipper64, ClipType, FillRule, type Paths64, Rect64Utils } from 'clipper2-ts';
import { bufferLines, SCALE, toPaths } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { pointInPolygon } from '../geometry/polygon.ts';
import { sortNumbers } from '../geometry/sort-numbers.ts';
import { turnRegionPolygons } from '../geometry/turn-region.ts';
import type { PathPart, Point, Polygon } from '../types/index.ts';
import { capsuleInterval, mergeIntervals, SegmentGrid, segDist } from './segment-grid.ts';

/** Turns are checked against the edge this far ahead at a time [m]. */
const LOOKAHEAD = 12;

/** Turns may come this much closer than half the width to an edge (the route's own clearance) [m]. */
export const OVERHANG_SLACK = 0.05;
/**
 * ... and this much more, for the rounding of the turn area the route holds
 * them to (an offset polygon: its arcs are chords, its vertices on a 1/SCALE
 * grid): a turn held to it is not overhang by a few millimetres [m].
 */
export const OVERHANG_NUMERIC = 0.01;

export interface Overhang {
  /** Index of the part in the zone's parts. */
  part: number;
  type: PathPart['type'];
  /** Length of the centre line closer than half the width to an edge, or outside [m]. */
  length: number;
  /** The worst point (nearest the edge, or outside). */
  at: Point;
  /** The overhanging stretches of the centre line. */
  stretches: Point[][];
  /**
   * The part is on a way that links two pieces of the field only a neck
   * narrower than the working width joins: the turns and connectors driven
   * one after another between two working parts start and end in different
   * pieces of the field shrunk by half the width, and no way between them
   * keeps the implement inside.
   */
  acrossNeck?: boolean;
}

/** The overhang of each driven turn or connector: within hw of an edge (less the slack), or outside. */
export function overhang(boundary: Polygon, parts: readonly PathPart[], hw: number): Overhang[] {
  return meterOf(boundary, hw).measure(parts);
}

/**
 * The meter of each boundary (a zone, never changed while it is planned)
 * and half width: a zone's plans are measured again and again.
 */
const meters = new WeakMap<Polygon, Map<number, OverhangMeter>>();

export function meterOf(boundary: Polygon, hw: number): OverhangMeter {
  let byWidth = meters.get(boundary);
  if (!byWidth) {
    byWidth = new Map();
    meters.set(boundary, byWidth);
  }
  let m = byWidth.get(hw);
  if (!m) {
    m = new OverhangMeter(boundary, hw);
    byWidth.set(hw, m);
  }
  return m;
}

/**
 * Marks the overhangs on ways that cross a neck narrower than the working
 * width. A way is the run of turns and connectors driven one after another
 * between two working parts (travel through the field is several
 * connectors, its waypoints anywhere in the field); it crosses a neck when
 * its first and last points lie in different pieces of the turn region
 * (the boundary shrunk by half the width less the slack, obstacles grown by
 * as much).
 */
export function markNecks(
  boundary: Polygon,
  parts: readonly PathPart[],
  hw: number,
  found: Overhang[],
): void {
  if (found.length === 0) return;
  const pieces = turnRegionPolygons(boundary, hw);
  if (pieces.length < 2) return;
  const pieceOf = (p: Point) => pieces.findIndex((q) => pointInPolygon(p, q));
  const ways = waysOf(parts);
  for (const o of found) {
    const way = ways.get(o.part);
    if (!way) continue;
    const a = pieceOf(way[0]);
    const b = pieceOf(way[1]);
    if (a >= 0 && b >= 0 && a !== b) o.acrossNeck = true;
  }
}

/**
 * The first and last points of the way each driven turn or connector is on
 * (the run of non-working parts between two working ones, in driving
 * order), by the part's index.
 */
function waysOf(parts: readonly PathPart[]): Map<number, [Point, Point]> {
  const ways = new Map<number, [Point, Point]>();
  let run: number[] = [];
  const close = () => {
    if (run.length === 0) return;
    const first = parts[run[0]].points[0];
    const lastPts = parts[run[run.length - 1]].points;
    for (const i of run) ways.set(i, [first, lastPts[lastPts.length - 1]]);
    run = [];
  };
  for (const i of drivingOrder(parts)) {
    const p = parts[i];
    if (p.points.length < 2) continue;
    if (p.working) close();
    else run.push(i);
  }
  close();
  return ways;
}

/**
 * The indices of the driven parts in driving order: by sequence, and in the
 * order of the parts where sequences are alike (a zone's route before the
 * plan numbers its parts has them all 0).
 */
function drivingOrder(parts: readonly PathPart[]): number[] {
  return [...parts.keys()]
    .filter((i) => parts[i].sequence !== undefined)
    .sort((i, j) => (parts[i].sequence as number) - (parts[j].sequence as number) || i - j);
}

/** The overhang measure of one boundary and working width, for measuring many sets of parts against it. */
export class OverhangMeter {
  private readonly r: number;
  private readonly grid: SegmentGrid;
  private readonly index: EdgeIndex;

  constructor(boundary: Polygon, hw: number, index?: EdgeIndex) {
    const rings = [boundary.outer, ...boundary.holes].filter((r) => r.length >= 3);
    const closedRings = rings.map((r) => [...r, r[0]]);
    this.r = Math.max(0, hw - OVERHANG_SLACK - OVERHANG_NUMERIC);
    this.grid = new SegmentGrid(closedRings, Math.max(1, 2 * this.r));
    this.index = index ?? new EdgeIndex(rings);
  }

  /** The overhang of each driven turn or connector among `parts`. */
  measure(parts: readonly PathPart[]): Overhang[] {
    return measureOverhang(this.r, this.grid, this.index, parts);
  }
}

function measureOverhang(
  r: number,
  grid: SegmentGrid,
  index: EdgeIndex,
  parts: readonly PathPart[],
): Overhang[] {
  const out: Overhang[] = [];
  let buf = new Float64Array(64);
  const one = new Float64Array(2);
  const merged = new Int32Array(1);
  const cuts: number[] = [];
  const push = (a: number, b: number, n: number) => {
    if (2 * n + 2 > buf.length) {
      const nb = new Float64Array(buf.length * 2);
      nb.set(buf);
      buf = nb;
    }
    buf[2 * n] = a;
    buf[2 * n + 1] = b;
  };
  // A way leaves the part before it and joins the one after.
  const order = drivingOrder(parts);
  const before = new Map<number, PathPart>();
  const after = new Map<number, PathPart>();
  for (let k = 0; k < order.length; k++) {
    if (k > 0) before.set(order[k], parts[order[k - 1]]);
    if (k + 1 < order.length) after.set(order[k], parts[order[k + 1]]);
  }
  for (const [partIndex, part] of parts.entries()) {
    if (part.working || part.sequence === undefined || part.points.length < 2) continue;
    const pts = part.points;
    const stretches: Point[][] = [];
    let cur: Point[] | null = null;
    let length = 0;
    let worst = Number.POSITIVE_INFINITY;
    let at = pts[0];
    let inside = index.contains(pts[0]) || index.clearance(pts[0], 1e-3) < 1e-3;
    // How much farther along the line every point is surely more than r from every edge.
    let clear = 0;
    // Leaving or joining a pass that itself runs nearer the edge, the way is not the overhang's cause.
    const lead = before.get(partIndex)?.working ? joinStretch(pts, 0, 1, r, index) : 0;
    const trail =
      pts.length - 1 - (after.get(partIndex)?.working ? joinStretch(pts, pts.length - 1, -1, r, index) : 0);
    for (let k = 1; k < pts.length; k++) {
      const p = pts[k - 1];
      const q = pts[k];
      const dx = q.x - p.x;
      const dy = q.y - p.y;
      const L = Math.sqrt(dx * dx + dy * dy);
      if (L === 0) continue;
      if (k <= lead || k > trail) {
        cur = null;
        clear = 0;
        inside = index.contains(q) || index.clearance(q, 1e-3) < 1e-3;
        continue;
      }
      if (clear <= L) clear = Math.min(index.clearance(p, r + LOOKAHEAD), r + LOOKAHEAD) - r;
      let n = 0;
      if (clear > L) {
        // Nowhere near an edge: no crossing, nothing within r (outside if the line is).
        clear -= L;
        cur = null;
        if (!inside) {
          length += L;
          stretches.push([p, q]);
        }
        continue;
      }
      clear = 0;
      cuts.length = 0;
      const near = grid.nearSegments(p.x, p.y, q.x, q.y, r);
      for (let i = 0; i < near; i++) {
        const e = grid.found[i];
        const ax = grid.ax[e];
        const ay = grid.ay[e];
        const bx = grid.bx[e];
        const by = grid.by[e];
        if (capsuleInterval(p.x, p.y, q.x, q.y, ax, ay, bx, by, r, one)) {
          push(one[0], one[1], n);
          n++;
          const s = (one[0] + one[1]) / 2;
          const d = segDist(p.x + s * dx, p.y + s * dy, ax, ay, bx, by);
          if (d < worst) {
            worst = d;
            at = { x: p.x + s * dx, y: p.y + s * dy };
          }
        }
        // Proper crossings of pq with the edge.
        const ex = bx - ax;
        const ey = by - ay;
        const den = dx * ey - dy * ex;
        if (Math.abs(den) < 1e-12) continue;
        const t = ((ax - p.x) * ey - (ay - p.y) * ex) / den;
        const u = ((ax - p.x) * dy - (ay - p.y) * dx) / den;
        if (t > 0 && t < 1 && u >= 0 && u <= 1) cuts.push(t);
      }
      if (cuts.length) {
        sortNumbers(cuts);
        cuts.push(1);
        let t0 = 0;
        for (const t1 of cuts) {
          if (t1 - t0 > 1e-9) {
            const mid = { x: p.x + ((t0 + t1) / 2) * dx, y: p.y + ((t0 + t1) / 2) * dy };
            inside = index.contains(mid);
            if (!inside) {
              push(t0, t1, n);
              n++;
              worst = -1;
              at = mid;
            }
          }
          t0 = t1;
        }
      } else if (!inside) {
        push(0, 1, n);
        n++;
        if (worst > -1) {
          worst = -1;
          at = p;
        }
      }
      if (!n) {
        cur = null;
        continue;
      }
      length += mergeIntervals(buf, n, merged) * L;
      // The overhanging stretches as polylines (for their strips' area and the picture).
      for (let i = 0; i < merged[0]; i++) {
        const s0 = buf[2 * i];
        const s1 = buf[2 * i + 1];
        const b = { x: p.x + s1 * dx, y: p.y + s1 * dy };
        if (cur && s0 <= 1e-9) cur.push(b);
        else {
          cur = [{ x: p.x + s0 * dx, y: p.y + s0 * dy }, b];
          stretches.push(cur);
        }
        if (s1 < 1 - 1e-9) cur = null;
      }
      if (buf[2 * merged[0] - 1] < 1 - 1e-9) cur = null;
    }
    if (length <= 1e-6) continue;
    out.push({
      part: partIndex,
      type: part.type,
      length,
      at,
      stretches,
    });
  }
  return out;
}

/** A turn coming this much nearer the edge than the pass it leaves or joins [m] comes nearer. */
const JOIN_SLACK = OVERHANG_NUMERIC;
/** An end of a way this near the edge lies on it [m]. */
const ON_EDGE = 1e-3;

/**
 * How many segments from the end pts[i0] (walking by `step`) stay within
 * the edge band no nearer the edge than that end, where the end lies in the
 * band (nearer the edge than r, inside the field), for the end of a way
 * leaving or joining a working part (a headland pass that itself runs there). They end where the way leaves the
 * band or first comes nearer.
 */
function joinStretch(pts: readonly Point[], i0: number, step: 1 | -1, r: number, index: EdgeIndex): number {
  const p0 = pts[i0];
  // An end on the edge itself (a track driven up to it, either side of it by
  // rounding): the way is the track's only while it draws away from the edge.
  const onEdge = index.clearance(p0, ON_EDGE) < ON_EDGE;
  if (!onEdge && !index.contains(p0)) return 0;
  const d0 = index.clearance(p0, r + 1);
  if (d0 >= r) return 0;
  let k = 0;
  let prev = d0;
  for (let i = i0 + step; i >= 0 && i < pts.length; i += step) {
    if (!index.contains(pts[i])) return k;
    const d = index.clearance(pts[i], r + 1);
    if (d < (onEdge ? prev : d0) - JOIN_SLACK) return k;
    prev = d;
    k++;
    if (d >= r) return k;
  }
  return k;
}

/**
 * Area of the union of the stretches' half-width strips outside the field
 * or in obstacles (the boundary cut to the strips' box first, so a long,
 * detailed edge costs little).
 */
export function outsideArea(stretches: readonly (readonly Point[])[], boundary: Polygon, hw: number): number {
  // Simplified within 10 cm first (arcs are dense; the area changes far less than that).
  const strips = bufferLines(
    stretches.map((l) => (l.length > 8 ? Clipper.simplifyPathD(l as Point[], 0.1, false) : l)),
    hw,
    'butt',
  );
  if (strips.length === 0) return 0;
  const paths = toPaths(strips);
  const box = Clipper.getBoundsPaths(paths);
  const pad = SCALE;
  const rect = Rect64Utils.create(box.left - pad, box.top - pad, box.right + pad, box.bottom + pad);
  const near = Clipper.rectClip(rect, toPaths([boundary]));
  const c = new Clipper64();
  c.addSubject(paths);
  c.addClip(near);
  const outside: Paths64 = [];
  c.execute(ClipType.Difference, FillRule.NonZero, outside);
  return Clipper.areaPaths(outside) / (SCALE * SCALE);
}

/** Length of the turn overhang of a zone's parts [m], as the audit measures it. */
export function overhangLength(boundary: Polygon, parts: readonly PathPart[], hw: number): number {
  return overhang(boundary, parts, hw).reduce((a, o) => a + o.length, 0);
}
