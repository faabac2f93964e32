import type { Point, Polygon, Ring } from '../types/index.ts';
import { distToSegment } from './vec.ts';

/** Signed area of a ring [m^2]; positive when counter-clockwise. */
export function signedArea(ring: readonly Point[]): number {
  let s = 0;
  const n = ring.length;
  for (let i = 0, j = n - 1; i < n; j = i++) s += (ring[j].x - ring[i].x) * (ring[j].y + ring[i].y);
  return s / 2;
}

export function ringArea(ring: readonly Point[]): number {
  return Math.abs(signedArea(ring));
}

/** Area of a polygon less its holes [m^2]. */
export function polygonArea(p: Polygon): number {
  let a = ringArea(p.outer);
  for (const h of p.holes) a -= ringArea(h);
  return a;
}

export function multiPolygonArea(ps: readonly Polygon[]): number {
  let a = 0;
  for (const p of ps) a += polygonArea(p);
  return a;
}

/** Ring with the requested orientation (ccw = counter-clockwise). */
export function orientRing(ring: Ring, ccw: boolean): Ring {
  const isCcw = signedArea(ring) > 0;
  return isCcw === ccw ? ring : ring.slice().reverse();
}

/** Point in ring by crossing number; points on the edge may go either way. */
export function pointInRing(p: Point, ring: readonly Point[]): boolean {
  let inside = false;
  const n = ring.length;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const a = ring[i];
    const b = ring[j];
    if (a.y > p.y !== b.y > p.y && p.x < ((b.x - a.x) * (p.y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
  }
  return inside;
}

/** Point inside the polygon's exterior and outside all its holes. */
export function pointInPolygon(p: Point, poly: Polygon): boolean {
  if (!pointInRing(p, poly.outer)) return false;
  for (const h of poly.holes) if (pointInRing(p, h)) return false;
  return true;
}

/** Distance from p to the nearest edge of a ring. */
export function distToRing(p: Point, ring: readonly Point[]): number {
  let d = Number.POSITIVE_INFINITY;
  const n = ring.length;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const e = distToSegment(p, ring[j], ring[i]);
    if (e < d) d = e;
  }
  return d;
}

/** Distance from p to the nearest boundary (exterior or hole) of a polygon. */
export function distToPolygonBoundary(p: Point, poly: Polygon): number {
  let d = distToRing(p, poly.outer);
  for (const h of poly.holes) d = Math.min(d, distToRing(p, h));
  return d;
}

export interface BBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export function ringBBox(ring: readonly Point[]): BBox {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const p of ring) {
    if (p.x < minX) minX = p.x;
    if (p.y < minY) minY = p.y;
    if (p.x > maxX) maxX = p.x;
    if (p.y > maxY) maxY = p.y;
  }
  return { minX, minY, maxX, maxY };
}

/** The box round the outer rings of the polygons. */
export function polygonsBBox(polys: readonly Polygon[]): BBox {
  const box = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (const p of polys) {
    const b = ringBBox(p.outer);
    box.minX = Math.min(box.minX, b.minX);
    box.minY = Math.min(box.minY, b.minY);
    box.maxX = Math.max(box.maxX, b.maxX);
    box.maxY = Math.max(box.maxY, b.maxY);
  }
  return box;
}

/** Rotate points about the origin by angle [rad]. */
export function rotatePoints(pts: readonly Point[], angle: number): Point[] {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return pts.map((p) => ({ x: p.x * c - p.y * s, y: p.x * s + p.y * c }));
}
