import { describe, expect, it } from 'vitest';
import { junctionTurnDeg } from '../../test/helpers/check-plan.ts';
import type { PathPart, Point } from '../types/index.ts';
import { MIN_PART_LENGTH, withoutDegenerateParts } from './route-tidy.ts';

const line = (x0: number, x1: number, n = 2): Point[] =>
  Array.from({ length: n }, (_, k) => ({ x: x0 + ((x1 - x0) * k) / (n - 1), y: 0 }));
const part = (type: PathPart['type'], pts: Point[], reverse = false): PathPart => ({
  type,
  points: pts,
  working: type === 'RouteTrack',
  ...(reverse ? { reverse } : {}),
});
const len = (p: PathPart) => Math.abs(p.points[p.points.length - 1].x - p.points[0].x);

function continuous(parts: PathPart[]) {
  for (let i = 1; i < parts.length; i++) {
    const a = parts[i - 1].points[parts[i - 1].points.length - 1];
    const b = parts[i].points[0];
    expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeLessThan(1e-9);
  }
}

describe('withoutDegenerateParts', () => {
  it('drops a 4.5 cm forward stub between a reversing turn and a track; the turn ends where the track begins', () => {
    const parts = [
      part('Turn', line(10, 5, 11), true),
      part('Turn', line(5, 5.045)),
      part('RouteTrack', line(5.045, 100)),
    ];
    const out = withoutDegenerateParts(parts);
    expect(out.map((p) => p.type)).toEqual(['Turn', 'RouteTrack']);
    // The track keeps its geometry.
    expect(out[1].points).toEqual(parts[2].points);
    expect(out[0].points[out[0].points.length - 1].x).toBeCloseTo(5.045, 9);
    expect(out.every((p) => len(p) >= MIN_PART_LENGTH)).toBe(true);
    continuous(out);
    // The input is left as it was.
    expect(parts[0].points[10].x).toBeCloseTo(5, 9);
  });

  it('drops a reversing connector of micrometres between two pieces of a track rounded apart; nothing else changes', () => {
    const a = part('RouteTrack', [
      { x: 43.612996, y: 49.783484 },
      { x: 41.259197, y: 41.666903 },
    ]);
    const sliver = part(
      'HeadlandConnector',
      [
        { x: 41.259197, y: 41.666903 },
        { x: 41.259196, y: 41.666902 },
      ],
      true,
    );
    const b = part('RouteTrack', [
      { x: 41.259196, y: 41.666902 },
      { x: 40.38131, y: 38.639697 },
    ]);
    const out = withoutDegenerateParts([a, sliver, b]);
    expect(out).toEqual([a, b]);
    // A connector of a tenth of a millimetre is driving, not rounding: it stays where no neighbour can take it.
    const far = { x: 41.259197 - 1e-4, y: 41.666903 };
    const kept = withoutDegenerateParts([
      a,
      part('HeadlandConnector', [a.points[1], far], true),
      { ...b, points: [far, b.points[1]] },
    ]);
    expect(kept).toHaveLength(3);
  });

  it('merges a stub into the turn driven the same way rather than the track', () => {
    const out = withoutDegenerateParts([
      part('RouteTrack', line(0, 50)),
      part('Turn', line(50, 50.02)),
      part('Turn', line(50.02, 60)),
      part('Turn', line(60, 55), true),
    ]);
    expect(out.map((p) => p.type)).toEqual(['RouteTrack', 'Turn', 'Turn']);
    expect(out[0].points).toHaveLength(2);
    expect(out[1].points[0].x).toBeCloseTo(50, 9);
    continuous(out);
  });

  it('drops parts of no length', () => {
    const out = withoutDegenerateParts([
      part('RouteTrack', line(0, 50)),
      part('Turn', line(50, 50), true),
      part('Turn', line(50, 60)),
    ]);
    expect(out.map((p) => p.type)).toEqual(['RouteTrack', 'Turn']);
    continuous(out);
  });

  it('drops a reversing creep between two forward parts, the next starting where the previous ends', () => {
    const out = withoutDegenerateParts([
      part('Turn', line(0, 10, 11)),
      part('Turn', line(10, 9.97), true),
      part('Turn', line(9.97, 20, 12)),
    ]);
    expect(out).toHaveLength(2);
    expect(out.some((p) => p.reverse)).toBe(false);
    continuous(out);
  });

  it('keeps a back-and-forth whose dropping would join two forward parts with a kink; the creep back is 5 cm or longer', () => {
    // The next part sets off 5.7 degrees off the previous one's heading: joined over centimetres, a bend far tighter than any turning radius.
    const nextPts = [
      { x: 9.97, y: 0 },
      { x: 10.47, y: 0.05 },
      { x: 10.96, y: 0.15 },
    ];
    const parts = [part('Turn', line(0, 10, 11)), part('Turn', line(10, 9.97), true), part('Turn', nextPts)];
    const out = withoutDegenerateParts(parts);
    expect(out.map((p) => !!p.reverse)).toEqual([false, true, false]);
    const ext = out[0].points;
    // The previous part runs on straight along its end heading.
    expect(ext[ext.length - 1].y).toBeCloseTo(0, 9);
    expect(ext[ext.length - 1].x).toBeGreaterThan(10);
    expect(out[1].points.at(-1)).toEqual({ x: 9.97, y: 0 });
    expect(out[2].points).toEqual(nextPts);
    expect(out.every((p) => len(p) >= MIN_PART_LENGTH)).toBe(true);
    continuous(out);
  });

  it('keeps the end heading of a reversing arc into the creep forward after it (no heading jump at the cusp)', () => {
    // A reversing quarter arc of radius 6 m sampled every 6 degrees; a 4.95 cm forward creep leaves along its end tangent.
    const R = 6;
    const arc: Point[] = Array.from({ length: 16 }, (_, k) => {
      const t = (k * Math.PI) / 30;
      return { x: R * Math.sin(t), y: R - R * Math.cos(t) };
    });
    const end = arc[arc.length - 1];
    const tangent = Math.PI / 2; // travel heading at the arc's end
    const creepEnd = { x: end.x - Math.cos(tangent) * 0.0495, y: end.y - Math.sin(tangent) * 0.0495 };
    const back = [
      creepEnd,
      { x: creepEnd.x + 0.3, y: creepEnd.y + 0.5 },
      { x: creepEnd.x + 0.7, y: creepEnd.y + 0.9 },
    ];
    const parts = [part('Turn', arc, true), part('Turn', [end, creepEnd]), part('Turn', back, true)];
    const out = withoutDegenerateParts(parts);
    expect(out.map((p) => !!p.reverse)).toEqual([true, false, true]);
    // The creep keeps the heading the arc ends with (its last chord lags that by 3 degrees).
    expect(junctionTurnDeg(out[0].points, out[1].points, true, 1 / R)).toBeLessThan(0.5);
    const [c, d] = out[1].points;
    expect((Math.atan2(c.y - d.y, c.x - d.x) * 180) / Math.PI).toBeCloseTo(90, 1);
    expect(
      out.every(
        (p) =>
          Math.hypot(p.points.at(-1)!.x - p.points[0].x, p.points.at(-1)!.y - p.points[0].y) >=
          MIN_PART_LENGTH,
      ),
    ).toBe(true);
    continuous(out);
  });

  it('runs a part that ends on an arc on along the arc before a back-and-forth, not along its last chord', () => {
    // A left-hand arc of radius 6 m sampled every 5 degrees, ending heading east at the origin;
    // a 4.8 cm creep back along that heading, then on forwards 5.7 degrees off it.
    const R = 6;
    const arc: Point[] = [];
    for (let k = 12; k >= 0; k--) {
      const a = -Math.PI / 2 - (k * 5 * Math.PI) / 180;
      arc.push({ x: R * Math.cos(a), y: R + R * Math.sin(a) });
    }
    arc[arc.length - 1] = { x: 0, y: 0 };
    const nextPts = [
      { x: -0.048, y: 0 },
      { x: 0.452, y: 0.05 },
      { x: 0.942, y: 0.15 },
    ];
    const parts = [
      part('Turn', arc),
      part('Turn', [{ x: 0, y: 0 }, nextPts[0]], true),
      part('Turn', nextPts),
    ];
    const out = withoutDegenerateParts(parts);
    expect(out.map((p) => !!p.reverse)).toEqual([false, true, false]);
    // The creep back keeps the heading the arc ends with, and the arc stays an arc of 6 m.
    expect(junctionTurnDeg(out[0].points, out[1].points, true, 1 / R)).toBeLessThan(0.5);
    const tip = out[0].points[out[0].points.length - 1];
    expect(tip.x).toBeGreaterThan(0);
    expect(Math.hypot(tip.x, tip.y - R)).toBeCloseTo(R, 9);
    continuous(out);
  });

  it('tidies a neighbour that trimming to a stub left shorter than 5 cm', () => {
    const out = withoutDegenerateParts([
      part('Turn', line(10, 5, 11), true),
      part('Turn', line(5, 5.06)),
      part('Turn', line(5.06, 5.04), true),
      part('RouteTrack', line(5.04, 100)),
    ]);
    expect(out.map((p) => p.type)).toEqual(['Turn', 'RouteTrack']);
    expect(out.every((p) => len(p) >= MIN_PART_LENGTH)).toBe(true);
    continuous(out);
  });
});
