/**
 * Decomposition of a non-convex workable area into cells, each worked with
 * straight tracks in its own best direction.
 *
 * Straight-edge decomposition: a concave corner of the area (a reflex vertex
 * of its simplified outline) proposes two cuts, the lines that continue its
 * two edges across the area. A cut splits a cell into the parts on either
 * side of the line (half-plane clipping, so the parts partition the cell
 * exactly).
 *
 *        +------+                  +------+
 *        |      |                  |  A   |
 *        |      |     cut along    |      |
 *        |      +-------+   ->     +------+-------+
 *        |              |          |  B           |
 *        +--------------+          +--------------+
 *
 * Cuts are chosen greedily, best saving first, and cells whose union costs
 * no more than the two apart are merged again (Oksanen and Visala 2009 split
 * and merge in the same spirit). The cost of a cell is an estimate of its
 * non-working distance: its track count at its best direction (each track
 * end costs a turn, so tracks interrupted by a concavity count twice) times
 * the length of a turn, plus the raggedness of the track ends (travel along
 * the headland between ends that do not line up). Every extra cell pays a
 * connection. The area is decomposed only when the estimate saves a clear
 * margin; the composer then checks the saving on the real route.
 *
 * Narrow corridors (a strip narrower than two swaths joining wider parts)
 * become cells of their own whose best direction runs along them, so they
 * get passes along their length rather than stubs across them.
 */
import { Clipper } from 'clipper2-ts';
import { intersection, union } from '../geometry/clip.ts';
import { polygonArea } from '../geometry/polygon.ts';
import { headingToBearingDeg, hypot } from '../geometry/vec.ts';
import { flatten, normalizeHeading, quickScore } from '../tracks/generate-tracks.ts';
import type { Point, Polygon } from '../types/index.ts';

export interface DecomposeOptions {
  swathWidth: number;
  turningRadius: number;
  /** At most this many cells per workable polygon (default 6). */
  maxCells?: number;
  /**
   * The estimated saving must be at least this fraction of the undecomposed
   * estimate (default 0.08) and at least two turns.
   */
  minSavingFraction?: number;
}

export interface Cell {
  /** The cell: one polygon, a piece of the workable area. */
  polygon: Polygon;
  /** Best track heading [rad, CCW from east, 0..pi). */
  heading: number;
  /** The same as a bearing [deg clockwise from north, 0..180). */
  bearingDeg: number;
  /** Estimated track count at that heading. */
  trackCount: number;
  /** Estimated non-working cost [m]. */
  cost: number;
}

export interface Decomposition {
  /** The cells, partitioning the workable area; one cell per polygon when nothing is split. */
  cells: Cell[];
  /** True when at least one polygon was split. */
  decomposed: boolean;
  /** Estimated non-working cost of the cells, connections included [m]. */
  cost: number;
  /** The same estimate for the undecomposed area (one direction per polygon) [m]. */
  baselineCost: number;
}

/** Simplification before searching for cuts and directions [m]. */
const SIMPLIFY = 0.5;
/** A concave corner must turn by at least this much to propose cuts [rad]. */
const MIN_REFLEX_TURN = (20 * Math.PI) / 180;
/** Concave corners tried per cell (the most pronounced first). */
const MAX_CORNERS = 8;
/** Skip areas whose hull is less than 1 / this larger (near-convex areas gain nothing). */
const CONVEXITY_SKIP = 0.9;
/**
 * Work per polygon at most, in vertices clipped or scanned (a split or a
 * merge costs the vertices it clips, a direction search those it scans): the
 * search stays bounded on the largest, most ragged outlines.
 */
const MAX_WORK = 60_000;
/** Hull edges and long edges whose directions are tried, the longest of each. */
const MAX_EDGE_HEADINGS = 12;

/**
 * Decompose the workable area. Polygons are decomposed independently; a
 * polygon that gains nothing stays one cell.
 */
export function decompose(workable: readonly Polygon[], opts: DecomposeOptions): Decomposition {
  const cells: Cell[] = [];
  let cost = 0;
  let baselineCost = 0;
  let decomposed = false;
  for (const poly of workable) {
    const r = decomposePolygon(poly, opts);
    cells.push(...r.cells);
    cost += r.cost;
    baselineCost += r.baselineCost;
    decomposed ||= r.decomposed;
  }
  return { cells, decomposed, cost, baselineCost };
}

/**
 * Whether any polygon of the area is worth searching: large enough (16
 * swath squares) and clearly non-convex (its hull 5 % larger). Cheap; the
 * planner asks this first, so near-convex fields pay nothing more.
 */
export function worthDecomposing(workable: readonly Polygon[], swathWidth: number): boolean {
  return workable.some((p) => searchable(p, swathWidth) !== null);
}

/** The simplified polygon when it is worth searching, else null. */
function searchable(poly: Polygon, w: number): Polygon | null {
  const area = polygonArea(poly);
  if (area < 16 * w * w) return null;
  const simple = simplifyPolygon(poly);
  if (!simple || hullArea(simple.outer) * CONVEXITY_SKIP <= area) return null;
  return simple;
}

/** Length of one turn at a track end, as the route pays it [m]. */
export function turnCost(w: number, R: number): number {
  // A U-turn when 2R <= w; otherwise a skip-row U-turn or a bulb: about pi R plus the lateral travel.
  return Math.PI * R + Math.max(w, 2 * R);
}

function decomposePolygon(poly: Polygon, opts: DecomposeOptions): Decomposition {
  const w = opts.swathWidth;
  const R = opts.turningRadius;
  const T = turnCost(w, R);
  const link = 3 * T;
  const maxCells = opts.maxCells ?? 6;
  const minFraction = opts.minSavingFraction ?? 0.08;
  const whole = evaluate(poly, w, T);
  const single: Decomposition = {
    cells: [whole],
    decomposed: false,
    cost: whole.cost,
    baselineCost: whole.cost,
  };
  if (!searchable(poly, w)) return single;
  // Greedy splitting: the best improving cut over all cells, until none improves.
  let cells: Cell[] = [whole];
  const cuts = new Map<Cell, { parts: Cell[]; gain: number } | null>();
  const budget = { left: MAX_WORK };
  for (;;) {
    if (cells.length >= maxCells) break;
    let best: { index: number; parts: Cell[]; gain: number } | null = null;
    for (const [index, cell] of cells.entries()) {
      // A cell's best cut does not change while other cells are split (only the part cap may).
      const maxParts = maxCells - cells.length + 1;
      let found = cuts.get(cell);
      if (found === undefined || (found && found.parts.length > maxParts)) {
        found = bestCut(cell, w, R, T, link, maxParts, budget);
        cuts.set(cell, found);
      }
      if (found && (!best || found.gain > best.gain)) best = { index, ...found };
    }
    if (!best || best.gain <= T) break;
    cells = [...cells.slice(0, best.index), ...best.parts, ...cells.slice(best.index + 1)];
  }
  if (cells.length === 1) return single;
  cells = mergeCells(cells, w, T, link, budget);
  const cost = cells.reduce((s, c) => s + c.cost, 0) + (cells.length - 1) * link;
  const saving = whole.cost - cost;
  if (cells.length === 1 || saving < Math.max(2 * T, minFraction * whole.cost)) return single;
  return { cells, decomposed: true, cost, baselineCost: whole.cost };
}

/** The best cut of one cell: the proposed line whose parts save the most. */
function bestCut(
  cell: Cell,
  w: number,
  R: number,
  T: number,
  link: number,
  maxParts: number,
  budget: { left: number },
): { parts: Cell[]; gain: number } | null {
  const simple = simplifyPolygon(cell.polygon);
  if (!simple) return null;
  const lines = cutLines(simple, w, R);
  let best: { parts: Cell[]; gain: number } | null = null;
  const area = polygonArea(cell.polygon);
  const size = vertexCount(cell.polygon);
  for (const line of lines) {
    if (budget.left < 2 * size) break;
    budget.left -= size;
    const pieces = splitByLine(cell.polygon, line.p, line.d);
    if (pieces.length < 2 || pieces.length > maxParts) continue;
    // A sliver gains nothing and leaves a strip no track covers well.
    if (pieces.some((p) => polygonArea(p) < Math.max(4 * w * w, 0.002 * area))) continue;
    budget.left -= size;
    const parts = pieces.map((p) => evaluate(p, w, T));
    const cost = parts.reduce((s, c) => s + c.cost, 0) + (parts.length - 1) * link;
    const gain = cell.cost - cost;
    if (gain > 0 && (!best || gain > best.gain)) best = { parts, gain };
  }
  return best;
}

/** Merge adjacent cells whose union costs no more than the two apart (they agree on a direction). */
function mergeCells(cells: Cell[], w: number, T: number, link: number, budget: { left: number }): Cell[] {
  let out = cells.slice();
  for (let changed = true; changed && out.length > 1; ) {
    changed = false;
    let best: { i: number; j: number; cell: Cell; gain: number } | null = null;
    for (let i = 0; i < out.length; i++) {
      for (let j = i + 1; j < out.length; j++) {
        const size = vertexCount(out[i].polygon) + vertexCount(out[j].polygon);
        if (budget.left < 2 * size) return out;
        budget.left -= 2 * size;
        const u = union([out[i].polygon, out[j].polygon]);
        if (u.length !== 1) continue;
        const merged = evaluate(u[0], w, T);
        const gain = out[i].cost + out[j].cost + link - merged.cost;
        if (gain >= 0 && (!best || gain > best.gain)) best = { i, j, cell: merged, gain };
      }
    }
    if (best) {
      const { i, j, cell } = best;
      out = out.filter((_, k) => k !== i && k !== j);
      out.push(cell);
      changed = true;
    }
  }
  return out;
}

interface Line {
  p: Point;
  /** Unit direction. */
  d: Point;
}

/**
 * Lines that continue the edges of the concave corners of the outline,
 * most pronounced corners first. A corner is where two long edges meet,
 * directly or through a run of short edges (the area's concave corners are
 * rounded to about the turning radius) that turns right by a clear angle.
 */
function cutLines(poly: Polygon, w: number, R: number): Line[] {
  const r = poly.outer;
  const n = r.length;
  const longEdge = Math.max(2 * w, 2 * R, 10);
  const edges = r.map((a, i) => {
    const b = r[(i + 1) % n];
    const l = hypot(b.x - a.x, b.y - a.y);
    return { a, b, l, h: Math.atan2(b.y - a.y, b.x - a.x) };
  });
  const longIdx = edges.map((e, i) => (e.l >= longEdge ? i : -1)).filter((i) => i >= 0);
  const corners: { e1: (typeof edges)[0]; e2: (typeof edges)[0]; weight: number }[] = [];
  for (let k = 0; k < longIdx.length; k++) {
    const i = longIdx[k];
    const j = longIdx[(k + 1) % longIdx.length];
    const e1 = edges[i];
    const e2 = edges[j];
    // The run of short edges between them: its length and total turn.
    let run = 0;
    for (let m = (i + 1) % n; m !== j; m = (m + 1) % n) run += edges[m].l;
    if (run > 4 * R + 2 * w) continue;
    let turn = e2.h - e1.h;
    while (turn > Math.PI) turn -= 2 * Math.PI;
    while (turn < -Math.PI) turn += 2 * Math.PI;
    // Counter-clockwise outline: a right turn is a concave corner.
    if (turn > -MIN_REFLEX_TURN) continue;
    corners.push({ e1, e2, weight: Math.min(e1.l, e2.l, 20 * w) * Math.sin(Math.min(-turn, Math.PI / 2)) });
  }
  corners.sort((p, q) => q.weight - p.weight);
  const out: Line[] = [];
  const seen = (l: Line) =>
    out.some(
      (o) =>
        Math.abs(o.d.x * l.d.y - o.d.y * l.d.x) < 0.02 &&
        Math.abs((l.p.x - o.p.x) * o.d.y - (l.p.y - o.p.y) * o.d.x) < 0.5,
    );
  for (const { e1, e2 } of corners.slice(0, MAX_CORNERS)) {
    for (const [p, e] of [
      [e1.b, e1],
      [e2.a, e2],
    ] as const) {
      // The line runs just outside the edge (on its right, the outside of a
      // counter-clockwise outline): the outline wiggles within the
      // simplification about it, and a line on it would leave slivers
      // joining the parts.
      const d = { x: Math.cos(e.h), y: Math.sin(e.h) };
      const off = SIMPLIFY + 0.1;
      const line = { p: { x: p.x + d.y * off, y: p.y - d.x * off }, d };
      if (!seen(line)) out.push(line);
    }
  }
  return out;
}

/** The parts of a polygon on either side of a line (half-plane clipping: an exact partition). */
export function splitByLine(poly: Polygon, p: Point, d: Point): Polygon[] {
  let x0 = Number.POSITIVE_INFINITY;
  let y0 = Number.POSITIVE_INFINITY;
  let x1 = Number.NEGATIVE_INFINITY;
  let y1 = Number.NEGATIVE_INFINITY;
  for (const q of poly.outer) {
    x0 = Math.min(x0, q.x);
    x1 = Math.max(x1, q.x);
    y0 = Math.min(y0, q.y);
    y1 = Math.max(y1, q.y);
  }
  const L = hypot(x1 - x0, y1 - y0) + hypot(p.x - (x0 + x1) / 2, p.y - (y0 + y1) / 2) + 1;
  const nx = -d.y;
  const ny = d.x;
  const a = { x: p.x - d.x * L, y: p.y - d.y * L };
  const b = { x: p.x + d.x * L, y: p.y + d.y * L };
  const left: Polygon = {
    outer: [a, b, { x: b.x + nx * L, y: b.y + ny * L }, { x: a.x + nx * L, y: a.y + ny * L }],
    holes: [],
  };
  const right: Polygon = {
    outer: [a, { x: a.x - nx * L, y: a.y - ny * L }, { x: b.x - nx * L, y: b.y - ny * L }, b],
    holes: [],
  };
  right.outer.reverse();
  const pieces = [...intersection([poly], [left]), ...intersection([poly], [right])];
  return pieces.filter((q) => polygonArea(q) > 1e-6);
}

/** A cell with its best direction and cost. */
export function evaluate(poly: Polygon, w: number, T: number, heading?: number): Cell {
  const simple = simplifyPolygon(poly, Math.max(SIMPLIFY, w / 4)) ?? poly;
  const edges = flatten([simple.outer, ...simple.holes]);
  let best = { heading: 0, count: Number.POSITIVE_INFINITY, cost: Number.POSITIVE_INFINITY, weight: 0 };
  const headings = heading === undefined ? candidateHeadings(simple, w) : [{ heading, weight: 0 }];
  for (const c of headings) {
    const s = quickScore(edges, c.heading, w);
    const cost = s.count * T + 0.5 * s.ragged;
    // Within one turn, the direction of the longer edge (farmers drive along edges).
    const tie = Math.abs(cost - best.cost) < T;
    if (tie ? c.weight > best.weight || (c.weight === best.weight && cost < best.cost) : cost < best.cost)
      best = { heading: c.heading, count: s.count, cost, weight: c.weight };
  }
  return {
    polygon: poly,
    heading: best.heading,
    bearingDeg: headingToBearingDeg(best.heading) % 180,
    trackCount: best.count,
    cost: best.cost,
  };
}

function simplifyPolygon(poly: Polygon, tolerance = SIMPLIFY): Polygon | null {
  const outer = poly.outer.length > 8 ? Clipper.simplifyPathD(poly.outer, tolerance, true) : poly.outer;
  if (outer.length < 3) return null;
  const holes = poly.holes
    .map((h) => (h.length > 8 ? Clipper.simplifyPathD(h, tolerance, true) : h))
    .filter((h) => h.length >= 3);
  return { outer, holes };
}

function vertexCount(p: Polygon): number {
  return p.holes.reduce((n, h) => n + h.length, p.outer.length);
}

/**
 * The longest hull edges' directions, the longest edges' (weighted by their
 * length [m]) and a 10-degree sweep: a bounded set, ragged outlines have
 * hundreds of edges.
 */
function candidateHeadings(poly: Polygon, w: number): { heading: number; weight: number }[] {
  const edgesOf = (r: readonly Point[]) =>
    r.map((a, i) => {
      const b = r[(i + 1) % r.length];
      return {
        heading: normalizeHeading(Math.atan2(b.y - a.y, b.x - a.x)),
        l: hypot(b.x - a.x, b.y - a.y),
      };
    });
  const longest = <T extends { l: number }>(xs: T[]) =>
    xs.sort((a, b) => b.l - a.l).slice(0, MAX_EDGE_HEADINGS);
  const hs: { heading: number; weight: number }[] = [];
  for (const e of longest(edgesOf(convexHull(poly.outer)))) hs.push({ heading: e.heading, weight: 0 });
  const long = [poly.outer, ...poly.holes].flatMap(edgesOf).filter((e) => e.l >= Math.max(2 * w, 10));
  for (const e of longest(long)) hs.push({ heading: e.heading, weight: e.l });
  for (let d = 0; d < 180; d += 10) hs.push({ heading: (d * Math.PI) / 180, weight: 0 });
  hs.sort((a, b) => a.heading - b.heading);
  const out: { heading: number; weight: number }[] = [];
  for (const h of hs) {
    const last = out[out.length - 1];
    // Headings within a degree are one candidate (the estimate needs no finer; ragged outlines have hundreds).
    if (last && h.heading - last.heading <= Math.PI / 180) last.weight = Math.max(last.weight, h.weight);
    else out.push({ ...h });
  }
  return out;
}

function convexHull(ring: readonly Point[]): Point[] {
  const pts = ring.slice().sort((a, b) => a.x - b.x || a.y - b.y);
  if (pts.length < 3) return pts;
  const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const lower: Point[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

function hullArea(ring: readonly Point[]): number {
  const h = convexHull(ring);
  let s = 0;
  for (let i = 0, j = h.length - 1; i < h.length; j = i++) s += h[j].x * h[i].y - h[i].x * h[j].y;
  return Math.abs(s) / 2;
}
