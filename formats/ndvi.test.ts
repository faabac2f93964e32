import { describe, expect, it } from 'vitest';
import { DemError } from './dem-geotiff.ts';
import { ndviImageBytes } from './dem-testing.ts';
import { ndviOfField } from './ndvi.ts';

// A 0.004 x 0.002 degree field (about 250 x 220 m) at 10.1 E 56.1 N, on a grid of 1e-5 degree cells.
const RINGS = [
  [
    [10.1, 56.1],
    [10.104, 56.1],
    [10.104, 56.102],
    [10.1, 56.102],
    [10.1, 56.1],
  ],
];
// Four stripes west to east with NDVI 0.2, 0.4, 0.6, 0.8 inside the field; 0.95 outside it.
const stripes = (lon: number, lat: number) => {
  if (lon < 10.1 || lon > 10.104 || lat < 56.1 || lat > 56.102) return 0.95;
  return 0.2 + 0.2 * Math.floor((lon - 10.1) / 0.001);
};
const image = (ndvi: (lon: number, lat: number) => number) =>
  new Uint8Array(ndviImageBytes({ lon0: 10.099, lat0: 56.099, width: 600, height: 400, cell: 1e-5, ndvi }));
// Written once (the GeoTIFF writer takes a while for 4 x 240,000 cells).
const STRIPES = image(stripes);

describe('NDVI of a field', () => {
  it('gives the known statistics and one zone per stripe of an image with known band values', async () => {
    const out = await ndviOfField(STRIPES, 'stripes.tif', RINGS, {
      redBand: 3,
      nirBand: 4,
      zoneCount: 4,
    });
    expect(out).not.toBeNull();
    const s = out!.statistics;
    expect(s.cells).toBe(400 * 200);
    expect(s.noDataCells).toBe(0);
    expect(s.mean).toBeCloseTo(0.5, 4);
    expect(s.stdDev).toBeCloseTo(Math.sqrt(0.05), 4);
    expect([s.min, s.p10, s.p25, s.p50, s.p75, s.p90, s.max]).toEqual([0.2, 0.2, 0.2, 0.4, 0.6, 0.8, 0.8]);
    const zones = out!.zones.features;
    expect(zones.map((z) => z.properties.ndviMean)).toEqual([0.2, 0.4, 0.6, 0.8]);
    const fieldHa = zones.reduce((a, z) => a + z.properties.areaHa, 0);
    expect(fieldHa).toBeGreaterThan(5.5);
    for (const [i, z] of zones.entries()) {
      expect(z.properties).toMatchObject({ zone: i + 1, cells: 20_000 });
      expect(z.properties.areaHa).toBeCloseTo(fieldHa / 4, 3);
      // One stripe: one polygon, a rectangle from lon 10.1 + 0.001 i to 10.1 + 0.001 (i + 1).
      expect(z.geometry.coordinates).toHaveLength(1);
      const lons = z.geometry.coordinates[0][0].map((p) => p[0]);
      expect(Math.min(...lons)).toBeCloseTo(10.1 + 0.001 * i, 7);
      expect(Math.max(...lons)).toBeCloseTo(10.101 + 0.001 * i, 7);
    }
  });

  it('classifies into 3 to 5 zones of equal count, and counts no-data cells apart', async () => {
    const ramp = (lon: number, lat: number) =>
      lon < 10.1005 && lat < 56.1005 ? Number.NaN : Math.min(0.9, Math.max(0, (lon - 10.1) * 200));
    const rampImage = image(ramp);
    const out = await ndviOfField(rampImage, 'ramp.tif', RINGS, { redBand: 3, nirBand: 4, zoneCount: 3 });
    const s = out!.statistics;
    expect(s.noDataCells).toBe(50 * 50);
    expect(s.cells).toBe(400 * 200 - 2500);
    const zones = out!.zones.features;
    expect(zones).toHaveLength(3);
    for (const z of zones) expect(z.properties.cells / s.cells).toBeCloseTo(1 / 3, 1);
    expect(zones[0].properties.ndviMax).toBeLessThan(zones[1].properties.ndviMin);
    const five = await ndviOfField(rampImage, 'ramp.tif', RINGS, { redBand: 3, nirBand: 4, zoneCount: 5 });
    expect(five!.zones.features).toHaveLength(5);
  });

  it('refuses a band the image does not have, and answers null for an image away from the field', async () => {
    await expect(ndviOfField(STRIPES, 'x.tif', RINGS, { redBand: 3, nirBand: 7 })).rejects.toThrow(DemError);
    await expect(ndviOfField(STRIPES, 'x.tif', RINGS, { redBand: 3, nirBand: 7 })).rejects.toThrow(
      /4 band\(s\).*band 7/,
    );
    const far = RINGS.map((r) => r.map(([lon, lat]) => [lon + 1, lat]));
    expect(await ndviOfField(STRIPES, 'x.tif', far, { redBand: 3, nirBand: 4 })).toBeNull();
  });
});
