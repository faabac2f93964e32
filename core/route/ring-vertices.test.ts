import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { starRing } from '../../test/helpers/star-ring.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { RingPath } from './ring-path.ts';
import { RingVertices } from './ring-vertices.ts';

describe('RingVertices', () => {
  it('answers as the edge index does along the ring and any stretch of it, either way round', () => {
    fc.assert(
      fc.property(
        fc.record({
          half: fc.integer({ min: 3, max: 30 }),
          ratio: fc.double({ min: 0.3, max: 1, noNaN: true }),
          phase: fc.double({ min: 0, max: 6.28, noNaN: true }),
          ringHalf: fc.integer({ min: 2, max: 40 }),
          ringRadius: fc.double({ min: 20, max: 140, noNaN: true }),
          ringRatio: fc.double({ min: 0.5, max: 1, noNaN: true }),
          cx: fc.double({ min: -30, max: 30, noNaN: true }),
          stretches: fc.array(
            fc.record({
              at: fc.double({ min: 0, max: 1, noNaN: true }),
              travel: fc.double({ min: 0, max: 1, noNaN: true }),
              dir: fc.constantFrom(1 as const, -1 as const),
            }),
            { minLength: 1, maxLength: 6 },
          ),
        }),
        (c) => {
          const area = new EdgeIndex([starRing(2 * c.half, 100 * c.ratio, 100, 0, 0, c.phase)]);
          const ring = starRing(2 * c.ringHalf, c.ringRadius * c.ringRatio, c.ringRadius, c.cx, 0, 0);
          const path = new RingPath(ring);
          const v = new RingVertices(path.pts, area);
          const pre = v.leaving();
          for (let i = 0; i < ring.length; i++) {
            const p = ring[i];
            const q = ring[(i + 1) % ring.length];
            const out = !area.contains(p) || area.segmentCrosses(p, q) ? 1 : 0;
            expect(pre[i + 1] - pre[i]).toBe(out);
          }
          for (const s of c.stretches) {
            const pts = path.stretch(s.at * path.length, s.travel * path.length, s.dir);
            for (let k = 0; k + 1 < pts.length; k++) {
              const p = pts[k];
              const q = pts[k + 1];
              expect(v.pointOutside(p)).toBe(!area.contains(p));
              expect(v.segmentCrosses(p, q)).toBe(area.segmentCrosses(p, q));
              expect(v.segmentCrosses(q, p)).toBe(area.segmentCrosses(q, p));
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
