import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rotatePoints } from '../geometry/polygon.ts';
import type { Point, Polygon } from '../types/index.ts';
import { generateTracks } from './generate-tracks.ts';

const poly = (outer: Point[], holes: Point[][] = []): Polygon => ({ outer, holes });

function offsetsAcross(tracks: { a: Point; b: Point }[], heading: number): number[] {
  const nx = -Math.sin(heading);
  const ny = Math.cos(heading);
  const set = new Set<number>();
  for (const t of tracks) set.add(Math.round((t.a.x * nx + t.a.y * ny) * 1e6) / 1e6);
  return [...set].sort((a, b) => a - b);
}

describe('generateTracks', () => {
  it('covers a rectangle with the minimum number of tracks, along its long side', () => {
    const r = poly([
      { x: 0, y: 0 },
      { x: 300, y: 0 },
      { x: 300, y: 100 },
      { x: 0, y: 100 },
    ]);
    const t = generateTracks([r], { swathWidth: 6 });
    expect(t.tracks).toHaveLength(Math.ceil(100 / 6));
    expect(Math.abs(Math.sin(t.heading))).toBeLessThan(1e-9);
    expect(t.bearingDeg).toBeCloseTo(90, 9);
    const offs = offsetsAcross(t.tracks, t.heading);
    expect(offs[0]).toBeCloseTo(3, 9);
    expect(offs[offs.length - 1]).toBeCloseTo(97, 9);
    for (let i = 1; i < offs.length - 1; i++) expect(offs[i] - offs[i - 1]).toBeCloseTo(6, 9);
    expect(offs[offs.length - 1] - offs[offs.length - 2]).toBeLessThanOrEqual(6 + 1e-9);
  });

  it('honours a preferred bearing', () => {
    const r = poly([
      { x: 0, y: 0 },
      { x: 300, y: 0 },
      { x: 300, y: 100 },
      { x: 0, y: 100 },
    ]);
    const t = generateTracks([r], { swathWidth: 6, preferredBearingDeg: 0 });
    expect(t.bearingDeg).toBeCloseTo(0, 9);
    for (const tr of t.tracks) expect(tr.a.x).toBeCloseTo(tr.b.x, 9);
    expect(t.tracks).toHaveLength(Math.ceil(300 / 6));
  });

  it('splits tracks at holes and concavities', () => {
    const u = poly(
      [
        { x: 0, y: 0 },
        { x: 100, y: 0 },
        { x: 100, y: 100 },
        { x: 0, y: 100 },
      ],
      [
        [
          { x: 40, y: 40 },
          { x: 40, y: 60 },
          { x: 60, y: 60 },
          { x: 60, y: 40 },
        ],
      ],
    );
    const t = generateTracks([u], { swathWidth: 5, preferredBearingDeg: 90 });
    const split = t.tracks.filter((tr) => tr.a.y > 40 && tr.a.y < 60);
    expect(split.length).toBe(8);
    for (const tr of split) expect(tr.b.x <= 40 + 1e-9 || tr.a.x >= 60 - 1e-9).toBe(true);
  });

  it('property: on rotated convex polygons tracks stay inside, are one swath apart and meet the lower bound', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 12 }),
        fc.double({ min: 20, max: 400, noNaN: true }),
        fc.double({ min: 0.2, max: 1, noNaN: true }),
        fc.double({ min: 0, max: Math.PI, noNaN: true }),
        fc.double({ min: 1, max: 30, noNaN: true }),
        fc.double({ min: -2e4, max: 2e4, noNaN: true }),
        (n, rx, ratio, rot, w, far) => {
          const ring: Point[] = [];
          for (let i = 0; i < n; i++) {
            const a = (i / n) * 2 * Math.PI;
            ring.push({ x: rx * Math.cos(a), y: rx * ratio * Math.sin(a) });
          }
          const outer = rotatePoints(ring, rot).map((p) => ({ x: p.x + far, y: p.y - far }));
          const t = generateTracks([poly(outer)], { swathWidth: w, minTrackLength: 0 });
          const offs = offsetsAcross(t.tracks, t.heading);
          for (let i = 1; i < offs.length - 1; i++) expect(offs[i] - offs[i - 1]).toBeCloseTo(w, 4);
          if (offs.length > 1)
            expect(offs[offs.length - 1] - offs[offs.length - 2]).toBeLessThanOrEqual(w + 1e-6);
          // Inside: every end lies on or within the polygon (convex: check the half planes).
          for (const tr of t.tracks) {
            for (const p of [tr.a, tr.b]) {
              for (let i = 0; i < outer.length; i++) {
                const a = outer[i];
                const b = outer[(i + 1) % outer.length];
                const cr = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
                expect(cr / Math.hypot(b.x - a.x, b.y - a.y)).toBeGreaterThan(-1e-6);
              }
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
