import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rotatePoints } from '../geometry/polygon.ts';
import type { Point, Polygon } from '../types/index.ts';
import { flatten, generateTracks, isSliver, quickScore, scanLines } from './generate-tracks.ts';

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

  describe('the remainder rule', () => {
    const rect = (h: number) =>
      poly([
        { x: 0, y: 0 },
        { x: 300, y: 0 },
        { x: 300, y: h },
        { x: 0, y: h },
      ]);
    const across = (h: number, coverRemainder?: boolean) => {
      const t = generateTracks([rect(h)], { swathWidth: 6, preferredBearingDeg: 90, coverRemainder });
      return offsetsAcross(t.tracks, t.heading);
    };

    it('drives no full extra pass for a sliver: the lines are centred, the sliver halved beside each side', () => {
      // 100.17 m: 16 swaths and 0.17 m over.
      const offs = across(96 + 0.17);
      expect(offs).toHaveLength(16);
      expect(offs[0]).toBeCloseTo(3 + 0.085, 9);
      expect(offs[15]).toBeCloseTo(96.17 - 3 - 0.085, 9);
      for (let i = 1; i < offs.length; i++) expect(offs[i] - offs[i - 1]).toBeCloseTo(6, 9);
    });

    it('works a remainder of a third of a swath or more with a last line half a swath inside the edge', () => {
      for (const r of [2, 3.5, 5.9]) {
        const offs = across(96 + r);
        expect(offs).toHaveLength(17);
        expect(offs[0]).toBeCloseTo(3, 9);
        expect(offs[16]).toBeCloseTo(96 + r - 3, 9);
        expect(offs[16] - offs[15]).toBeCloseTo(r, 9);
      }
    });

    it('a strip barely wider than the swath gets one pass down its middle', () => {
      expect(across(7)).toEqual([3.5]);
      expect(across(5)).toEqual([2.5]);
    });

    it('covers everything when asked: a last line for any remainder over a few cm', () => {
      const offs = across(96 + 0.17, true);
      expect(offs).toHaveLength(17);
      expect(offs[16] - offs[15]).toBeCloseTo(0.17, 9);
      // A remainder of a few cm is outline precision, not a pass.
      expect(across(96.01, true)).toHaveLength(16);
    });

    it('counts the passes a direction needs by the rule: a sliver across makes no direction dearer', () => {
      // 60.5 x 300.1: across the short side 10 lines (0.5 m left), along it 50.
      const t = generateTracks(
        [
          poly([
            { x: 0, y: 0 },
            { x: 300.1, y: 0 },
            { x: 300.1, y: 60.5 },
            { x: 0, y: 60.5 },
          ]),
        ],
        { swathWidth: 6 },
      );
      expect(t.tracks).toHaveLength(10);
    });
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
          if (offs.length > 1) {
            // The last pair is closer only for a remainder the rule works (no pass for a sliver).
            const d = offs[offs.length - 1] - offs[offs.length - 2];
            expect(d).toBeLessThanOrEqual(w + 1e-6);
            expect(isSliver(d + 1e-6, w)).toBe(false);
          }
          // The lines reach within a third of a swath of both sides together: what they leave is a sliver.
          const across = outer.map((p) => -Math.sin(t.heading) * p.x + Math.cos(t.heading) * p.y);
          const height = Math.max(...across) - Math.min(...across);
          if (offs.length) expect(height - (offs[offs.length - 1] - offs[0] + w)).toBeLessThan(w / 3 + 1e-6);
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

describe('quickScore', () => {
  /** Crossings of each scan line with every edge, turned by -h as the score turns them, counted afresh. */
  function counted(rings: Point[][], h: number, w: number): { count: number; ragged: number } {
    const c = Math.cos(-h);
    const s = Math.sin(-h);
    const turned = rings.map((r) => r.map((q) => ({ x: q.x * c - q.y * s, y: q.x * s + q.y * c })));
    const ys = turned.flat().map((q) => q.y);
    const layout = scanLines(Math.min(...ys), Math.max(...ys), w);
    const lines = layout.offsets.length ? layout.offsets : [(Math.min(...ys) + Math.max(...ys)) / 2];
    let count = 0;
    let ragged = 0;
    let prev: { min: number; max: number } | null = null;
    for (const y of lines) {
      const xs: number[] = [];
      for (const r of turned)
        for (let i = 0; i < r.length; i++) {
          const a = r[i];
          const b = r[(i + 1) % r.length];
          if (a.y === b.y || y < Math.min(a.y, b.y) || y >= Math.max(a.y, b.y)) continue;
          xs.push(a.x + ((y - a.y) * (b.x - a.x)) / (b.y - a.y));
        }
      if (xs.length < 2) continue;
      count += xs.length >> 1;
      const cur = { min: Math.min(...xs), max: Math.max(...xs) };
      if (prev) ragged += Math.abs(cur.min - prev.min) + Math.abs(cur.max - prev.max);
      prev = cur;
    }
    return { count, ragged };
  }

  it('counts the crossings of every scan line, on outlines of any size one after another (property)', () => {
    const ring = fc.array(
      fc.record({
        x: fc.double({ min: -300, max: 300, noNaN: true }),
        y: fc.double({ min: -300, max: 300, noNaN: true }),
      }),
      { minLength: 3, maxLength: 3000 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(ring, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 }),
        fc.double({ min: 0, max: Math.PI, noNaN: true }),
        fc.double({ min: 3, max: 40, noNaN: true }),
        (areas, h, w) => {
          for (const rings of areas) expect(quickScore(flatten(rings), h, w)).toEqual(counted(rings, h, w));
        },
      ),
      { numRuns: 60 },
    );
    // Outlines of thousands of vertices between small ones.
    const star = (n: number, r: number): Point[] =>
      Array.from({ length: n }, (_, i) => {
        const a = (2 * Math.PI * i) / n;
        const k = i % 2 ? 0.8 * r : r;
        return { x: k * Math.cos(a), y: k * Math.sin(a) };
      });
    for (const rings of [[star(12, 50)], [star(6000, 400)], [star(8, 30)], [star(9000, 600), star(40, 20)]])
      for (const h of [0, 0.3, 1.2])
        for (const w of [6, 24]) expect(quickScore(flatten(rings), h, w)).toEqual(counted(rings, h, w));
  });
});
