/**
 * The field hierarchy against a really listening server: growers, farms,
 * fields and boundaries (save, several per field, one active, upsert,
 * activate, delete), round trips through GeoJSON, WKT and KML, rings the
 * planner refuses, ETags and stale If-Match (412), company summary, empty
 * and purge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKml } from '../../formats/boundary-kml.ts';
import { parseWkt } from '../../formats/boundary-wkt.ts';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let c: Client;
let companyId: string;

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  const k = await testKey();
  companyId = k.companyId;
  c = client(srv.url, { key: k.key });
});
afterAll(async () => {
  await srv?.close();
});

/** A field of about 6.8 ha near Aarhus with one hole (not closed: the service closes rings). */
const RINGS = [
  [
    [10.1, 56.1],
    [10.105, 56.1],
    [10.105, 56.102],
    [10.1, 56.102],
  ],
  [
    [10.102, 56.1005],
    [10.102, 56.1008],
    [10.1025, 56.1008],
    [10.1025, 56.1005],
  ],
];
const closed = (rings: number[][][]) => rings.map((r) => [...r, r[0]]);

async function farmOf(name = 'North') {
  const g = await c.post(`/api/companies/${companyId}/growers`, { name: `Grower ${name}` });
  expectOk(g, 201);
  const f = await c.post(`/api/growers/${g.json.growerId}/farms`, { name: `Farm ${name}`, archived: false });
  expectOk(f, 201);
  return { growerId: g.json.growerId as string, farmId: f.json.farmId as string };
}

describe('growers and farms', () => {
  it('creates, lists, reads, changes and deletes growers and farms', async () => {
    const g = await c.post(`/api/companies/${companyId}/growers`, { name: 'Hansen', source: 'import' });
    expectOk(g, 201);
    expect(g.json).toMatchObject({
      companyId,
      name: 'Hansen',
      source: 'import',
      archived: false,
      etag: '"1"',
    });
    expect(g.headers.get('etag')).toBe('"1"');
    const d = await c.post(`/api/companies/${companyId}/growers`, { name: 'Defaults' });
    expect(d.json).toMatchObject({ source: 'api', archived: false });

    const list = await c.get(`/api/companies/${companyId}/growers`);
    expect(list.json.map((x: { growerId: string }) => x.growerId)).toEqual(
      expect.arrayContaining([g.json.growerId, d.json.growerId]),
    );
    const farm = await c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'Østergaard' });
    expectOk(farm, 201);
    expect(farm.json).toMatchObject({
      growerId: g.json.growerId,
      companyId,
      name: 'Østergaard',
      source: 'api',
    });

    const detailed = await c.get(`/api/companies/${companyId}/growers/detailed`);
    const hansen = detailed.json.find((x: { growerId: string }) => x.growerId === g.json.growerId);
    expect(hansen.farms.map((f: { farmId: string }) => f.farmId)).toEqual([farm.json.farmId]);
    expect(hansen.contents).toEqual({ farms: 1, fields: 0, boundaries: 0 });
    expect((await c.get(`/api/growers/${g.json.growerId}/farms`)).json).toHaveLength(1);
    expect((await c.get(`/api/companies/${companyId}/farms`)).json.length).toBeGreaterThanOrEqual(1);

    const archived = await c.put(`/api/growers/${d.json.growerId}`, { archived: true });
    expectOk(archived);
    expect(archived.json).toMatchObject({ archived: true, name: 'Defaults', etag: '"2"' });
    const onlyArchived = await c.get(`/api/companies/${companyId}/growers?archived=true`);
    expect(onlyArchived.json.map((x: { growerId: string }) => x.growerId)).toContain(d.json.growerId);
    expect(onlyArchived.json.every((x: { archived: boolean }) => x.archived)).toBe(true);

    // A grower with farms is not deleted without cascade.
    const can = await c.get(`/api/growers/${g.json.growerId}/can-delete`);
    expect(can.json).toMatchObject({ canDelete: false, contents: { farms: 1 } });
    expectError(await c.del(`/api/growers/${g.json.growerId}`), 409, 'GROWER_NOT_EMPTY');
    const canFarm = await c.get(`/api/growers/${g.json.growerId}/farms/${farm.json.farmId}/can-delete`);
    expect(canFarm.json).toMatchObject({ canDelete: true, contents: { fields: 0 } });
    expectOk(await c.del(`/api/growers/${g.json.growerId}?cascade=true`), 204);
    expectError(await c.get(`/api/growers/${g.json.growerId}`), 404, 'NOT_FOUND');
    expectError(await c.get(`/api/farms/${farm.json.farmId}`), 404, 'NOT_FOUND');
  });

  it('refuses bad bodies with the field named', async () => {
    const a = await c.post(`/api/companies/${companyId}/growers`, { name: '', colour: 'red' });
    expectError(a, 400, 'VALIDATION_ERROR');
    const paths = a.json.errors.map((e: { path: string }) => e.path);
    expect(paths).toContain('/name');
    expectError(await c.put(`/api/farms/${crypto.randomUUID()}`, { name: 'x' }), 404, 'NOT_FOUND');
    expectError(await c.get('/api/growers/not-a-uuid'), 400, 'VALIDATION_ERROR');
  });
});

describe('fields and boundaries', () => {
  it('saves a field from rings and reads the same geometry back as JSON, GeoJSON, WKT and KML', async () => {
    const { farmId } = await farmOf('Round trip');
    const saved = await c.post('/api/fields/save', { farmId, name: 'Big Field', boundary: RINGS });
    expectOk(saved, 201);
    const { field, vBoundary } = saved.json;
    expect(field).toMatchObject({ farmId, name: 'Big Field', activeBoundaryId: vBoundary.boundaryId });
    expect(vBoundary).toMatchObject({ fieldId: field.fieldId, active: true, boundary: closed(RINGS) });
    // 0.005° x 0.002° at 56.1° N (310 m x 222 m) minus the hole (28 m x 33 m): about 6.8 ha.
    expect(vBoundary.area).toBeGreaterThan(67_000);
    expect(vBoundary.area).toBeLessThan(69_500);
    expect(field.area).toBe(vBoundary.area);

    const id = vBoundary.boundaryId;
    const v = await c.get(`/api/vboundary/${id}`);
    expect(v.json.boundary).toEqual(closed(RINGS));
    expect(v.headers.get('etag')).toBe(v.json.etag);

    const gj = await c.get(`/api/boundaries/${id}/geojson`);
    expect(gj.headers.get('content-type')).toContain('application/geo+json');
    expect(gj.json.geometry).toEqual({ type: 'Polygon', coordinates: closed(RINGS) });
    expect(gj.json.properties).toMatchObject({
      boundaryId: id,
      fieldId: field.fieldId,
      fieldName: 'Big Field',
    });

    const wkt = await c.get(`/api/boundaries/${id}/wkt`);
    expect(wkt.headers.get('content-type')).toContain('text/plain');
    expect(parseWkt(wkt.text)).toEqual({ type: 'Polygon', coordinates: closed(RINGS) });

    const kml = await c.get(`/api/boundaries/${id}/kml`);
    expect(kml.headers.get('content-type')).toContain('kml');
    const fc = parseKml(kml.text) as { features: { geometry: { coordinates: number[][][] } }[] };
    expect(fc.features).toHaveLength(1);
    expect(fc.features[0].geometry.coordinates.map((r) => r.map((p) => p.slice(0, 2)))).toEqual(
      closed(RINGS),
    );

    const simple = await c.get(`/api/boundaries/${id}/simple`);
    expect(simple.json).toMatchObject({ boundaryId: id, rings: 2, vertices: 8 });
    expect(simple.json.bbox).toEqual([10.1, 56.1, 10.105, 56.102]);
    expect(simple.json.boundary).toBeUndefined();
    const detailed = await c.get(`/api/boundaries/${id}/detailed`);
    expect(detailed.json).toMatchObject({
      fieldName: 'Big Field',
      farmName: 'Farm Round trip',
      growerName: 'Grower Round trip',
    });
    expect(detailed.json.boundary).toEqual(closed(RINGS));
  });

  it('refuses rings the planner cannot use, naming what and where', async () => {
    const { farmId } = await farmOf('Bad rings');
    const bowtie = [
      [
        [10, 56],
        [10.01, 56.01],
        [10.01, 56],
        [10, 56.01],
        [10, 56],
      ],
    ];
    const a = await c.post('/api/fields/save', { farmId, name: 'Bowtie', boundary: bowtie });
    expectError(a, 400, 'FIELD_SELF_INTERSECTION');
    expect(a.json.errors[0].path).toMatch(/^\/boundary/);
    expect(a.json.details.coordinate).toHaveLength(2);

    const projected = [
      [
        [565_000, 6_210_000],
        [565_100, 6_210_000],
        [565_100, 6_210_100],
      ],
    ];
    const b = await c.post('/api/fields/save', { farmId, name: 'UTM', boundary: projected });
    expectError(b, 400, 'FIELD_NOT_LONLAT');
    expect(b.json.errors[0].path).toBe('/boundary/0/0');
    expect(b.json.message).toContain('boundary[0][0]');

    const two = [
      [
        [10, 56],
        [10.01, 56],
      ],
    ];
    const t = await c.post('/api/fields/save', { farmId, name: 'Line', boundary: two });
    expect(t.status).toBe(400);
    expect(t.json.errorCode).toMatch(/^FIELD_/);
    expect(t.json.errors[0].path).toMatch(/^\/boundary\/0/);

    const shape = await c.post('/api/fields/save', { farmId, name: 'x', boundary: [[['a', 'b']]] });
    expectError(shape, 400, 'VALIDATION_ERROR');
    expect(shape.json.errors[0].path).toMatch(/^\/boundary\/0\/0/);
    // Nothing was stored.
    expect((await c.get(`/api/farms/${farmId}/fields-with-boundaries`)).json).toEqual([]);
  });

  it('keeps several boundaries per field, one active: upsert, activate, delete', async () => {
    const { farmId, growerId } = await farmOf('Several');
    const saved = await c.post('/api/fields/save', { farmId, name: 'Many', boundary: RINGS });
    const fieldId = saved.json.field.fieldId;
    const first = saved.json.vBoundary.boundaryId;
    const smaller = [RINGS[0].map(([x, y]) => [x * 0.9999 + 10.1 * 0.0001, y])];

    const added = await c.post('/api/vBoundary/upsert', { fieldId, boundary: smaller, name: '2026 survey' });
    expectOk(added, 201);
    expect(added.json).toMatchObject({ fieldId, active: true, name: '2026 survey' });
    const second = added.json.boundaryId;
    let list = (await c.get(`/api/fields/${fieldId}/boundaries`)).json;
    expect(list.map((b: { boundaryId: string; active: boolean }) => [b.boundaryId, b.active])).toEqual([
      [second, true],
      [first, false],
    ]);
    const inactive = await c.post('/api/vBoundary/upsert', { fieldId, boundary: RINGS, active: false });
    expectOk(inactive, 201);
    expect(inactive.json.active).toBe(false);

    const act = await c.post(`/api/boundaries/${first}/activate`);
    expectOk(act);
    expect(act.json.active).toBe(true);
    expect((await c.get(`/api/fields/${fieldId}`)).json.activeBoundaryId).toBe(first);
    const basic = (await c.get(`/api/fields/${fieldId}/boundaries-basic`)).json;
    expect(
      basic.filter((b: { active: boolean }) => b.active).map((b: { boundaryId: string }) => b.boundaryId),
    ).toEqual([first]);
    expect(basic[0].boundary).toBeUndefined();

    // Replacing the geometry of a boundary keeps its id and activity.
    const replaced = await c.post('/api/vBoundary/upsert', { fieldId, boundaryId: second, boundary: RINGS });
    expectOk(replaced, 200);
    expect(replaced.json).toMatchObject({ boundaryId: second, active: false, boundary: closed(RINGS) });

    // Deleting the active boundary makes the newest remaining one active.
    expectOk(await c.del(`/api/boundaries/${first}`), 204);
    list = (await c.get(`/api/fields/${fieldId}/boundaries`)).json;
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ boundaryId: inactive.json.boundaryId, active: true });
    expectError(await c.get(`/api/vboundary/${first}`), 404, 'NOT_FOUND');

    // Per farm, grower and company.
    for (const path of [
      `/api/farms/${farmId}/fields-with-boundaries`,
      `/api/growers/${growerId}/fields-with-boundaries`,
    ]) {
      const fw = (await c.get(path)).json;
      expect(fw).toHaveLength(1);
      expect(fw[0]).toMatchObject({ fieldId, name: 'Many' });
      expect(fw[0].boundaries).toHaveLength(2);
    }
    const all = (await c.get(`/api/companies/${companyId}/fields-with-boundaries`)).json;
    expect(all.map((f: { fieldId: string }) => f.fieldId)).toContain(fieldId);
    expect(
      (await c.get(`/api/companies/${companyId}/fields`)).json.map((f: { fieldId: string }) => f.fieldId),
    ).toContain(fieldId);
    const orgBoundaries = (await c.get(`/api/organizations/${companyId}/boundaries`)).json;
    expect(orgBoundaries.filter((b: { fieldId: string }) => b.fieldId === fieldId)).toHaveLength(1);
    const counts = (await c.get(`/api/fields/${companyId}/fields-without-boundaries-count`)).json;
    expect(counts).toMatchObject({ companyId, withoutBoundaries: 0 });
    expect(counts.fields).toBeGreaterThanOrEqual(1);
    const gj = await c.get(`/api/growers/${growerId}/fields-boundaries-json`);
    expect(gj.json.type).toBe('FeatureCollection');
    expect(gj.json.features).toHaveLength(1);
    expect(gj.json.features[0].properties).toMatchObject({ fieldId, active: true });

    // Rename and move.
    const other = await c.post(`/api/growers/${growerId}/farms`, { name: 'Second farm' });
    const moved = await c.put(`/api/fields/${fieldId}`, { farmId: other.json.farmId, name: 'Moved' });
    expectOk(moved);
    expect(moved.json).toMatchObject({ farmId: other.json.farmId, name: 'Moved' });
    expect((await c.get(`/api/farms/${farmId}/fields-boundaries-json`)).json.features).toEqual([]);
    expectOk(await c.del(`/api/fields/${fieldId}`), 204);
    expectError(await c.get(`/api/boundaries/${second}/geojson`), 404, 'NOT_FOUND');
  });

  it('creates a field with several boundaries in one call', async () => {
    const { farmId } = await farmOf('Multi');
    const a = await c.post('/api/fields/field-with-boundaries', {
      farmId,
      name: 'Multi',
      boundaries: [
        { boundary: RINGS, name: 'old' },
        { boundary: [RINGS[0]], name: 'new', active: true },
      ],
    });
    expectOk(a, 201);
    expect(a.json.boundaries.map((b: { name: string; active: boolean }) => [b.name, b.active])).toEqual([
      ['new', true],
      ['old', false],
    ]);
    const bad = await c.post('/api/fields/field-with-boundaries', {
      farmId,
      name: 'Bad',
      boundaries: [
        { boundary: RINGS },
        {
          boundary: [
            [
              [10, 56],
              [10, 56],
              [10, 56],
            ],
          ],
        },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toMatch(/^\/boundaries\/1\/boundary/);
  });
});

describe('ETags and If-Match', () => {
  it('answers 412 to a stale If-Match on every update and delete, and changes nothing', async () => {
    const { growerId, farmId } = await farmOf('Etag');
    const saved = await c.post('/api/fields/save', { farmId, name: 'E', boundary: RINGS });
    const fieldId = saved.json.field.fieldId;
    const boundaryId = saved.json.vBoundary.boundaryId;

    const stale = { 'if-match': '"999"' };
    const cases: [string, () => Promise<{ status: number; json: { errorCode?: string } }>][] = [
      ['PUT grower', () => c.put(`/api/growers/${growerId}`, { name: 'x' }, { headers: stale })],
      ['DELETE grower', () => c.del(`/api/growers/${growerId}?cascade=true`, { headers: stale })],
      ['PUT farm', () => c.put(`/api/farms/${farmId}`, { name: 'x' }, { headers: stale })],
      ['DELETE farm', () => c.del(`/api/farms/${farmId}?cascade=true`, { headers: stale })],
      ['PUT field', () => c.put(`/api/fields/${fieldId}`, { name: 'x' }, { headers: stale })],
      ['DELETE field', () => c.del(`/api/fields/${fieldId}`, { headers: stale })],
      [
        'upsert boundary',
        () =>
          c.post('/api/vBoundary/upsert', { fieldId, boundaryId, boundary: [RINGS[0]] }, { headers: stale }),
      ],
      [
        'activate boundary',
        () => c.post(`/api/boundaries/${boundaryId}/activate`, undefined, { headers: stale }),
      ],
      ['DELETE boundary', () => c.del(`/api/boundaries/${boundaryId}`, { headers: stale })],
    ];
    for (const [what, run] of cases) {
      const a = await run();
      expect(a.status, what).toBe(412);
      expect(a.json.errorCode, what).toBe('PRECONDITION_FAILED');
    }
    expect((await c.get(`/api/growers/${growerId}`)).json.name).toBe('Grower Etag');
    expect((await c.get(`/api/fields/${fieldId}`)).json.name).toBe('E');
    expect((await c.get(`/api/vboundary/${boundaryId}`)).json.boundary).toEqual(closed(RINGS));

    // The current ETag works, once.
    const g = await c.get(`/api/growers/${growerId}`);
    const etag = g.headers.get('etag')!;
    expectOk(await c.put(`/api/growers/${growerId}`, { name: 'Renamed' }, { headers: { 'if-match': etag } }));
    const lost = await c.put(`/api/growers/${growerId}`, { name: 'Lost' }, { headers: { 'if-match': etag } });
    expectError(lost, 412, 'PRECONDITION_FAILED');
    expect(lost.json.details.currentEtag).toBe('"2"');
    const b = await c.get(`/api/vboundary/${boundaryId}`);
    expectOk(
      await c.post(
        '/api/vBoundary/upsert',
        { fieldId, boundaryId, boundary: [RINGS[0]] },
        {
          headers: { 'if-match': b.headers.get('etag')! },
        },
      ),
    );
  });
});

describe('companies and what they hold', () => {
  it('counts, empties and purges the hierarchy', async () => {
    const k = await testKey();
    const own = client(srv.url, { key: k.key });
    const cid = k.companyId;
    expect((await own.get(`/api/companies/${cid}/empty`)).json).toMatchObject({ empty: true, boundaries: 0 });
    const g = await own.post(`/api/companies/${cid}/growers`, { name: 'G' });
    const f = await own.post(`/api/growers/${g.json.growerId}/farms`, { name: 'F' });
    const s = await own.post('/api/fields/save', { farmId: f.json.farmId, name: 'A', boundary: RINGS });
    await own.post('/api/vBoundary/upsert', { fieldId: s.json.field.fieldId, boundary: RINGS });
    const summary = await own.get(`/api/companies/${cid}/summary`);
    expect(summary.json.counts).toMatchObject({ growers: 1, farms: 1, fields: 1, boundaries: 2 });
    expect((await own.get(`/api/companies/${cid}/empty`)).json).toMatchObject({
      empty: false,
      boundaries: 2,
    });
    const purged = await own.del(`/api/companies/${cid}/purge`);
    expectOk(purged);
    expect(purged.json.deleted).toMatchObject({ growers: 1, farms: 1, fields: 1, boundaries: 2 });
    expect((await own.get(`/api/companies/${cid}/growers`)).json).toEqual([]);
    expect((await own.get(`/api/companies/${cid}/empty`)).json.empty).toBe(true);
  });
});

describe('the browser session cookie', () => {
  it('acts like the bearer token; unsafe methods only without a cross-site origin', async () => {
    const email = `cookie-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.org`;
    const reg = await call(srv.url, '/api/account/register', {
      body: { email, password: 'correct horse battery', companyName: 'Cookie Farms' },
    });
    expectOk(reg, 201);
    const cookie = { cookie: `tramline_session=${reg.json.accessToken}` };
    const cid = reg.json.companyId;
    const made = await call(srv.url, `/api/companies/${cid}/growers`, {
      body: { name: 'From the page' },
      headers: { ...cookie, origin: srv.url },
    });
    expectOk(made, 201);
    const read = await call(srv.url, `/api/growers/${made.json.growerId}`, { headers: cookie });
    expectOk(read);
    expect(read.json.name).toBe('From the page');
    // Another site cannot ride on the cookie.
    const forged = await call(srv.url, `/api/growers/${made.json.growerId}`, {
      method: 'PUT',
      body: { name: 'forged' },
      headers: { ...cookie, origin: 'https://evil.example' },
    });
    expect(forged.status).toBe(401);
    const crossSite = await call(srv.url, `/api/growers/${made.json.growerId}`, {
      method: 'DELETE',
      headers: { ...cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(401);
    expect((await call(srv.url, `/api/growers/${made.json.growerId}`, { headers: cookie })).json.name).toBe(
      'From the page',
    );
  });
});
