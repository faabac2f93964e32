/**
 * Slope-aware planning over GeoTIFF DEMs with known ground (a plane in
 * EPSG:4326 and in UTM, a valley, a cone): the planner's contour search on
 * the ground read by groundForField, and the slopes of the plan it makes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planField } from '../core/plan.ts';
import type { PlanResult } from '../core/types/index.ts';
import { groundForField, planSlopesFromDems } from './dem-slopes.ts';
import { coneGround, lineAngle, planeGround, rectangleAt, valleyGround, writeDem } from './dem-testing.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tramline-terrain-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const field = rectangleAt;

async function contourPlan(
  boundary: unknown,
  path: string,
  extra: Record<string, unknown> = {},
): Promise<PlanResult> {
  const ground = await groundForField(boundary, [path]);
  return planField(
    {
      boundary,
      machine: { swathWidth: 12, minTurningRadius: 6 },
      exteriorHeadlandPasses: 1,
      trackDirection: 'Contour',
      ...extra,
    },
    { ground },
  );
}

/** Bearings of the route tracks of the active groups [deg clockwise from north]. */
function trackBearings(result: PlanResult): number[] {
  return result.plan.zones.flatMap((z) =>
    z.groups[z.activeGroup].parts
      .filter((p) => p.type === 'RouteTrack')
      .map((p) => {
        const a = p.points[0];
        const b = p.points[p.points.length - 1];
        return (Math.atan2(b.x - a.x, b.y - a.y) * 180) / Math.PI;
      }),
  );
}

describe('tracks along the contour over a GeoTIFF DEM', () => {
  for (const epsg of [4326, 32632]) {
    it(`on a plane rising 5 % towards 35 deg in EPSG:${epsg}: tracks at right angles to the gradient, level`, async () => {
      const path = join(dir, `plane-${epsg}.tif`);
      await writeDem(path, {
        epsg,
        centre: [10.002, 55.001],
        width: epsg === 4326 ? 700 : 450,
        height: epsg === 4326 ? 450 : 350,
        cell: epsg === 4326 ? 1e-5 : 1,
        ground: planeGround(10.002, 55.001, 5, 35),
      });
      const boundary = field(10, 55);
      const result = await contourPlan(boundary, path);
      const bearings = trackBearings(result);
      expect(bearings.length).toBeGreaterThan(10);
      for (const b of bearings) expect(lineAngle(b, 125)).toBeLessThanOrEqual(2);
      const slopes = await planSlopesFromDems(result, [path]);
      const g = result.plan.zones[0].groups[0];
      g.parts.forEach((p, i) => {
        if (p.type !== 'RouteTrack') return;
        const d = slopes.zones[0].groups[0].parts[i];
        expect(Math.abs(d.meanSlopePercent! - 5)).toBeLessThanOrEqual(0.1);
        expect(Math.abs(d.meanAlongTrackPercent!)).toBeLessThan(0.2);
        expect(Math.abs(d.meanCrossTrackPercent! - 5)).toBeLessThanOrEqual(0.1);
      });
      // Only the headland pass climbs: well under the share of tracks across the contour.
      const across = planField({
        boundary,
        machine: { swathWidth: 12, minTurningRadius: 6 },
        exteriorHeadlandPasses: 1,
        preferredBearingDeg: 35,
      });
      const acrossSlopes = await planSlopesFromDems(across, [path]);
      expect(slopes.summary.workingShareAbove2Percent!).toBeLessThan(
        acrossSlopes.summary.workingShareAbove2Percent! / 2,
      );
    });
  }

  it('in a valley running 20 deg, its floor falling 1 %, its sides rising 8 %: tracks down the valley', async () => {
    const path = join(dir, 'valley.tif');
    const ground = valleyGround(9.0022, 55.0009, 20, 8, 1);
    await writeDem(path, {
      epsg: 32632,
      centre: [9.0022, 55.0009],
      width: 450,
      height: 350,
      cell: 1,
      ground,
    });
    const result = await contourPlan(field(9, 55), path);
    for (const b of trackBearings(result)) expect(lineAngle(b, 20)).toBeLessThanOrEqual(2);
    const slopes = await planSlopesFromDems(result, [path]);
    const g = result.plan.zones[0].groups[0];
    let sides = 0;
    g.parts.forEach((p, i) => {
      if (p.type !== 'RouteTrack') return;
      const d = slopes.zones[0].groups[0].parts[i];
      // Along the valley the tracks fall or climb its floor's 1 %; on a side, the slope is sqrt(8^2 + 1^2) %.
      expect(Math.abs(Math.abs(d.meanAlongTrackPercent!) - 1)).toBeLessThanOrEqual(0.1);
      if (d.maxSlopePercent! - d.meanSlopePercent! < 0.05) {
        sides++;
        expect(d.meanSlopePercent!).toBeCloseTo(Math.hypot(8, 1), 1);
      }
    });
    expect(sides).toBeGreaterThan(5);
  });

  it('round a cone: the tracks climb less than those of the usual direction', async () => {
    const path = join(dir, 'cone.tif');
    await writeDem(path, {
      epsg: 32632,
      centre: [9.00235, 55.0009],
      width: 400,
      height: 300,
      cell: 1,
      ground: coneGround(9.0, 55.0009, 10),
    });
    const boundary = field(9, 55);
    const contour = await contourPlan(boundary, path);
    const usual = planField({
      boundary,
      machine: { swathWidth: 12, minTurningRadius: 6 },
      exteriorHeadlandPasses: 1,
    });
    const a = await planSlopesFromDems(contour, [path]);
    const b = await planSlopesFromDems(usual, [path]);
    // The cone's top is on the field's west edge: contours run round it, nearly north-south here.
    expect(contour.plan.zones[0].contour?.meanSlopePercent).toBeGreaterThan(9);
    expect(a.summary.workingShareAbove5Percent!).toBeLessThan(b.summary.workingShareAbove5Percent!);
  });

  it('a field mostly over no-data cells keeps the usual direction and says so', async () => {
    const path = join(dir, 'mostly-nodata.tif');
    const plane = planeGround(9.502, 55.501, 5, 90);
    await writeDem(path, {
      epsg: 32632,
      centre: [9.502, 55.501],
      width: 450,
      height: 350,
      cell: 1,
      ground: (lon, lat) => (lon > 9.5005 ? Number.NaN : plane(lon, lat)),
    });
    const result = await contourPlan(field(9.5, 55.5), path);
    expect(result.plan.zones[0].contour).toBeUndefined();
    expect(result.plan.zones[0].warnings?.join(' ')).toMatch(
      /contour.*knows the ground at \d+ of \d+ points/,
    );
  });
});
