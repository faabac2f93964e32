import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { PlanningError, type Point, type Polygon } from '../types/index.ts';
import { generateCurvedTracks, longestSmoothRun, resolveCurvedOptions, smoothLine } from './curved-tracks.ts';
import { distToPolyline, expectDrivable, expectInside } from './path-testing.ts';

const rect = (w: number, h: number): Polygon => ({
  outer: [
    { x: 0, y: 0 },
    { x: w, y: 0 },
    { x: w, y: h },
    { x: 0, y: h },
  ],
  holes: [],
});

describe('generateCurvedTracks', () => {
  it('offsets a straight reference into parallel tracks one swath apart', () => {
    const area = [rect(200, 60)];
    const t = generateCurvedTracks(area, {
      swathWidth: 6,
      turningRadius: 6,
      reference: [
        { x: 0, y: 0 },
        { x: 200, y: 0 },
      ],
    });
    expect(t.tracks).toHaveLength(10);
    const ys = t.tracks.map((tr) => tr.a.y).sort((a, b) => a - b);
    for (const [k, y] of ys.entries()) expect(Math.abs(y - (3 + 6 * k))).toBeLessThan(0.01);
    for (const tr of t.tracks) {
      expect(tr.b.x - tr.a.x).toBeGreaterThan(199);
      expect(tr.path?.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('follows a curved reference at (k + 1/2) swaths and never bends tighter than the radius', () => {
    // A field whose south edge is a wide arc (radius 300 m).
    const arc: Point[] = [];
    for (let i = 0; i <= 60; i++) {
      const a = -Math.PI / 2 - 0.5 + i / 60;
      arc.push({ x: 300 * Math.cos(a), y: 300 + 300 * Math.sin(a) });
    }
    const area: Polygon[] = [
      { outer: [...arc, { x: arc[60].x, y: 200 }, { x: arc[0].x, y: 200 }], holes: [] },
    ];
    const R = 6;
    const t = generateCurvedTracks(area, { swathWidth: 6, turningRadius: R, reference: arc });
    expect(t.tracks.length).toBeGreaterThan(20);
    for (const tr of t.tracks) {
      const p = tr.path as Point[];
      expectDrivable(p, R);
      expectInside(p, area);
      // Away from the ends, the track keeps its distance from the reference.
      const mid = p[Math.floor(p.length / 2)];
      const d = distToPolyline(mid, t.reference);
      expect(Math.abs(d - (tr.line + 0.5) * 6)).toBeLessThan(0.1);
    }
  });

  it('rounds tracks inside a tight bend to the turning radius (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 10, max: 80, noNaN: true }),
        fc.double({ min: 20, max: 150, noNaN: true }),
        fc.double({ min: 3, max: 12, noNaN: true }),
        fc.double({ min: 4, max: 10, noNaN: true }),
        fc.double({ min: 0, max: 6.28, noNaN: true }),
        fc.double({ min: -5e5, max: 5e5, noNaN: true }),
        (leg, depth, w, R, rot, far) => {
          // A V-shaped reference (a corner of any sharpness) across an L-ish field, rotated, far away.
          const c = Math.cos(rot);
          const s = Math.sin(rot);
          const at = (x: number, y: number): Point => ({ x: far + x * c - y * s, y: far + x * s + y * c });
          const reference = [at(-leg - 100, depth), at(0, 0), at(leg + 100, depth)];
          const area: Polygon[] = [
            {
              outer: [at(-leg, 0), at(leg, 0), at(leg, depth + 80), at(-leg, depth + 80)],
              holes: [],
            },
          ];
          const t = generateCurvedTracks(area, { swathWidth: w, turningRadius: R, reference });
          for (const tr of t.tracks) {
            expectDrivable(tr.path as Point[], R);
            expectInside(tr.path as Point[], area);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  /** Curved tracks along a V-shaped reference across a rectangle, as the property draws them unrotated. */
  function expectDrivableInV(leg: number, depth: number, w: number, R: number): number {
    const reference = [
      { x: -leg - 100, y: depth },
      { x: 0, y: 0 },
      { x: leg + 100, y: depth },
    ];
    const area: Polygon[] = [
      {
        outer: [
          { x: -leg, y: 0 },
          { x: leg, y: 0 },
          { x: leg, y: depth + 80 },
          { x: -leg, y: depth + 80 },
        ],
        holes: [],
      },
    ];
    const t = generateCurvedTracks(area, { swathWidth: w, turningRadius: R, reference });
    for (const tr of t.tracks) {
      expectDrivable(tr.path as Point[], R);
      expectInside(tr.path as Point[], area);
    }
    return t.tracks.length;
  }

  it('starts a track cut between two samples of a bend on a piece the machine can follow', () => {
    // A case the property found: the first piece of a cut track turned 5.005 degrees.
    expect(expectDrivableInV(10, 149.98643949084072, 3, 4.5705367669508)).toBeGreaterThan(40);
  });

  it('ends a track cut on a chord of a bend at a vertex the machine can reach', () => {
    // A case the property found: a track cut by the area next to vertices the clipper inserted.
    expect(expectDrivableInV(10, 117.93509894736842, 3, 8.488259374127974)).toBeGreaterThan(5);
  });

  it('finds the longest smooth run of the boundary as the default reference', () => {
    // An L: the long south edge (300 m) is the longest run without a sharp corner.
    const L: Polygon = {
      outer: [
        { x: 0, y: 0 },
        { x: 300, y: 0 },
        { x: 300, y: 50 },
        { x: 100, y: 50 },
        { x: 100, y: 150 },
        { x: 0, y: 150 },
      ],
      holes: [],
    };
    const run = longestSmoothRun([L]);
    expect(run).toEqual([
      { x: 0, y: 0 },
      { x: 300, y: 0 },
    ]);
  });

  it('smooths only the reference vertices that turn at least minAngleToSmooth', () => {
    const line = [
      { x: 0, y: 0 },
      { x: 100, y: 0 },
      { x: 200, y: 3 }, // turns about 1.7 degrees here
      { x: 300, y: 100 },
    ];
    const out = smoothLine(line, resolveCurvedOptions({ minAngleToSmooth: 10, smoothingIterations: 1 }));
    expect(out).toContainEqual({ x: 100, y: 0 });
    expect(out).not.toContainEqual({ x: 200, y: 3 });
    expect(out).toHaveLength(5);
    const none = smoothLine(line, resolveCurvedOptions({ levelOfSmoothing: 0 }));
    expect(none).toEqual(line);
  });

  it('refuses curvedOptions out of range, naming the option', () => {
    for (const [o, path] of [
      [{ levelOfSmoothing: 0.8 }, 'curvedOptions.levelOfSmoothing'],
      [{ smoothingIterations: 2.5 }, 'curvedOptions.smoothingIterations'],
      [{ minAngleToSmooth: -1 }, 'curvedOptions.minAngleToSmooth'],
    ] as const) {
      try {
        resolveCurvedOptions(o);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(PlanningError);
        expect((e as PlanningError).details.path).toBe(path);
      }
    }
  });

  it('keeps tracks out of holes of the workable area', () => {
    const area: Polygon[] = [
      {
        ...rect(200, 120),
        holes: [
          [
            { x: 80, y: 40 },
            { x: 80, y: 80 },
            { x: 120, y: 80 },
            { x: 120, y: 40 },
          ],
        ],
      },
    ];
    const t = generateCurvedTracks(area, { swathWidth: 6, turningRadius: 6 });
    const hole = new EdgeIndex([area[0].holes[0]]);
    for (const tr of t.tracks) {
      expectInside(tr.path as Point[], area);
      for (const q of tr.path as Point[]) expect(hole.contains(q) && hole.distance(q, 1) > 0.01).toBe(false);
    }
  });
});
