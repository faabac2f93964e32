import { describe, expect, it } from 'vitest';
import { planField } from '../plan.ts';
import { PlanningError, type Polygon } from '../types/index.ts';
import { contourDirection } from './contour.ts';
import { type ElevationSampler, planSlopes } from './slopes.ts';

const rad = (deg: number) => (deg * Math.PI) / 180;

/** A plane rising `percent` towards `bearingDeg` (clockwise from north; y is north). */
function plane(percent: number, bearingDeg: number): ElevationSampler {
  const gx = (percent / 100) * Math.sin(rad(bearingDeg));
  const gy = (percent / 100) * Math.cos(rad(bearingDeg));
  return { cellSize: 1, elevationAt: (x, y) => 100 + gx * x + gy * y };
}

/** The angle between two bearings of lines [deg, 0..90]. */
function lineAngle(a: number, b: number): number {
  const d = (((a - b) % 180) + 180) % 180;
  return Math.min(d, 180 - d);
}

// A 4 x 2 ha field (about 256 x 222 m) at 10 E 55 N.
const field = {
  type: 'Polygon',
  coordinates: [
    [
      [10, 55],
      [10.004, 55],
      [10.004, 55.002],
      [10, 55.002],
      [10, 55],
    ],
  ],
};

const square: Polygon = {
  outer: [
    { x: -100, y: -100 },
    { x: 100, y: -100 },
    { x: 100, y: 100 },
    { x: -100, y: 100 },
  ],
  holes: [],
};

describe('contourDirection', () => {
  it('on a plane: at right angles to the gradient, level along it', () => {
    for (const gradient of [0, 17, 60, 90, 133.3, 200, 311]) {
      const c = contourDirection([square], plane(5, gradient), [0, 1, 2]);
      expect(c.unusable).toBeUndefined();
      expect(lineAngle(c.bearingDeg, gradient + 90)).toBeLessThan(0.02);
      expect(c.meanAlongPercent).toBeLessThan(0.01);
      expect(c.meanSlopePercent).toBeCloseTo(5, 6);
      expect(c.noDataSamples).toBe(0);
    }
  });

  it('in a valley running north whose sides fall 8 % to its floor: the tracks run down the valley', () => {
    // Floor along x = 0 falling 1 % to the north; sides rising 8 % east and west.
    const valley: ElevationSampler = { cellSize: 1, elevationAt: (x, y) => 0.08 * Math.abs(x) - 0.01 * y };
    const c = contourDirection([square], valley, []);
    expect(lineAngle(c.bearingDeg, 0)).toBeLessThan(0.5);
    expect(c.meanAlongPercent).toBeCloseTo(1, 1);
  });

  it('says when the ground is too flat or mostly unknown', () => {
    const flat = contourDirection([square], plane(0.1, 30), []);
    expect(flat.unusable).toMatch(/nearly level/);
    const unknown: ElevationSampler = {
      cellSize: 1,
      elevationAt: (x, y) => (x < 50 ? Number.NaN : 0.05 * y),
    };
    const c = contourDirection([square], unknown, []);
    expect(c.unusable).toMatch(/knows the ground at \d+ of \d+ points/);
    expect(c.noDataSamples).toBeGreaterThan(c.samples);
  });
});

describe("planField with trackDirection 'Contour'", () => {
  it('lays the tracks of a plane at right angles to its gradient (+- 2 degrees), level along the route', () => {
    for (const gradient of [30, 115]) {
      const result = planField(
        {
          boundary: field,
          machine: { swathWidth: 12 },
          exteriorHeadlandPasses: 1,
          trackDirection: 'Contour',
        },
        { ground: () => plane(5, gradient) },
      );
      for (const z of result.plan.zones) {
        const g = z.groups[z.activeGroup];
        expect(lineAngle(g.bearingDeg, gradient + 90)).toBeLessThanOrEqual(2);
        expect(z.contour?.meanSlopePercent).toBeCloseTo(5, 3);
        for (const p of g.parts.filter((q) => q.type === 'RouteTrack')) {
          const a = p.points[0];
          const b = p.points[p.points.length - 1];
          const bearing = (Math.atan2(b.x - a.x, b.y - a.y) * 180) / Math.PI;
          expect(lineAngle(bearing, gradient + 90)).toBeLessThanOrEqual(2);
        }
      }
      const slopes = planSlopes(result.plan, plane(5, gradient));
      // Tracks on the level: no working distance above 2 % along-track but on the headland pass.
      const tracksAlong = slopes.zones[0].groups[0].parts.filter(
        (_d, i) => result.plan.zones[0].groups[0].parts[i].type === 'RouteTrack',
      );
      for (const d of tracksAlong) expect(Math.abs(d.meanAlongTrackPercent ?? 99)).toBeLessThan(0.2);
    }
  });

  it('without a ground is refused, and with a bearing or curved tracks is a contradiction', () => {
    const base = { boundary: field, machine: { swathWidth: 12 }, trackDirection: 'Contour' as const };
    expect(() => planField(base)).toThrow(PlanningError);
    expect(() => planField(base)).toThrow(/needs the ground/);
    expect(() => planField({ ...base, preferredBearingDeg: 10 }, { ground: () => plane(5, 0) })).toThrow(
      /either it or a track bearing/,
    );
    expect(() => planField({ ...base, trackType: 'Curved' }, { ground: () => plane(5, 0) })).toThrow(
      /lays straight tracks/,
    );
  });

  it('on level ground plans the usual direction and says why', () => {
    const flat = planField(
      { boundary: field, machine: { swathWidth: 12 }, trackDirection: 'Contour' },
      { ground: () => plane(0, 0) },
    );
    const usual = planField({ boundary: field, machine: { swathWidth: 12 } });
    expect(flat.plan.zones[0].groups[0].bearingDeg).toBeCloseTo(usual.plan.zones[0].groups[0].bearingDeg, 6);
    expect(flat.plan.zones[0].warnings?.join(' ')).toMatch(/along the contour.*nearly level/);
    expect(flat.plan.zones[0].contour).toBeUndefined();
  });
});
