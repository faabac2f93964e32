import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OffsetIndex } from './offset-index.ts';
import { segDist } from './segment-grid.ts';

/** Least distance between segments pq and ab (they do not cross: the nearest pair has an end among them). */
function segmentsApart(s: number[], t: number[]): number {
  const [px, py, qx, qy] = s;
  const [ax, ay, bx, by] = t;
  const cross = (ox: number, oy: number, x1: number, y1: number, x2: number, y2: number) =>
    (x1 - ox) * (y2 - oy) - (y1 - oy) * (x2 - ox);
  const d1 = cross(px, py, qx, qy, ax, ay);
  const d2 = cross(px, py, qx, qy, bx, by);
  const d3 = cross(ax, ay, bx, by, px, py);
  const d4 = cross(ax, ay, bx, by, qx, qy);
  if (d1 * d2 < 0 && d3 * d4 < 0) return 0;
  return Math.min(
    segDist(ax, ay, px, py, qx, qy),
    segDist(bx, by, px, py, qx, qy),
    segDist(px, py, ax, ay, bx, by),
    segDist(qx, qy, ax, ay, bx, by),
  );
}

describe('OffsetIndex', () => {
  it('offers every segment within r of a segment, across any heading', () => {
    const coord = fc.double({ min: -200, max: 200, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(coord, coord, coord, coord), { minLength: 1, maxLength: 40 }),
        fc.double({ min: -4, max: 4, noNaN: true }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        (segs, heading, r) => {
          const n = segs.length;
          const col = (k: number) => Float64Array.from(segs, (s) => s[k]);
          const index = new OffsetIndex(col(0), col(1), col(2), col(3), n, heading);
          for (let e = 0; e < n; e++) {
            const offered = new Set<number>();
            index.forEachNear(e, r, (i) => {
              expect(offered.has(i)).toBe(false);
              offered.add(i);
            });
            expect(offered.has(e)).toBe(true);
            for (let i = 0; i < n; i++)
              if (segmentsApart(segs[e], segs[i]) <= r) expect(offered.has(i)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('offers parallel tracks a swath apart none of their neighbours', () => {
    // Twenty tracks 6 m apart, 500 m long, slanting at 30 degrees.
    const h = Math.PI / 6;
    const segs = Array.from({ length: 20 }, (_, k) => {
      const ox = -Math.sin(h) * 6 * k;
      const oy = Math.cos(h) * 6 * k;
      return [ox, oy, ox + 500 * Math.cos(h), oy + 500 * Math.sin(h)];
    });
    const col = (k: number) => Float64Array.from(segs, (s) => s[k]);
    const index = new OffsetIndex(col(0), col(1), col(2), col(3), segs.length, h);
    const offered: number[] = [];
    index.forEachNear(7, 1.5, (i) => offered.push(i));
    expect(offered).toEqual([7]);
  });
});
