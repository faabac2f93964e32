import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { starRing } from '../../test/helpers/star-ring.ts';
import type { Point } from '../types/index.ts';
import { EdgeIndex } from './edge-index.ts';
import { distToRing, pointInRing } from './polygon.ts';

/**
 * A star-shaped ring round the origin (half its vertex count, outer radius
 * r1, inner ratio, phase) and an arc: its centre (u, v times r1), radius,
 * start angle and sweep.
 */
const starArc = fc.record({
  half: fc.integer({ min: 3, max: 40 }),
  r1: fc.double({ min: 10, max: 200, noNaN: true }),
  ratio: fc.double({ min: 0.2, max: 1, noNaN: true }),
  phase: fc.double({ min: 0, max: 6.28, noNaN: true }),
  u: fc.double({ min: -1.2, max: 1.2, noNaN: true }),
  v: fc.double({ min: -1.2, max: 1.2, noNaN: true }),
  radius: fc.double({ min: 0.5, max: 60, noNaN: true }),
  start: fc.double({ min: 0, max: 6.28, noNaN: true }),
  sweep: fc.double({ min: 0.01, max: 6.28, noNaN: true }),
});

describe('EdgeIndex', () => {
  const square: Point[] = [
    { x: 0, y: 0 },
    { x: 100, y: 0 },
    { x: 100, y: 100 },
    { x: 0, y: 100 },
  ];
  const hole: Point[] = [
    { x: 40, y: 40 },
    { x: 40, y: 60 },
    { x: 60, y: 60 },
    { x: 60, y: 40 },
  ];
  const idx = new EdgeIndex([square, hole]);

  it('tells crossings from touches', () => {
    expect(idx.segmentCrosses({ x: 50, y: 10 }, { x: 50, y: -10 })).toBe(true);
    expect(idx.segmentCrosses({ x: 10, y: 10 }, { x: 30, y: 30 })).toBe(false);
    expect(idx.segmentCrosses({ x: 50, y: 10 }, { x: 50, y: 0 })).toBe(false);
    expect(idx.segmentCrosses({ x: 10, y: 0 }, { x: 90, y: 0 })).toBe(false);
    expect(idx.segmentCrosses({ x: 30, y: 50 }, { x: 50, y: 50 })).toBe(true);
  });

  it('answers containment with holes', () => {
    expect(idx.contains({ x: 10, y: 10 })).toBe(true);
    expect(idx.contains({ x: 50, y: 50 })).toBe(false);
    expect(idx.contains({ x: 150, y: 50 })).toBe(false);
    expect(idx.contains({ x: -1, y: 50 })).toBe(false);
  });

  it('agrees with brute force on random stars (containment, distance, crossings)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 60 }),
        fc.double({ min: 5, max: 500, noNaN: true }),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        fc.double({ min: -1e5, max: 1e5, noNaN: true }),
        fc.double({ min: 0, max: 6.28, noNaN: true }),
        fc.array(
          fc.tuple(
            fc.double({ min: -1.2, max: 1.2, noNaN: true }),
            fc.double({ min: -1.2, max: 1.2, noNaN: true }),
          ),
          {
            minLength: 4,
            maxLength: 20,
          },
        ),
        (half, r1, ratio, c, phase, probes) => {
          const ring = starRing(half * 2, r1 * ratio, r1, c, -c / 2, phase);
          const index = new EdgeIndex([ring]);
          const pts = probes.map(([u, v]) => ({ x: c + u * r1, y: -c / 2 + v * r1 }));
          for (const p of pts) {
            const d = distToRing(p, ring);
            expect(index.distance(p)).toBeCloseTo(d, 6);
            if (d > 1e-6 * r1) expect(index.contains(p)).toBe(pointInRing(p, ring));
          }
          for (let i = 1; i < pts.length; i++) {
            const a = pts[i - 1];
            const b = pts[i];
            if (distToRing(a, ring) < 2e-3 || distToRing(b, ring) < 2e-3) continue;
            // A segment between an inside and an outside point must cross.
            if (pointInRing(a, ring) !== pointInRing(b, ring)) expect(index.segmentCrosses(a, b)).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('measures the nearest edge exactly as a one-cell index does, within reach (distance and clearance)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 80 }),
        fc.double({ min: 5, max: 500, noNaN: true }),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        fc.double({ min: -1e4, max: 1e4, noNaN: true }),
        fc.double({ min: 0, max: 6.28, noNaN: true }),
        fc.double({ min: 0.001, max: 0.5, noNaN: true }),
        fc.array(
          fc.tuple(
            fc.double({ min: -1.3, max: 1.3, noNaN: true }),
            fc.double({ min: -1.3, max: 1.3, noNaN: true }),
          ),
          { minLength: 4, maxLength: 30 },
        ),
        (half, r1, ratio, c, phase, reachShare, probes) => {
          const ring = starRing(half * 2, r1 * ratio, r1, c, -c / 2, phase);
          const index = new EdgeIndex([ring]);
          const whole = new EdgeIndex([ring], { cell: 1e9 });
          const reach = reachShare * r1;
          for (const [u, v] of probes) {
            const p = { x: c + u * r1, y: -c / 2 + v * r1 };
            const exact = whole.distance(p);
            expect(index.distance(p)).toBe(exact);
            const d = index.distance(p, reach);
            if (exact <= reach) expect(d).toBe(exact);
            else expect(d).toBeGreaterThan(reach);
            expect(index.clearance(p, reach)).toBe(exact <= reach ? exact : Number.POSITIVE_INFINITY);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('finds the same crossings as a one-cell index visiting every edge (long, short, axis-parallel and vertex-grazing segments)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 80 }),
        fc.double({ min: 5, max: 500, noNaN: true }),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 6.28, noNaN: true }),
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.double({ min: -1.3, max: 1.3, noNaN: true }).map((u) => ({ u })),
              fc.nat({ max: 159 }).map((vertex) => ({ vertex })),
            ),
            fc.double({ min: -1.3, max: 1.3, noNaN: true }),
            fc.constantFrom('free', 'horizontal', 'vertical'),
          ),
          { minLength: 2, maxLength: 30 },
        ),
        (half, r1, ratio, phase, probes) => {
          const ring = starRing(half * 2, r1 * ratio, r1, 10, -20, phase);
          const fast = new EdgeIndex([ring]);
          const all = new EdgeIndex([ring], { cell: 1e9 });
          let prev: Point | null = null;
          for (const [a, v, kind] of probes) {
            const p = 'vertex' in a ? ring[a.vertex % ring.length] : { x: 10 + a.u * r1, y: -20 + v * r1 };
            if (prev) {
              const q =
                kind === 'horizontal'
                  ? { x: p.x, y: prev.y }
                  : kind === 'vertical'
                    ? { x: prev.x, y: p.y }
                    : p;
              expect(fast.segmentCrosses(prev, q)).toBe(all.segmentCrosses(prev, q));
            }
            prev = p;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers contains as a ray to +x over every edge does, also on edges and vertices (property)', () => {
    // Crossings of the ray from p to +x, by the half-open rule, over all edges.
    const rayToRight = (p: Point, rings: Point[][]) => {
      let inside = false;
      for (const r of rings)
        for (let i = 0; i < r.length; i++) {
          const a = r[i];
          const b = r[(i + 1) % r.length];
          if (a.y > p.y !== b.y > p.y && p.x < a.x + ((p.y - a.y) * (b.x - a.x)) / (b.y - a.y))
            inside = !inside;
        }
      return inside;
    };
    const gridPoint = fc.record({ x: fc.integer({ min: 0, max: 40 }), y: fc.integer({ min: 0, max: 40 }) });
    fc.assert(
      fc.property(
        fc.array(fc.array(gridPoint, { minLength: 3, maxLength: 12 }), { minLength: 1, maxLength: 3 }),
        fc.array(gridPoint, { minLength: 1, maxLength: 30 }),
        fc.double({ min: 0.5, max: 20, noNaN: true }),
        (rings, probes, cell) => {
          const index = new EdgeIndex(rings, { cell });
          for (const p of probes) expect(index.contains(p)).toBe(rayToRight(p, rings));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds every crossing of an arc sampled on its circle among the edges near its ring and box (property)', () => {
    const step = (5 * Math.PI) / 180;
    fc.assert(
      fc.property(starArc, ({ half, r1, ratio, phase, u, v, radius, start, sweep }) => {
        const ring = starRing(half * 2, r1 * ratio, r1, 0, 0, phase);
        const index = new EdgeIndex([ring]);
        const c = { x: u * r1, y: v * r1 };
        // Samples at most 5 degrees apart, as turns are sampled.
        const n = Math.ceil(sweep / step);
        const arc = Array.from({ length: n + 1 }, (_, k) => {
          const a = start + (sweep * k) / n;
          return { x: c.x + radius * Math.cos(a), y: c.y + radius * Math.sin(a) };
        });
        const m = 0.01;
        const edges = index.edgesNearRing(
          c.x,
          c.y,
          radius * Math.cos(step / 2) - m,
          radius + m,
          c.x - radius - m,
          c.y - radius - m,
          c.x + radius + m,
          c.y + radius + m,
        );
        expect(edges !== null && index.chordsCross(arc, edges)).toBe(index.polylineCrosses(arc));
        // The same polyline as coordinates gives the same answer.
        const xs = Float64Array.from(arc, (p) => p.x);
        const ys = Float64Array.from(arc, (p) => p.y);
        if (edges) expect(index.chordsCrossXY(xs, ys, arc.length, edges)).toBe(index.chordsCross(arc, edges));
        // Edges that cross a chord are never left out.
        if (index.polylineCrosses(arc)) expect(edges).not.toBeNull();
      }),
      { numRuns: 500 },
    );
  });
});
