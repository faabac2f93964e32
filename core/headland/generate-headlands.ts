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
 * are smoothed so the machine can follow them: concave bends get at least
 * the turning radius R (a closing), and convex corners of the outermost pass
 * get R + (N - 1) w (an opening), so inner passes stay concentric with the
 * outer ones at exactly one swath spacing and every corner has radius >= R.
 */
import { difference, intersection, offset, union } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { filletRing } from '../geometry/fillet.ts';
import { multiPolygonArea, polygonArea } from '../geometry/polygon.ts';
import type { Point, Polygon } from '../types/index.ts';

export interface HeadlandOptions {
  swathWidth: number;
  exteriorPasses: number;
  interiorPasses: number;
  turningRadius: number;
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
  const outer: Polygon[] = [{ outer: zone.outer, holes: [] }];
  const holes: Polygon[] = union(zone.holes.map((h) => ({ outer: h.slice().reverse(), holes: [] })));
  const boundaryIndex = new EdgeIndex([zone.outer, ...zone.holes]);

  // Interior headland area around the obstacles.
  const keepOut = M > 0 ? offset(holes, M * w) : holes;
  const workable = difference(N > 0 ? offset(outer, -N * w) : outer, keepOut).filter(
    (p) => polygonArea(p) > 1e-4,
  );

  const exterior: HeadlandRing[] = [];
  const drivenExterior: HeadlandRing[] = [];
  if (N > 0) {
    // The exterior passes keep half a swath off the interior headland area.
    const exteriorKeepOut = keepOut.length ? offset(keepOut, w / 2) : [];
    for (let k = 1; k <= N; k++) {
      const region = difference(offset(outer, -(k - 0.5) * w), exteriorKeepOut);
      for (const p of region) exterior.push({ passNumber: k, ring: p.outer });
    }
    const wanted = (k: number) => exterior.filter((r) => r.passNumber === k).length;
    // Concentric passes; where rounding a sharp concave corner would push the
    // outer pass over the field edge, pull all passes in by delta [m].
    let best: Point[][][] = [];
    let bestCount = -1;
    for (const delta of [0, 0.5, 1, 2, 3]) {
      const first = difference(offset(outer, -(0.5 * w + delta)), exteriorKeepOut);
      const smooth = smoothRegion(first, RS, RS + (N - 1) * w);
      const rings: Point[][][] = [];
      let count = 0;
      let complete = true;
      for (let k = 1; k <= N; k++) {
        const region = k === 1 ? smooth : offset(smooth, -(k - 1) * w);
        const r = drivableRings(region, RF, boundaryIndex);
        rings.push(r);
        count += Math.min(r.length, wanted(k));
        if (r.length < wanted(k)) complete = false;
      }
      if (count > bestCount) {
        best = rings;
        bestCount = count;
      }
      if (complete) break;
    }
    for (let k = 1; k <= N; k++) {
      let rings = best[k - 1] ?? [];
      for (const delta of [0, 1, 2]) {
        if (rings.length >= wanted(k)) break;
        // Too narrow for concentric corners: round this pass on its own with radius R.
        const own = smoothRegion(
          difference(offset(outer, -((k - 0.5) * w + delta)), exteriorKeepOut),
          RS,
          RS,
        );
        const alone = drivableRings(own, RF, boundaryIndex);
        if (alone.length > rings.length) rings = alone;
      }
      for (const ring of rings) drivenExterior.push({ passNumber: k, ring });
    }
  }

  const interior: HeadlandRing[] = [];
  const drivenInterior: HeadlandRing[] = [];
  if (M > 0 && holes.length > 0) {
    // Interior passes keep one swath spacing from the innermost exterior pass.
    const inner = offset(outer, -(N + 0.5) * w);
    const nearEdge = offset(outer, -0.5 * w);
    for (let j = 1; j <= M; j++) {
      const grown = intersection(offset(holes, (j - 0.5) * w), inner);
      grown.forEach((p, i) => {
        interior.push({ passNumber: j, obstacleIndex: i, ring: p.outer });
      });
      const d = (j - 0.5) * w;
      // Convex bends around an obstacle need radius R: grow the obstacle by
      // the pass distance, then round it (opening), and if that cut into the
      // obstacle, go round it at distance max(R, d) instead.
      // Where the rounded ring would cross another obstacle or the edge, go round wider.
      let rings: Point[][] = [];
      for (const delta of [0, 1, 2, 4]) {
        let smooth = smoothRegion(offset(holes, d + delta), RS, RS);
        if (!containsAll(smooth, holes) || smooth.length === 0) {
          smooth = smoothRegion(offset(holes, Math.max(RS, d) + delta), RS, 0);
        }
        // Keep clear of the exterior headland where possible; an obstacle near
        // the edge is gone round within the field, half a swath off the edge.
        let r: Point[][] = [];
        for (const clip of [inner, nearEdge, outer]) {
          let region = intersection(smooth, clip);
          if (multiPolygonArea(region) < multiPolygonArea(smooth) - 1e-3) {
            const opened = smoothRegion(region, 0, RS);
            if (containsAll(opened, holes)) region = opened;
          }
          if (!containsAll(region, holes)) continue;
          r = drivableRings(region, RF, boundaryIndex);
          if (r.length) break;
        }
        if (r.length > rings.length) rings = r;
        if (rings.length >= grown.length) break;
      }
      rings.forEach((ring, i) => {
        drivenInterior.push({ passNumber: j, obstacleIndex: i, ring });
      });
    }
  }
  return { workable, exterior, interior, drivenExterior, drivenInterior };
}

/**
 * Closing with radius rc (fills concave bends tighter than rc), then opening
 * with radius ro (rounds convex corners to ro).
 */
export function smoothRegion(region: readonly Polygon[], rc: number, ro: number): Polygon[] {
  // The result is simplified within 2 cm and filleted afterwards, so 1 cm arcs are plenty.
  const tol = 0.01;
  let r: Polygon[] = region.slice();
  if (rc > 0) r = offset(offset(r, rc, 'round', tol), -rc, 'round', tol);
  if (ro > 0) r = offset(offset(r, -ro, 'round', tol), ro, 'round', tol);
  return r;
}

/** Filleted, inside-the-field rings of a region's exteriors. */
function drivableRings(region: readonly Polygon[], radius: number, boundary: EdgeIndex): Point[][] {
  const out: Point[][] = [];
  for (const p of region) {
    const ring = filletRing(p.outer, radius);
    if (!ring || ringLength(ring) < MIN_RING_LENGTH) continue;
    if (!ringInside(ring, boundary)) continue;
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

function ringLength(ring: readonly Point[]): number {
  let s = 0;
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i];
    const b = ring[(i + 1) % ring.length];
    s += Math.hypot(b.x - a.x, b.y - a.y);
  }
  return s;
}

function ringInside(ring: readonly Point[], index: EdgeIndex): boolean {
  if (!index.contains(ring[0])) return false;
  for (let i = 0; i < ring.length; i++)
    if (index.segmentCrosses(ring[i], ring[(i + 1) % ring.length])) return false;
  return true;
}
