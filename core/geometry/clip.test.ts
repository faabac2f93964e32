import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Polygon } from '../types/index.ts';
import {
  bufferLines,
  difference,
  intersection,
  intersectionArea,
  intPaths,
  offset,
  polygonsOf,
  SCALE,
  union,
  unionArea,
} from './clip.ts';
import * as W from './clipper-wasm.ts';
import { multiPolygonArea, signedArea } from './polygon.ts';

const rect = (x0: number, y0: number, x1: number, y1: number): Polygon => ({
  outer: [
    { x: x0, y: y0 },
    { x: x1, y: y0 },
    { x: x1, y: y1 },
    { x: x0, y: y1 },
  ],
  holes: [],
});

describe('clip', () => {
  it('does booleans with holes in the right orientation', () => {
    const a = rect(0, 0, 100, 100);
    const b = rect(40, 40, 60, 60);
    const d = difference([a], [b]);
    expect(d).toHaveLength(1);
    expect(d[0].holes).toHaveLength(1);
    expect(signedArea(d[0].outer)).toBeGreaterThan(0);
    expect(signedArea(d[0].holes[0])).toBeLessThan(0);
    expect(multiPolygonArea(d)).toBeCloseTo(10000 - 400, 6);
    expect(multiPolygonArea(intersection([a], [b]))).toBeCloseTo(400, 6);
    expect(multiPolygonArea(union([a], [rect(50, 0, 150, 100)]))).toBeCloseTo(15000, 6);
  });

  it('offsets inward exactly (round joins on a rectangle keep square corners)', () => {
    const a = rect(0, 0, 100, 60);
    expect(multiPolygonArea(offset([a], -3))).toBeCloseTo(94 * 54, 4);
    expect(multiPolygonArea(offset([a], -31))).toBe(0);
    // Outward: rectangle + edges + round corners.
    expect(multiPolygonArea(offset([a], 2))).toBeCloseTo(6000 + 2 * 2 * 160 + Math.PI * 4, 0);
  });

  it('offsets polygons far apart as one sweep of them all does (same rings, same order)', () => {
    const disc = (cx: number, cy: number, r: number): Polygon => ({
      outer: Array.from({ length: 40 }, (_, i) => ({
        x: cx + r * Math.cos((i * Math.PI) / 20),
        y: cy + r * Math.sin((i * Math.PI) / 20),
      })),
      holes: [],
    });
    // Round obstacles side by side, and a field with an island in its hole.
    const framed: Polygon = {
      ...rect(0, -200, 100, -100),
      holes: [rect(20, -180, 80, -120).outer.reverse()],
    };
    const polys = [disc(0, 0, 15), disc(60, 3, 15), disc(120, -2, 15), framed, rect(40, -160, 60, -140)];
    for (const delta of [-6, 4]) {
      const rings = W.inflate(
        intPaths(polys),
        delta * SCALE,
        W.JoinType.Round,
        W.EndType.Polygon,
        4,
        0.03 * SCALE,
      );
      const oneSweep = polygonsOf(rings);
      for (const p of oneSweep) {
        if (signedArea(p.outer) < 0) p.outer.reverse();
        for (const h of p.holes) if (signedArea(h) > 0) h.reverse();
      }
      expect(oneSweep.length).toBeGreaterThan(4);
      expect(offset(polys, delta, 'round', 0.03)).toEqual(oneSweep);
    }
  });

  it('buffers open lines with flat ends', () => {
    const strips = bufferLines(
      [
        [
          { x: 0, y: 0 },
          { x: 50, y: 0 },
        ],
      ],
      3,
      'butt',
    );
    expect(multiPolygonArea(strips)).toBeCloseTo(300, 6);
  });

  it('difference and intersection split a region exactly, also where edges and vertices coincide', () => {
    // Rectangles on a metre grid: their unions touch and share edges, and
    // the pieces of a difference meet their neighbours at vertices, as
    // the layers of wheel traffic and the corridors of a plan do.
    const rects = fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
      ),
      { minLength: 1, maxLength: 8 },
    );
    const area = multiPolygonArea;
    fc.assert(
      fc.property(rects, rects, (ra, rb) => {
        const a = union(ra.map(([x, y, w, h]) => rect(x, y, x + w, y + h)));
        const b = union(rb.map(([x, y, w, h]) => rect(x, y, x + w, y + h)));
        const both = area(intersection(a, b));
        expect(area(difference(a, b)) + both).toBeCloseTo(area(a), 6);
        expect(area(union(a, b))).toBeCloseTo(area(a) + area(b) - both, 6);
        // Every hole lies inside its polygon's outer ring.
        for (const p of difference(a, b))
          for (const h of p.holes)
            expect(area([{ outer: h, holes: [] }])).toBeLessThan(area([{ outer: p.outer, holes: [] }]));
      }),
      { numRuns: 300 },
    );
  });

  it('union area of random rectangles never exceeds the sum and covers the largest', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ min: -500, max: 500, noNaN: true }),
            fc.double({ min: -500, max: 500, noNaN: true }),
            fc.double({ min: 0.5, max: 200, noNaN: true }),
            fc.double({ min: 0.5, max: 200, noNaN: true }),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        (rs) => {
          const polys = rs.map(([x, y, w, h]) => rect(x, y, x + w, y + h));
          const sum = rs.reduce((s, [, , w, h]) => s + w * h, 0);
          const biggest = Math.max(...rs.map(([, , w, h]) => w * h));
          const u = unionArea(polys);
          expect(u).toBeLessThanOrEqual(sum + 1e-3);
          expect(u).toBeGreaterThanOrEqual(biggest - 1e-3);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('intersection area is what one sweep over both whole operands gives, to the last bit', () => {
    // A star-shaped ring round (cx, cy) with `n` vertices at radii from `rs`.
    const star = (cx: number, cy: number, rs: number[], turn: number) =>
      rs.map((r, i) => {
        const a = turn + (2 * Math.PI * i) / rs.length;
        return { x: cx + r * Math.cos(a), y: cy + r * Math.sin(a) };
      });
    const whole = (a: Polygon[], b: Polygon[]) => {
      const out = W.booleanPaths(W.ClipType.Intersection, W.FillRule.NonZero, intPaths(a), intPaths(b));
      return out.reduce((s, p) => s + W.pathArea(p), 0) / (SCALE * SCALE);
    };
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 150, max: 400, noNaN: true }), { minLength: 12, maxLength: 60 }),
        fc.array(fc.double({ min: 10, max: 40, noNaN: true }), { minLength: 5, maxLength: 20 }),
        fc.array(
          fc.tuple(
            fc.double({ min: -450, max: 450, noNaN: true }),
            fc.double({ min: -450, max: 450, noNaN: true }),
          ),
          { minLength: 2, maxLength: 8 },
        ),
        fc.double({ min: 0.5, max: 40, noNaN: true }),
        fc.double({ min: 0, max: Math.PI, noNaN: true }),
        (outer, hole, line, hw, turn) => {
          const field: Polygon[] = [
            { outer: star(0, 0, outer, turn), holes: [star(60, -40, hole, turn).reverse()] },
          ];
          const strip = bufferLines([line.map(([x, y]) => ({ x, y }))], hw);
          expect(Object.is(intersectionArea(strip, field), whole(strip, field))).toBe(true);
          expect(Object.is(intersectionArea(field, strip), whole(field, strip))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
