/**
 * Field operations over HTTP (PGlite and PostgreSQL): a simulated drive of a
 * stored plan (positions sampled from its route at 10 Hz with 0.3 m of
 * noise) logged in batches finds the plan's covered area within 1 %; a drive
 * leaving out three tracks reports them missed; batches are idempotent per
 * time and accepted in any order; status and notes; lists, table, exports;
 * validation; isolation (another company's operations, fields and ids
 * answer 404).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricFrame } from '../../core/geometry/projection.ts';
import { type DrivenPoint, simulateDrive } from '../../test/helpers/simulated-drive.ts';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

const LON = 10.2;
const LAT = 55.3;
const SWATH = 12;
const T0 = Date.parse('2026-05-04T06:00:00Z');

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let kb: Awaited<ReturnType<typeof testKey>>;
let fieldId: string;
let boundaryId: string;
let planId: string;
// biome-ignore lint/suspicious/noExplicitAny: the stored model is inspected freely
let model: any;
let bField: string;

interface RoutePart {
  type: string;
  trackIndex?: number;
  working: boolean;
  coords: number[][];
}
let route: RoutePart[];
const frame = createMetricFrame(LON, LAT);

/** Positions of a drive of the route (parts mapped by `edit`), as the log's JSON. */
function drive(edit: (p: RoutePart) => boolean = (p) => p.working, seed = 1) {
  const parts = route.map((p) => ({
    working: edit(p),
    points: p.coords.map(([lon, lat]) => frame.toMetric(lon, lat)),
  }));
  return simulateDrive(parts, { hz: 10, sigma: 0.3, seed }).map((p: DrivenPoint) => {
    const [lon, lat] = frame.toLonLat(p);
    return { t: new Date(T0 + Math.round(p.t * 1000)).toISOString(), lon, lat, working: p.working };
  });
}

function batches<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

async function start(c: Client, extra: Record<string, unknown> = {}) {
  const ans = await c.post('/api/field-operations/start', {
    fieldId,
    boundaryId,
    pathPlanId: planId,
    operationType: 'spraying',
    startedAt: new Date(T0).toISOString(),
    ...extra,
  });
  expectOk(ans, 201);
  return ans.json.fieldOpId as string;
}

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey({ credits: 1000 });
  kb = await testKey({ credits: 1000 });
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  const saveField = async (c: Client, k: typeof ka, name: string) => {
    const growerId = (await c.post(`/api/companies/${k.companyId}/growers`, { name: 'G' })).json.growerId;
    const farmId = (await c.post(`/api/growers/${growerId}/farms`, { name: 'F' })).json.farmId;
    const ans = await c.post('/api/fields/save', {
      farmId,
      name,
      boundary: rectangleField(8, LON, LAT).coordinates,
    });
    expectOk(ans, 201);
    return ans.json;
  };
  const saved = await saveField(a, ka, 'North');
  fieldId = saved.field.fieldId;
  boundaryId = (await a.get(`/api/fields/${fieldId}/boundaries`)).json[0].boundaryId;
  bField = (await saveField(b, kb, 'Theirs')).field.fieldId;
  const direct = await a.post('/api/path-plans/direct', {
    boundary: rectangleField(8, LON, LAT),
    equipment: { swathWidth: SWATH, minTurningRadius: 6 },
    exteriorHeadlandPasses: 2,
  });
  expectOk(direct);
  const stored = await a.post('/api/path-plans/upsert', { plan: direct.json, boundaryId });
  expectOk(stored, 201);
  planId = stored.json.pathPlanId;
  model = (await a.get(`/api/path-plans-normalized/${planId}`)).json;
  const zone = model.zones[0];
  const group = zone.geometryGroups.find(
    (g: { geometryGroupId: string }) => g.geometryGroupId === zone.activeGeometryGroupId,
  );
  route = group.geometryParts
    .filter((p: { sequence?: number }) => p.sequence !== undefined)
    .sort((p: { sequence: number }, q: { sequence: number }) => p.sequence - q.sequence)
    .map(
      (p: {
        geometryPartType: string;
        working: boolean;
        trackDetail?: { trackIndex: number };
        geometry: { coordinates: number[][] };
      }) => ({
        type: p.geometryPartType,
        trackIndex: p.trackDetail?.trackIndex,
        working: p.working,
        coords: p.geometry.coordinates,
      }),
    );
});
afterAll(async () => {
  await srv?.close();
});

describe('field operations', () => {
  it('measures a simulated drive of the plan: covered area within 1 % of the plan’s, every track driven', async () => {
    const id = await start(a);
    const points = drive();
    const times: number[] = [];
    for (const batch of batches(points, 10_000)) {
      const t0 = performance.now();
      const ans = await a.post(`/api/field-operations/${id}/log`, { points: batch });
      times.push(performance.now() - t0);
      expectOk(ans);
      expect(ans.json.accepted).toBe(batch.length);
    }
    console.log(
      `field operation log: ${points.length} points in ${times.length} calls, ms per call ${times.map((t) => t.toFixed(0)).join(' ')}`,
    );
    const list = await a.get(`/api/fields/${fieldId}/operations`);
    expectOk(list);
    const op = list.json.items.find((o: { fieldOpId: string }) => o.fieldOpId === id);
    expect(op).toMatchObject({ status: 'inProgress', pointCount: points.length, pathPlanId: planId });
    const planned = model.stats.coveredArea as number;
    expect(Math.abs(op.coveredArea - planned) / planned).toBeLessThan(0.01);
    expect(op.coveredPercent).toBeCloseTo((100 * op.coveredArea) / op.fieldArea, 6);
    expect(op.missedArea).toBeCloseTo(op.fieldArea - op.coveredArea, 3);
    expect(op.trackSummary).toMatchObject({ driven: model.numberOfTracks, partial: 0, missed: 0 });
    expect(op.trackSummary.rmsError).toBeGreaterThan(0.2);
    expect(op.trackSummary.rmsError).toBeLessThan(0.4);
    const detail = await a.get(`/api/fields/${fieldId}/operations/${id}`);
    expectOk(detail);
    expect(detail.json.tracks).toHaveLength(model.numberOfTracks);
    for (const t of detail.json.tracks) expect(t.rmsError).toBeLessThan(0.4);
  });

  it('reports three tracks left out as missed, with their ground', async () => {
    const trackIdx = route.filter((p) => p.type === 'RouteTrack').map((p) => p.trackIndex!);
    const skip = new Set([trackIdx[2], trackIdx[5], trackIdx[8]]);
    const id = await start(a);
    const points = drive((p) => p.working && !(p.type === 'RouteTrack' && skip.has(p.trackIndex!)), 2);
    for (const batch of batches(points, 10_000))
      expectOk(await a.post(`/api/field-operations/${id}/log`, { points: batch }));
    const detail = (await a.get(`/api/fields/${fieldId}/operations/${id}`)).json;
    expect(detail.trackSummary).toMatchObject({ missed: 3, partial: 0 });
    const missed = detail.tracks.filter((t: { status: string }) => t.status === 'missed');
    expect(missed.map((t: { trackIndex: number }) => t.trackIndex).sort()).toEqual([...skip].sort());
    const missedLength = missed.reduce((s: number, t: { length: number }) => s + t.length, 0);
    const extra = detail.missedArea - model.stats.missedArea;
    expect(extra).toBeGreaterThan(0.95 * missedLength * SWATH);
    expect(extra).toBeLessThan(1.05 * missedLength * SWATH);
  });

  it('takes batches in any order and once per point time', async () => {
    const points = drive(undefined, 3).filter((_, i) => i % 4 === 0);
    const inOrder = await start(a);
    for (const batch of batches(points, 2_000))
      expectOk(await a.post(`/api/field-operations/${inOrder}/log`, { points: batch }));
    const shuffled = await start(a);
    const parts = batches(points, 2_000).reverse();
    for (const batch of parts)
      expectOk(await a.post(`/api/field-operations/${shuffled}/log`, { points: [...batch].reverse() }));
    const again = await a.post(`/api/field-operations/${shuffled}/log`, { points: parts[1] });
    expectOk(again);
    expect(again.json).toMatchObject({ accepted: 0, duplicates: parts[1].length });
    const one = (await a.get(`/api/fields/${fieldId}/operations/${inOrder}`)).json;
    const two = (await a.get(`/api/fields/${fieldId}/operations/${shuffled}`)).json;
    expect(two.pointCount).toBe(points.length);
    expect(two.coveredArea).toBeCloseTo(one.coveredArea, 3);
    expect(two.tracks).toEqual(one.tracks);
    // Overlapping with the stored ones and with itself: only the new time counts.
    const late = { ...points[0], t: new Date(T0 - 1000).toISOString() };
    const mixed = await a.post(`/api/field-operations/${shuffled}/log`, { points: [points[5], late, late] });
    expect(mixed.json).toMatchObject({ accepted: 1, duplicates: 2 });
    expect(mixed.json.operation).toMatchObject({ pointCount: points.length + 1, firstPointAt: late.t });
  });

  it('ends an operation, keeps notes, refuses positions afterwards, honours If-Match', async () => {
    const id = await start(a, { notes: 'wind from the west' });
    const ended = await a.post(`/api/field-operations/${id}`, { status: 'completed', notes: 'done' });
    expectOk(ended);
    expect(ended.json).toMatchObject({ status: 'completed', notes: 'done', etag: '"2"' });
    expect(Date.parse(ended.json.endedAt)).toBeGreaterThan(Date.now() - 60_000);
    expectError(
      await a.post(`/api/field-operations/${id}/log`, { points: drive().slice(0, 10) }),
      409,
      'CONFLICT',
    );
    expectError(
      await a.post(`/api/field-operations/${id}`, { notes: 'x' }, { headers: { 'if-match': '"1"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expectError(
      await a.post(`/api/field-operations/${id}`, { status: 'inProgress' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('lists, pages and filters a company’s operations; exports CSV and GeoJSON', async () => {
    const cancelled = await start(a, { operationType: 'seeding', startedAt: '2026-03-01T08:00:00Z' });
    expectOk(await a.post(`/api/field-operations/${cancelled}`, { status: 'cancelled' }));
    const all = await a.get(`/api/companies/${ka.companyId}/operations?limit=2`);
    expectOk(all);
    expect(all.json.items).toHaveLength(2);
    expect(all.json.total).toBeGreaterThanOrEqual(5);
    const table = `/api/companies/${ka.companyId}/field-operations/table`;
    const seeding = await a.post(table, { operationTypes: ['seeding'] });
    expect(seeding.json.items.map((o: { fieldOpId: string }) => o.fieldOpId)).toEqual([cancelled]);
    expect((await a.post(table, { statuses: ['cancelled'] })).json.total).toBe(1);
    expect((await a.post(table, { to: '2026-04-01T00:00:00Z' })).json.total).toBe(1);
    const may = await a.post(table, {
      from: '2026-04-01T00:00:00Z',
      statuses: ['inProgress'],
      fieldIds: [fieldId],
    });
    expect(may.json.items.every((o: { status: string }) => o.status === 'inProgress')).toBe(true);
    const paged = await a.post(table, { offset: 1, limit: 1 });
    expect(paged.json.items[0].fieldOpId).toBe(all.json.items[1].fieldOpId);
    expect(
      (await a.get(`/api/fields/${fieldId}/operations?status=cancelled&operationType=seeding`)).json.total,
    ).toBe(1);

    const exp = `/api/companies/${ka.companyId}/field-operations/export`;
    const csv = await a.post(exp, { format: 'csv', statuses: ['inProgress'] });
    expectOk(csv);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = csv.text.trim().split('\r\n');
    expect(rows[0].split(',')).toContain('coveredArea');
    expect(rows.length - 1).toBe((await a.post(table, { statuses: ['inProgress'] })).json.total);

    const first = (await a.post(table, { statuses: ['inProgress'], limit: 1000 })).json.items.at(-1);
    const gj = await a.post(exp, { format: 'geojson', fieldOpIds: [first.fieldOpId] });
    expectOk(gj);
    expect(gj.headers.get('content-type')).toMatch(/^application\/geo\+json/);
    const covered = gj.json.features.find(
      (f: { properties: { kind: string } }) => f.properties.kind === 'covered',
    );
    expect(covered.geometry.type).toBe('MultiPolygon');
    expect(covered.properties.coveredArea).toBeCloseTo(first.coveredArea, 3);
    const lon = covered.geometry.coordinates[0][0][0][0];
    expect(Math.abs(lon - LON)).toBeLessThan(0.01);
    expect(
      gj.json.features.some((f: { geometry: { type: string } }) => f.geometry.type === 'MultiLineString'),
    ).toBe(true);
  });

  it('refuses bad input naming the field', async () => {
    const id = await start(a);
    const bad = await a.post(`/api/field-operations/${id}/log`, {
      points: [{ t: 'yesterday', lon: LON, lat: LAT, working: true }],
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(bad.json.errors)).toContain('/points/0/t');
    expectError(
      await a.post(`/api/field-operations/${id}/log`, {
        points: [{ t: new Date().toISOString(), lon: 200, lat: 0, working: true }],
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await a.post(`/api/field-operations/${id}/log`, { points: [] }), 400, 'VALIDATION_ERROR');
    const noSwath = await a.post('/api/field-operations/start', { fieldId, boundaryId, operationType: 'x' });
    expectError(noSwath, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(noSwath.json.errors)).toContain('/swathWidth');
    expectOk(
      await a.post('/api/field-operations/start', { fieldId, boundaryId, operationType: 'x', swathWidth: 6 }),
      201,
    );
    const exp = await a.post(`/api/companies/${ka.companyId}/field-operations/export`, { format: 'pdf' });
    expectError(exp, 400, 'VALIDATION_ERROR');
  });

  it("answers 404 to another company's operations, fields and ids, and changes nothing", async () => {
    const id = await start(a);
    const pts = drive().slice(0, 50);
    expectError(await b.post(`/api/field-operations/${id}/log`, { points: pts }), 404, 'NOT_FOUND');
    expectError(await b.post(`/api/field-operations/${id}`, { status: 'cancelled' }), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/fields/${fieldId}/operations/${id}`), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/fields/${fieldId}/operations`), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/companies/${ka.companyId}/operations`), 404, 'NOT_FOUND');
    expectError(await b.post(`/api/companies/${ka.companyId}/field-operations/table`, {}), 404, 'NOT_FOUND');
    expectError(
      await b.post(`/api/companies/${kb.companyId}/field-operations/export`, {
        format: 'csv',
        fieldOpIds: [id],
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await b.post(`/api/companies/${kb.companyId}/field-operations/table`, { fieldIds: [fieldId] }),
      404,
      'NOT_FOUND',
    );
    // B cannot start on A's field, nor A on B's, nor link A's plan to B's field.
    expectError(
      await b.post('/api/field-operations/start', { fieldId, boundaryId, operationType: 'x', swathWidth: 6 }),
      404,
      'NOT_FOUND',
    );
    const bBoundary = (await b.get(`/api/fields/${bField}/boundaries`)).json[0].boundaryId;
    expectError(
      await b.post('/api/field-operations/start', {
        fieldId: bField,
        boundaryId: bBoundary,
        pathPlanId: planId,
        operationType: 'x',
        swathWidth: 6,
      }),
      404,
      'NOT_FOUND',
    );
    const wrongBoundary = await a.post('/api/field-operations/start', {
      fieldId,
      boundaryId: bBoundary,
      operationType: 'x',
      swathWidth: 6,
    });
    expectError(wrongBoundary, 404, 'NOT_FOUND');
    expect((await b.get(`/api/companies/${kb.companyId}/operations`)).json.total).toBe(0);
    const mine = (await a.get(`/api/fields/${fieldId}/operations/${id}`)).json;
    expect(mine).toMatchObject({ status: 'inProgress', pointCount: 0 });
  });

  it('is in the OpenAPI document with named schemas', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    for (const name of [
      'FieldOperation',
      'FieldOperationDetail',
      'FieldOperationPage',
      'StartFieldOperationRequest',
      'LogFieldOperationRequest',
      'LogFieldOperationResponse',
      'UpdateFieldOperationRequest',
      'FieldOperationTableRequest',
      'FieldOperationExportRequest',
    ])
      expect(doc.components.schemas[name], name).toBeDefined();
    for (const [path, method] of [
      ['/api/field-operations/start', 'post'],
      ['/api/field-operations/{fieldOpId}/log', 'post'],
      ['/api/field-operations/{fieldOpId}', 'post'],
      ['/api/fields/{fieldId}/operations', 'get'],
      ['/api/fields/{fieldId}/operations/{opId}', 'get'],
      ['/api/companies/{companyId}/operations', 'get'],
      ['/api/companies/{companyId}/field-operations/table', 'post'],
      ['/api/companies/{companyId}/field-operations/export', 'post'],
    ])
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });
});
