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
});
