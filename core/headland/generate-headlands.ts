/**
 * Headlands: exterior passes along the field edge, interior passes around
 * each obstacle, and the workable area inside them where tracks run.
 *
 *   boundary  ───────────────────────────────
 *   pass 1    ─ ─ ─ ─ ─ ─ ─ ─ ─ ─   (0.5 w inside)
 *   pass 2    ─ ─ ─ ─ ─ ─ ─ ─ ─ ─   (1.5 w inside)
 *   workable  ···························  (N w inside)
 *
 * Every pass is offset from the cleaned boundary directly, never from the
 * previous pass. The reference passes are exact offsets; the driven passes
 * are smoothed so the machine can follow them: concave bends and convex
 * corners of each pass get the turning radius R (a closing, then an
 * opening). The route drives sharp convex corners square, with a reversing
 * turn at the apex (route/headland-corners.ts), so little of a corner is
 * lost to its rounding. Where the smoothed pass cannot be driven whole, it
 * is pulled in only round the bends that need it, or pinched into pieces at
 * a neck, and each part of the pass is driven by the rings that follow its
 * planned line best (ring-choice.ts), so the pass stays on its line
 * everywhere else.
 */
import { Clipper } from 'clipper2-ts';
import { bufferRings, difference, intersection, offset, simplifyPolygons, union } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { filletRing } from '../geometry/fillet.ts';
import { multiPolygonArea, pointInRing, polygonArea, ringBBox, signedArea } from '../geometry/polygon.ts';
import { hypot, nearestOnPolyline, ringLength } from '../geometry/vec.ts';
import type { Point, Polygon } from '../types/index.ts';
import { RingChoice } from './ring-choice.ts';

export interface HeadlandOptions {
  swathWidth: number;
  exteriorPasses: number;
  interiorPasses: number;
  turningRadius: number;
  /** Curvature-rate limit [1/m^2]: driven passes round their corners with clothoids. */
  curvatureRate?: number;
}

export interface HeadlandRing {
  passNumber: number;
  /** For interior passes: index of the obstacle group the ring goes around. */
  obstacleIndex?: number;
  /** Closed ring (no repeated vertex), counter-clockwise. */
  ring: Point[];
}

export interface HeadlandResult {
  /** Where tracks run. */
  workable: Polygon[];
  /** Exact reference centre lines. */
  exterior: HeadlandRing[];
  interior: HeadlandRing[];
  /** Drivable (smoothed) centre lines, counter-clockwise, inside the field and out of obstacles. */
  drivenExterior: HeadlandRing[];
  drivenInterior: HeadlandRing[];
}

/**
 * The swaths of pass centre lines (closed rings; simplified within 5 cm,
 * buffering dense arcs is what costs): the rings buffered by half a swath w.
 */
export function ringSwaths(rings: readonly (readonly Point[])[], w: number): Polygon[] {
  return bufferRings(
    rings.map((r) => Clipper.simplifyPathD(r as Point[], 0.05, true)),
    w / 2,
  );
}

/**
 * Where every part of a pass has a drivable ring and these are at least
 * this share of its planned length, the pass is driven as smoothed: no
 * other rings are tried (a thin arm it leaves is gone round on its own).
 */
const MOSTLY = 0.8;

/** Rings shorter than this are not worth driving [m]. */
const MIN_RING_LENGTH = 1;

export function generateHeadlands(zone: Readonly<Polygon>, opts: HeadlandOptions): HeadlandResult {
  const w = opts.swathWidth;
  const R = opts.turningRadius;
  // Smooth with a slightly larger radius than the fillets need, so the
  // exact arcs of radius RF >= R fit between the simplified corners.
  const RS = R * 1.03;
  const RF = R * 1.005;
  const N = opts.exteriorPasses;
  const M = opts.interiorPasses;
  const steps: SmoothingSteps = new Map();
  const allHoles: Polygon[] = union(zone.holes.map((h) => ({ outer: h.slice().reverse(), holes: [] })));
  const boundaryIndex = new EdgeIndex([zone.outer, ...zone.holes]);
  // An obstacle whose own headland would run into the exterior passes lies
  // in a bay of the field edge: the exterior passes go round it as round the
  // edge, and it gets no pass of its own (one that could only run between
  // the edge and the obstacle, crossing the exterior passes).
  const keepOutWidth = M > 0 ? M * w : w / 2;
  const { near, far: holes } =
    N > 0
      ? nearEdge(zone.outer, allHoles, (N - 0.5) * w + keepOutWidth + w / 2 + Math.max(0, RS - w / 2), 4 * RS)
      : { near: [], far: allHoles };
  const outer: Polygon[] = near.length
    ? difference([{ outer: zone.outer, holes: [] }], bays(zone.outer, near, Math.max(0, RS - w / 2)))
    : [{ outer: zone.outer, holes: [] }];

  // Interior headland area around the obstacles.
  // Without interior passes the tracks still keep half the machine's width off each obstacle.
  const keepOut = holes.length ? offset(holes, keepOutWidth) : holes;
  // The edge offset inwards by d, and that less the exterior keep-out area, are asked for
  // again and again by the passes' candidates: each is offset once.
  const insets = new Map<number, Polygon[]>();
  const inset = (d: number): Polygon[] => {
    let r = insets.get(d);
    if (!r) {
      r = offset(outer, -d);
      insets.set(d, r);
    }
    return r;
  };
  const workable = difference(N > 0 ? inset(N * w) : outer, keepOut).filter((p) => polygonArea(p) > 1e-4);

  const exterior: HeadlandRing[] = [];
  const drivenExterior: HeadlandRing[] = [];
  if (N > 0) {
    // The exterior passes keep half a swath off the interior headland area.
    // (Its arcs need no cm precision: simplified within 5 cm, it costs the smoothing far less.)
    const exteriorKeepOut = keepOut.length
      ? simplifyPolygons(offset(keepOut, w / 2, 'round', 0.05), 0.05)
      : [];
    const clearOfKeepOut = new Map<number, Polygon[]>();
    const insetClear = (d: number): Polygon[] => {
      let r = clearOfKeepOut.get(d);
      if (!r) {
        r = difference(inset(d), exteriorKeepOut);
        clearOfKeepOut.set(d, r);
      }
      return r;
    };
    for (let k = 1; k <= N; k++) {
      const region = insetClear((k - 0.5) * w);
      for (const p of region) exterior.push({ passNumber: k, ring: p.outer });
    }
    const wanted = (k: number) => exterior.filter((r) => r.passNumber === k).length;
    const keepOutIndex = exteriorKeepOut.length
      ? new EdgeIndex(exteriorKeepOut.flatMap((p) => [p.outer, ...p.holes]))
      : null;
    // Each pass is rounded on its own with radius R: its sharp corners are
    // driven square (see route/headland-corners.ts), and the corners that
    // stay round lose less of the field than at the concentric radius
    // R + (N - k) w. Where rounding a bend would push a pass over the field
    // edge, it is pulled in there only, or only opened (so it pinches off
    // into pieces at a neck); where none of that gives a drivable ring, the
    // pass is pulled in by delta [m] all round. Of these, each part of the
    // pass is driven by the rings that follow its planned line best.
    for (let k = 1; k <= N; k++) {
      const planned = exterior.filter((r) => r.passNumber === k).map((r) => r.ring);
      const choice = new RingChoice(planned, w);
      let rings: Point[][] | null = null;
      for (const delta of [0, 0.5, 1, 2, 3]) {
        const d = (k - 0.5) * w + delta;
        // Without obstacles to keep off, an inward offset by d >= RS has no
        // concave bend tighter than d: the closing leaves it as it is, and
        // the opening erodes the field edge by d + RS and grows it back by RS.
        const plain = () => (d >= RS ? openedErosion(outer, d, RS) : smoothRegion(inset(d), RS, RS, steps));
        // Whether a part of the smoothed pass has no drivable ring (it would leave the field).
        const lost = { count: 0 };
        // The obstacles left are far enough from the edge for the pass to go
        // by: smoothed with them, the pass would bend round any whose
        // headland comes within twice the turning radius of it.
        let r = keepOutIndex
          ? drivableRings(plain(), RF, boundaryIndex, opts.curvatureRate, lost).filter((q) =>
              clearOf(q, keepOutIndex),
            )
          : [];
        choice.add(r);
        if (r.length < wanted(k)) {
          const own = keepOutIndex
            ? smoothRegion(withoutFarHoles(insetClear(d), 2 * RS), RS, RS, steps)
            : plain();
          const withKeepOut = drivableRings(own, RF, boundaryIndex, opts.curvatureRate, lost);
          choice.add(withKeepOut);
          if (withKeepOut.length > r.length) r = withKeepOut;
        }
        if (delta === 0) {
          // The pass on its planned line all round (or every part of it
          // drivable and most of each planned ring driven, where a thin arm
          // is left out): nothing to choose. Far enough in to need no
          // closing (d >= RS), with every part drivable and no obstacle to
          // keep off, no other ring follows a stretch of the line these
          // leave (the opening of a smaller region lies inside this one's).
          const best = lost.count === 0 && d >= RS && !keepOutIndex;
          if (
            best ||
            (r.length >= wanted(k) &&
              ((lost.count === 0 && choice.lengthShare(r) >= MOSTLY) || choice.followsAll(r)))
          ) {
            rings = r;
            break;
          }
          // Pulled in only where its rounding would leave the field.
          for (const local of pulledInLocally(
            insetClear(d),
            d,
            w,
            RS,
            RF,
            boundaryIndex,
            opts.curvatureRate,
            steps,
          ))
            choice.add(local);
        }
        // Pulled in all round only where no ring follows the pass anywhere.
        if (choice.choose().length > 0) break;
      }
      rings ??= choice.choose();
      // A part of the pass narrower than twice the turning radius (a thin arm of
      // the field) has no rounded ring of its own: it is gone round wider, as
      // far out as the turning radius needs, where that stays in the field.
      // Where no part of the pass has a rounded ring the whole part is such a
      // strip, worked lengthwise by tracks across its whole width instead.
      const arms = rings.length > 0;
      for (const part of exterior) {
        if (!arms || part.passNumber !== k || rings.some((r) => pointInRing(r[0], part.ring))) continue;
        const wider = drivableRings(
          offset([{ outer: part.ring, holes: [] }], RS, 'round', 0.03),
          RF,
          boundaryIndex,
          opts.curvatureRate,
        );
        // Not over the passes outside it: an inner pass keeps (k - 1) swaths off the edge.
        const clear = (k - 1) * w - 0.05;
        rings.push(
          ...wider.filter((r) => clear <= 0 || r.every((q) => boundaryIndex.clearance(q, clear) >= clear)),
        );
      }
      for (const ring of rings) drivenExterior.push({ passNumber: k, ring });
    }
  }

  const interior: HeadlandRing[] = [];
  const drivenInterior: HeadlandRing[] = [];
  if (M > 0 && holes.length > 0) {
    // Interior passes keep one swath spacing from the innermost exterior pass.
    const inner = inset((N + 0.5) * w);
    const nearEdge = inset(0.5 * w);
    const clips = [inner, nearEdge, outer].map((c) => ({
      polys: c,
      index: new EdgeIndex(c.flatMap((p) => [p.outer, ...p.holes])),
    }));
    // Keep clear of the exterior headland where possible; an obstacle near
    // the edge is gone round within the field, half a swath off the edge.
    const aroundObstacles = (component: Polygon, group: Polygon[]): Point[][] => {
      for (const clip of clips) {
        let region: Polygon[];
        if (whollyInside(component, clip.index)) region = [component];
        else {
          region = intersection([component], clip.polys);
          if (multiPolygonArea(region) < polygonArea(component) - 1e-3) {
            const opened = smoothRegion(region, 0, RS, steps);
            if (containsAll(opened, group)) region = opened;
          }
          if (!containsAll(region, group)) continue;
        }
        const r = drivableRings(region, RF, boundaryIndex, opts.curvatureRate);
        if (r.length) return r;
      }
      return [];
    };
    for (let j = 1; j <= M; j++) {
      // Where the exterior headland (a bay round an obstacle near the edge,
      // say) cuts a pass short, it runs along the cut, never across an obstacle.
      const grown = difference(intersection(offset(holes, (j - 0.5) * w), inner), allHoles);
      grown.forEach((p, i) => {
        interior.push({ passNumber: j, obstacleIndex: i, ring: p.outer });
      });
      const d = (j - 0.5) * w;
      // Convex bends around an obstacle need radius R: grow the obstacle by
      // the pass distance, then round it (opening), and if that cut into the
      // obstacle, go round it at distance max(R, d) instead. Each group of
      // obstacles the grown region joins is gone round on its own; where its
      // ring would cross another obstacle or the edge, that group is gone
      // round wider.
      // First all obstacles together (most rings over the widenings tried);
      // then each group of obstacles no ring goes round, on its own, wider
      // where its ring would cross another obstacle or the edge.
      let together: Point[][] = [];
      for (const delta of [0, 1, 2, 4]) {
        let smooth = smoothRegion(offset(holes, d + delta), RS, RS, steps);
        if (smooth.length === 0 || !containsAll(smooth, holes)) {
          smooth = smoothRegion(offset(holes, Math.max(RS, d) + delta), RS, 0, steps);
        }
        let r: Point[][] = [];
        for (const clip of clips) {
          let region = intersection(smooth, clip.polys);
          if (multiPolygonArea(region) < multiPolygonArea(smooth) - 1e-3) {
            const opened = smoothRegion(region, 0, RS, steps);
            if (containsAll(opened, holes)) region = opened;
          }
          if (!containsAll(region, holes)) continue;
          r = drivableRings(region, RF, boundaryIndex, opts.curvatureRate);
          if (r.length) break;
        }
        if (r.length > together.length) together = r;
        if (together.length >= grown.length) break;
      }
      const rings: Point[][] = together.slice();
      let pending: Polygon[] = holes.filter((h) => !together.some((r) => pointInRing(h.outer[0], r)));
      for (const delta of [0, 1, 2, 4]) {
        if (!pending.length) break;
        let smooth = smoothRegion(offset(pending, d + delta), RS, RS, steps);
        if (smooth.length === 0 || !containsAll(smooth, pending)) {
          smooth = smoothRegion(offset(pending, Math.max(RS, d) + delta), RS, 0, steps);
        }
        const left: Polygon[] = [];
        const assigned = new Set<Polygon>();
        for (const component of smooth) {
          const group = pending.filter((h) => !assigned.has(h) && pointInRing(h.outer[0], component.outer));
          if (!group.length) continue;
          for (const h of group) assigned.add(h);
          const r = aroundObstacles(component, group);
          if (r.length) rings.push(...r);
          else left.push(...group);
        }
        for (const h of pending) if (!assigned.has(h)) left.push(h);
        pending = left;
      }
      rings.forEach((ring, i) => {
        drivenInterior.push({ passNumber: j, obstacleIndex: i, ring });
      });
    }
  }
  return { workable, exterior, interior, drivenExterior, drivenInterior };
}

/**
 * The rings of an exterior pass at distance d from the field edge (`inset`:
 * the field offset inwards by d, less the exterior keep-out area), pulled in
 * only where rounding its concave bends to the turning radius would take it
 * out of the field or too near its edge (round a thin spike of the edge
 * reaching into the field, say): there the pass keeps rho off the bend's
 * fill; the rest of the pass stays at d. Also the pass only
 * opened (no closing). The drivable rings of each, for rho of 1, 2 and 4 m
 * up to the least that makes every part of the pass drivable. Empty when
 * none is drivable.
 */
function pulledInLocally(
  inset: readonly Polygon[],
  d: number,
  w: number,
  RS: number,
  RF: number,
  boundary: EdgeIndex,
  curvatureRate: number | undefined,
  steps: SmoothingSteps,
): Point[][][] {
  const base = withoutFarHoles(inset, 2 * RS);
  if (base.length === 0) return [];
  const out: Point[][][] = [];
  // Only opened (its convex corners rounded), the pass keeps its line along
  // both sides of a slot narrower than twice the turning radius (a closing
  // would fill it), and pinches off where it is narrower than that: its
  // concave bends are rounded inwards by the fillets.
  const opened = drivableRings(smoothRegion(base, 0, RS, steps), RF, boundary, curvatureRate);
  if (opened.length) out.push(opened);
  // What the closing adds: the fill of each bend tighter than RS.
  const fill = difference(smoothRegion(base, RS, 0, steps), base).filter((p) => polygonArea(p) > 1e-3);
  // The fills that come closer than a quarter swath to the field edge (or cross it).
  const margin = Math.min(w / 4, d / 2);
  const bad = fill.filter((p) =>
    p.outer.some((q) => !boundary.contains(q) || boundary.clearance(q, margin) < margin),
  );
  if (bad.length === 0) return out;
  for (const rho of [1, 2, 4]) {
    const region = difference(base, offset(bad, rho));
    const own = smoothRegion(region, RS, RS, steps);
    const r = drivableRings(own, RF, boundary, curvatureRate);
    if (r.length) out.push(r);
    // Every part of it drivable: pulling in farther only loses more.
    if (r.length === own.length) break;
  }
  return out;
}

/**
 * Closing with radius rc (fills concave bends tighter than rc), then opening
 * with radius ro (rounds convex corners to ro). Pieces the erosion leaves
 * smaller than MIN_CORE across are dropped.
 */
export function smoothRegion(
  region: readonly Polygon[],
  rc: number,
  ro: number,
  steps?: SmoothingSteps,
): Polygon[] {
  // The result is simplified within 2 cm and filleted afterwards, so 1 cm arcs are plenty.
  const tol = 0.03;
  // Dense arcs from earlier offsets cost the clipper far more than their
  // vertices (each one's offset crosses many neighbours'): simplify within
  // 2 cm before each step.
  let r: Polygon[] = simplifyPolygons(region, 0.02);
  const key = steps ? JSON.stringify(r) : '';
  const step = (name: string, make: () => Polygon[]): Polygon[] => {
    if (!steps) return make();
    const k = `${name} ${key}`;
    let out = steps.get(k);
    if (!out) {
      out = make();
      steps.set(k, out);
    }
    return out;
  };
  // Closing then opening: dilate by rc, erode by rc + ro (the closing's
  // erosion and the opening's in one offset), dilate by ro.
  const s = r;
  if (rc > 0) r = step(`+${rc}`, () => offset(s, rc, 'round', tol));
  const c = r;
  if (rc + ro > 0)
    r = step(`+${rc}-${rc + ro}`, () =>
      withoutSpecks(simplifyPolygons(offset(c, -(rc + ro), 'round', tol), 0.02)),
    );
  const e = r;
  if (ro > 0) r = step(`+${rc}-${rc + ro}+${ro}`, () => offset(e, ro, 'round', tol));
  return r;
}

/**
 * The steps of the smoothings made for one zone's headlands, by the step
 * and the (simplified) region smoothed: the passes' candidates smooth the
 * same regions again and again (the closing of a region for the pass and
 * for its fill, the obstacles grown for all of them and for each group).
 * The polygons kept are shared: not to be changed.
 */
export type SmoothingSteps = Map<string, Polygon[]>;

/**
 * Pieces of an erosion smaller than this across are dropped [m]: a region
 * eroded to nearly a point holds no workable area, and grown back it would
 * only be a circle at full lock (and whether such a speck survives at all
 * turns on the rounding of the offsets).
 */
export const MIN_CORE = 0.5;

function withoutSpecks(region: Polygon[]): Polygon[] {
  return region.filter((p) => {
    const b = ringBBox(p.outer);
    return Math.max(b.maxX - b.minX, b.maxY - b.minY) >= MIN_CORE;
  });
}

/**
 * The region eroded by d, opened with radius ro: eroded by d + ro, grown
 * back by ro (the same set as offsetting by -d and then opening, in two
 * offsets instead of three; specks of the erosion dropped as there).
 */
export function openedErosion(region: readonly Polygon[], d: number, ro: number): Polygon[] {
  const tol = 0.03;
  return offset(
    withoutSpecks(simplifyPolygons(offset(region, -(d + ro), 'round', tol), 0.02)),
    ro,
    'round',
    tol,
  );
}

/** Filleted, inside-the-field rings of a region's exteriors (counting in `lost` those that leave the field). */
function drivableRings(
  region: readonly Polygon[],
  radius: number,
  boundary: EdgeIndex,
  curvatureRate?: number,
  lost?: { count: number },
): Point[][] {
  const out: Point[][] = [];
  for (const p of region) {
    const ring = filletRing(p.outer, radius, curvatureRate === undefined ? {} : { curvatureRate });
    if (!ring || ringLength(ring) < MIN_RING_LENGTH) continue;
    if (!ringInside(ring, boundary)) {
      if (lost) lost.count++;
      continue;
    }
    out.push(ring);
  }
  return out;
}

function containsAll(a: readonly Polygon[], b: readonly Polygon[]): boolean {
  if (a.length === 0) return false;
  const rest = difference(b, a);
  let area = 0;
  for (const p of rest) area += polygonArea(p);
  return area < 1e-3;
}

/** True when no edge of p crosses the indexed region's edges and p lies inside it. */
function whollyInside(p: Polygon, index: EdgeIndex): boolean {
  const ring = p.outer;
  if (!index.contains(ring[0]) || index.clearance(ring[0], 0.01) < 0.01) return false;
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i];
    const b = ring[(i + 1) % ring.length];
    if (index.segmentCrosses(a, b) || index.clearance(b, 0.01) < 0.01) return false;
  }
  return true;
}

/**
 * The polygons without the holes that lie farther than `reach` from their
 * outer ring: opening a region by r joins a hole to the outer ring only
 * where the two are closer than 2 r, so such holes cannot change the outer
 * rings of the smoothed region.
 */
function withoutFarHoles(region: readonly Polygon[], reach: number): Polygon[] {
  return region.map((p) => {
    if (!p.holes.length) return p;
    const index = new EdgeIndex([p.outer]);
    const holes = p.holes.filter((h) => {
      let longest = 0;
      for (let i = 0; i < h.length; i++) {
        const a = h[i];
        const b = h[(i + 1) % h.length];
        longest = Math.max(longest, hypot(b.x - a.x, b.y - a.y));
      }
      // Every point of an edge is within half its length of a vertex.
      const limit = reach + longest / 2 + 0.1;
      return h.some((q) => index.clearance(q, limit) <= limit);
    });
    return holes.length === p.holes.length ? p : { outer: p.outer, holes };
  });
}

function ringInside(ring: readonly Point[], index: EdgeIndex): boolean {
  if (!index.contains(ring[0])) return false;
  for (let i = 0; i < ring.length; i++) {
    if (index.segmentCrosses(ring[i], ring[(i + 1) % ring.length])) return false;
    // A ring can pass through an edge at a vertex lying on it (the crossing test counts that as touching).
    if (!index.contains(ring[i]) && index.clearance(ring[i], 2e-3) >= 1e-3) return false;
  }
  return true;
}

/**
 * The obstacles no larger than `size` across and closer than `reach` to
 * the outer ring (near), and the rest (far): the nearest points of the two
 * rings, vertex to edge both ways. A larger obstacle near the edge (a strip
 * that all but cuts the field in two, say) keeps its own passes, the way
 * round it from one side to the other.
 */
function nearEdge(
  outerRing: readonly Point[],
  holes: readonly Polygon[],
  reach: number,
  size: number,
): { near: Polygon[]; far: Polygon[] } {
  const near: Polygon[] = [];
  const far: Polygon[] = [];
  if (holes.length === 0) return { near, far };
  const edge = new EdgeIndex([outerRing]);
  for (const h of holes) {
    const box = ringBBox(h.outer);
    if (Math.max(box.maxX - box.minX, box.maxY - box.minY) > size) {
      far.push(h);
      continue;
    }
    let close = h.outer.some((p) => edge.clearance(p, reach) < reach);
    if (!close) {
      const own = new EdgeIndex([h.outer]);
      close = outerRing.some((p) => own.clearance(p, reach) < reach);
    }
    (close ? near : far).push(h);
  }
  return { near, far };
}

/**
 * Each obstacle near the edge, grown by `grow`, joined to the edge: with
 * the shadow its side facing the edge casts on it (each edge of the
 * obstacle within reach, joined to the nearest points of the field edge,
 * pushed a metre past it), so the field minus it has a bay there instead
 * of an obstacle with a strip of field between it and the edge.
 */
function bays(outerRing: readonly Point[], near: readonly Polygon[], grow: number): Polygon[] {
  const grown = grow > 0 ? offset(near, grow, 'round', 0.05) : near.slice();
  const edge = new EdgeIndex([outerRing]);
  const out: Polygon[] = [...grown];
  for (const g of grown) {
    const ring = g.outer;
    let limit = Number.POSITIVE_INFINITY;
    for (const p of ring) limit = Math.min(limit, edge.distance(p));
    // The side of the obstacle facing the edge: vertices up to a swath or two farther than its nearest.
    limit += Math.max(2 * grow, 6);
    const shadow = ring.map((p) => {
      if (edge.clearance(p, limit) > limit) return null;
      const q = nearestOnPolyline(outerRing, p, true);
      const d = hypot(q.x - p.x, q.y - p.y);
      return d > 1e-9 ? { x: q.x + (q.x - p.x) / d, y: q.y + (q.y - p.y) / d } : q;
    });
    for (let i = 0; i < ring.length; i++) {
      const j = (i + 1) % ring.length;
      const qi = shadow[i];
      const qj = shadow[j];
      if (!qi || !qj) continue;
      const quad = [ring[i], ring[j], qj, qi];
      // Either winding: the union below orients it.
      out.push({ outer: signedArea(quad) < 0 ? quad.reverse() : quad, holes: [] });
    }
  }
  return union(out);
}

/** True when the ring neither crosses the indexed region's edges nor lies inside it. */
function clearOf(ring: readonly Point[], index: EdgeIndex): boolean {
  if (index.contains(ring[0])) return false;
  for (let i = 0; i < ring.length; i++)
    if (index.segmentCrosses(ring[i], ring[(i + 1) % ring.length])) return false;
  return true;
}
