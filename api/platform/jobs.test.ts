/**
 * Jobs, stored plans and shares against a really listening server: bulk
 * guidance over many boundaries (every boundary gets a plan or an error),
 * job polls with Retry-After, cancel, stored plan reads and writes,
 * set-active, groups, exports, shares, and tenant isolation of every one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBoundaries } from '../../bench/seed-boundaries.ts';
import { uuidv7 } from '../../store/uuidv7.ts';
import { rectangleField, startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Client, call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({
    rateLimitPerMin: 100_000,
  });
});
afterAll(async () => {
  await srv?.close();
});

const REQUEST = {
  equipment: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
  routeOptions: { algorithm: 'boustrophedon' },
};

async function account(credits = 1000) {
  const k = await testKey({ credits });
  return { ...k, c: client(srv.url, { key: k.key }) };
}

/** Stores a rectangle of about `ha` hectares as a boundary (with its field) of the company. */
async function addBoundary(companyId: string, ha: number, lon: number, name = `Field ${lon}`) {
  const [b] = await seedBoundaries(await testStore(), companyId, [
    { name, geometry: rectangleField(ha, lon, 55) },
  ]);
  return b!;
}

async function waitForJob(c: Client, path: string, until = (s: string) => s !== 'queued' && s !== 'running') {
  for (let i = 0; i < 600; i++) {
    const a = await c.get(path);
    expectOk(a);
    if (until(a.json.status)) return a;
    expect(a.headers.get('retry-after')).toBe('5');
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${path} did not finish`);
}

describe('bulk guidance', () => {
  it('answers 202 at once and plans every boundary or records why not', async () => {
    const a = await account();
    const ids = await Promise.all(
      [1, 2, 3, 4, 5].map(async (i) => (await addBoundary(a.companyId, 2 + i, 10 + i * 0.01)).boundaryId),
    );
    // An unknown boundary is refused before anything is queued.
    expectError(
      await a.c.post('/api/bulk-guidance/normalized', { boundaryIds: [...ids, uuidv7()], request: REQUEST }),
      404,
      'NOT_FOUND',
    );
    // A field too narrow for two 6 m headland passes: an error for that boundary, the batch goes on.
    const tiny = (await addBoundary(a.companyId, 0.001, 10.5)).boundaryId;
    const post = await a.c.post('/api/bulk-guidance/normalized', {
      boundaryIds: [...ids, tiny, ids[0]],
      request: REQUEST,
    });
    expectOk(post, 202);
    expect(post.json).toEqual({ jobId: expect.any(String), status: 'queued' });
    const done = await waitForJob(a.c, `/api/bulk-guidance/normalized/jobs/${post.json.jobId}`);
    expect(done.json.status).toBe('completed');
    expect(done.json.progress).toBe(1);
    expect(done.json.total).toBe(6);
    expect(done.headers.get('retry-after')).toBeNull();
    expect(done.json.pathPlanIds).toHaveLength(5);
    expect(done.json.errors.map((e: { boundaryId: string }) => e.boundaryId)).toEqual([tiny]);
    // The deprecated poll answers the same job.
    const old = await a.c.get(`/api/bulk-guidance/jobs/${post.json.jobId}`);
    expectOk(old);
    expect(old.json.pathPlanIds.sort()).toEqual([...done.json.pathPlanIds].sort());

    const plan = await a.c.get(`/api/path-plans-normalized/${done.json.pathPlanIds[0]}`);
    expectOk(plan);
    expect(plan.json.pathPlanId).toBe(done.json.pathPlanIds[0]);
    expect(plan.json.zones.length).toBeGreaterThan(0);
    expect(plan.headers.get('etag')).toBe('"1"');
    // One credit per stored plan.
    const me = await a.c.get('/api/user/current');
    expect(me.json.credits.available).toBe(1000 - 5);
  });

  it('refuses bad requests before queueing (400 naming the member), unknown options 422', async () => {
    const a = await account();
    const bad = await a.c.post('/api/bulk-guidance/normalized', {
      boundaryIds: [uuidv7()],
      request: { ...REQUEST, equipment: { swathWidth: -1 } },
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(bad.json.errors)).toContain('/request/equipment/swathWidth');
    expectError(
      await a.c.post('/api/bulk-guidance/normalized', { boundaryIds: [], request: REQUEST }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await a.c.post('/api/bulk-guidance/normalized', {
        boundaryIds: [uuidv7()],
        request: { ...REQUEST, boundary: rectangleField(1) },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('cancels a job; a cancelled job stays cancelled and stores nothing more', async () => {
    const a = await account();
    const ids = (
      await seedBoundaries(
        await testStore(),
        a.companyId,
        Array.from({ length: 40 }, (_, i) => ({
          name: `F${i}`,
          geometry: rectangleField(20, 11 + i * 0.01, 55),
        })),
      )
    ).map((b) => b.boundaryId);
    const post = await a.c.post('/api/bulk-guidance', { boundaryIds: ids, request: REQUEST });
    expectOk(post, 202);
    const c = await a.c.post(`/api/job/${post.json.jobId}/cancel`);
    expectOk(c);
    expect(c.json.status).toBe('cancelled');
    const later = await a.c.get(`/api/bulk-guidance/jobs/${post.json.jobId}`);
    expect(later.json.status).toBe('cancelled');
    expect(later.json.pathPlanIds.length).toBeLessThan(40);
    // Cancelling again answers the ended job unchanged.
    expect((await a.c.post(`/api/job/${post.json.jobId}/cancel`)).json.status).toBe('cancelled');
  });
});

describe('stored plans, groups, exports and shares', () => {
  let a: Awaited<ReturnType<typeof account>>;
  let b: Awaited<ReturnType<typeof account>>;
  let planId: string;
  let fieldId: string;
  let boundaryId: string;

  beforeAll(async () => {
    a = await account();
    b = await account();
    const stored = await addBoundary(a.companyId, 8, 12, 'North field');
    boundaryId = stored.boundaryId;
    fieldId = stored.fieldId!;
    const post = await a.c.post('/api/guidance', {
      boundaryId,
      request: { ...REQUEST, equipment: { ...REQUEST.equipment, trackWidths: [3], tireWidths: [0.6] } },
    });
    expectOk(post, 202);
    const done = await waitForJob(a.c, `/api/guidance/jobs/${post.json.jobId}`);
    expect(done.json.status).toBe('completed');
    planId = done.json.pathPlanIds[0];
  });

  it('lists, previews and reads plans per field and boundary', async () => {
    const list = await a.c.get(`/api/fields/${fieldId}/path-plans`);
    expectOk(list);
    expect(list.json.total).toBe(1);
    expect(list.json.items[0]).toMatchObject({
      pathPlanId: planId,
      name: 'North field',
      boundaryId,
      fieldId,
      archived: false,
    });
    expect((await a.c.get(`/api/fields/${fieldId}/path-plan-ids`)).json).toEqual([planId]);
    expect((await a.c.get(`/api/fields/${fieldId}/path-plan-names`)).json).toEqual([
      { pathPlanId: planId, name: 'North field' },
    ]);
    expect((await a.c.get(`/api/boundaries/${boundaryId}/path-plan-ids`)).json).toEqual([planId]);
    const models = await a.c.get(`/api/fields/${fieldId}/path-plans/list`);
    expect(models.json[0].pathPlanId).toBe(planId);
    const full = await a.c.get(`/api/path-plans-normalized/${planId}`);
    const preview = await a.c.get(`/api/path-plans-normalized/${planId}/preview`);
    expectOk(preview);
    expect(preview.text.length).toBeLessThan(full.text.length / 2);
    expect(preview.json.zones[0].tracks.coordinates.length).toBe(full.json.zones[0].stats.trackCount);
    const geo = await a.c.get(`/api/path-plans/${planId}/geo`);
    expect(geo.json.type).toBe('FeatureCollection');
    expect((await a.c.get(`/api/path-plans/${planId}/list-item`)).json.pathPlanId).toBe(planId);
    const csv = await a.c.post('/api/path-plans/csv', { pathPlanIds: [planId] });
    expectOk(csv);
    expect(csv.text.split('\r\n')[0]).toContain('pathPlanId,name');
    expect(csv.text).toContain(planId);
  });

  it('reads the routes of a stored plan, one by id and as GPX', async () => {
    const routes = await a.c.get(`/api/path-plans/${planId}/routes`);
    expectOk(routes);
    const active = routes.json.find((r: { isActive: boolean }) => r.isActive);
    expect(active.routeParts.length).toBeGreaterThan(0);
    const seq = active.routeParts.map((p: { sequence: number }) => p.sequence);
    expect(seq).toEqual([...seq].sort((x: number, y: number) => x - y));
    expect(active.routeParts.some((p: { working: boolean }) => !p.working)).toBe(true);
    const one = await a.c.get(`/api/routes/${active.routeId}`);
    expectOk(one);
    expect(one.json.routeParts).toHaveLength(active.routeParts.length);
    const gpx = await a.c.get(`/api/routes/gpx?pathPlanId=${planId}`);
    expectOk(gpx);
    expect(gpx.headers.get('content-type')).toContain('application/gpx+xml');
    expect(gpx.text.match(/<trk>/g)?.length).toBe(active.routeParts.length);
    expectError(await b.c.get(`/api/routes/${active.routeId}`), 404, 'NOT_FOUND');
    expectError(await b.c.get(`/api/path-plans/${planId}/routes`), 404, 'NOT_FOUND');
    expectError(await b.c.get(`/api/routes/gpx?pathPlanId=${planId}`), 404, 'NOT_FOUND');
  });

  it('routes a stored zone again under new route options, and a whole plan', async () => {
    const before = (await a.c.get(`/api/path-plans-normalized/${planId}`)).json;
    const zone = before.zones[0];
    const r = await a.c.post('/api/routes/normalized', [
      { pathPlanZoneId: zone.zoneId, routeOptions: { algorithm: 'snake' } },
    ]);
    expectOk(r);
    const g = r.json.geometryGroups[0];
    expect(g.pathPlanZoneId).toBe(zone.zoneId);
    expect(g.geometryGroup.geometryGroupId).toBe(zone.activeGeometryGroupId);
    expect(g.geometryGroup.trackBearing).toBeCloseTo(
      zone.geometryGroups.find((x: { isActive: boolean }) => x.isActive).trackBearing,
      6,
    );
    const after = await a.c.get(`/api/path-plans-normalized/${planId}`);
    expect(after.headers.get('etag')).not.toBe(`"${before.version ?? 1}"`);
    expect(
      after.json.zones[0].geometryGroups.find((x: { isActive: boolean }) => x.isActive).geometryParts.length,
    ).toBe(g.geometryGroup.geometryParts.length);
    expectError(
      await a.c.post('/api/routes/normalized', [
        { pathPlanZoneId: zone.zoneId, routeOptions: { algorithm: 'teleport' } },
      ]),
      422,
      'OPTION_NOT_SUPPORTED',
    );
    expectError(
      await b.c.post('/api/routes/normalized', [{ pathPlanZoneId: zone.zoneId }]),
      404,
      'NOT_FOUND',
    );
    const created = await a.c.post('/api/routes/create', {
      pathPlanId: planId,
      routeOptions: { algorithm: 'boustrophedon' },
    });
    expectOk(created);
    expect(created.json.pathPlanId).toBe(planId);
    expectError(await b.c.post('/api/routes/create', { pathPlanId: planId }), 404, 'NOT_FOUND');
  });

  it('stars, rates, archives, switches the active group and upserts', async () => {
    expect((await a.c.post(`/api/path-plans/${planId}/star`, {})).json.starred).toBe(true);
    expectOk(await a.c.post(`/api/path-plans/${planId}/rate`, { rating: 4, comment: 'good' }));
    expect((await a.c.get(`/api/path-plans/${planId}/rate`)).json).toEqual({
      pathPlanId: planId,
      rating: 4,
      comment: 'good',
    });
    expectError(await a.c.post(`/api/path-plans/${planId}/rate`, { rating: 6 }), 400, 'VALIDATION_ERROR');

    const full = (await a.c.get(`/api/path-plans-normalized/${planId}`)).json;
    const zone = full.zones[0];
    const group = zone.geometryGroups[0];
    const sw = await a.c.post(
      `/api/path-plan-zones/${zone.zoneId}/geometry-groups/${group.geometryGroupId}/set-active`,
    );
    expectOk(sw);
    expect(sw.json.zones[0].activeGeometryGroupId).toBe(group.geometryGroupId);
    expect(sw.json.zones[0].geometryGroups.filter((g: { isActive: boolean }) => g.isActive)).toHaveLength(1);
    expectError(
      await a.c.post(`/api/path-plan-zones/${zone.zoneId}/geometry-groups/${zone.zoneId}-g99/set-active`),
      404,
      'NOT_FOUND',
    );

    const up = await a.c.post(
      '/api/path-plans/upsert',
      { plan: { ...full, pathPlanName: 'Renamed' } },
      { headers: { 'if-match': '"1"' } },
    );
    expectError(up, 412, 'PRECONDITION_FAILED');
    const up2 = await a.c.post('/api/path-plans/upsert', { plan: { ...full, pathPlanName: 'Renamed' } });
    expectOk(up2);
    expect(up2.json.name).toBe('Renamed');
    const copy = { ...full, pathPlanId: uuidv7() };
    const created = await a.c.post('/api/path-plans/upsert', { plan: copy, fieldId });
    expectOk(created, 201);
    expect((await a.c.get(`/api/fields/${fieldId}/path-plan-ids`)).json).toHaveLength(2);

    expectOk(await a.c.post('/api/path-plans/archive', { pathPlanIds: [created.json.pathPlanId] }));
    expect((await a.c.get(`/api/fields/${fieldId}/path-plan-ids`)).json).toEqual([planId]);
    expect((await a.c.get(`/api/fields/${fieldId}/path-plan-ids?includeArchived=true`)).json).toHaveLength(2);
    expectOk(await a.c.del(`/api/path-plans/${created.json.pathPlanId}`), 204);
    expectError(await a.c.get(`/api/path-plans-normalized/${created.json.pathPlanId}`), 404, 'NOT_FOUND');
  });

  it('groups plans and sums them up', async () => {
    const g = await a.c.post(`/api/companies/${a.companyId}/path-plan-groups`, {
      name: 'Spring',
      pathPlanIds: [planId],
    });
    expectOk(g, 201);
    const gid = g.json.pathPlanGroupId;
    expect((await a.c.get(`/api/path-plan-groups/path-plans/${planId}`)).json.pathPlanGroupId).toBe(gid);
    expect((await a.c.get(`/api/companies/${a.companyId}/path-plan-groups/names`)).json).toEqual([
      { pathPlanGroupId: gid, name: 'Spring' },
    ]);
    const sum = await a.c.post(`/api/companies/${a.companyId}/path-plan-groups/summary`, {});
    expectOk(sum);
    expect(sum.json.groups[0]).toMatchObject({ pathPlanGroupId: gid, planCount: 1 });
    expect(sum.json.groups[0].totalTime).toBeGreaterThan(0);
    expect(sum.json.groups[0].totalTraffickedArea).toBeGreaterThan(0);
    expectOk(await a.c.post(`/api/path-plan-groups/${gid}/ungroup-plan/${planId}`));
    expect((await a.c.get(`/api/path-plan-groups/${gid}`)).json.pathPlanIds).toEqual([]);
    const g2 = await a.c.post('/api/path-plan-groups/group-plans', { name: 'Autumn', pathPlanIds: [planId] });
    expectOk(g2, 201);
    expectOk(await a.c.post(`/api/path-plan-groups/${gid}/add-plans`, { pathPlanIds: [planId] }));
    expect((await a.c.get(`/api/path-plan-groups/${g2.json.pathPlanGroupId}`)).json.pathPlanIds).toEqual([]);
    expectOk(await a.c.del(`/api/path-plan-groups/${g2.json.pathPlanGroupId}`), 204);
  });

  it('exports plans as a job whose batch is a zip', async () => {
    const post = await a.c.post('/api/path-plans-export', { pathPlanIds: [planId], format: 'isoxml' });
    expectOk(post, 202);
    const done = await waitForJob(a.c, `/api/path-plans-export/jobs/${post.json.jobId}`);
    expect(done.json.status, done.text).toBe('completed');
    expect(done.json.batchId).toEqual(expect.any(String));
    const res = await fetch(`${srv.url}/api/path-plans-export/${done.json.batchId}/file`, {
      headers: { 'x-api-key': a.key },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    expectError(await b.c.get(`/api/path-plans-export/${done.json.batchId}/file`), 404, 'NOT_FOUND');
    expectError(
      await a.c.post('/api/path-plans-export', { pathPlanIds: [planId], format: 'dxf' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('a share code opens its plan and nothing else, until revoked', async () => {
    const other = await a.c.post('/api/path-plans/upsert', {
      plan: { ...(await a.c.get(`/api/path-plans-normalized/${planId}`)).json, pathPlanId: uuidv7() },
    });
    expectOk(other, 201);
    const s = await a.c.post('/api/shares/path-plan', { pathPlanId: planId });
    expectOk(s, 201);
    const days = (Date.parse(s.json.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const anon = await call(srv.url, `/api/shares/${s.json.code}/path-plans-normalized/${planId}`);
    expectOk(anon);
    expect(anon.json.pathPlanId).toBe(planId);
    expect((await call(srv.url, `/api/shares/${s.json.code}`)).json).toMatchObject({ pathPlanIds: [planId] });
    // The code opens nothing else: another plan of the same company, the authenticated endpoints.
    expectError(
      await call(srv.url, `/api/shares/${s.json.code}/path-plans-normalized/${other.json.pathPlanId}`),
      404,
      'NOT_FOUND',
    );
    expect((await call(srv.url, `/api/path-plans-normalized/${planId}`)).status).toBe(401);
    expect(
      (await call(srv.url, `/api/path-plans-normalized/${planId}`, { headers: { 'x-api-key': s.json.code } }))
        .status,
    ).toBe(401);
    expect((await call(srv.url, `/api/shares/${s.json.shareId}`)).status).toBe(401);
    expectError(
      await call(srv.url, `/api/shares/tls_${'x'.repeat(32)}/path-plans-normalized/${planId}`),
      404,
      'NOT_FOUND',
    );
    // Another company cannot read or revoke the share.
    expectError(await b.c.get(`/api/shares/${s.json.shareId}`), 404, 'NOT_FOUND');
    expectError(await b.c.del(`/api/shares/${s.json.shareId}`), 404, 'NOT_FOUND');
    expectError(await b.c.post('/api/shares/path-plan', { pathPlanId: planId }), 404, 'NOT_FOUND');
    expectOk(await a.c.del(`/api/shares/${s.json.shareId}`), 204);
    expectError(
      await call(srv.url, `/api/shares/${s.json.code}/path-plans-normalized/${planId}`),
      404,
      'NOT_FOUND',
    );
    expect((await a.c.get(`/api/shares/${s.json.shareId}`)).json.active).toBe(false);
    const short = await a.c.post('/api/shares/path-plan', { pathPlanId: planId, expiresInDays: 1 });
    expect((Date.parse(short.json.expiresAt) - Date.now()) / 86_400_000).toBeLessThanOrEqual(1);
  });

  it('keeps every new endpoint to its company: another company’s ids answer 404', async () => {
    const zone = (await a.c.get(`/api/path-plans-normalized/${planId}`)).json.zones[0];
    const gid = (await a.c.post(`/api/companies/${a.companyId}/path-plan-groups`, { name: 'Mine' })).json
      .pathPlanGroupId;
    const job = (
      await a.c.post('/api/bulk-guidance/normalized', { boundaryIds: [boundaryId], request: REQUEST })
    ).json.jobId;
    for (const [method, path, body] of [
      ['GET', `/api/path-plans-normalized/${planId}`],
      ['GET', `/api/path-plans-normalized/${planId}/preview`],
      ['GET', `/api/path-plans/${planId}/geo`],
      ['GET', `/api/path-plans/${planId}/list-item`],
      ['GET', `/api/path-plans/${planId}/rate`],
      ['POST', `/api/path-plans/${planId}/rate`, { rating: 1 }],
      ['POST', `/api/path-plans/${planId}/star`, {}],
      ['POST', '/api/path-plans/archive', { pathPlanIds: [planId] }],
      ['POST', '/api/path-plans/csv', { pathPlanIds: [planId] }],
      ['DELETE', `/api/path-plans/${planId}`],
      [
        'POST',
        `/api/path-plan-zones/${zone.zoneId}/geometry-groups/${zone.geometryGroups[0].geometryGroupId}/set-active`,
      ],
      ['GET', `/api/path-plan-groups/path-plans/${planId}`],
      ['GET', `/api/path-plan-groups/${gid}`],
      ['DELETE', `/api/path-plan-groups/${gid}`],
      ['POST', `/api/path-plan-groups/${gid}/add-plans`, { pathPlanIds: [planId] }],
      ['POST', `/api/path-plan-groups/${gid}/ungroup-plan/${planId}`],
      ['DELETE', `/api/path-plan-groups/${gid}/delete-plans`, { pathPlanIds: [planId] }],
      ['POST', '/api/path-plan-groups/group-plans', { name: 'x', pathPlanIds: [planId] }],
      ['POST', `/api/companies/${a.companyId}/path-plan-groups`, { name: 'x' }],
      ['GET', `/api/companies/${a.companyId}/path-plan-groups/names`],
      ['POST', `/api/companies/${a.companyId}/path-plan-groups/summary`, {}],
      ['GET', `/api/bulk-guidance/normalized/jobs/${job}`],
      ['GET', `/api/bulk-guidance/jobs/${job}`],
      ['POST', `/api/job/${job}/cancel`],
      ['POST', '/api/path-plans-export', { pathPlanIds: [planId], format: 'geojson' }],
    ] as [string, string, unknown?][]) {
      const ans = await b.c.call(path, { method, body });
      expectError(ans, 404, 'NOT_FOUND');
    }
    // B's upsert of A's plan id must not touch A's plan.
    const full = (await a.c.get(`/api/path-plans-normalized/${planId}`)).json;
    expectError(
      await b.c.post('/api/path-plans/upsert', { plan: { ...full, pathPlanName: 'stolen' } }),
      404,
      'NOT_FOUND',
    );
    expect((await a.c.get(`/api/path-plans-normalized/${planId}`)).json.pathPlanName).not.toBe('stolen');
    // B's bulk job over A's boundary is refused as an unknown boundary would be.
    expectError(
      await b.c.post('/api/bulk-guidance/normalized', { boundaryIds: [boundaryId], request: REQUEST }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('guidance stages and routing jobs', () => {
  type Part = {
    geometryPartType: string;
    geometry: { coordinates: number[][] };
    headlandDetail?: unknown;
    sequence?: number;
  };
  const partsOf = (model: { zones: { geometryGroups: { isActive: boolean; geometryParts: Part[] }[] }[] }) =>
    model.zones.flatMap((z) => z.geometryGroups.filter((g) => g.isActive).flatMap((g) => g.geometryParts));
  const types = (parts: Part[]) => [...new Set(parts.map((p) => p.geometryPartType))].sort();

  it('plans headlands only, then a path plan inside those headlands, then post-processes and routes it', async () => {
    const a = await account();
    const { boundaryId } = await addBoundary(a.companyId, 6, 13, 'Headland field');
    // Headlands only: the passes and the workable area, no tracks, no route.
    const hl = await a.c.post('/api/guidance/headlands', { boundaryId, request: REQUEST });
    expectOk(hl, 202);
    expect(hl.headers.get('location')).toBe(`/api/guidance/jobs/${hl.json.jobId}`);
    const hlDone = await waitForJob(a.c, `/api/guidance/jobs/${hl.json.jobId}`);
    expect(hlDone.json).toMatchObject({ kind: 'headlands', status: 'completed', progress: 1, errors: [] });
    const headlandsId = hlDone.json.pathPlanIds[0];
    const headlands = (await a.c.get(`/api/path-plans-normalized/${headlandsId}`)).json;
    const hlParts = partsOf(headlands);
    expect(types(hlParts)).toEqual(['ExteriorHeadlandPass']);
    expect(hlParts).toHaveLength(2);
    expect(headlands.numberOfTracks).toBe(0);
    expect(headlands.zones[0].innerBoundaries.coordinates.length).toBeGreaterThan(0);
    expect(headlands.area).toBeGreaterThan(50_000);

    // A path plan from those headlands: a new plan whose headland passes are the same lines.
    const pp = await a.c.post('/api/guidance/pathplan', {
      pathPlanId: headlandsId,
      routeOptions: { algorithm: 'boustrophedon' },
    });
    expectOk(pp, 202);
    const ppDone = await waitForJob(a.c, `/api/guidance/jobs/${pp.json.jobId}`);
    expect(ppDone.json).toMatchObject({ kind: 'pathplan', status: 'completed', errors: [] });
    const planId = ppDone.json.pathPlanIds[0];
    expect(planId).not.toBe(headlandsId);
    const plan = (await a.c.get(`/api/path-plans-normalized/${planId}`)).json;
    const planParts = partsOf(plan);
    expect(types(planParts)).toEqual(expect.arrayContaining(['GuidanceTrack', 'RouteTrack', 'Turn']));
    expect(plan.numberOfTracks).toBeGreaterThan(5);
    const passes = (ps: Part[]) =>
      ps
        .filter((p) => p.geometryPartType === 'ExteriorHeadlandPass' && p.sequence === undefined)
        .map((p) => p.geometry.coordinates);
    // The same lines, to well under 1 mm (the zones come back through 9-decimal WGS84).
    const same = passes(planParts);
    const given = passes(hlParts);
    expect(same.map((l) => l.length)).toEqual(given.map((l) => l.length));
    same.flat().forEach((p, i) => {
      const q = given.flat()[i]!;
      expect(Math.abs(p[0]! - q[0]!)).toBeLessThan(1e-8);
      expect(Math.abs(p[1]! - q[1]!)).toBeLessThan(1e-8);
    });
    // The new plan belongs to the same field and boundary.
    const ids = (await a.c.get(`/api/boundaries/${boundaryId}/path-plan-ids`)).json;
    expect(JSON.stringify(ids)).toContain(planId);

    // Post-processing routes the plan again in place under new route options.
    const before = (await a.c.get(`/api/path-plans/${planId}/list-item`)).json;
    const post = await a.c.post('/api/guidance/postprocess', {
      pathPlanId: planId,
      routeOptions: { algorithm: 'snake' },
    });
    expectOk(post, 202);
    expect(post.headers.get('location')).toBe(`/api/guidance/post-processing-jobs/${post.json.jobId}`);
    const postDone = await waitForJob(a.c, `/api/guidance/post-processing-jobs/${post.json.jobId}`);
    expect(postDone.json).toMatchObject({ kind: 'postprocess', status: 'completed', pathPlanIds: [planId] });
    const after = (await a.c.get(`/api/path-plans-normalized/${planId}`)).json;
    expect(after.numberOfTracks).toBe(plan.numberOfTracks);
    expect(JSON.stringify(partsOf(after))).not.toBe(JSON.stringify(planParts));
    expect(before).toBeTruthy();

    // The deprecated POST /api/routes is the same as a job polled at /api/routes/jobs.
    const rj = await a.c.post('/api/routes', { pathPlanId: planId });
    expectOk(rj, 202);
    const rjDone = await waitForJob(a.c, `/api/routes/jobs/${rj.json.jobId}`);
    expect(rjDone.json).toMatchObject({ kind: 'route', status: 'completed', pathPlanIds: [planId] });
    // Each poll answers only its own kind of job.
    expectError(await a.c.get(`/api/routes/jobs/${post.json.jobId}`), 404, 'NOT_FOUND');
    expectError(await a.c.get(`/api/guidance/post-processing-jobs/${rj.json.jobId}`), 404, 'NOT_FOUND');
    // The alias path queues the same kind of job.
    const alias = await a.c.post('/api/guidance-post-process', { pathPlanId: planId });
    expectOk(alias, 202);
    expect(
      (await waitForJob(a.c, `/api/guidance/post-processing-jobs/${alias.json.jobId}`)).json.status,
    ).toBe('completed');
  });

  it('refuses bad input before queueing, and records a plan that cannot be routed as the item’s error', async () => {
    const a = await account();
    const other = await account();
    const { boundaryId } = await addBoundary(a.companyId, 4, 14, 'Checked field');
    const bad = await a.c.post('/api/guidance/headlands', {
      boundaryId,
      request: { ...REQUEST, exteriorHeadlandPasses: -1 },
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.text).toContain('exteriorHeadlandPasses');
    expectError(
      await a.c.post('/api/guidance/pathplan', { pathPlanId: 'not-a-uuid' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await a.c.post('/api/guidance/postprocess', { pathPlanId: uuidv7(), routeOptions: { skipCount: -1 } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await a.c.post('/api/guidance/postprocess', { pathPlanId: uuidv7(), routeOptions: { algorithm: 'x' } }),
      422,
      'OPTION_NOT_SUPPORTED',
    );
    expectError(await a.c.post('/api/routes', { pathPlanId: uuidv7() }), 404, 'NOT_FOUND');
    expectError(
      await a.c.post('/api/guidance/pathplan', { pathPlanId: uuidv7(), junk: 1 }),
      400,
      'VALIDATION_ERROR',
    );
    // Another company's boundary and plan are not found.
    expectError(
      await other.c.post('/api/guidance/headlands', { boundaryId, request: REQUEST }),
      404,
      'NOT_FOUND',
    );
    const hl = await a.c.post('/api/guidance/headlands', { boundaryId, request: REQUEST });
    const done = await waitForJob(a.c, `/api/guidance/jobs/${hl.json.jobId}`);
    const headlandsId = done.json.pathPlanIds[0];
    expectError(await other.c.post('/api/guidance/pathplan', { pathPlanId: headlandsId }), 404, 'NOT_FOUND');
    expectError(
      await other.c.post('/api/guidance/postprocess', { pathPlanId: headlandsId }),
      404,
      'NOT_FOUND',
    );
    // A headlands plan has no tracks to route: the job completes with the item's error.
    const rj = await a.c.post('/api/guidance/postprocess', { pathPlanId: headlandsId });
    const rjDone = await waitForJob(a.c, `/api/guidance/post-processing-jobs/${rj.json.jobId}`);
    expect(rjDone.json.status).toBe('completed');
    expect(rjDone.json.pathPlanIds).toEqual([]);
    expect(rjDone.json.errors).toEqual([
      {
        boundaryId: headlandsId,
        errorCode: 'NOTHING_TO_ROUTE',
        message: expect.stringContaining('pathplan'),
      },
    ]);
    // The synchronous routing endpoints say the same.
    const zoneId = (await a.c.get(`/api/path-plans-normalized/${headlandsId}`)).json.zones[0].zoneId;
    expectError(
      await a.c.post('/api/routes/normalized', [{ pathPlanZoneId: zoneId }]),
      422,
      'NOTHING_TO_ROUTE',
    );
  });
});

describe('route debugging', () => {
  it('answers the route nodes, their distance matrix, demands, the optimizer’s result and stage times', async () => {
    const a = await account();
    const body = {
      boundary: rectangleField(3, 15, 55),
      equipment: { swathWidth: 6, minTurningRadius: 6, applicationRate: 200 },
      exteriorHeadlandPasses: 1,
      routeOptions: { algorithm: 'optimized', maxOptimizerTime: 2 },
    };
    const ans = await a.c.post('/api/routes/debug', body);
    expectOk(ans);
    const { zones, statistics } = ans.json;
    expect(zones).toHaveLength(1);
    const z = zones[0];
    const n = statistics.tracks;
    expect(n).toBeGreaterThan(5);
    expect(statistics.nodes).toBe(2 * n);
    expect(z.nodes).toHaveLength(2 * n);
    expect(z.distanceMatrix).toHaveLength(2 * n);
    for (const [i, row] of z.distanceMatrix.entries()) {
      expect(row).toHaveLength(2 * n);
      // Two ends of one track are not connected; every other pair of a rectangle is.
      expect(row[i]).toBeNull();
      expect(row[i ^ 1]).toBeNull();
      expect(row.filter((d: number | null) => d === null)).toHaveLength(2);
    }
    expect(z.unreachablePairs).toBe(0);
    // A U-turn to the neighbouring track is at least a half circle of the turning radius.
    expect(z.distanceMatrix[0][3]).toBeGreaterThanOrEqual(Math.PI * 6 - 0.01);
    // Demands: track length x swath; volume at 200 l/ha.
    const node = z.nodes[2];
    expect(node).toMatchObject({ nodeIndex: 2, trackIndex: 1, end: 'a' });
    expect(node.demandVolume).toBeCloseTo((node.demandArea * 200) / 10_000, 2);
    expect(z.nodes[3].demandArea).toBe(node.demandArea);
    // The optimizer's best order enters every track once and costs no more than the plain order.
    expect(new Set(z.optimizer.order.map((v: number) => v >> 1)).size).toBe(n);
    expect(z.optimizer.cost).toBeLessThanOrEqual(z.optimizer.constructions.boustrophedon + 1e-6);
    expect(z.optimizer.evaluations).toBeGreaterThan(0);
    expect(statistics.timesMs.total).toBeGreaterThan(0);
    expect(statistics.timesMs.matrix).toBeGreaterThan(0);
    expect(statistics.connectionsMeasured).toBe(2 * n * (2 * n - 2));
  });

  it('refuses bad input with the member named, and fields with too many tracks', async () => {
    const a = await account();
    const bad = await a.c.post('/api/routes/debug', {
      boundary: rectangleField(3, 15, 55),
      equipment: { swathWidth: -6 },
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.text).toContain('/equipment/swathWidth');
    expectError(
      await a.c.post('/api/routes/debug', { equipment: { swathWidth: 6 } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await a.c.post('/api/routes/debug', {
        boundary: rectangleField(200, 15, 55),
        equipment: { swathWidth: 3 },
      }),
      422,
      'PLAN_TOO_COMPLEX',
    );
  });
});

describe('route construction', () => {
  it('drives a stored zone’s tracks in the order given (track or debug node order), and refuses bad orders', async () => {
    const a = await account();
    const { boundaryId } = await addBoundary(a.companyId, 3, 16, 'Ordered field');
    const post = await a.c.post('/api/guidance', { boundaryId, request: REQUEST });
    const done = await waitForJob(a.c, `/api/guidance/jobs/${post.json.jobId}`);
    const planId = done.json.pathPlanIds[0];
    const model = (await a.c.get(`/api/path-plans-normalized/${planId}`)).json;
    const zone = model.zones[0];
    const group = zone.geometryGroups.find((g: { isActive: boolean }) => g.isActive);
    const tracks = group.geometryParts
      .filter((p: { geometryPartType: string }) => p.geometryPartType === 'GuidanceTrack')
      .map((p: { trackDetail: { trackIndex: number } }) => p.trackDetail.trackIndex);
    expect(tracks.length).toBeGreaterThan(4);
    // Reverse order, every track driven from its end b.
    const order = [...tracks].reverse().map((t: number) => ({ trackIndex: t, forward: false }));
    const ans = await a.c.post('/api/routes/construct', { pathPlanZoneId: zone.zoneId, trackOrder: order });
    expectOk(ans);
    const routeTracks = ans.json.geometryGroup.geometryParts
      .filter((p: { geometryPartType: string }) => p.geometryPartType === 'RouteTrack')
      .sort((x: { sequence: number }, y: { sequence: number }) => x.sequence - y.sequence);
    expect(routeTracks.map((p: { trackDetail: { trackIndex: number } }) => p.trackDetail.trackIndex)).toEqual(
      order.map((o: { trackIndex: number }) => o.trackIndex),
    );
    // The stored plan carries the new route.
    const after = (await a.c.get(`/api/path-plans-normalized/${planId}`)).json;
    expect(JSON.stringify(after.zones[0].geometryGroups)).toContain(routeTracks[0].geometryPartId);

    // The node order of POST /api/routes/debug for the same field: node 2t enters track t at end a.
    const nodeOrder = tracks.map((t: number, i: number) => 2 * t + (i % 2));
    const byNodes = await a.c.post('/api/routes/construct', { pathPlanZoneId: zone.zoneId, nodeOrder });
    expectOk(byNodes);

    // Bad orders: a track twice, a track missing, both forms, another company's zone.
    const twice = await a.c.post('/api/routes/construct', {
      pathPlanZoneId: zone.zoneId,
      trackOrder: [...order.slice(1), order[1]],
    });
    expectError(twice, 400, 'VALIDATION_ERROR');
    expect(twice.json.errors[0].path).toBe('/trackOrder');
    expectError(
      await a.c.post('/api/routes/construct', { pathPlanZoneId: zone.zoneId, nodeOrder: nodeOrder.slice(1) }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await a.c.post('/api/routes/construct', { pathPlanZoneId: zone.zoneId, nodeOrder, trackOrder: order }),
      400,
      'VALIDATION_ERROR',
    );
    const b = await account();
    expectError(
      await b.c.post('/api/routes/construct', { pathPlanZoneId: zone.zoneId, nodeOrder }),
      404,
      'NOT_FOUND',
    );
  });
});
