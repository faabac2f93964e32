import { describe, expect, it } from 'vitest';
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
});
