import { describe, expect, it } from 'vitest';
import { pointInPolygon, polygonArea } from '../geometry/polygon.ts';
import type { Polygon } from '../types/index.ts';
import { areaSlopes, walkGround } from './area-slopes.ts';
import type { ElevationSampler } from './slopes.ts';

// An L-shaped field with a square hole, and a second part beside it.
const L: Polygon = {
  outer: [
    { x: 0, y: 0 },
    { x: 120, y: 0 },
    { x: 120, y: 40 },
    { x: 50, y: 47.3 },
    { x: 40, y: 100 },
    { x: 0, y: 100 },
  ],
  holes: [
    [
      { x: 10, y: 10 },
      { x: 10, y: 30 },
      { x: 30, y: 30 },
      { x: 30, y: 10 },
    ],
  ],
};
const second: Polygon = {
  outer: [
    { x: 150, y: 0 },
    { x: 200, y: 0 },
    { x: 175, y: 60 },
  ],
  holes: [],
};
const tilted: ElevationSampler = { cellSize: 1, elevationAt: (x, y) => 50 + 0.03 * x + 0.04 * y };

describe('walkGround', () => {
  it('visits exactly the grid points inside the polygons (holes left out)', () => {
    let visited = 0;
    const s = walkGround([L, second], tilted, 1.7, 1e9, () => visited++);
    expect(s).toBe(1.7);
    let inside = 0;
    for (let y = 0 + s / 2; y < 100; y += s)
      for (let x = 0 + s / 2; x < 200; x += s)
        if ([L, second].some((p) => pointInPolygon({ x, y }, p))) inside++;
    expect(visited).toBe(inside);
  });
});

describe('areaSlopes', () => {
  it('on a plane rising 5 %: every point 5 %, all of the area over 2 %, none over 10 %', () => {
    const a = areaSlopes([L], tilted);
    expect(a.noDataSamples).toBe(0);
    expect(a.meanSlopePercent).toBeCloseTo(5, 6);
    expect(a.maxSlopePercent).toBeCloseTo(5, 6);
    expect(a.p90SlopePercent).toBeCloseTo(5, 6);
    expect(a.areaShareAbove2Percent).toBe(100);
    expect(a.areaShareAbove10Percent).toBe(0);
    expect(a.minElevation).toBeGreaterThan(50);
    // About one point per square metre of the field.
    const area = polygonArea(L);
    expect(a.samples).toBeGreaterThan(0.9 * area);
  });

  it('counts unknown ground apart, and a coarser grid over large areas', () => {
    const half: ElevationSampler = {
      cellSize: 1,
      elevationAt: (x, y) => (x < 60 ? Number.NaN : 0.05 * y),
    };
    const a = areaSlopes([L], half);
    expect(a.noDataSamples).toBeGreaterThan(a.samples);
    expect(a.meanSlopePercent).toBeCloseTo(5, 6);
    const big: Polygon = {
      outer: [
        { x: 0, y: 0 },
        { x: 2000, y: 0 },
        { x: 2000, y: 2000 },
        { x: 0, y: 2000 },
      ],
      holes: [],
    };
    const b = areaSlopes([big], tilted);
    expect(b.samples).toBeLessThanOrEqual(250_000);
    expect(b.step).toBeCloseTo(4, 6);
  });
});
