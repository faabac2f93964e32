import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planField } from '../plan.ts';
import type { Point } from '../types/index.ts';
import { type ElevationSampler, planSlopes, slopeAlong } from './slopes.ts';

const rad = (deg: number) => (deg * Math.PI) / 180;

/** A plane rising `percent` towards `bearingDeg` (clockwise from north; y is north). */
function plane(percent: number, bearingDeg: number, cellSize = 1): ElevationSampler {
  const gx = (percent / 100) * Math.sin(rad(bearingDeg));
  const gy = (percent / 100) * Math.cos(rad(bearingDeg));
  return { cellSize, elevationAt: (x, y) => 100 + gx * x + gy * y };
}

/** A cone with its top at the origin, falling `percent` outwards. */
function cone(percent: number): ElevationSampler {
  return { cellSize: 1, elevationAt: (x, y) => 200 - (percent / 100) * Math.hypot(x, y) };
}

function line(from: Point, headingDeg: number, length: number): Point[] {
  return [
    from,
    { x: from.x + length * Math.sin(rad(headingDeg)), y: from.y + length * Math.cos(rad(headingDeg)) },
  ];
}

describe('slopeAlong', () => {
  it('on a plane: slope 5 %, along and cross split by the angle between heading and gradient', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 360, noNaN: true }),
        fc.double({ min: 0, max: 360, noNaN: true }),
        fc.double({ min: 0.5, max: 400, noNaN: true }),
        (gradientBearing, heading, length) => {
          const s = slopeAlong(line({ x: 13, y: -7 }, heading, length), plane(5, gradientBearing));
          const angle = rad(heading - gradientBearing);
          expect(s.samples).toBeGreaterThan(0);
          expect(s.noDataSamples).toBe(0);
          expect(s.meanSlopePercent).toBeCloseTo(5, 2);
          expect(s.maxSlopePercent).toBeCloseTo(5, 2);
          expect(s.meanAlongTrackPercent).toBeCloseTo(5 * Math.cos(angle), 2);
          expect(s.meanCrossTrackPercent).toBeCloseTo(5 * Math.abs(Math.sin(angle)), 2);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('driving the other way turns the sign of the along-track slope, not the cross-track slope', () => {
    const pts = line({ x: 0, y: 0 }, 30, 100);
    const up = slopeAlong(pts, plane(5, 0));
    const down = slopeAlong([...pts].reverse(), plane(5, 0));
    expect(up.meanAlongTrackPercent).toBeCloseTo(5 * Math.cos(rad(30)), 3);
    expect(down.meanAlongTrackPercent).toBeCloseTo(-5 * Math.cos(rad(30)), 3);
    expect(down.meanCrossTrackPercent).toBeCloseTo(up.meanCrossTrackPercent!, 6);
  });

  it('on a cone: downhill outwards, all sideways on a circle round the top', () => {
    const out = slopeAlong(line({ x: 10, y: 0 }, 90, 100), cone(10), { step: 1 });
    expect(out.meanSlopePercent).toBeCloseTo(10, 2);
    expect(out.meanAlongTrackPercent).toBeCloseTo(-10, 2);
    expect(out.meanCrossTrackPercent).toBeCloseTo(0, 2);
    expect(out.maxElevation).toBeCloseTo(200 - 0.1 * 10.5, 2);
    expect(out.minElevation).toBeCloseTo(200 - 0.1 * 109.5, 2);
    const circle: Point[] = [];
    for (let i = 0; i <= 720; i++)
      circle.push({ x: 50 * Math.cos(rad(i / 2)), y: 50 * Math.sin(rad(i / 2)) });
    const round = slopeAlong(circle, cone(10));
    expect(round.meanSlopePercent).toBeCloseTo(10, 2);
    expect(Math.abs(round.meanAlongTrackPercent!)).toBeLessThan(0.01);
    expect(round.meanCrossTrackPercent).toBeCloseTo(10, 2);
  });

  it('counts samples without ground apart and keeps them out of the figures', () => {
    const half: ElevationSampler = {
      cellSize: 1,
      elevationAt: (x, y) => (x > 50 ? Number.NaN : plane(5, 90).elevationAt(x, y)),
    };
    const s = slopeAlong(line({ x: 0, y: 0 }, 90, 100), half, { step: 1 });
    expect(s.samples + s.noDataSamples).toBe(100);
    expect(s.samples).toBe(49);
    expect(s.meanAlongTrackPercent).toBeCloseTo(5, 6);
    const none = slopeAlong(line({ x: 60, y: 0 }, 90, 10), half, { step: 1 });
    expect(none).toEqual({ samples: 0, noDataSamples: 10 });
  });

  it('shares of working distance above 2, 5 and 10 % along-track', () => {
    // 100 m at 6 % uphill then 100 m level along x.
    const dem: ElevationSampler = { cellSize: 1, elevationAt: (x) => (x < 100 ? 0.06 * x : 6) };
    const s = slopeAlong(
      [
        { x: 0, y: 0 },
        { x: 100, y: 0 },
        { x: 200, y: 0 },
      ],
      dem,
      { step: 1 },
    );
    // The sample whose difference straddles the kink sees half the slope (3 %): over 2 % but not over 5 %.
    expect(s.workingShareAbove2Percent).toBeCloseTo(50, 0);
    expect(s.workingShareAbove5Percent).toBeCloseTo(49.5, 1);
    expect(s.workingShareAbove10Percent).toBe(0);
  });

  it('samples every 2 m, or every cell of a coarser DEM, at least once per segment', () => {
    const pts = line({ x: 0, y: 0 }, 45, 100);
    expect(slopeAlong(pts, plane(5, 0, 1)).samples).toBe(50);
    expect(slopeAlong(pts, plane(5, 0, 10)).samples).toBe(10);
    expect(slopeAlong(pts, plane(5, 0, 1), { step: 0.5 }).samples).toBe(200);
    expect(slopeAlong(line({ x: 0, y: 0 }, 45, 0.3), plane(5, 0, 1)).samples).toBe(1);
  });

  it("uses the sampler's own gradient when it has one", () => {
    const own = {
      ...plane(5, 0),
      gradientAt: (_x: number, _y: number, out: Float64Array) => {
        out[0] = 1;
        out[1] = 0.03;
        out[2] = 0.04;
        return true;
      },
    };
    const s = slopeAlong(line({ x: 0, y: 0 }, 90, 10), own);
    expect(s.meanSlopePercent).toBeCloseTo(5, 9);
    expect(s.meanAlongTrackPercent).toBeCloseTo(3, 9);
    expect(s.meanCrossTrackPercent).toBeCloseTo(4, 9);
    expect(slopeAlong(line({ x: 0, y: 0 }, 90, 10), { ...own, gradientAt: () => false })).toEqual({
      samples: 0,
      noDataSamples: 5,
    });
  });

  it('refuses a sampler without a positive cell size', () => {
    expect(() => slopeAlong(line({ x: 0, y: 0 }, 0, 10), { cellSize: 0, elevationAt: () => 0 })).toThrow(
      /cellSize/,
    );
  });
});

describe('planSlopes', () => {
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

  it('gives every part of every group a slope of 5 % on a plane, and the along-track split by its heading', () => {
    const result = planField({
      boundary: field,
      machine: { swathWidth: 6, minTurningRadius: 6 },
      exteriorHeadlandPasses: 2,
      preferredBearingDeg: 0,
    });
    const gradientBearing = 60;
    const slopes = planSlopes(result.plan, plane(5, gradientBearing));
    let routeTracks = 0;
    for (const [zi, z] of result.plan.zones.entries()) {
      for (const [gi, g] of z.groups.entries()) {
        expect(slopes.zones[zi].groups[gi].parts).toHaveLength(g.parts.length);
        for (const [pi, p] of g.parts.entries()) {
          const d = slopes.zones[zi].groups[gi].parts[pi];
          if (d.samples === 0) continue;
          expect(d.meanSlopePercent).toBeGreaterThan(4.9);
          expect(d.meanSlopePercent).toBeLessThan(5.1);
          if (p.type === 'RouteTrack') {
            routeTracks++;
            const a = p.points[0];
            const b = p.points[p.points.length - 1];
            const heading = Math.atan2(b.x - a.x, b.y - a.y);
            const angle = heading - rad(gradientBearing);
            expect(d.meanAlongTrackPercent).toBeCloseTo(5 * Math.cos(angle), 1);
            expect(d.meanCrossTrackPercent).toBeCloseTo(5 * Math.abs(Math.sin(angle)), 1);
          }
        }
      }
      const s = slopes.zones[zi].summary;
      expect(s.samples).toBeGreaterThan(0);
      expect(s.meanSlopePercent).toBeCloseTo(5, 1);
    }
    expect(routeTracks).toBeGreaterThan(5);
    // North-south tracks on a plane rising towards 60 deg: |along| = 5 cos 60 = 2.5 % on them.
    expect(slopes.summary.workingShareAbove2Percent).toBeGreaterThan(50);
    expect(slopes.summary.workingShareAbove5Percent).toBe(0);
    expect(slopes.summary.samples).toBe(slopes.zones.reduce((n, z) => n + z.summary.samples, 0));
  });

  it('a guidance track has the slopes of the route track driving it, along-track turned when driven the other way', () => {
    const result = planField({ boundary: field, machine: { swathWidth: 6 }, exteriorHeadlandPasses: 1 });
    const dem = cone(8);
    const slopes = planSlopes(result.plan, dem);
    const z = result.plan.zones[0];
    const g = z.groups[z.activeGroup];
    const parts = slopes.zones[0].groups[z.activeGroup].parts;
    let checked = 0;
    for (const [i, p] of g.parts.entries()) {
      if (p.type !== 'GuidanceTrack') continue;
      const own = slopeAlong(p.points, dem, { working: false });
      expect(parts[i].samples).toBe(own.samples);
      expect(parts[i].meanSlopePercent).toBeCloseTo(own.meanSlopePercent!, 9);
      expect(parts[i].meanAlongTrackPercent).toBeCloseTo(own.meanAlongTrackPercent!, 9);
      expect(parts[i].meanCrossTrackPercent).toBeCloseTo(own.meanCrossTrackPercent!, 9);
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('on level ground every share is 0 and every part is flat', () => {
    const result = planField({ boundary: field, machine: { swathWidth: 12 }, exteriorHeadlandPasses: 1 });
    const slopes = planSlopes(result.plan, { cellSize: 2, elevationAt: () => 42 });
    expect(slopes.summary).toMatchObject({
      meanSlopePercent: 0,
      maxSlopePercent: 0,
      minElevation: 42,
      maxElevation: 42,
      workingShareAbove2Percent: 0,
    });
  });
});
