/**
 * Checks shared by the tests of curved and spiral tracks: a polyline is
 * drivable (no three consecutive vertices bend tighter than the turning
 * radius, at most 5 degrees and 1 m between vertices where it curves) and
 * lies inside an area.
 */
import { expect } from 'vitest';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { hypot, nearestOnPolyline } from '../geometry/vec.ts';
import type { Point, Polygon } from '../types/index.ts';

export function curvature(a: Point, b: Point, c: Point): number {
  const ab = hypot(b.x - a.x, b.y - a.y);
  const bc = hypot(c.x - b.x, c.y - b.y);
  const ca = hypot(a.x - c.x, a.y - c.y);
  if (ab < 1e-3 || bc < 1e-3 || ca < 1e-3) return 0;
  return (2 * Math.abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x))) / (ab * bc * ca);
}

export function expectDrivable(pts: readonly Point[], radius: number): void {
  expect(pts.length).toBeGreaterThanOrEqual(2);
  const kmax = (1 / radius) * 1.01;
  for (let k = 2; k < pts.length; k++) {
    const c = curvature(pts[k - 2], pts[k - 1], pts[k]);
    if (c > kmax) expect.fail(`bends at radius ${(1 / c).toFixed(3)} m < ${radius} m at vertex ${k - 1}`);
    const h1 = Math.atan2(pts[k - 1].y - pts[k - 2].y, pts[k - 1].x - pts[k - 2].x);
    const h2 = Math.atan2(pts[k].y - pts[k - 1].y, pts[k].x - pts[k - 1].x);
    let d = Math.abs(h2 - h1);
    if (d > Math.PI) d = 2 * Math.PI - d;
    // Arcs are sampled at most 5 degrees a step; a track cut between two samples may start on a
    // piece a few mm longer, turning a hundredth of a degree more.
    if (d > ((5 + 0.01) * Math.PI) / 180)
      expect.fail(`turns ${((d * 180) / Math.PI).toFixed(2)} deg at vertex ${k - 1}`);
  }
}

export function expectInside(pts: readonly Point[], area: readonly Polygon[], tol = 0.05): void {
  const index = new EdgeIndex(area.flatMap((p) => [p.outer, ...p.holes]));
  for (const q of pts) {
    if (!index.contains(q) && index.distance(q, 1) > tol)
      expect.fail(`vertex (${q.x.toFixed(2)}, ${q.y.toFixed(2)}) lies outside the area`);
  }
}

export function distToPolyline(p: Point, line: readonly Point[]): number {
  if (line.length < 2) return Number.POSITIVE_INFINITY;
  const q = nearestOnPolyline(line, p);
  return hypot(q.x - p.x, q.y - p.y);
}
