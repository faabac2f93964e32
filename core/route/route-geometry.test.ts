import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dubinsPaths } from '../turn/dubins.ts';
import { reedsSheppPaths } from '../turn/reeds-shepp.ts';
import { leastWay, shortestOf } from './route-geometry.ts';

const pose = fc.record({
  x: fc.double({ min: -60, max: 60, noNaN: true }),
  y: fc.double({ min: -60, max: 60, noNaN: true }),
  heading: fc.double({ min: -7, max: 7, noNaN: true }),
});

describe('leastWay', () => {
  it('is no longer than any forward or reversing turn between the poses', () => {
    fc.assert(
      fc.property(pose, pose, fc.double({ min: 1, max: 15, noNaN: true }), (a, b, r) => {
        const least = leastWay(a, b, r);
        for (const p of [...dubinsPaths(a, b, r), ...reedsSheppPaths(a, b, r)])
          expect(p.length).toBeGreaterThanOrEqual(least);
      }),
      { numRuns: 300 },
    );
  });

  it('is the straight distance, or the arc a heading change needs, whichever is longer', () => {
    expect(leastWay({ x: 0, y: 0, heading: 0 }, { x: 30, y: 40, heading: 0 }, 6)).toBeCloseTo(50, 5);
    expect(leastWay({ x: 0, y: 0, heading: 0 }, { x: 1, y: 0, heading: Math.PI }, 6)).toBeCloseTo(
      6 * Math.PI,
      5,
    );
  });
});

describe('shortestOf', () => {
  it('finds the first of the shortest ways, as trying every place would', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            least: fc.integer({ min: 0, max: 20 }),
            extra: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
          }),
          { maxLength: 12 },
        ),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
        (places, cap) => {
          const way = (p: (typeof places)[number]) =>
            p.extra === undefined ? null : { length: p.least + p.extra };
          let want: number | null = null;
          places.forEach((p, i) => {
            const w = way(p);
            if (!w || (cap !== undefined && w.length > cap)) return;
            if (want === null || w.length < (way(places[want]) as { length: number }).length) want = i;
          });
          const looked: number[] = [];
          const got = shortestOf(
            places,
            (p) => {
              looked.push(places.indexOf(p));
              return way(p);
            },
            cap,
          );
          expect(got ? places.indexOf(got.place) : null).toBe(want);
          // No place is looked for whose least way is longer than the way taken.
          if (got) for (const i of looked) expect(places[i].least).toBeLessThanOrEqual(got.way.length);
        },
      ),
      { numRuns: 500 },
    );
  });
});
