/**
 * Polygon booleans and offsets on Clipper2 (clipper2-ts), behind a small
 * interface so the engine can be swapped. Work is done in integers at 1 um
 * resolution: exact, fast and robust.
 */
import {
  Clipper,
  Clipper64,
  ClipperOffset,
  ClipType,
  EndType,
  FillRule,
  JoinType,
  type Path64,
  type Paths64,
  type PolyPath64,
  PolyTree64,
} from 'clipper2-ts';
import type { Point, Polygon } from '../types/index.ts';
import { ringBBox } from './polygon.ts';

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

function booleanOp(type: ClipType, subject: readonly Polygon[], clip: readonly Polygon[] | null): Polygon[] {
  const c = new Clipper64();
  c.addSubject(toPaths(subject));
  if (clip) c.addClip(toPaths(clip));
  const tree = new PolyTree64();
  c.execute(type, FillRule.NonZero, tree);
  return orient(treeToPolygons(tree));
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
  return booleanOp(ClipType.Union, a, b.length ? b : null);
}

export function intersection(a: readonly Polygon[], b: readonly Polygon[]): Polygon[] {
  return booleanOp(ClipType.Intersection, a, b);
}

export function difference(a: readonly Polygon[], b: readonly Polygon[]): Polygon[] {
  if (b.length === 0) return booleanOp(ClipType.Union, a, null);
  return booleanOp(ClipType.Difference, a, b);
}

export type Join = 'round' | 'miter' | 'square';

const JOINS: Record<Join, JoinType> = {
  round: JoinType.Round,
  miter: JoinType.Miter,
  square: JoinType.Square,
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
  if (groups.length === 1) return orient(treeToPolygons(offsetTree(kept, delta, join, arcTolerance)));
  return orient(inSweepOrder(groups.map((g) => offsetTree(g, delta, join, arcTolerance))));
}

function offsetTree(polys: readonly Polygon[], delta: number, join: Join, arcTolerance: number): PolyTree64 {
  const co = new ClipperOffset(4, arcTolerance * SCALE);
  co.addPaths(toPaths(polys), JOINS[join], EndType.Polygon);
  const tree = new PolyTree64();
  co.execute(delta * SCALE, tree);
  return tree;
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
 * The polygons of separately swept trees in the order one sweep of them all
 * would give: the clipper sweeps from the largest y down and numbers the
 * polygons as it meets them, so each tree's polygons (an outer ring after
 * the islands in its holes, as treeToPolygons lists them) are merged by
 * the largest y of their outer ring.
 */
function inSweepOrder(trees: readonly PolyTree64[]): Polygon[] {
  const lists: { top: number; polys: Polygon[] }[][] = trees.map((tree) => {
    const units: { top: number; polys: Polygon[] }[] = [];
    for (let i = 0; i < tree.count; i++) {
      const child = tree.child(i);
      if (!child.poly || child.poly.length < 3) continue;
      let top = Number.NEGATIVE_INFINITY;
      for (const q of child.poly) if (q.y > top) top = q.y;
      const polys: Polygon[] = [];
      outerToPolygons(child, polys);
      units.push({ top, polys });
    }
    return units;
  });
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
  const paths = lines.filter((l) => l.length >= 2).map((l) => toPath(l));
  if (paths.length === 0) return [];
  const co = new ClipperOffset(2, ARC_TOLERANCE * SCALE);
  // Centre lines turn by a few degrees per vertex: mitred joins are exact enough and far lighter.
  co.addPaths(paths, JoinType.Miter, ends === 'butt' ? EndType.Butt : EndType.Round);
  const tree = new PolyTree64();
  co.execute(hw * SCALE, tree);
  return orient(treeToPolygons(tree));
}

/** Buffer closed rings (a headland loop) into bands of half-width hw [m]. */
export function bufferRings(rings: readonly (readonly Point[])[], hw: number): Polygon[] {
  const paths = rings.filter((l) => l.length >= 3).map((l) => toPath(l));
  if (paths.length === 0) return [];
  const co = new ClipperOffset(2, ARC_TOLERANCE * SCALE);
  co.addPaths(paths, JoinType.Miter, EndType.Joined);
  const tree = new PolyTree64();
  co.execute(hw * SCALE, tree);
  return orient(treeToPolygons(tree));
}

/** Area of the union of the given polygons [m^2]. */
export function unionArea(polys: readonly Polygon[]): number {
  if (polys.length === 0) return 0;
  const c = new Clipper64();
  c.addSubject(toPaths(polys));
  const out: Paths64 = [];
  c.execute(ClipType.Union, FillRule.NonZero, out);
  return Clipper.areaPaths(out) / (SCALE * SCALE);
}

/**
 * Area of a ∩ b [m^2]; overlapping polygons within a and within b are unioned by the fill rule.
 * Only the band of y both span can hold any of the intersection: each
 * operand's rings are cut down to it first (inBand), which leaves the
 * clipper's sweep through the band, and so its result, as it was.
 */
export function intersectionArea(a: readonly Polygon[], b: readonly Polygon[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const pa = toPaths(a);
  const pb = toPaths(b);
  const ra = pathsYRange(pa);
  const rb = pathsYRange(pb);
  const lo = Math.max(ra.lo, rb.lo);
  const hi = Math.min(ra.hi, rb.hi);
  if (lo > hi) return 0;
  const c = new Clipper64();
  c.addSubject(inBand(pa, lo, hi));
  c.addClip(inBand(pb, lo, hi));
  const out: Paths64 = [];
  c.execute(ClipType.Intersection, FillRule.NonZero, out);
  return Clipper.areaPaths(out) / (SCALE * SCALE);
}

/** The least and greatest y of the paths' points. */
function pathsYRange(paths: Paths64): { lo: number; hi: number } {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const path of paths)
    for (const q of path) {
      if (q.y < lo) lo = q.y;
      if (q.y > hi) hi = q.y;
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
function inBand(paths: Paths64, lo: number, hi: number): Paths64 {
  const out: Paths64 = [];
  for (const path of paths) {
    const n = path.length;
    const side = (i: number) => {
      const y = path[i].y;
      return y < lo ? -1 : y > hi ? 1 : 0;
    };
    let dropped = 0;
    let kept: Path64 | null = null;
    for (let i = 0; i < n; i++) {
      const s = side(i);
      const cut = s !== 0 && side((i + n - 1) % n) === s && side((i + 1) % n) === s;
      if (cut) {
        if (!kept) kept = path.slice(0, i);
        dropped++;
      } else if (kept) kept.push(path[i]);
    }
    if (dropped === n) continue;
    out.push(kept ?? path);
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
