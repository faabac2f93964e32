import { describe, expect, it } from 'vitest';
import type { Point, Polygon } from '../types/index.ts';
import { contourLines, defaultLines, straightEdges } from './reference-lines.ts';

describe('reference lines', () => {
  it('merges a wiggly digitized edge into one straight run and keeps one line per direction', () => {
    // A 500 x 200 m rectangle whose south edge wobbles by +-0.3 m every 10 m.
    const south: Point[] = [];
    for (let x = 0; x < 500; x += 10) south.push({ x, y: (x / 10) % 2 ? 0.3 : -0.3 });
    const field: Polygon = {
      outer: [...south, { x: 500, y: 0 }, { x: 500, y: 200 }, { x: 0, y: 200 }],
      holes: [],
    };
    const edges = straightEdges([field]);
    expect(edges).toHaveLength(2);
    expect(edges[0].length).toBeGreaterThan(495);
    expect(edges[0].bearingDeg).toBeCloseTo(90, 0);
    expect(Math.min(edges[1].bearingDeg, 180 - edges[1].bearingDeg)).toBeLessThan(1);
  });

  it('puts the best bearing first, with the fewest tracks', () => {
    const field: Polygon = {
      outer: [
        { x: 0, y: 0 },
        { x: 400, y: 0 },
        { x: 400, y: 100 },
        { x: 0, y: 100 },
      ],
      holes: [],
    };
    const lines = defaultLines([field], {
      swathWidth: 10,
      turningRadius: 6,
      exteriorPasses: 0,
      interiorPasses: 0,
    });
    expect(lines[0].kind).toBe('best');
    expect(lines[0].trackCount).toBe(10);
    expect(lines.find((l) => l.kind === 'edge' && Math.abs(l.bearingDeg) < 1)?.trackCount).toBe(40);
  });

  it('finds the smooth curved edge as a contour', () => {
    const arc: Point[] = [];
    for (let i = 0; i <= 40; i++) {
      const t = Math.PI + (i / 40) * (Math.PI / 2);
      arc.push({ x: 300 + 300 * Math.cos(t), y: 300 + 300 * Math.sin(t) });
    }
    const field: Polygon = { outer: [...arc, { x: 300, y: 400 }, { x: 0, y: 400 }], holes: [] };
    const c = contourLines([field], 1);
    expect(c).toHaveLength(1);
    expect(c[0].length).toBeGreaterThan(400);
    expect(c[0].points.length).toBeGreaterThan(20);
  });
});
