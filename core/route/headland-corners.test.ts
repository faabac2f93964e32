import { describe, expect, it } from 'vitest';
import { bufferLines, intersection, union } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { filletRing } from '../geometry/fillet.ts';
import { multiPolygonArea } from '../geometry/polygon.ts';
import type { Point } from '../types/index.ts';
import { cornerTurn, loopWithCorners, squareCorners } from './headland-corners.ts';
import { RingPath } from './ring-path.ts';

const square = (a: number, b: number): Point[] => [
  { x: a, y: a },
  { x: b, y: a },
  { x: b, y: b },
  { x: a, y: b },
];

/** The outer pass of a 100 m square field (swath 6 m), rounded at 12 m. */
const field = new EdgeIndex([square(0, 100)]);
const pass = new RingPath(filletRing(square(3, 97), 12) as Point[]);

describe('squareCorners', () => {
  it('finds each rounded right-angled corner with the point where its legs meet', () => {
    const corners = squareCorners(pass, 6, 6, field);
    expect(corners).toHaveLength(4);
    const apexes = corners.map((c) => [Math.round(c.apex.x * 1e6) / 1e6, Math.round(c.apex.y * 1e6) / 1e6]);
    expect(apexes.sort()).toEqual(
      [
        [3, 3],
        [97, 3],
        [97, 97],
        [3, 97],
      ].sort(),
    );
    for (const c of corners)
      expect(Math.abs(c.headingOut - c.headingIn) % (2 * Math.PI)).toBeGreaterThan(1.5);
  });

  it('leaves gentle bends round, and corners with no room to turn', () => {
    // An octagon turns 45 degrees per corner: rounded at 6 m, squaring gains under w^2 / 4.
    const oct: Point[] = [];
    for (let i = 0; i < 8; i++)
      oct.push({ x: 50 + 40 * Math.cos((i * Math.PI) / 4), y: 50 + 40 * Math.sin((i * Math.PI) / 4) });
    expect(squareCorners(new RingPath(filletRing(oct, 6) as Point[]), 6, 6, field)).toHaveLength(0);
    // Radius 100 m: backing up 100 m along a 94 m leg leaves the field.
    expect(squareCorners(pass, 6, 100, field)).toHaveLength(0);
  });
});

describe('cornerTurn', () => {
  it('backs up, turns forward on an arc of the radius and backs up to the apex, inside the field', () => {
    const c = cornerTurn({ x: 3, y: 3, heading: -Math.PI / 2 }, 2 * Math.PI, 6, field);
    expect(c).not.toBeNull();
    const pieces = c?.pieces ?? [];
    expect(pieces.map((p) => p.reverse)).toEqual([true, false, true]);
    const first = pieces[0].points[0];
    const last = pieces[2].points[pieces[2].points.length - 1];
    expect(Math.hypot(first.x - 3, first.y - 3)).toBeLessThan(1e-9);
    expect(Math.hypot(last.x - 3, last.y - 3)).toBeLessThan(1e-9);
    // Right angle: 6 m back, a quarter circle of 6 m, 6 m back.
    expect(c?.length).toBeCloseTo(12 + 3 * Math.PI, 9);
    for (const p of pieces) expect(field.polylineCrosses(p.points)).toBe(false);
  });
});

describe('loopWithCorners', () => {
  it('cuts the loop at each square corner into working stretches that meet at the apex', () => {
    const corners = squareCorners(pass, 6, 6, field);
    for (const dir of [1, -1] as const) {
      const s0 = pass.project({ x: 50, y: 3 });
      const pieces = loopWithCorners(pass, s0, dir, corners, 6, field);
      expect(pieces).toHaveLength(5);
      expect(pieces.slice(0, 4).every((p) => p.turn)).toBe(true);
      expect(pieces[4].turn).toBeUndefined();
      for (let i = 0; i < 4; i++) {
        const end = pieces[i].points[pieces[i].points.length - 1];
        const next = pieces[i + 1].points[0];
        expect(Math.hypot(end.x - next.x, end.y - next.y)).toBeLessThan(1e-9);
        // The apex is a corner of the exact pass, 3 m inside both edges.
        expect([3, 97]).toContain(Math.round(end.x * 1e6) / 1e6);
        expect([3, 97]).toContain(Math.round(end.y * 1e6) / 1e6);
      }
      const start = pieces[0].points[0];
      const stop = pieces[4].points[pieces[4].points.length - 1];
      expect(Math.hypot(start.x - stop.x, start.y - stop.y)).toBeLessThan(1e-9);
    }
  });
});

describe('run-ons past square corners', () => {
  /** The second pass (9 m inside), rounded at 12 m. */
  const pass2 = new RingPath(filletRing(square(9, 91), 12) as Point[]);

  it('gives the inner pass half a swath of run-on at right angles, the outer pass none', () => {
    for (const c of squareCorners(pass2, 6, 6, field, true)) {
      expect(c.reach).toBeCloseTo(3, 9);
      expect(c.runIn).toBeCloseTo(3, 9);
      expect(c.runOut).toBeCloseTo(3, 9);
    }
    // The outer pass's apex is already half a swath from both edges.
    const outer = squareCorners(pass, 6, 6, field, true);
    expect(outer).toHaveLength(4);
    for (const c of outer) expect(c.runIn + c.runOut).toBe(0);
  });

  it('runs each stretch on past the apex, backs up from there, and works the kite outside the apex', () => {
    const corners = squareCorners(pass2, 6, 6, field, true);
    for (const dir of [1, -1] as const) {
      const s0 = pass2.project({ x: 50, y: 9 });
      const pieces = loopWithCorners(pass2, s0, dir, corners, 6, field, true);
      expect(pieces).toHaveLength(5);
      for (let i = 0; i < 4; i++) {
        const pts = pieces[i].points;
        const end = pts[pts.length - 1];
        // 3 m past an apex (9, 9), (91, 9), ... along the leg: one coordinate 6 or 94.
        const off = [end.x, end.y].map((v) => Math.round(v * 1e6) / 1e6).sort((a, b) => a - b);
        expect([6, 9, 91, 94]).toContain(off[0]);
        expect([6, 9, 91, 94]).toContain(off[1]);
        expect(off.filter((v) => v === 6 || v === 94)).toHaveLength(1);
        // The turn starts where the stretch ends and ends where the next one starts.
        const turn = pieces[i].turn?.pieces ?? [];
        const t0 = turn[0].points[0];
        const last = turn[turn.length - 1].points;
        const t1 = last[last.length - 1];
        const next = pieces[i + 1].points[0];
        expect(Math.hypot(t0.x - end.x, t0.y - end.y)).toBeLessThan(1e-9);
        expect(Math.hypot(t1.x - next.x, t1.y - next.y)).toBeLessThan(1e-6);
        for (const p of turn) expect(field.polylineCrosses(p.points)).toBe(false);
      }
      // The kites (3 m squares between each apex and the outer pass) are worked.
      const strips = bufferLines(
        pieces.map((p) => p.points),
        3,
        'butt',
      );
      const kites = [
        [6, 6],
        [91, 6],
        [91, 91],
        [6, 91],
      ].map(([x, y]) => ({ outer: square(0, 3).map((q) => ({ x: q.x + x, y: q.y + y })), holes: [] }));
      expect(multiPolygonArea(intersection(union(strips), kites))).toBeCloseTo(36, 1);
    }
  });

  it('drives no run-on where it is not asked for', () => {
    const corners = squareCorners(pass2, 6, 6, field);
    const pieces = loopWithCorners(pass2, pass2.project({ x: 50, y: 9 }), 1, corners, 6, field);
    for (let i = 0; i < 4; i++) {
      const end = pieces[i].points[pieces[i].points.length - 1];
      expect([9, 91]).toContain(Math.round(end.x * 1e6) / 1e6);
      expect([9, 91]).toContain(Math.round(end.y * 1e6) / 1e6);
    }
  });
});
