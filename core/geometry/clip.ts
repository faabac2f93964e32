/**
 * Polygon booleans and offsets on Clipper2, behind a small interface so the
 * engine can be swapped. Work is done in integers at 1 um resolution: exact,
 * fast and robust. The engine is Clipper2 compiled to WebAssembly
 * (clipper-wasm.ts); the conversions to the TypeScript port's paths
 * (clipper2-ts) serve the few modules that drive that port directly.
 */
import { Clipper, type Path64, type Paths64, type PolyPath64 } from 'clipper2-ts';
import type { Point, Polygon } from '../types/index.ts';
import * as W from './clipper-wasm.ts';
import { type BBox, polygonsBBox, ringBBox } from './polygon.ts';

/** Integer units per metre (1 um: arcs keep their radius to well under 1 %). */
export const SCALE = 1e6;
/** Maximum deviation of round joins from the true arc [m]. */
const ARC_TOLERANCE = 0.005;

/** Points [m] to an engine path (integers at SCALE), for geometry built on the engine elsewhere. */
export function toPath(ring: readonly Point[]): Path64 {
  const out: Path64 = new Array(ring.length);
  for (let i = 0; i < ring.length; i++)
    out[i] = { x: Math.round(ring[i].x * SCALE), y: Math.round(ring[i].y * SCALE) };
  return out;
}

/** An engine path back to points [m]. */
export function fromPath(path: Path64): Point[] {
  const out: Point[] = new Array(path.length);
  for (let i = 0; i < path.length; i++) out[i] = { x: path[i].x / SCALE, y: path[i].y / SCALE };
  return out;
}

/** Every ring of the polygons as engine paths. */
export function toPaths(polys: readonly Polygon[]): Paths64 {
  const out: Paths64 = [];
  for (const p of polys) {
    out.push(toPath(p.outer));
    for (const h of p.holes) out.push(toPath(h));
  }
  return out;
}

/** Polygons (outer rings with their holes; islands in holes as polygons of their own) of an engine tree. */
export function treeToPolygons(tree: PolyPath64, out: Polygon[] = []): Polygon[] {
  for (let i = 0; i < tree.count; i++) outerToPolygons(tree.child(i), out);
  return out;
}

/** An outer ring of an engine tree with its holes, after the islands in them. */
function outerToPolygons(outer: PolyPath64, out: Polygon[]): void {
  if (!outer.poly || outer.poly.length < 3) return;
  const poly: Polygon = { outer: fromPath(outer.poly), holes: [] };
  for (let j = 0; j < outer.count; j++) {
    const hole = outer.child(j);
    if (hole.poly && hole.poly.length >= 3) poly.holes.push(fromPath(hole.poly));
    // Islands inside holes become polygons of their own.
    treeToPolygons(hole, out);
  }
  out.push(poly);
}

function booleanOp(
  type: 'union' | 'intersection' | 'difference',
  subject: readonly Polygon[],
  clip: readonly Polygon[] | null,
): Polygon[] {
  const op =
    type === 'union'
      ? W.ClipType.Union
      : type === 'intersection'
        ? W.ClipType.Intersection
        : W.ClipType.Difference;
  return orient(
    polygonsOf(W.booleanPaths(op, W.FillRule.NonZero, intPaths(subject), clip ? intPaths(clip) : null)),
  );
}

/** Every ring of the polygons as integer paths (at SCALE) for the engine. */
export function intPaths(polys: readonly Polygon[]): W.IntPath[] {
  const out: W.IntPath[] = [];
  for (const p of polys) {
    out.push(intPath(p.outer));
    for (const h of p.holes) out.push(intPath(h));
  }
  return out;
}

function intPath(ring: readonly Point[]): W.IntPath {
  const out = new Float64Array(W.STRIDE * ring.length);
  for (let i = 0, k = 0; i < ring.length; i++, k += W.STRIDE) {
    out[k] = Math.round(ring[i].x * SCALE);
    out[k + 1] = Math.round(ring[i].y * SCALE);
  }
  return out;
}

/** An integer path back to points [m]. */
function pointsOf(path: W.IntPath): Point[] {
  const n = path.length / W.STRIDE;
  const out: Point[] = new Array(n);
  for (let i = 0, k = 0; i < n; i++, k += W.STRIDE) out[i] = { x: path[k] / SCALE, y: path[k + 1] / SCALE };
  return out;
}

/**
 * Polygons of the engine's closed paths, outer rings positive and holes
 * negative (islands in holes are outer rings like any other): each hole
 * goes to the smallest outer ring round it. Listed in the order of their
 * outer rings.
 */
export function polygonsOf(paths: readonly W.IntPath[]): Polygon[] {
  const outers: { path: W.IntPath; area: number; box: BBox; holes: W.IntPath[] }[] = [];
  const holes: { path: W.IntPath; box: BBox }[] = [];
  for (const path of paths) {
    if (path.length < 3 * W.STRIDE) continue;
    const area = W.pathArea(path);
    if (area > 0) outers.push({ path, area, box: boxOf(path), holes: [] });
    else if (area < 0) holes.push({ path, box: boxOf(path) });
  }
  for (const h of holes) {
    let best: (typeof outers)[number] | undefined;
    for (const o of outers) {
      if (best && o.area >= best.area) continue;
      const b = o.box;
      if (h.box.minX < b.minX || h.box.maxX > b.maxX || h.box.minY < b.minY || h.box.maxY > b.maxY) continue;
      if (outers.length === 1 || holeInside(h.path, o.path)) best = o;
    }
    best?.holes.push(h.path);
  }
  return outers.map((o) => ({ outer: pointsOf(o.path), holes: o.holes.map(pointsOf) }));
}

function boxOf(path: W.IntPath): BBox {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < path.length; i += W.STRIDE) {
    const x = path[i];
    const y = path[i + 1];
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  return { minX, minY, maxX, maxY };
}

/**
 * Whether a hole lies inside an outer ring (the engine's output: they never
 * cross, but may touch at vertices): most of five of its vertices, spread
 * along it, lie inside.
 */
function holeInside(hole: W.IntPath, outer: W.IntPath): boolean {
  const n = hole.length / W.STRIDE;
  const k = Math.min(5, n);
  let inside = 0;
  for (let j = 0; j < k; j++) {
    const i = W.STRIDE * Math.floor((j * n) / k);
    if (pointInPath(hole[i], hole[i + 1], outer)) inside++;
  }
  return 2 * inside > k;
}

/** Crossing-number test of a point against a closed path. */
function pointInPath(x: number, y: number, path: W.IntPath): boolean {
  const n = path.length;
  let c = false;
  for (let i = 0, j = n - W.STRIDE; i < n; j = i, i += W.STRIDE) {
    const xi = path[i];
    const yi = path[i + 1];
    const xj = path[j];
    const yj = path[j + 1];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

/** Exterior counter-clockwise, holes clockwise. */
function orient(polys: Polygon[]): Polygon[] {
  for (const p of polys) {
    if (Clipper.areaD(p.outer) < 0) p.outer.reverse();
    for (const h of p.holes) if (Clipper.areaD(h) > 0) h.reverse();
  }
  return polys;
}

export function union(a: readonly Polygon[], b: readonly Polygon[] = []): Polygon[] {
  return booleanOp('union', a, b.length ? b : null);
}

export function intersection(a: readonly Polygon[], b: readonly Polygon[]): Polygon[] {
  return booleanOp('intersection', a, b);
}

export function difference(a: readonly Polygon[], b: readonly Polygon[]): Polygon[] {
  if (b.length === 0) return booleanOp('union', a, null);
  return booleanOp('difference', a, b);
}

/**
 * The ground covered by at least k of the polygons (each counted by its
 * winding: outer rings counter-clockwise, holes clockwise).
 */
export function coveredAtLeast(polys: readonly Polygon[], k: number): Polygon[] {
  if (polys.length === 0) return [];
  const { minX, minY, maxX, maxY } = polygonsBBox(polys);
  // A clockwise box round them all (winding -1), added k - 1 times: what
  // has a winding of at least k is left positive.
  const box = intPath([
    { x: minX - 1, y: minY - 1 },
    { x: minX - 1, y: maxY + 1 },
    { x: maxX + 1, y: maxY + 1 },
    { x: maxX + 1, y: minY - 1 },
  ]);
  const subject = intPaths(polys);
  for (let i = 1; i < k; i++) subject.push(box);
  return orient(polygonsOf(W.booleanPaths(W.ClipType.Union, W.FillRule.Positive, subject, null)));
}

export type Join = 'round' | 'miter' | 'square';

const WJOINS: Record<Join, { value: number }> = {
  round: W.JoinType.Round,
  miter: W.JoinType.Miter,
  square: W.JoinType.Square,
};

/**
 * Offset polygons by delta [m]: positive grows, negative shrinks. Holes move
 * the other way, as the set offset requires. Round joins give the exact
 * Minkowski offset.
 */
export function offset(
  polys: readonly Polygon[],
  delta: number,
  join: Join = 'round',
  arcTolerance = ARC_TOLERANCE,
): Polygon[] {
  if (polys.length === 0) return [];
  if (delta === 0) return union(polys);
  // Rings the offset closes completely are left out beforehand (growing,
  // a hole narrower than 2 delta; shrinking, a part narrower than that):
  // the result is the same, and such rings' self-crossings cost the clipper
  // time quadratic in their vertices.
  const gone = (ring: readonly Point[]) => minBoxSide(ring) < 2 * (Math.abs(delta) - arcTolerance);
  const kept =
    delta > 0
      ? polys.map((p) =>
          p.holes.some(gone) ? { outer: p.outer, holes: p.holes.filter((h) => !gone(h)) } : p,
        )
      : polys.filter((p) => !gone(p.outer));
  if (kept.length === 0) return [];
  // Polygons too far apart for their offsets to meet are offset apart: the
  // clipper's sweep costs the product of the edges it crosses and the edges
  // beside them on the scanline, and rings side by side share every scanline.
  // The raw offset of a ring stays within its box grown by the offset (round
  // joins), 1.5 times it (square joins) or the miter limit times it (mitred).
  const reach = Math.abs(delta) * (join === 'miter' ? 4 : 1.5) + 0.01;
  const groups = kept.length > 1 ? apart(kept, reach) : [kept];
  if (groups.length === 1) return orient(polygonsOf(offsetPaths(kept, delta, join, arcTolerance)));
  return orient(inSweepOrder(groups.map((g) => polygonsOf(offsetPaths(g, delta, join, arcTolerance)))));
}

function offsetPaths(
  polys: readonly Polygon[],
  delta: number,
  join: Join,
  arcTolerance: number,
): W.IntPath[] {
  return W.inflate(intPaths(polys), delta * SCALE, WJOINS[join], W.EndType.Polygon, 4, arcTolerance * SCALE);
}

/**
 * The polygons in groups whose bounding boxes, grown by `reach`, overlap no
 * other group's (each in input order; groups in order of their first polygon).
 */
function apart(polys: readonly Polygon[], reach: number): Polygon[][] {
  const n = polys.length;
  const boxes = polys.map((p) => ringBBox(p.outer));
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  const byX = Array.from({ length: n }, (_, i) => i).sort((a, b) => boxes[a].minX - boxes[b].minX);
  for (let ii = 0; ii < n; ii++) {
    const a = boxes[byX[ii]];
    for (let jj = ii + 1; jj < n; jj++) {
      const b = boxes[byX[jj]];
      if (b.minX > a.maxX + 2 * reach) break;
      if (b.minY <= a.maxY + 2 * reach && a.minY <= b.maxY + 2 * reach) parent[find(byX[ii])] = find(byX[jj]);
    }
  }
  const groups = new Map<number, Polygon[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    let g = groups.get(r);
    if (!g) {
      g = [];
      groups.set(r, g);
    }
    g.push(polys[i]);
  }
  return [...groups.values()];
}

/**
 * The polygons of separately swept groups in the order one sweep of them
 * all would give: the clipper sweeps from the largest y down and numbers
 * the polygons as it meets them, so the groups' polygons are merged by the
 * largest y of their outer ring.
 */
function inSweepOrder(groups: readonly Polygon[][]): Polygon[] {
  const lists = groups.map((g) =>
    g.map((p) => {
      let top = Number.NEGATIVE_INFINITY;
      for (const q of p.outer) if (q.y > top) top = q.y;
      return { top, polys: [p] };
    }),
  );
  const out: Polygon[] = [];
  const at = lists.map(() => 0);
  for (;;) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      if (at[k] >= lists[k].length) continue;
      if (best < 0 || lists[k][at[k]].top > lists[best][at[best]].top) best = k;
    }
    if (best < 0) return out;
    out.push(...lists[best][at[best]++].polys);
  }
}

/** Buffer open polylines into strips of half-width hw [m] with flat (butt) or round ends. */
export function bufferLines(
  lines: readonly (readonly Point[])[],
  hw: number,
  ends: 'butt' | 'round' = 'butt',
): Polygon[] {
  const paths = lines.filter((l) => l.length >= 2).map((l) => intPath(l));
  if (paths.length === 0) return [];
  // Centre lines turn by a few degrees per vertex: mitred joins are exact enough and far lighter.
  const end = ends === 'butt' ? W.EndType.Butt : W.EndType.Round;
  return orient(polygonsOf(W.inflate(paths, hw * SCALE, W.JoinType.Miter, end, 2, ARC_TOLERANCE * SCALE)));
}

/** Buffer closed rings (a headland loop) into bands of half-width hw [m]. */
export function bufferRings(rings: readonly (readonly Point[])[], hw: number): Polygon[] {
  const paths = rings.filter((l) => l.length >= 3).map((l) => intPath(l));
  if (paths.length === 0) return [];
  const bands = W.inflate(paths, hw * SCALE, W.JoinType.Miter, W.EndType.Joined, 2, ARC_TOLERANCE * SCALE);
  return orient(polygonsOf(bands));
}

/** Area of the union of the given polygons [m^2]. */
export function unionArea(polys: readonly Polygon[]): number {
  if (polys.length === 0) return 0;
  return W.booleanArea(W.ClipType.Union, W.FillRule.NonZero, intPaths(polys), null) / (SCALE * SCALE);
}

/**
 * Area of a ∩ b [m^2]; overlapping polygons within a and within b are unioned by the fill rule.
 * Only the band of y both span can hold any of the intersection: each
 * operand's rings are cut down to it first (inBand), which leaves the
 * clipper's sweep through the band, and so its result, as it was.
 */
export function intersectionArea(a: readonly Polygon[], b: readonly Polygon[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const pa = intPaths(a);
  const pb = intPaths(b);
  const ra = pathsYRange(pa);
  const rb = pathsYRange(pb);
  const lo = Math.max(ra.lo, rb.lo);
  const hi = Math.min(ra.hi, rb.hi);
  if (lo > hi) return 0;
  return (
    W.booleanArea(W.ClipType.Intersection, W.FillRule.NonZero, inBand(pa, lo, hi), inBand(pb, lo, hi)) /
    (SCALE * SCALE)
  );
}

/** The least and greatest y of the paths' points. */
function pathsYRange(paths: readonly W.IntPath[]): { lo: number; hi: number } {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const path of paths)
    for (let i = 1; i < path.length; i += W.STRIDE) {
      const y = path[i];
      if (y < lo) lo = y;
      if (y > hi) hi = y;
    }
  return { lo, hi };
}

/**
 * Closed paths cut down to the band lo <= y <= hi for a sweep along y
 * that can only give output inside it (an intersection): every run of
 * edges lying wholly below the band (or wholly above it) becomes the one
 * edge between its ends, which lies there too, and a path wholly outside
 * the band is left out. Every edge that reaches the band is kept, in the
 * paths' order, so each scanline in the band meets the same edges with the
 * same winding (what was cut closes no loop round a point of the band).
 */
function inBand(paths: readonly W.IntPath[], lo: number, hi: number): W.IntPath[] {
  const out: W.IntPath[] = [];
  for (const path of paths) {
    const n = path.length / W.STRIDE;
    const side = (i: number) => {
      const y = path[W.STRIDE * i + 1];
      return y < lo ? -1 : y > hi ? 1 : 0;
    };
    const kept: number[] = [];
    let dropped = 0;
    for (let i = 0; i < n; i++) {
      const s = side(i);
      if (s !== 0 && side((i + n - 1) % n) === s && side((i + 1) % n) === s) dropped++;
      else kept.push(path[W.STRIDE * i], path[W.STRIDE * i + 1], 0);
    }
    if (dropped === n) continue;
    out.push(dropped ? Float64Array.from(kept) : path);
  }
  return out;
}

/** Simplify rings within epsilon [m] (Ramer-Douglas-Peucker on closed paths). */
export function simplifyPolygons(polys: readonly Polygon[], epsilon: number): Polygon[] {
  return polys
    .map((p) => ({
      outer: Clipper.simplifyPathD(p.outer, epsilon, true),
      holes: p.holes.map((h) => Clipper.simplifyPathD(h, epsilon, true)).filter((h) => h.length >= 3),
    }))
    .filter((p) => p.outer.length >= 3);
}

/** The shorter side of a ring's axis-aligned bounding box [m]. */
function minBoxSide(ring: readonly Point[]): number {
  const b = ringBBox(ring);
  return Math.min(b.maxX - b.minX, b.maxY - b.minY);
}
