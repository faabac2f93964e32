import { describe, expect, it } from 'vitest';
import { RingPath } from './ring-path.ts';

describe('RingPath', () => {
  const sq = new RingPath([
    { x: 0, y: 0 },
    { x: 10, y: 0 },
    { x: 10, y: 10 },
    { x: 0, y: 10 },
  ]);

  it('measures and projects by arc length', () => {
    expect(sq.length).toBe(40);
    expect(sq.project({ x: 5, y: -3 })).toBeCloseTo(5, 12);
    expect(sq.project({ x: 12, y: 5 })).toBeCloseTo(15, 12);
    expect(sq.pointAt(45)).toEqual({ x: 5, y: 0 });
  });

  it('gives poses in both directions', () => {
    expect(sq.poseAt(5, 1).heading).toBeCloseTo(0, 12);
    expect(Math.abs(sq.poseAt(5, -1).heading)).toBeCloseTo(Math.PI, 12);
    // At a vertex, leaving forwards takes the next segment, backwards the previous one.
    expect(sq.poseAt(10, 1).heading).toBeCloseTo(Math.PI / 2, 12);
    expect(Math.abs(sq.poseAt(10, -1).heading)).toBeCloseTo(Math.PI, 12);
    expect(sq.arrivalPoseAt(10, 1).heading).toBeCloseTo(0, 12);
  });

  it('cuts stretches and whole loops, wrapping around', () => {
    expect(sq.stretch(35, 10, 1)).toEqual([
      { x: 0, y: 5 },
      { x: 0, y: 0 },
      { x: 5, y: 0 },
    ]);
    expect(sq.stretch(5, 10, -1)).toEqual([
      { x: 5, y: 0 },
      { x: 0, y: 0 },
      { x: 0, y: 5 },
    ]);
    const loop = sq.stretch(5, 40, 1);
    expect(loop[0]).toEqual({ x: 5, y: 0 });
    expect(loop[loop.length - 1]).toEqual({ x: 5, y: 0 });
    expect(loop).toHaveLength(6);
    expect(sq.distance(35, 5, 1)).toBe(10);
    expect(sq.distance(35, 5, -1)).toBe(30);
  });

  it('snaps joins onto a vertex inside a curve, not inside a straight', () => {
    // A 20 m straight, then a half circle of radius 8 drawn in 0.7 m chords, and back.
    const ring = [{ x: 0, y: 0 }];
    const n = 36;
    for (let k = 0; k <= n; k++) {
      const a = -Math.PI / 2 + (Math.PI * k) / n;
      ring.push({ x: 20 + 8 * Math.cos(a), y: 8 + 8 * Math.sin(a) });
    }
    ring.push({ x: 0, y: 16 });
    const p = new RingPath(ring);
    const chord = p.cum[2] - p.cum[1];
    expect(chord).toBeLessThan(1);
    // Within a chord of the arc: the nearer vertex, however far from it.
    expect(p.snap(p.cum[5] + 0.45 * chord)).toBeCloseTo(p.cum[5], 9);
    expect(p.snap(p.cum[5] + 0.55 * chord)).toBeCloseTo(p.cum[6], 9);
    // Within the straight: stays, unless within 0.3 m of an end.
    expect(p.snap(10)).toBe(10);
    expect(p.snap(19.8)).toBeCloseTo(p.cum[1], 9);
  });

  it('gives poses along the curve: the tangent of the arc at its vertices, not a chord heading', () => {
    const ring = [{ x: 0, y: 0 }];
    const n = 36;
    for (let k = 0; k <= n; k++) {
      const a = -Math.PI / 2 + (Math.PI * k) / n;
      ring.push({ x: 20 + 8 * Math.cos(a), y: 8 + 8 * Math.sin(a) });
    }
    ring.push({ x: 0, y: 16 });
    const p = new RingPath(ring);
    // Vertex k + 1 of the half circle is k * 5 degrees round it (tangent k * 5 degrees, driving forwards).
    for (const k of [0, 1, 7, 18, 35, 36]) {
      const want = (k * Math.PI) / n;
      const leave = p.poseAt(p.cum[k + 1], 1).heading;
      const arrive = p.arrivalPoseAt(p.cum[k + 1], 1).heading;
      expect(Math.abs(Math.sin(leave - want))).toBeLessThan(1e-9);
      expect(Math.abs(Math.sin(arrive - want))).toBeLessThan(1e-9);
      expect(Math.cos(p.poseAt(p.cum[k + 1], -1).heading - want)).toBeCloseTo(-1, 9);
    }
    // The corner at the start of the ring (two straights) has no tangent: the segment driven on.
    expect(p.poseAt(0, 1).heading).toBeCloseTo(0, 12);
    expect(p.arrivalPoseAt(p.length, 1).heading).toBeCloseTo(-Math.PI / 2, 12);
  });
});
