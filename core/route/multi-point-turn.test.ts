/**
 * Turning round in several moves where no turn with one or two cusps fits:
 * near the end of a tapering tip only a few degrees of turn fit in each
 * move, and a half turn there takes more than eight of them.
 */
import { describe, expect, it } from 'vitest';
import { EdgeIndex } from '../geometry/edge-index.ts';
import type { Point, Pose } from '../types/index.ts';
import { connectPoses } from './connect.ts';
import { multiPointTurn } from './multi-point-turn.ts';

const R = 6;

/** A tip 8 m wide at its foot and 1 m at its end 60 m on, along y, rotated by `angle` about the origin. */
function tip(angle: number): { region: EdgeIndex; turn: (p: Point) => Point } {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const turn = (p: Point) => ({ x: c * p.x - s * p.y, y: s * p.x + c * p.y });
  const ring = [
    { x: -4, y: 0 },
    { x: 4, y: 0 },
    { x: 0.5, y: 60 },
    { x: -0.5, y: 60 },
  ].map(turn);
  return { region: new EdgeIndex([ring]), turn };
}

describe('turning round in several moves', () => {
  it.each([0, 0.4, 1.3, 2.9, 4.1])(
    'turns about 2 m from the end of a tapering tip (rotated %f rad)',
    (angle) => {
      const { region, turn } = tip(angle);
      const at = turn({ x: 0, y: 58 });
      const from: Pose = { ...at, heading: Math.PI / 2 + angle };
      const to: Pose = { ...at, heading: -Math.PI / 2 + angle };
      // The finishing turn reverses no farther than a turn may (5 turning radii).
      const c = multiPointTurn(from, to, R, region, (a, b) =>
        connectPoses(a, b, R, region, { maxReverse: 5 * R }),
      );
      expect(c).not.toBeNull();
      if (!c) return;
      // More than eight moves (and at most three pieces of the finishing turn).
      expect(c.pieces.length).toBeGreaterThan(11);
      for (const pc of c.pieces) {
        expect(region.polylineCrosses(pc.points)).toBe(false);
        for (const p of pc.points) expect(region.contains(p) || region.distance(p, 1) < 1e-6).toBe(true);
      }
      const last = c.pieces[c.pieces.length - 1].points;
      const end = last[last.length - 1];
      expect(Math.hypot(end.x - to.x, end.y - to.y)).toBeLessThan(1e-6);
    },
  );
});
