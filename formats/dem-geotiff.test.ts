import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planField } from '../core/plan.ts';
import type { PlanResult } from '../core/types/index.ts';
import { DemError, openDemWindow, readDemInfo } from './dem-geotiff.ts';
import { createDemIndex, geoJsonBBox } from './dem-index.ts';
import { planSlopesFromDems } from './dem-slopes.ts';
import { coneGround, planeGround, rectangleAt, writeDem } from './dem-testing.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tramline-dem-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const field = rectangleAt;

function plan(boundary: unknown, bearing: number): PlanResult {
  return planField({
    boundary,
    machine: { swathWidth: 12, minTurningRadius: 6 },
    exteriorHeadlandPasses: 1,
    preferredBearingDeg: bearing,
  });
}

const rad = (d: number) => (d * Math.PI) / 180;

/** Every part with ground: 5 % +- 0.1, and on route tracks along and cross split by the heading. */
function expectPlane(
  result: PlanResult,
  slopes: Awaited<ReturnType<typeof planSlopesFromDems>>,
  bearing: number,
) {
  let tracks = 0;
  let parts = 0;
  for (const [zi, z] of result.plan.zones.entries()) {
    for (const [gi, g] of z.groups.entries()) {
      for (const [pi, p] of g.parts.entries()) {
        const d = slopes.zones[zi].groups[gi].parts[pi];
        expect(d.noDataSamples, `${p.type} ${pi}`).toBe(0);
        if (d.samples === 0) continue;
        parts++;
        expect(Math.abs(d.meanSlopePercent! - 5), `${p.type} ${pi}`).toBeLessThanOrEqual(0.1);
        expect(Math.abs(d.maxSlopePercent! - 5)).toBeLessThanOrEqual(0.1);
        if (p.type !== 'RouteTrack' && p.type !== 'GuidanceTrack') continue;
        tracks++;
        const a = p.points[0];
        const b = p.points[p.points.length - 1];
        const angle = Math.atan2(b.x - a.x, b.y - a.y) - rad(bearing);
        expect(Math.abs(d.meanAlongTrackPercent! - 5 * Math.cos(angle))).toBeLessThanOrEqual(0.1);
        expect(Math.abs(d.meanCrossTrackPercent! - 5 * Math.abs(Math.sin(angle)))).toBeLessThanOrEqual(0.1);
      }
    }
  }
  expect(parts).toBeGreaterThan(10);
  expect(tracks).toBeGreaterThan(10);
}

describe('GeoTIFF DEM', () => {
  it('reads the extent and CRS of EPSG:4326 and UTM files', async () => {
    const geo = join(dir, 'info-4326.tif');
    await writeDem(geo, {
      epsg: 4326,
      centre: [10, 55],
      width: 40,
      height: 20,
      cell: 1e-4,
      ground: () => 1,
    });
    const info = await readDemInfo(geo);
    expect(info.epsg).toBe(4326);
    expect(info.bbox[0]).toBeCloseTo(9.998, 9);
    expect(info.bbox[3]).toBeCloseTo(55.001, 9);
    expect(info.cellSize).toBeCloseTo(1e-4 * 111_195 * Math.cos(rad(55)), 0);
    const utm = join(dir, 'info-utm.tif');
    await writeDem(utm, { epsg: 32632, centre: [9, 55], width: 100, height: 100, cell: 2, ground: () => 1 });
    const u = await readDemInfo(utm);
    expect(u.epsg).toBe(32632);
    expect(u.cellSize).toBe(2);
    expect(u.bbox[0]).toBeLessThan(9);
    expect(u.bbox[2]).toBeGreaterThan(9);
    expect((u.bbox[3] - u.bbox[1]) * 111_200).toBeCloseTo(200, -1);
  });

  it('samples bilinearly what was written (a plane is exact), in 4326 and in UTM', async () => {
    const ground = planeGround(9, 55, 5, 40);
    for (const epsg of [4326, 32632]) {
      const path = join(dir, `sample-${epsg}.tif`);
      await writeDem(path, {
        epsg,
        centre: [9, 55],
        width: 200,
        height: 200,
        cell: epsg === 4326 ? 1e-5 : 1,
        ground,
      });
      const dem = await openDemWindow(path);
      fc.assert(
        fc.property(
          fc.double({ min: -40, max: 40, noNaN: true }),
          fc.double({ min: -40, max: 40, noNaN: true }),
          (e, n) => {
            const lon = 9 + e / (111_320 * Math.cos(rad(55)));
            const lat = 55 + n / 111_200;
            expect(Math.abs(dem.sample(lon, lat) - ground(lon, lat))).toBeLessThan(2e-3);
          },
        ),
        { numRuns: 200 },
      );
      expect(dem.sample(9.1, 55)).toBeNaN();
    }
  });

  it('reads EPSG:3857, with its cell size in ground metres', async () => {
    const path = join(dir, 'merc.tif');
    const ground = planeGround(9, 55, 5, 120);
    await writeDem(path, { epsg: 3857, centre: [9, 55], width: 200, height: 200, cell: 1, ground });
    const dem = await openDemWindow(path);
    expect(dem.cellSize).toBeCloseTo(Math.cos(rad(55)), 3);
    expect(Math.abs(dem.sample(9.0003, 55.0002) - ground(9.0003, 55.0002))).toBeLessThan(2e-3);
  });

  it('reads a changed file again, and of a large file only the window around the field', async () => {
    const path = join(dir, 'changing.tif');
    const dem = { epsg: 32632, centre: [9, 55] as [number, number], width: 300, height: 300, cell: 1 };
    await writeDem(path, { ...dem, ground: () => 10 });
    expect((await openDemWindow(path)).sample(9, 55)).toBeCloseTo(10, 5);
    await writeDem(path, { ...dem, ground: () => 20 });
    await utimes(path, new Date(), new Date(Date.now() + 10_000));
    expect((await openDemWindow(path)).sample(9, 55)).toBeCloseTo(20, 5);
    const bbox: [number, number, number, number] = [9, 55, 9.0002, 55.0001];
    const win = await openDemWindow(path, bbox, { wholeCells: 1000 });
    expect(win.width).toBeLessThan(40);
    expect(win.height).toBeLessThan(40);
    expect(win.sample(9.0001, 55.00005)).toBeCloseTo(20, 5);
    expect(win.sample(9.001, 55)).toBeNaN();
  });

  it('treats GDAL_NODATA cells as unknown', async () => {
    const path = join(dir, 'nodata.tif');
    await writeDem(path, {
      epsg: 32632,
      centre: [9, 55],
      width: 20,
      height: 20,
      cell: 1,
      ground: (lon) => (lon > 9 ? Number.NaN : 7),
      nodata: -32768,
    });
    const dem = await openDemWindow(path);
    expect(dem.sample(8.99995, 55)).toBeCloseTo(7, 5);
    expect(dem.sample(9.00005, 55)).toBeNaN();
  });

  it('refuses a CRS it cannot project, and a file that is no GeoTIFF, naming them', async () => {
    const swiss = join(dir, 'swiss.tif');
    await writeDem(swiss, { epsg: 2056, centre: [8, 47], width: 4, height: 4, cell: 1, ground: () => 1 });
    await expect(readDemInfo(swiss)).rejects.toThrow(/EPSG:2056 is not supported.*EPSG:4326/);
    const junk = join(dir, 'junk.tif');
    await writeFile(junk, 'not a tiff');
    await expect(readDemInfo(junk)).rejects.toBeInstanceOf(DemError);
  });
});

describe('slopes of a plan from a DEM', () => {
  it('on a plane rising 5 % towards 60 deg in EPSG:4326: every part 5 %, along and cross by trigonometry', async () => {
    const path = join(dir, 'plane-4326.tif');
    await writeDem(path, {
      epsg: 4326,
      centre: [10.002, 55.001],
      width: 700,
      height: 450,
      cell: 1e-5,
      ground: planeGround(10.002, 55.001, 5, 60),
    });
    const result = plan(field(10, 55), 0);
    expectPlane(result, await planSlopesFromDems(result, [path]), 60);
  });

  it('on a plane rising 5 % towards 200 deg in EPSG:32632, tracks at 30 deg', async () => {
    const path = join(dir, 'plane-32632.tif');
    await writeDem(path, {
      epsg: 32632,
      centre: [9.002, 55.001],
      width: 450,
      height: 350,
      cell: 1,
      ground: planeGround(9.002, 55.001, 5, 200),
    });
    const result = plan(field(9, 55), 30);
    const slopes = await planSlopesFromDems(result, [path]);
    expectPlane(result, slopes, 200);
    expect(slopes.summary.workingShareAbove2Percent).toBeGreaterThan(50);
  });

  it('on a cone falling 10 %: slopes of 10 % and along-track = elevation change over length', async () => {
    const path = join(dir, 'cone.tif');
    const ground = coneGround(9.00235, 55.0009, 10);
    await writeDem(path, {
      epsg: 32632,
      centre: [9.00235, 55.0009],
      width: 400,
      height: 300,
      cell: 1,
      ground,
    });
    const result = plan(field(9, 55), 0);
    const slopes = await planSlopesFromDems(result, [path]);
    const g = result.plan.zones[0].groups[result.plan.zones[0].activeGroup];
    const parts = slopes.zones[0].groups[result.plan.zones[0].activeGroup].parts;
    for (const [i, p] of g.parts.entries()) {
      const d = parts[i];
      if (p.type !== 'RouteTrack' && p.type !== 'ExteriorHeadlandPass') continue;
      // The slope of a 1 m cell of a curved surface: within 2 % of the cone's.
      expect(d.maxSlopePercent).toBeLessThanOrEqual(10.2);
      expect(d.meanSlopePercent).toBeGreaterThan(9.5);
      const a = result.frame.toLonLat(p.points[0]);
      const b = result.frame.toLonLat(p.points[p.points.length - 1]);
      let len = 0;
      for (let k = 1; k < p.points.length; k++)
        len += Math.hypot(p.points[k].x - p.points[k - 1].x, p.points[k].y - p.points[k - 1].y);
      expect(d.meanAlongTrackPercent!).toBeCloseTo((100 * (ground(...b) - ground(...a))) / len, 0);
    }
    expect(slopes.summary.maxElevation).toBeLessThanOrEqual(200);
    expect(slopes.summary.minElevation).toBeGreaterThan(200 - 0.1 * 182);
  });

  it('reports the parts over no-data cells', async () => {
    const path = join(dir, 'half.tif');
    const plane = planeGround(9.002, 55.001, 5, 90);
    await writeDem(path, {
      epsg: 32632,
      centre: [9.002, 55.001],
      width: 450,
      height: 350,
      cell: 1,
      ground: (lon, lat) => (lon > 9.0025 ? Number.NaN : plane(lon, lat)),
    });
    const result = plan(field(9, 55), 0);
    const slopes = await planSlopesFromDems(result, [path]);
    const all = slopes.zones.flatMap((z) => z.groups.flatMap((g) => g.parts));
    const none = all.filter((d) => d.samples === 0 && d.noDataSamples > 0);
    const some = all.filter((d) => d.samples > 0 && d.noDataSamples > 0);
    const full = all.filter((d) => d.samples > 0 && d.noDataSamples === 0);
    expect(none.length).toBeGreaterThan(0);
    expect(some.length).toBeGreaterThan(0);
    expect(full.length).toBeGreaterThan(0);
    for (const d of none) expect(d.meanSlopePercent).toBeUndefined();
    for (const d of [...some, ...full]) expect(Math.abs(d.meanSlopePercent! - 5)).toBeLessThanOrEqual(0.1);
    expect(slopes.summary.noDataSamples).toBeGreaterThan(0);
  });
});

describe('DEM directory index', () => {
  it('finds the DEM covering a field, follows added, changed and removed files, and names unusable ones', async () => {
    const d = await mkdtemp(join(tmpdir(), 'tramline-dem-index-'));
    try {
      const index = createDemIndex(d);
      const bbox = geoJsonBBox(field(9, 55));
      expect(await index.find(bbox)).toEqual([]);
      const path = join(d, 'a.tif');
      const dem = {
        epsg: 32632,
        centre: [9.002, 55.001] as [number, number],
        width: 450,
        height: 350,
        cell: 1,
        ground: () => 1,
      };
      await writeDem(path, dem);
      expect((await index.find(bbox)).map((x) => x.path)).toEqual([path]);
      // Rewritten elsewhere (another extent, a later time): found no more.
      await writeDem(path, { ...dem, centre: [9.5, 55.5] });
      await utimes(path, new Date(), new Date(Date.now() + 5000));
      expect(await index.find(bbox)).toEqual([]);
      // Files covering part of it are all given, finest first.
      await writeDem(join(d, 'west.tif'), {
        ...dem,
        centre: [9.0005, 55.001],
        width: 100,
        height: 200,
        cell: 2,
      });
      await writeDem(join(d, 'east.tif'), { ...dem, centre: [9.0035, 55.001], width: 150 });
      expect((await index.find(bbox)).map((x) => x.path)).toEqual([join(d, 'east.tif'), join(d, 'west.tif')]);
      await rm(path);
      await writeFile(join(d, 'bad.tif'), 'no tiff');
      await index.refresh();
      expect(index.problems().map((p) => p.path)).toEqual([join(d, 'bad.tif')]);
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });

  it('geoJsonBBox takes every position of a FeatureCollection', () => {
    expect(
      geoJsonBBox({
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', geometry: field(9, 55) },
          { type: 'Feature', geometry: { type: 'MultiPolygon', coordinates: [field(8, 54).coordinates] } },
        ],
      }),
    ).toEqual([8, 54, expect.closeTo(9.0047, 3), expect.closeTo(55.0018, 3)]);
  });
});
