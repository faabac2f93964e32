/**
 * Terrain of stored boundaries and plans over HTTP (PGlite and PostgreSQL),
 * with DEMs of known ground: a plane rising 5 % in the server's DEM
 * directory (EPSG:4326), a cone uploaded for another boundary (UTM).
 * Slopes added to a stored plan, the slope analysis of a boundary from the
 * directory and from an upload, the boundary's DEM clipped to it as
 * GeoTIFF, refusals, and isolation (another company's ids are 404).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDemBytes } from '../../formats/dem-geotiff.ts';
import { coneGround, demBytes, planeGround, writeDem } from '../../formats/dem-testing.ts';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Client, client, expectError, expectOk, makeBoundary } from './client.ts';

type Json = Record<string, any>;

const ring = (lon: number, lat: number) => [
  [
    [lon, lat],
    [lon + 0.004, lat],
    [lon + 0.004, lat + 0.002],
    [lon, lat + 0.002],
    [lon, lat],
  ],
];
// Over the plane of the DEM directory; and away from it (ground only by upload).
const PLANE_RINGS = ring(10.1, 56.1);
const CONE_RINGS = ring(10.3, 56.3);

let dir: string;
let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tramline-terrain-http-'));
  await writeDem(join(dir, 'plane.tif'), {
    epsg: 4326,
    centre: [10.102, 56.101],
    width: 800,
    height: 400,
    cell: 1e-5,
    ground: planeGround(10.102, 56.101, 5, 45),
  });
  srv = await startTestServer({ rateLimitPerMin: 100_000, planning: { demDir: dir } });
  ka = await testKey({ unlimited: true });
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: (await testKey()).key });
});

afterAll(async () => {
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

function parts(plan: Json): Json[] {
  return plan.zones.flatMap((z: Json) => z.geometryGroups.flatMap((g: Json) => g.geometryParts));
}

describe('slopes of a stored plan', () => {
  it('POST /api/pathplan/{id}/slopes adds slopeDetails to every part and summaries, and stores them', async () => {
    const boundaryId = await makeBoundary(a, ka.companyId, PLANE_RINGS);
    const direct = await a.post('/api/path-plans/direct', {
      boundary: { type: 'Polygon', coordinates: PLANE_RINGS },
      equipment: { swathWidth: 12 },
      exteriorHeadlandPasses: 1,
    });
    expectOk(direct);
    const stored = await a.post('/api/path-plans/upsert', { plan: direct.json, boundaryId });
    expectOk(stored, 201);
    const id = stored.json.pathPlanId;
    expect(parts((await a.get(`/api/path-plans-normalized/${id}`)).json)[0].slopeDetails).toBeUndefined();

    const withSlopes = await a.post(`/api/pathplan/${id}/slopes`, {});
    expectOk(withSlopes);
    expect(withSlopes.headers.get('etag')).toBe('"2"');
    const all = parts(withSlopes.json);
    expect(all.length).toBeGreaterThan(20);
    for (const p of all) {
      const d = p.slopeDetails;
      expect(d.noDataSamples).toBe(0);
      if (d.samples === 0) continue;
      expect(Math.abs(d.meanSlopePercent - 5)).toBeLessThanOrEqual(0.1);
    }
    expect(withSlopes.json.slopeSummary.meanSlopePercent).toBeCloseTo(5, 1);
    expect(withSlopes.json.zones[0].slopeSummary.samples).toBeGreaterThan(100);
    // Stored: a read answers them.
    const back = await a.get(`/api/path-plans-normalized/${id}`);
    expect(parts(back.json)[0].slopeDetails).toEqual(all[0].slopeDetails);

    // A machine limit flags parts; a second run replaces the warning of the first.
    const strict = await a.post(`/api/pathplan/${id}/slopes`, { maxCrossSlopePercent: 1 });
    expectOk(strict);
    const again = await a.post(`/api/pathplan/${id}/slopes`, { maxCrossSlopePercent: 2 });
    const warnings = again.json.zones[0].warnings.filter((w: string) => w.includes('maxCrossSlopePercent'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('limit of 2 %');
    expect(parts(again.json).some((p) => p.slopeDetails.exceedsMaxCrossSlope === true)).toBe(true);

    expectError(
      await a.post(`/api/pathplan/${id}/slopes`, {}, { headers: { 'if-match': '"1"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expectError(await b.post(`/api/pathplan/${id}/slopes`, {}), 404, 'NOT_FOUND');
  });

  it('answers 422 DEM_NOT_AVAILABLE for a plan no DEM covers', async () => {
    const direct = await a.post('/api/path-plans/direct', {
      boundary: { type: 'Polygon', coordinates: ring(11, 57) },
      equipment: { swathWidth: 12 },
    });
    const stored = await a.post('/api/path-plans/upsert', { plan: direct.json });
    const r = await a.post(`/api/pathplan/${stored.json.pathPlanId}/slopes`, {});
    expectError(r, 422, 'DEM_NOT_AVAILABLE');
    expect(r.json.message).toContain('11, 57');
  });
});

describe('admin terrain of a boundary', () => {
  it('dem-execute and dem-raster from the DEM directory', async () => {
    const id = await makeBoundary(a, ka.companyId, PLANE_RINGS);
    const analysis = await a.get(`/api/admin/dem-execute/boundary/${id}`);
    expectOk(analysis);
    expect(analysis.json).toMatchObject({ boundaryId: id, source: 'directory', noDataSamples: 0 });
    expect(analysis.json.meanSlopePercent).toBeCloseTo(5, 1);
    expect(analysis.json.maxSlopePercent).toBeLessThan(5.1);
    expect(analysis.json.areaShareAbove2Percent).toBe(100);
    expect(analysis.json.p90SlopePercent).toBeCloseTo(5, 1);
    expect(analysis.json.areaShareAbove10Percent).toBe(0);
    expect(analysis.json.samples).toBeGreaterThan(10_000);

    const raster = await fetch(`${srv.url}/api/admin/dem-raster/${id}`, { headers: { 'x-api-key': ka.key } });
    expect(raster.status).toBe(200);
    expect(raster.headers.get('content-type')).toBe('image/tiff');
    expect(raster.headers.get('x-dem-source')).toBe('directory');
    const dem = (await readDemBytes(new Uint8Array(await raster.arrayBuffer()), 'answer.tif')).raster;
    expect(dem.epsg).toBe(4326);
    // Clipped to the boundary: about 400 x 200 cells of 1e-5 degrees, inside known, outside no data.
    expect(dem.width).toBeGreaterThanOrEqual(400);
    expect(dem.width).toBeLessThanOrEqual(402);
    const plane = planeGround(10.102, 56.101, 5, 45);
    expect(dem.sample(10.102, 56.101)).toBeCloseTo(plane(10.102, 56.101), 2);
    expect(dem.sample(10.1001, 56.1019)).toBeCloseTo(plane(10.1001, 56.1019), 2);
    expect(Number.isNaN(dem.sample(10.0999, 56.101))).toBe(true);
  });

  it('an uploaded DEM is the ground of its boundary: upload, analysis, raster', async () => {
    const id = await makeBoundary(a, ka.companyId, CONE_RINGS);
    expectError(await a.get(`/api/admin/dem-execute/boundary/${id}`), 422, 'DEM_NOT_AVAILABLE');
    expectError(
      await a.call(`/api/admin/dem-raster/${id}`, {
        method: 'PUT',
        raw: new Uint8Array([1, 2, 3]),
        type: 'image/tiff',
      }),
      422,
      'DEM_INVALID',
    );
    const cone = demBytes({
      epsg: 32632,
      centre: [10.302, 56.301],
      width: 400,
      height: 300,
      cell: 1,
      ground: coneGround(10.302, 56.301, 10),
    });
    const put = await a.call(`/api/admin/dem-raster/${id}?fileName=cone.tif`, {
      method: 'PUT',
      raw: new Uint8Array(cone),
      type: 'image/tiff',
    });
    expectOk(put, 201);
    expect(put.json).toMatchObject({
      boundaryId: id,
      fileName: 'cone.tif',
      epsg: 32632,
      coversBoundary: true,
    });
    // The boundary's extent (about 250 x 220 m) and 3 cells round it, of the 400 x 300 uploaded.
    expect(put.json.width).toBeLessThan(270);
    expect(put.json.height).toBeLessThan(240);

    const analysis = await a.get(`/api/admin/dem-execute/boundary/${id}`);
    expectOk(analysis);
    expect(analysis.json.source).toBe('upload');
    expect(analysis.json.noDataSamples).toBe(0);
    expect(analysis.json.meanSlopePercent).toBeGreaterThan(9.5);
    // The cells round the top are steeper than the cone (their bilinear surface); the rest 10 %.
    expect(analysis.json.p90SlopePercent).toBeLessThan(10.2);
    expect(analysis.json.maxSlopePercent).toBeLessThan(15);
    expect(analysis.json.maxElevation).toBeLessThanOrEqual(200);
    expect(analysis.json.areaShareAbove5Percent).toBeGreaterThan(95);
    const raster = await fetch(`${srv.url}/api/admin/dem-raster/${id}`, { headers: { 'x-api-key': ka.key } });
    expect(raster.headers.get('x-dem-source')).toBe('upload');
    const dem = (await readDemBytes(new Uint8Array(await raster.arrayBuffer()), 'answer.tif')).raster;
    expect(dem.epsg).toBe(32632);
    expect(dem.sample(10.302, 56.301)).toBeCloseTo(200, 0);
  });

  it('slope-classes: the ground of a boundary in slope classes, for the planning view', async () => {
    const plane = await makeBoundary(a, ka.companyId, PLANE_RINGS);
    const p = await a.get(`/api/boundaries/${plane}/slope-classes`);
    expectOk(p);
    expect(p.headers.get('content-type')).toContain('application/geo+json');
    // A 5 % plane: all of it in the 2-5 or 5-10 % class, about 5.6 ha in all.
    const total = p.json.features.reduce((t: number, f: Json) => t + f.properties.areaHa, 0);
    expect(total).toBeGreaterThan(5);
    expect(total).toBeLessThan(6.2);
    for (const f of p.json.features) {
      expect(['2-5 %', '5-10 %']).toContain(f.properties.slopeClass);
      expect(f.properties.mean).toBeCloseTo(5, 1);
      expect(f.geometry.type).toBe('MultiPolygon');
    }
    // The cone uploaded for its boundary.
    const cone = await makeBoundary(a, ka.companyId, CONE_RINGS);
    expectError(await a.get(`/api/boundaries/${cone}/slope-classes`), 422, 'DEM_NOT_AVAILABLE');
    const bytes = demBytes({
      epsg: 32632,
      centre: [10.302, 56.301],
      width: 400,
      height: 300,
      cell: 1,
      ground: coneGround(10.302, 56.301, 10),
    });
    expectOk(
      await a.call(`/api/admin/dem-raster/${cone}`, {
        method: 'PUT',
        raw: new Uint8Array(bytes),
        type: 'image/tiff',
      }),
      201,
    );
    const c = await a.get(`/api/boundaries/${cone}/slope-classes`);
    expectOk(c);
    // Falling 10 %: its cells on either side of the 10 % limit, all steeper than 5 %.
    const steep = c.json.features.filter((f: Json) => f.properties.min > 5);
    const steepHa = steep.reduce((t: number, f: Json) => t + f.properties.areaHa, 0);
    expect(steepHa / total).toBeGreaterThan(0.95);
    for (const f of steep) expect(f.properties.mean).toBeCloseTo(10, 0);
    expectError(await b.get(`/api/boundaries/${cone}/slope-classes`), 404, 'NOT_FOUND');
  });

  it("another company's boundary is 404, a member of its company 403; a body that is no file is refused", async () => {
    const id = await makeBoundary(a, ka.companyId, PLANE_RINGS);
    const member = await testKey();
    await (await testStore()).accounts.grantAccess(member.userId, ka.companyId, 'editor');
    const m = client(srv.url, { key: member.key });
    expectError(await m.get(`/api/admin/dem-execute/boundary/${id}`), 403, 'NotAuthorized');
    expectError(await m.get(`/api/admin/dem-raster/${id}`), 403, 'NotAuthorized');
    // Members see the slope classes of their company's boundaries.
    expectOk(await m.get(`/api/boundaries/${id}/slope-classes`));
    expectError(await b.get(`/api/admin/dem-execute/boundary/${id}`), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/admin/dem-raster/${id}`), 404, 'NOT_FOUND');
    expectError(
      await b.call(`/api/admin/dem-raster/${id}`, {
        method: 'PUT',
        raw: new Uint8Array([1]),
        type: 'image/tiff',
      }),
      404,
      'NOT_FOUND',
    );
    const empty = await a.call(`/api/admin/dem-raster/${id}`, {
      method: 'PUT',
      raw: new Uint8Array(0),
      type: 'image/tiff',
    });
    expect(empty.status).toBeGreaterThanOrEqual(400);
    expect(empty.status).toBeLessThan(500);
  });

  it('names the terrain routes in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${srv.url}/api/openapi.json`)).json()) as Json;
    for (const p of [
      '/api/admin/dem-raster/{boundaryId}',
      '/api/admin/dem-execute/boundary/{boundaryId}',
      '/api/pathplan/{pathPlanId}/slopes',
    ])
      expect(doc.paths[p], p).toBeDefined();
    expect(doc.paths['/api/admin/dem-raster/{boundaryId}'].put).toBeDefined();
    expect(doc.components.schemas.BoundarySlopeAnalysis).toBeDefined();
  });
});
