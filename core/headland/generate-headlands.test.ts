import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { difference, offset, union } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { distToRing, multiPolygonArea, polygonArea, rotatePoints } from '../geometry/polygon.ts';
import type { Point, Polygon } from '../types/index.ts';
import { generateHeadlands, MIN_CORE, openedErosion, smoothRegion } from './generate-headlands.ts';

/** Largest discrete curvature (1 / circumradius) along a closed ring. */
function maxCurvature(ring: readonly Point[]): number {
  let k = 0;
  const n = ring.length;
  for (let i = 0; i < n; i++) {
    const a = ring[(i - 1 + n) % n];
    const b = ring[i];
    const c = ring[(i + 1) % n];
    const ab = Math.hypot(b.x - a.x, b.y - a.y);
    const bc = Math.hypot(c.x - b.x, c.y - b.y);
    const ca = Math.hypot(a.x - c.x, a.y - c.y);
    if (ab < 1e-3 || bc < 1e-3 || ca < 1e-3) continue;
    const cross = Math.abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));
    k = Math.max(k, (2 * cross) / (ab * bc * ca));
  }
  return k;
}

const rect = (w: number, h: number): Polygon => ({
  outer: [
    { x: 0, y: 0 },
    { x: w, y: 0 },
    { x: w, y: h },
    { x: 0, y: h },
  ],
  holes: [],
});

describe('generateHeadlands', () => {
  it('places exterior passes at (k - 0.5) w and the workable area at N w', () => {
    const h = generateHeadlands(rect(200, 120), {
      swathWidth: 6,
      exteriorPasses: 2,
      interiorPasses: 0,
      turningRadius: 6,
    });
    expect(multiPolygonArea(h.workable)).toBeCloseTo(176 * 96, 3);
    expect(h.exterior.map((r) => r.passNumber)).toEqual([1, 2]);
    const mid = (r: Point[], x: number) =>
      Math.min(...r.filter((p) => Math.abs(p.x - x) < 1e-6).map((p) => p.y));
    // Reference pass 1 along the bottom edge is 3 m in, pass 2 is 9 m in.
    expect(Math.min(...h.exterior[0].ring.map((p) => p.y))).toBeCloseTo(3, 6);
    expect(Math.min(...h.exterior[1].ring.map((p) => p.y))).toBeCloseTo(9, 6);
    expect(mid).toBeDefined();
    expect(h.drivenExterior).toHaveLength(2);
    for (const r of h.drivenExterior) expect(maxCurvature(r.ring)).toBeLessThanOrEqual((1 / 6) * 1.01);
  });

  it('puts interior passes around holes and keeps the obstacle out', () => {
    const field: Polygon = {
      ...rect(300, 200),
      holes: [
        [
          { x: 140, y: 90 },
          { x: 140, y: 110 },
          { x: 160, y: 110 },
          { x: 160, y: 90 },
        ],
      ],
    };
    const h = generateHeadlands(field, {
      swathWidth: 6,
      exteriorPasses: 2,
      interiorPasses: 1,
      turningRadius: 6,
    });
    expect(h.interior).toHaveLength(1);
    expect(h.drivenInterior).toHaveLength(1);
    const ring = h.drivenInterior[0].ring;
    for (const p of ring) expect(distToRing(p, field.holes[0])).toBeGreaterThan(1.5);
    expect(maxCurvature(ring)).toBeLessThanOrEqual((1 / 6) * 1.01);
    // Workable: the field less the headlands and the hole grown by one pass.
    expect(multiPolygonArea(h.workable)).toBeCloseTo(276 * 176 - (400 + 4 * 20 * 6 + Math.PI * 36), 0);
  });

  it('keeps a tiny obstacle (a pole) as an obstacle', () => {
    const field: Polygon = {
      ...rect(100, 100),
      holes: [
        [
          { x: 50, y: 50 },
          { x: 50, y: 50.5 },
          { x: 50.5, y: 50.5 },
          { x: 50.5, y: 50 },
        ],
      ],
    };
    const h = generateHeadlands(field, {
      swathWidth: 6,
      exteriorPasses: 1,
      interiorPasses: 1,
      turningRadius: 6,
    });
    expect(h.drivenInterior).toHaveLength(1);
    expect(maxCurvature(h.drivenInterior[0].ring)).toBeLessThanOrEqual((1 / 6) * 1.01);
    for (const p of h.drivenInterior[0].ring) expect(distToRing(p, field.holes[0])).toBeGreaterThan(0.5);
  });

  it('property: driven passes of rotated concave fields are inside, drivable and concentric', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 14 }),
        fc.double({ min: 80, max: 400, noNaN: true }),
        fc.double({ min: 0.5, max: 0.95, noNaN: true }),
        fc.double({ min: 0, max: 6.28, noNaN: true }),
        fc.integer({ min: 1, max: 3 }),
        fc.double({ min: 3, max: 24, noNaN: true }),
        fc.double({ min: 3, max: 12, noNaN: true }),
        (n, r, ratio, rot, N, w, R) => {
          const ring: Point[] = [];
          for (let i = 0; i < n; i++) {
            const a = (i / n) * 2 * Math.PI;
            const rr = i % 3 === 1 ? r * ratio : r;
            ring.push({ x: rr * Math.cos(a) + 1e4, y: rr * Math.sin(a) - 3e4 });
          }
          const outer = rotatePoints(ring, rot);
          const field: Polygon = { outer, holes: [] };
          const h = generateHeadlands(field, {
            swathWidth: w,
            exteriorPasses: N,
            interiorPasses: 0,
            turningRadius: R,
          });
          const index = new EdgeIndex([outer]);
          for (const d of h.drivenExterior) {
            expect(maxCurvature(d.ring)).toBeLessThanOrEqual((1 / R) * 1.01);
            for (const p of d.ring) expect(index.contains(p) || index.distance(p) < 0.01).toBe(true);
          }
          expect(multiPolygonArea(h.workable)).toBeLessThanOrEqual(polygonArea(field) + 1e-6);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('property: an offset by d >= r, closed and opened with radius r, is the field eroded by d + r and grown by r', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 14 }),
        fc.double({ min: 60, max: 300, noNaN: true }),
        fc.double({ min: 0.4, max: 0.95, noNaN: true }),
        fc.double({ min: 0, max: 6.28, noNaN: true }),
        fc.double({ min: 2, max: 12, noNaN: true }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        (n, r, ratio, rot, R, extra) => {
          const ring: Point[] = [];
          for (let i = 0; i < n; i++) {
            const a = (i / n) * 2 * Math.PI;
            ring.push({
              x: (i % 3 === 1 ? r * ratio : r) * Math.cos(a),
              y: (i % 3 === 1 ? r * ratio : r) * Math.sin(a),
            });
          }
          const field: Polygon[] = [{ outer: rotatePoints(ring, rot), holes: [] }];
          const d = R + extra;
          const slow = smoothRegion(offset(field, -d), R, R);
          const fast = openedErosion(field, d, R);
          // Both approximate the same set: arcs within a few cm along the
          // perimeter. Where the core (the field eroded by d + R) is thinner
          // than MIN_CORE, the two may differ by more: a speck of it is
          // dropped by both, but one just MIN_CORE across may survive the
          // rounding of one and not the other; the tip of a thin spike of
          // it moves by the rounding over the sine of its angle; at d = R
          // the closing meets concave arcs of its own radius (cusps). What
          // that leaves between them lies within R (and the tip's shift) of
          // a thin part of either's core.
          const perimeter = 2 * Math.PI * r;
          let apart = [...difference(slow, fast), ...difference(fast, slow)];
          if (multiPolygonArea(apart) >= 0.05 * perimeter) {
            const cores = [offset(field, -(d + R)), offset(offset(offset(field, -d), R), -2 * R)];
            const thin = union(
              cores.flatMap((c) => difference(c, offset(offset(c, -MIN_CORE / 2), MIN_CORE / 2))),
            );
            if (thin.length) apart = difference(apart, offset(thin, R + 1));
          }
          expect(multiPolygonArea(apart)).toBeLessThan(0.05 * perimeter);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('drops a speck of the erosion (a pass round nearly a point) and keeps a core MIN_CORE across', () => {
    for (const [core, kept] of [
      [0.1, false],
      [2 * MIN_CORE, true],
    ] as const) {
      for (const R of [4, 6, 12]) {
        const d = R + 1;
        const side = 2 * (d + R) + core;
        const field: Polygon[] = [{ outer: rotatePoints(rect(side, side).outer, 0.3), holes: [] }];
        const slow = smoothRegion(offset(field, -d), R, R);
        const fast = openedErosion(field, d, R);
        expect(slow.length > 0).toBe(kept);
        expect(fast.length > 0).toBe(kept);
      }
    }
  });
});
