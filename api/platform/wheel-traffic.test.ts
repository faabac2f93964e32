/**
 * Wheel traffic of stored plans against a really listening server: the
 * GeoJSON of a plan's wheel tracks by passes (features whose areas add up to
 * the union), and the equipment snapshot that fills in the track and tyre
 * widths of a plan made without them and measures its trafficked area
 * without planning again; tenant isolation of both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBoundaries } from '../../bench/seed-boundaries.ts';
import { rectangleField, startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { client, expectError, expectOk } from './client.ts';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
});
afterAll(async () => {
  await srv?.close();
});

async function account() {
  const k = await testKey({ credits: 100 });
  return { ...k, c: client(srv.url, { key: k.key }) };
}

describe('wheel traffic of stored plans', () => {
  it('answers the wheel tracks by passes and fills in a plan made without tyre data', async () => {
    const a = await account();
    const b = await account();
    const [bnd] = await seedBoundaries(await testStore(), a.companyId, [
      { name: 'Home', geometry: rectangleField(6, 14, 55) },
    ]);
    const post = await a.c.post('/api/bulk-guidance/normalized', {
      boundaryIds: [bnd!.boundaryId],
      request: {
        equipment: { swathWidth: 6, minTurningRadius: 6 },
        exteriorHeadlandPasses: 2,
        routeOptions: { algorithm: 'boustrophedon' },
      },
    });
    expectOk(post, 202);
    let job = await a.c.get(`/api/bulk-guidance/normalized/jobs/${post.json.jobId}`);
    for (let i = 0; i < 600 && (job.json.status === 'queued' || job.json.status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 200));
      job = await a.c.get(`/api/bulk-guidance/normalized/jobs/${post.json.jobId}`);
    }
    const id = job.json.pathPlanIds[0];
    expect(id).toEqual(expect.any(String));
    const plan = (await a.c.get(`/api/path-plans-normalized/${id}`)).json;
    expect(plan.stats.traffickedArea).toBe(0);

    // Without tyre widths nothing is trafficked.
    const none = await a.c.post(`/api/wheel-traffic-summary/${id}/geojson`, {});
    expectOk(none);
    expect(none.json).toMatchObject({ type: 'FeatureCollection', features: [], traffickedArea: 0 });

    // With a machine's widths: features by passes whose areas add up to the union.
    const widths = { trackWidths: [1.8], tireWidths: [0.5] };
    const geo = await a.c.post(`/api/wheel-traffic-summary/${id}/geojson`, widths);
    expectOk(geo);
    expect(geo.headers.get('content-type')).toContain('application/geo+json');
    const passes = geo.json.features.map((f: { properties: { passes: number } }) => f.properties.passes);
    expect(passes).toContain(1);
    expect(passes).toContain(2);
    for (const f of geo.json.features) {
      expect(f.geometry.type).toBe('MultiPolygon');
      expect(f.properties.area).toBeGreaterThan(0);
    }
    const sum = geo.json.features.reduce(
      (s: number, f: { properties: { area: number } }) => s + f.properties.area,
      0,
    );
    expect(sum).toBeCloseTo(geo.json.traffickedArea, 0);
    // The union: less than the route length x the two tyres (ground run on twice counts once).
    expect(geo.json.traffickedArea).toBeLessThan(plan.stats.totalDistance * 2 * 0.5);
    expect(geo.json.traffickedAreaPercent).toBeGreaterThan(5);
    expect(geo.json.traffickedAreaPercent).toBeLessThan(60);
    // Nothing stored by the preview.
    expect((await a.c.get(`/api/path-plans-normalized/${id}`)).json.stats.traffickedArea).toBe(0);

    // The snapshot stores the widths and the measured area; the route stays as it was.
    expectError(await b.c.post(`/api/path-plans/${id}/update-equipment-snapshot`, widths), 404, 'NOT_FOUND');
    expectError(await b.c.post(`/api/wheel-traffic-summary/${id}/geojson`, widths), 404, 'NOT_FOUND');
    expectError(
      await a.c.post(`/api/path-plans/${id}/update-equipment-snapshot`, { tireWidths: [-1] }),
      400,
      'VALIDATION_ERROR',
    );
    const snap = await a.c.post(`/api/path-plans/${id}/update-equipment-snapshot`, widths);
    expectOk(snap);
    expect(snap.json).toMatchObject({ pathPlanId: id, ...widths, etag: '"2"' });
    expect(snap.json.traffickedArea).toBeCloseTo(geo.json.traffickedArea, -1);
    const after = (await a.c.get(`/api/path-plans-normalized/${id}`)).json;
    expect(after.equipment).toMatchObject(widths);
    expect(after.stats.traffickedArea).toBeCloseTo(snap.json.traffickedArea, 2);
    expect(after.stats.traffickedAreaPercent).toBeCloseTo(snap.json.traffickedAreaPercent, 2);
    expect(after.stats.totalDistance).toBe(plan.stats.totalDistance);
    // The stored figures follow: the plan's own widths now answer the same tracks.
    const own = await a.c.post(`/api/wheel-traffic-summary/${id}/geojson`, {});
    expect(own.json.traffickedArea).toBeCloseTo(geo.json.traffickedArea, 3);

    // A stored machine's widths; another company's machine is 404.
    const m = await a.c.post('/api/equipment', {
      companyId: a.companyId,
      name: 'Sprayer',
      type: 'sprayer',
      swathWidth: 24,
      trackWidths: [2.25],
      tireWidths: [0.3],
    });
    const mb = await b.c.post('/api/equipment', {
      companyId: b.companyId,
      name: 'Sprayer',
      type: 'sprayer',
      swathWidth: 24,
      trackWidths: [2.25],
      tireWidths: [0.3],
    });
    expectError(
      await a.c.post(`/api/path-plans/${id}/update-equipment-snapshot`, { equipmentId: mb.json.equipmentId }),
      404,
      'NOT_FOUND',
    );
    const byMachine = await a.c.post(`/api/path-plans/${id}/update-equipment-snapshot`, {
      equipmentId: m.json.equipmentId,
    });
    expectOk(byMachine);
    expect(byMachine.json).toMatchObject({ trackWidths: [2.25], tireWidths: [0.3], etag: '"3"' });
    expect(byMachine.json.traffickedArea).toBeLessThan(snap.json.traffickedArea);
  });
});
