import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bufferLines, intersectionArea } from '../geometry/clip.ts';
import { polygonArea } from '../geometry/polygon.ts';
import type { Point, Polygon } from '../types/index.ts';
import { expectDrivable, expectInside } from './path-testing.ts';
import { generateSpiralTracks } from './spiral-tracks.ts';

const heading = (a: Point, b: Point) => Math.atan2(b.y - a.y, b.x - a.x);

function expectSpiral(area: Polygon[], w: number, R: number, some = true) {
  const t = generateSpiralTracks(area, { swathWidth: w, turningRadius: R });
  // (Where no loop of the turning radius fits whole, the zone falls back to straight tracks.)
  if (some) expect(t.tracks.length).toBeGreaterThan(0);
  for (const tr of t.tracks) {
    const p = tr.path as Point[];
    expectDrivable(p, R);
    expectInside(p, area);
  }
  // A loop that carries on into the next ends where the next begins, with the same heading.
  let joined = 0;
  for (let i = 1; i < t.tracks.length; i++) {
    const a = t.tracks[i - 1].path as Point[];
    const b = t.tracks[i].path as Point[];
    const end = a[a.length - 1];
    if (Math.hypot(end.x - b[0].x, end.y - b[0].y) > 1e-9) continue;
    joined++;
    let d = Math.abs(heading(a[a.length - 2], end) - heading(b[0], b[1]));
    if (d > Math.PI) d = 2 * Math.PI - d;
    expect(d).toBeLessThan((2 * Math.PI) / 180);
  }
  return { t, joined };
}

describe('generateSpiralTracks', () => {
  it('works a rectangle inwards in loops one swath apart, joined by lane changes', () => {
    const area: Polygon[] = [
      {
        outer: [
          { x: 0, y: 0 },
          { x: 200, y: 0 },
          { x: 200, y: 100 },
          { x: 0, y: 100 },
        ],
        holes: [],
      },
    ];
    const { t, joined } = expectSpiral(area, 6, 6);
    // Loops at 3, 9, ... m inside until a loop of radius 6 no longer fits (the 100 m side),
    // then straight tracks along the middle strip no loop goes round.
    const loops = t.tracks.filter((tr) => (tr.path as Point[]).length > 2);
    const fill = t.tracks.filter((tr) => (tr.path as Point[]).length === 2);
    expect(loops.length).toBeGreaterThanOrEqual(7);
    expect(joined).toBe(loops.length - 1);
    expect(fill.length).toBeGreaterThan(0);
    // Along the middle strip, or through a corner's row of crescents on its bisector.
    const slope = (f: (typeof fill)[number]) => Math.abs(f.a.y - f.b.y) / Math.abs(f.a.x - f.b.x);
    expect(fill.filter((f) => slope(f) < 0.02).length).toBeGreaterThan(0);
    for (const f of fill) expect(Math.min(slope(f), Math.abs(slope(f) - 1))).toBeLessThan(0.02);
    // The outermost loop runs 3 m inside the edge along its straight stretches.
    const first = t.tracks[0].path as Point[];
    const minY = Math.min(...first.map((q) => q.y));
    expect(minY).toBeCloseTo(3, 2);
  });

  it('works the crescents sharp corners leave between loops', () => {
    // A parallelogram with 60-degree corners: two loops' corner arcs lie 6 m apart along the
    // edges but 12 m apart on the corner's bisector; the crescents between them lie in a row on it.
    const s = Math.sqrt(3) / 2;
    const area: Polygon[] = [
      {
        outer: [
          { x: 0, y: 0 },
          { x: 160, y: 0 },
          { x: 205, y: 90 * s },
          { x: 45, y: 90 * s },
        ],
        holes: [],
      },
    ];
    const { t } = expectSpiral(area, 6, 6);
    const covered = intersectionArea(
      bufferLines(
        t.tracks.map((tr) => tr.path as Point[]),
        3,
        'butt',
      ),
      area,
    );
    // 95.2 % with loops and middle alone.
    expect(covered / polygonArea(area[0])).toBeGreaterThan(0.98);
    // Each straight track added is long enough to be worth its turn.
    for (const tr of t.tracks)
      if ((tr.path as Point[]).length === 2)
        expect(Math.hypot(tr.b.x - tr.a.x, tr.b.y - tr.a.y)).toBeGreaterThanOrEqual(6);
  });

  it('leaves an obstacle in the middle to straight tracks and stays out of it', () => {
    const area: Polygon[] = [
      {
        outer: [
          { x: 0, y: 0 },
          { x: 300, y: 0 },
          { x: 300, y: 200 },
          { x: 0, y: 200 },
        ],
        holes: [
          [
            { x: 140, y: 90 },
            { x: 140, y: 110 },
            { x: 160, y: 110 },
            { x: 160, y: 90 },
          ],
        ],
      },
    ];
    expectSpiral(area, 6, 6);
  });

  it('keeps every loop drivable and inside on generated concave areas (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 7 }),
        fc.double({ min: 60, max: 250, noNaN: true }),
        fc.double({ min: 0.5, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 6.28, noNaN: true }),
        fc.double({ min: 3, max: 24, noNaN: true }),
        fc.double({ min: 4, max: 10, noNaN: true }),
        fc.double({ min: -5e5, max: 5e5, noNaN: true }),
        (n, r, ratio, rot, w, R, far) => {
          const outer: Point[] = [];
          for (let i = 0; i < 2 * n; i++) {
            const a = rot + (i / (2 * n)) * 2 * Math.PI;
            const rr = i % 2 ? r * ratio : r;
            outer.push({ x: far + rr * Math.cos(a), y: far + rr * Math.sin(a) });
          }
          expectSpiral([{ outer, holes: [] }], w, R, false);
        },
      ),
      {
        numRuns: Number(process.env.PROPERTY_RUNS ?? 25),
        // A star whose loops were clipped and rounded to the micrometre just past 5 degrees.
        examples: [[6, 60, 0.5453260833333332, 0, 3, 9.867876944396789, 0]],
      },
    );
  });
});
