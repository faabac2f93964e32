import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Point } from '../types/index.ts';
import { SegmentGrid, segDist } from './segment-grid.ts';

describe('SegmentGrid', () => {
  it('lists every segment near a query once, and finds the nearest within reach as a scan of all segments does (property)', () => {
    const pt = fc.record({
      x: fc.double({ min: -500, max: 500, noNaN: true }),
      y: fc.double({ min: -500, max: 500, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(pt, { minLength: 2, maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0.5, max: 80, noNaN: true }),
        fc.array(fc.tuple(pt, pt, fc.double({ min: 0, max: 60, noNaN: true })), {
          minLength: 1,
          maxLength: 10,
        }),
        (lines: Point[][], cell, queries) => {
          const grid = new SegmentGrid(lines, cell);
          const segs: { a: Point; b: Point; owner: number }[] = [];
          lines.forEach((l, i) => {
            for (let j = 1; j < l.length; j++) segs.push({ a: l[j - 1], b: l[j], owner: i });
          });
          expect(grid.count).toBe(segs.length);
          segs.forEach((s, e) => {
            expect([grid.ax[e], grid.ay[e], grid.bx[e], grid.by[e], grid.owner[e]]).toEqual([
              s.a.x,
              s.a.y,
              s.b.x,
              s.b.y,
              s.owner,
            ]);
          });
          for (const [p, q, r] of queries) {
            const seen: number[] = [];
            grid.forEachNear(p.x, p.y, q.x, q.y, r, (e) => seen.push(e));
            expect(new Set(seen).size).toBe(seen.length);
            // Every segment whose box meets the query's box widened by r is listed.
            segs.forEach((s, e) => {
              const apart =
                Math.min(s.a.x, s.b.x) > Math.max(p.x, q.x) + r ||
                Math.max(s.a.x, s.b.x) < Math.min(p.x, q.x) - r ||
                Math.min(s.a.y, s.b.y) > Math.max(p.y, q.y) + r ||
                Math.max(s.a.y, s.b.y) < Math.min(p.y, q.y) - r;
              if (!apart) expect(seen).toContain(e);
            });
            const d = Math.min(...segs.map((s) => segDist(p.x, p.y, s.a.x, s.a.y, s.b.x, s.b.y)));
            const e = grid.nearestSegment(p.x, p.y, r);
            if (d < r) expect(grid.distanceTo(e, p.x, p.y)).toBe(d);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
