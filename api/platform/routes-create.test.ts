/**
 * Routes through the job system over HTTP (PGlite and PostgreSQL):
 * POST /api/routes/create runs a routing job for a stored plan (or a
 * guidance job for a stored boundary) and answers the plan when the job is
 * done, else 202 with the job to poll; GET /api/routes/gpx answers one
 * element per route part (LineString working, CurveString not), routing
 * first where asked; validation and isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBoundaries } from '../../bench/seed-boundaries.ts';
import { rectangleField, startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let boundaryId: string;
let planId: string;
const REQUEST = { equipment: { swathWidth: 6, minTurningRadius: 6 }, exteriorHeadlandPasses: 1 };

async function poll(c: Client, path: string) {
  for (let i = 0; i < 600; i++) {
    const j = await c.get(path);
    expectOk(j);
    if (j.json.status !== 'queued' && j.json.status !== 'running') return j.json;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${path} did not finish`);
}

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  const ka = await testKey({ credits: 1000 });
  const kb = await testKey({ credits: 1000 });
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  const [bd] = await seedBoundaries(await testStore(), ka.companyId, [
    { name: 'North', geometry: rectangleField(4, 12, 55) },
  ]);
  boundaryId = bd!.boundaryId;
  const made = await a.post('/api/routes/create', { boundaryId, request: REQUEST, waitSeconds: 120 });
  expectOk(made);
  planId = made.json.pathPlanId;
  expect((await poll(a, `/api/guidance/jobs/${made.headers.get('x-job-id')}`)).status).toBe('completed');
});
afterAll(async () => {
  await srv?.close();
});

describe('POST /api/routes/create', () => {
  it('routes a stored boundary as a guidance job and a stored plan as a routing job, answering the plan', async () => {
    expect(planId).toMatch(/^[0-9a-f-]{36}$/);
    const before = (await a.get(`/api/path-plans-normalized/${planId}`)).json;
    const routed = await a.post('/api/routes/create', {
      pathPlanId: planId,
      routeOptions: { algorithm: 'snake' },
      waitSeconds: 120,
    });
    expectOk(routed);
    expect(routed.json.pathPlanId).toBe(planId);
    expect(routed.json.zones[0].activeGeometryGroupId).toBe(before.zones[0].activeGeometryGroupId);
    const job = await poll(a, `/api/routes/jobs/${routed.headers.get('x-job-id')}`);
    expect(job).toMatchObject({ kind: 'route', status: 'completed', pathPlanIds: [planId] });
  });

  it('answers 202 with the job when it is not done in time, and the job finishes', async () => {
    const pending = await a.post('/api/routes/create', { pathPlanId: planId, waitSeconds: 0 });
    expectOk(pending, 202);
    expect(pending.json.status).toMatch(/^(queued|running)$/);
    expect(pending.headers.get('location')).toBe(`/api/routes/jobs/${pending.json.jobId}`);
    expect(pending.json.pollUrl).toBe(pending.headers.get('location'));
    expect((await poll(a, pending.json.pollUrl)).status).toBe('completed');
  });

  it('refuses bad input naming the field', async () => {
    const both = await a.post('/api/routes/create', { pathPlanId: planId, boundaryId, request: REQUEST });
    expectError(both, 400, 'VALIDATION_ERROR');
    expectError(await a.post('/api/routes/create', {}), 400, 'VALIDATION_ERROR');
    const noRequest = await a.post('/api/routes/create', { boundaryId });
    expectError(noRequest, 400, 'VALIDATION_ERROR');
    expect(noRequest.json.errors[0].path).toBe('/request');
    expectError(
      await a.post('/api/routes/create', { pathPlanId: planId, waitSeconds: 1000 }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await a.post('/api/routes/create', { pathPlanId: planId, routeOptions: { algorithm: 'teleport' } }),
      422,
      'OPTION_NOT_SUPPORTED',
    );
  });

  it("answers 404 to another company's plan and boundary", async () => {
    expectError(await b.post('/api/routes/create', { pathPlanId: planId }), 404, 'NOT_FOUND');
    expectError(await b.post('/api/routes/create', { boundaryId, request: REQUEST }), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/routes/gpx?pathPlanId=${planId}`), 404, 'NOT_FOUND');
  });
});

describe('GET /api/routes/gpx', () => {
  it('answers one element per route part, LineString working and CurveString not, sharing their end points', async () => {
    const gpx = await a.get(`/api/routes/gpx?pathPlanId=${planId}`);
    expectOk(gpx);
    expect(gpx.headers.get('content-type')).toContain('application/gpx+xml');
    const routes = (await a.get(`/api/path-plans/${planId}/routes`)).json;
    const active = routes.find((r: { isActive: boolean }) => r.isActive);
    const trks = gpx.text.split('<trk>').slice(1);
    expect(trks).toHaveLength(active.routeParts.length);
    trks.forEach((t, i) => {
      const type = /<type>([^<]+)<\/type>/.exec(t)![1];
      expect(type).toBe(active.routeParts[i].working ? 'LineString' : 'CurveString');
    });
    expect(gpx.text).toContain('<type>LineString</type>');
    expect(gpx.text).toContain('<type>CurveString</type>');
    const pts = (t: string) =>
      [...t.matchAll(/<trkpt lat="([^"]+)" lon="([^"]+)"/g)].map((m) => `${m[1]},${m[2]}`);
    for (let i = 1; i < trks.length; i++) expect(pts(trks[i])[0]).toBe(pts(trks[i - 1]).at(-1));
  });

  it('routes first when asked, answering 202 while the routing job runs', async () => {
    const pending = await a.get(`/api/routes/gpx?pathPlanId=${planId}&reroute=true&waitSeconds=0`);
    expectOk(pending, 202);
    expect((await poll(a, `/api/routes/jobs/${pending.json.jobId}`)).status).toBe('completed');
    const done = await a.get(`/api/routes/gpx?pathPlanId=${planId}&reroute=true&waitSeconds=120`);
    expectOk(done);
    expect(done.text).toContain('<gpx');
  });

  it('is in the OpenAPI document with named schemas', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    for (const name of ['RouteCreateRequest', 'JobPending'])
      expect(doc.components.schemas[name], name).toBeDefined();
    expect(doc.paths['/api/routes/create'].post.responses['202']).toBeDefined();
    expect(doc.paths['/api/routes/gpx'].get.responses['202']).toBeDefined();
  });
});
