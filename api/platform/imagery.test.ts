/**
 * NDVI of stored boundaries over HTTP (PGlite and PostgreSQL): an image
 * with known band values (four stripes of NDVI 0.2 to 0.8 over the field)
 * gives the known statistics and zones, stored for the boundary, answered
 * to admins and exposed on the boundary as GeoJSON; refusals and isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ndviImageBytes } from '../../formats/dem-testing.ts';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk, makeBoundary } from './client.ts';

const RINGS = [
  [
    [10.1, 56.1],
    [10.104, 56.1],
    [10.104, 56.102],
    [10.1, 56.102],
    [10.1, 56.1],
  ],
];
const FAR = RINGS.map((r) => r.map(([lon, lat]) => [lon + 1, lat]));

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let image: Uint8Array;

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey();
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: (await testKey()).key });
  image = new Uint8Array(
    ndviImageBytes({
      lon0: 10.099,
      lat0: 56.099,
      width: 600,
      height: 400,
      cell: 1e-5,
      ndvi: (lon, lat) =>
        lon < 10.1 || lon > 10.104 || lat < 56.1 || lat > 56.102
          ? 0.95
          : 0.2 + 0.2 * Math.floor((lon - 10.1) / 0.001),
    }),
  );
});
afterAll(async () => {
  await srv?.close();
});

const process = (c: Client, query: string, body = image) =>
  c.call(`/api/admin/satellite-imagery-processing?${query}`, {
    method: 'POST',
    raw: body,
    type: 'image/tiff',
  });

describe('satellite imagery processing', () => {
  it('stores the known NDVI statistics and zones of an image, and exposes the zones on the boundary', async () => {
    const id = await makeBoundary(a, ka.companyId, RINGS);
    expectError(await a.get(`/api/boundaries/${id}/ndvi-zones`), 404, 'NOT_FOUND');
    const made = await process(a, `boundaryId=${id}&redBand=3&nirBand=4&zones=4&fileName=stripes.tif`);
    expectOk(made, 201);
    expect(made.json.statistics).toMatchObject({
      redBand: 3,
      nirBand: 4,
      cells: 80_000,
      noDataCells: 0,
      mean: 0.5,
      min: 0.2,
      p10: 0.2,
      p25: 0.2,
      p50: 0.4,
      p75: 0.6,
      p90: 0.8,
      max: 0.8,
    });
    expect(made.json.statistics.stdDev).toBeCloseTo(Math.sqrt(0.05), 4);
    const zones = made.json.zones.features;
    expect(zones.map((z: any) => z.properties.ndviMean)).toEqual([0.2, 0.4, 0.6, 0.8]);
    for (const z of zones) expect(z.properties.cells).toBe(20_000);

    const stored = await a.get(`/api/admin/satellite-imagery-processing/${id}`);
    expectOk(stored);
    expect(stored.json).toEqual(made.json);
    const geo = await a.get(`/api/boundaries/${id}/ndvi-zones`);
    expectOk(geo);
    expect(geo.headers.get('content-type')).toContain('application/geo+json');
    expect(geo.json).toEqual(made.json.zones);

    // A second image replaces the first: three zones now.
    const again = await process(a, `boundaryId=${id}&redBand=3&nirBand=4&zones=3`);
    expectOk(again, 201);
    expect(again.json.zones.features).toHaveLength(3);
    expect((await a.get(`/api/boundaries/${id}/ndvi-zones`)).json.features).toHaveLength(3);
  });

  it('refuses a missing band, equal bands, an image away from the boundary and a body that is no image', async () => {
    const id = await makeBoundary(a, ka.companyId, RINGS);
    const band = await process(a, `boundaryId=${id}&redBand=3&nirBand=8`);
    expectError(band, 422, 'IMAGE_INVALID');
    expect(band.json.message).toMatch(/band 8/);
    expectError(await process(a, `boundaryId=${id}&redBand=3&nirBand=3`), 400, 'VALIDATION_ERROR');
    expectError(await process(a, `boundaryId=${id}&redBand=3`), 400, 'VALIDATION_ERROR');
    expectError(await process(a, `boundaryId=${id}&redBand=3&nirBand=4&zones=9`), 400, 'VALIDATION_ERROR');
    expectError(
      await process(a, `boundaryId=${id}&redBand=3&nirBand=4`, new Uint8Array([1, 2, 3])),
      422,
      'IMAGE_INVALID',
    );
    const far = await makeBoundary(a, ka.companyId, FAR);
    expectError(await process(a, `boundaryId=${far}&redBand=3&nirBand=4`), 422, 'IMAGE_NOT_COVERING');
  });

  it("another company's boundary is 404 on every route", async () => {
    const id = await makeBoundary(a, ka.companyId, RINGS);
    expectOk(await process(a, `boundaryId=${id}&redBand=3&nirBand=4`), 201);
    expectError(await process(b, `boundaryId=${id}&redBand=3&nirBand=4`), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/admin/satellite-imagery-processing/${id}`), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/boundaries/${id}/ndvi-zones`), 404, 'NOT_FOUND');
  });
});
