/**
 * Line smoothing: every strategy answers a line that never bends tighter
 * than the radius (the shared drivability check), keeps its ends, and stays
 * near the input; corner cutting rounds more than a plain fillet.
 */
import { describe, expect, it } from 'vitest';
import { distToPolyline, expectDrivable } from './path-testing.ts';
import { SMOOTHING_STRATEGIES, smoothPolyline, tightestRadius } from './smooth-line.ts';

const ZIGZAG = [
  { x: 0, y: 0 },
  { x: 100, y: 0 },
  { x: 130, y: 40 },
  { x: 135, y: 42 },
  { x: 200, y: 45 },
  { x: 260, y: -20 },
  { x: 400, y: -20 },
];

describe('smoothPolyline', () => {
  for (const strategy of SMOOTHING_STRATEGIES) {
    for (const radius of [5, 12, 30]) {
      it(`${strategy} never bends tighter than ${radius} m and keeps the ends`, () => {
        const out = smoothPolyline(ZIGZAG, { strategy, radius });
        expectDrivable(out, radius);
        expect(tightestRadius(out)).toBeGreaterThanOrEqual(radius * 0.99);
        expect(out[0]).toEqual(ZIGZAG[0]);
        expect(out.at(-1)).toEqual(ZIGZAG.at(-1));
      });
    }
  }

  it('answers a straight line unchanged', () => {
    const line = [
      { x: 0, y: 0 },
      { x: 50, y: 50 },
    ];
    expect(smoothPolyline(line, { strategy: 'Fillet', radius: 10 })).toEqual(line);
    expect(tightestRadius(line)).toBe(Number.POSITIVE_INFINITY);
  });

  it('cuts corners more gently with CornerCutting than a plain fillet at a small radius', () => {
    const fillet = smoothPolyline(ZIGZAG, { strategy: 'Fillet', radius: 2 });
    const cut = smoothPolyline(ZIGZAG, {
      strategy: 'CornerCutting',
      radius: 2,
      curved: { levelOfSmoothing: 0.25, smoothingIterations: 4 },
    });
    // Corner cutting leaves the corners further behind than the small arcs do, and stays near the line.
    const offCorners = (out: typeof ZIGZAG) =>
      Math.max(...ZIGZAG.slice(1, -1).map((v) => distToPolyline(v, out)));
    expect(offCorners(cut)).toBeGreaterThan(2 * offCorners(fillet));
    for (const v of cut) expect(distToPolyline(v, ZIGZAG)).toBeLessThan(15);
  });
});
