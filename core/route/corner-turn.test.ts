/**
 * A turn round an inside corner of the field edge: the pass 3 m off the
 * edge turns by a right angle round the corner, which a forward turn of 6 m
 * radius cuts to 1.76 m from it. Driving on past the crossing of the two
 * lines, backing round onto the line out and driving on keeps 3 m off both
 * edges all through.
 */
import { describe, expect, it } from 'vitest';
import { samplePath } from '../turn/path.ts';
import type { Point, Pose } from '../types/index.ts';
import { cornerTurnPath } from './connect.ts';

const R = 6;

/** Distance to the edge: the rays from the corner (0, 0) along +x and along +y (the field lies off both). */
function edgeDistance(p: Point): number {
  const a = p.x >= 0 ? Math.abs(p.y) : Math.hypot(p.x, p.y);
  const b = p.y >= 0 ? Math.abs(p.x) : Math.hypot(p.x, p.y);
  return Math.min(a, b);
}

describe('turn round an inside corner', () => {
  it.each([0, 0.7, 2.2, 3.9, 5.5])('keeps 3 m off both edges (the whole rotated by %f rad)', (angle) => {
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    const rot = (p: Point) => ({ x: c * p.x - s * p.y, y: s * p.x + c * p.y });
    const back = (p: Point) => ({ x: c * p.x + s * p.y, y: -s * p.x + c * p.y });
    // Down the pass along the edge x = 0 (3 m off it), then east along the pass off the edge y = 0.
    const from: Pose = { ...rot({ x: -3, y: 20 }), heading: -Math.PI / 2 + angle };
    const to: Pose = { ...rot({ x: 20, y: -3 }), heading: angle };
    const path = cornerTurnPath(from, to, R, 5 * R);
    expect(path).not.toBeNull();
    if (!path) return;
    // Forward, back round a quarter circle, forward.
    expect(path.segments.map((g) => g.reverse)).toEqual([false, true, false]);
    expect(path.segments[1].length).toBeCloseTo((R * Math.PI) / 2, 9);
    const pieces = samplePath(from, path, R);
    for (const pc of pieces)
      for (const p of pc.points) expect(edgeDistance(back(p))).toBeGreaterThan(3 - 1e-6);
    const last = pieces[pieces.length - 1].points;
    const end = last[last.length - 1];
    expect(Math.hypot(end.x - to.x, end.y - to.y)).toBeLessThan(1e-6);
  });

  it('none where the lines run nearly parallel, where the turn would back up farther than allowed, or where the ends lie past the arc', () => {
    expect(cornerTurnPath({ x: 0, y: 0, heading: 0 }, { x: 30, y: 1, heading: 0.05 }, R)).toBeNull();
    // A sharp corner (160 degrees) backs round 16.8 m.
    const from: Pose = { x: 0, y: 0, heading: 0 };
    const sharp = (160 * Math.PI) / 180;
    const to: Pose = { x: 0, y: 0, heading: sharp };
    expect(cornerTurnPath(from, to, R, 30)).not.toBeNull();
    expect(cornerTurnPath(from, to, R, 15)).toBeNull();
    // North to the crossing (0, 0), then east: the arc ends 6 m west of it; `to` 2 m east is reached, 8 m west is not.
    const north: Pose = { x: 0, y: -20, heading: Math.PI / 2 };
    expect(cornerTurnPath(north, { x: 2, y: 0, heading: 0 }, R)?.segments[2].length).toBeCloseTo(8, 9);
    expect(cornerTurnPath(north, { x: -8, y: 0, heading: 0 }, R)).toBeNull();
  });
});
