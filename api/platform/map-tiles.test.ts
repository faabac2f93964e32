/**
 * Map tiles over HTTP (PGlite and PostgreSQL): field and path plan tiles
 * decoded as Mapbox Vector Tiles (features, properties, geometry in the
 * right place), filters, the enabled switch of fields, the cached index
 * following changes, conditional requests, validation, and isolation
 * (another company's fields never appear; its ids answer 404).
 */
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let kb: Awaited<ReturnType<typeof testKey>>;
const A: Record<string, string> = {};
const B: Record<string, string> = {};

const LON = 9.5;
const LAT = 56.2;
const Z = 13;

/** The XYZ tile of a point (written here apart from the server's own). */
function tileOf(lon: number, lat: number, z: number): { z: number; x: number; y: number } {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return {
    z,
    x: Math.floor(((lon + 180) / 360) * n),
    y: Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n),
  };
}

const HERE = tileOf(LON + 0.001, LAT + 0.001, Z);

interface Tile {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  layers: VectorTile['layers'];
}

async function tile(key: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(srv.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'x-api-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const out: Tile = { status: res.status, headers: res.headers, bytes, layers: {} };
  if (res.status === 200) out.layers = new VectorTile(new PbfReader(bytes)).layers;
  return out;
}

function features(t: Tile, layer: string) {
  const l = t.layers[layer];
  if (!l) return [];
  return Array.from({ length: l.length }, (_, i) => l.feature(i));
}

const fieldIdsIn = (t: Tile) => features(t, 'fields').map((f) => f.properties.fieldId as string);

async function saveField(c: Client, farmId: string, name: string, ha: number, dLon: number) {
  const ans = await c.post('/api/fields/save', {
    farmId,
    name,
    boundary: rectangleField(ha, LON + dLon, LAT).coordinates,
  });
  expectOk(ans, 201);
  return ans.json.field.fieldId as string;
}

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey({ credits: 1000 });
  kb = await testKey({ credits: 1000 });
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  for (const [c, ids, k] of [
    [a, A, ka],
    [b, B, kb],
  ] as const) {
    ids.growerId = (await c.post(`/api/companies/${k.companyId}/growers`, { name: 'G' })).json.growerId;
    ids.farmId = (await c.post(`/api/growers/${ids.growerId}/farms`, { name: 'F' })).json.farmId;
  }
  A.farm2 = (await a.post(`/api/growers/${A.growerId}/farms`, { name: 'F2' })).json.farmId;
  A.north = await saveField(a, A.farmId, 'North', 12, 0);
  A.south = await saveField(a, A.farmId, 'South', 8, 0.006);
  A.east = await saveField(a, A.farm2, 'East', 20, 0.012);
  // B's field lies in the very same tile.
  B.field = await saveField(b, B.farmId, 'Neighbour', 10, 0.003);
});
afterAll(async () => {
  await srv?.close();
});

describe('field tiles', () => {
  it('answers an MVT with the company’s fields and their properties, never another company’s', async () => {
    const t = await tile(ka.key, `/api/companies/${ka.companyId}/field-tiles`, HERE);
    expect(t.status).toBe(200);
    expect(t.headers.get('content-type')).toMatch(/^application\/vnd\.mapbox-vector-tile/);
    expect(fieldIdsIn(t).sort()).toEqual([A.north, A.south, A.east].sort());
    const north = features(t, 'fields').find((f) => f.properties.fieldId === A.north)!;
    expect(north.properties).toMatchObject({
      name: 'North',
      growerId: A.growerId,
      farmId: A.farmId,
      enabled: true,
    });
    const stored = (await a.get(`/api/fields/${A.north}/boundaries`)).json[0].area as number;
    expect(north.properties.areaHa as number).toBeCloseTo(stored / 10_000, 3);
    expect(north.properties.areaHa as number).toBeCloseTo(12, 0);
    expect(north.type).toBe(3);
    // The geometry lands where the field is.
    const gj = north.toGeoJSON(HERE.x, HERE.y, HERE.z);
    const ring = (gj.geometry as { coordinates: number[][][] }).coordinates[0];
    const lons = ring.map((p) => p[0]);
    const lats = ring.map((p) => p[1]);
    expect(Math.min(...lons)).toBeCloseTo(LON, 3);
    expect(Math.min(...lats)).toBeCloseTo(LAT, 3);

    const tb = await tile(kb.key, `/api/companies/${kb.companyId}/field-tiles`, HERE);
    expect(fieldIdsIn(tb)).toEqual([B.field]);
  });

  it('narrows by field, farm and grower ids', async () => {
    const path = `/api/companies/${ka.companyId}/field-tiles`;
    expect(fieldIdsIn(await tile(ka.key, path, { ...HERE, fieldIds: [A.south] }))).toEqual([A.south]);
    expect(fieldIdsIn(await tile(ka.key, path, { ...HERE, farmIds: [A.farm2] }))).toEqual([A.east]);
    expect(fieldIdsIn(await tile(ka.key, path, { ...HERE, growerIds: [A.growerId] })).length).toBe(3);
    // Filters take the company's own ids only: another company's is 404, as anywhere.
    const foreign = await a.post(path, { ...HERE, fieldIds: [A.north, B.field] });
    expectError(foreign, 404, 'NOT_FOUND');
    expect(foreign.json.message).toContain(B.field);
    expect(foreign.json.message).not.toContain(A.north);
    expectError(await a.post(path, { ...HERE, farmIds: [B.farmId] }), 404, 'NOT_FOUND');
    expectError(await a.post(path, { ...HERE, growerIds: [B.growerId] }), 404, 'NOT_FOUND');
    expectError(
      await a.post(`/api/companies/${ka.companyId}/path-plans/tiles`, { ...HERE, fieldIds: [B.field] }),
      404,
      'NOT_FOUND',
    );
  });

  it('answers an empty tile where the company has no field', async () => {
    const far = tileOf(LON + 40, LAT - 20, Z);
    const t = await tile(ka.key, `/api/companies/${ka.companyId}/field-tiles`, far);
    expect(t.status).toBe(200);
    expect(Object.keys(t.layers)).toEqual([]);
  });

  it('leaves disabled fields out unless asked, and follows changes at once', async () => {
    const path = `/api/companies/${ka.companyId}/field-tiles`;
    const off = await a.put(`/api/companies/${ka.companyId}/fields/toggle-enabled`, {
      fieldIds: [A.south],
      enabled: false,
    });
    expectOk(off);
    expect(off.json).toEqual({ fieldIds: [A.south], changed: [A.south], enabled: false });
    expect(fieldIdsIn(await tile(ka.key, path, HERE)).sort()).toEqual([A.north, A.east].sort());
    const all = await tile(ka.key, path, { ...HERE, includeDisabled: true });
    const south = features(all, 'fields').find((f) => f.properties.fieldId === A.south);
    expect(south?.properties.enabled).toBe(false);
    // Asking again changes nothing.
    const again = await a.put(`/api/companies/${ka.companyId}/fields/toggle-enabled`, {
      fieldIds: [A.south],
      enabled: false,
    });
    expect(again.json.changed).toEqual([]);
    // Renaming a field shows in the next tile (the cached index is made again).
    expectOk(await a.put(`/api/fields/${A.north}`, { name: 'North renamed' }));
    const renamed = await tile(ka.key, path, HERE);
    expect(features(renamed, 'fields').find((f) => f.properties.fieldId === A.north)?.properties.name).toBe(
      'North renamed',
    );
    expectOk(
      await a.put(`/api/companies/${ka.companyId}/fields/toggle-enabled`, {
        fieldIds: [A.south],
        enabled: true,
      }),
    );
    expect(fieldIdsIn(await tile(ka.key, path, HERE)).length).toBe(3);
    // A deleted field leaves the tiles.
    const gone = await saveField(a, A.farmId, 'Short-lived', 3, 0.009);
    expect(fieldIdsIn(await tile(ka.key, path, HERE))).toContain(gone);
    expectOk(await a.del(`/api/fields/${gone}`), 204);
    expect(fieldIdsIn(await tile(ka.key, path, HERE))).not.toContain(gone);
  });

  it('answers 304 to If-None-Match while nothing changed, 200 once something did', async () => {
    const path = `/api/companies/${ka.companyId}/field-tiles`;
    const first = await tile(ka.key, path, HERE);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await tile(ka.key, path, HERE, { 'if-none-match': etag })).status).toBe(304);
    // Another filter is another tile.
    expect(
      (await tile(ka.key, path, { ...HERE, fieldIds: [A.north] }, { 'if-none-match': etag })).status,
    ).toBe(200);
    expectOk(await a.put(`/api/fields/${A.east}`, { name: 'East renamed' }));
    const after = await tile(ka.key, path, HERE, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('answers one field’s tile, at the tile that holds it or at an address', async () => {
    const t = await tile(ka.key, `/api/companies/${ka.companyId}/field-tiles/${A.north}`);
    expect(t.status).toBe(200);
    const addr = t.headers.get('x-tile-address')!;
    expect(addr).toMatch(/^\d+\/\d+\/\d+$/);
    const [z, x, y] = addr.split('/').map(Number);
    expect(z).toBeGreaterThanOrEqual(12);
    expect(fieldIdsIn(t)).toEqual([A.north]);
    const f = features(t, 'fields')[0];
    // The whole field is inside the tile (extent 4096).
    for (const ring of f.loadGeometry())
      for (const p of ring) {
        expect(p.x).toBeGreaterThanOrEqual(0);
        expect(p.x).toBeLessThanOrEqual(4096);
        expect(p.y).toBeGreaterThanOrEqual(0);
        expect(p.y).toBeLessThanOrEqual(4096);
      }
    expect(tileOf(LON + 0.0001, LAT + 0.0001, z)).toEqual({ z, x, y });

    const at = await tile(
      ka.key,
      `/api/companies/${ka.companyId}/field-tiles/${A.north}?z=${Z}&x=${HERE.x}&y=${HERE.y}`,
    );
    expect(fieldIdsIn(at)).toEqual([A.north]);
    const elsewhere = await tile(
      ka.key,
      `/api/companies/${ka.companyId}/field-tiles/${A.north}?z=${Z}&x=${HERE.x + 5}&y=${HERE.y}`,
    );
    expect(elsewhere.status).toBe(200);
    expect(fieldIdsIn(elsewhere)).toEqual([]);
  });
});

describe('validation', () => {
  it('refuses a tile address outside the zoom level and half an address', async () => {
    const bad = await a.post(`/api/companies/${ka.companyId}/field-tiles`, { z: 2, x: 4, y: 0 });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json.errors[0].path).toBe('/x');
    expect(bad.json.message).toMatch(/at most 3/);
    expectError(
      await a.post(`/api/companies/${ka.companyId}/field-tiles`, { z: 23, x: 0, y: 0 }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await a.post(`/api/companies/${ka.companyId}/field-tiles`, { z: 1, x: 0 }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await a.post(`/api/companies/${ka.companyId}/path-plans/tiles`, { z: 1, x: 0, y: 0, kinds: ['turns'] }),
      400,
      'VALIDATION_ERROR',
    );
    const half = await a.get(`/api/companies/${ka.companyId}/field-tiles/${A.north}?z=3&x=1`);
    expectError(half, 400, 'VALIDATION_ERROR');
    expect(half.json.errors[0].path).toBe('/querystring/y');
    expectError(
      await a.put(`/api/companies/${ka.companyId}/fields/toggle-enabled`, { fieldIds: [], enabled: true }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('isolation', () => {
  it('answers 404 to another company’s ids and changes nothing', async () => {
    expectError(await b.post(`/api/companies/${ka.companyId}/field-tiles`, HERE), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/companies/${ka.companyId}/field-tiles/${A.north}`), 404, 'NOT_FOUND');
    expectError(await b.post(`/api/companies/${ka.companyId}/path-plans/tiles`, HERE), 404, 'NOT_FOUND');
    // A's field through B's own company.
    expectError(await b.get(`/api/companies/${kb.companyId}/field-tiles/${A.north}`), 404, 'NOT_FOUND');
    const toggle = await b.put(`/api/companies/${kb.companyId}/fields/toggle-enabled`, {
      fieldIds: [B.field, A.north],
      enabled: false,
    });
    expectError(toggle, 404, 'NOT_FOUND');
    expect(toggle.json.message).toContain(A.north);
    expectError(
      await b.put(`/api/companies/${ka.companyId}/fields/toggle-enabled`, {
        fieldIds: [A.north],
        enabled: false,
      }),
      404,
      'NOT_FOUND',
    );
    // Nothing changed: all of A's fields and B's are still enabled.
    expect(fieldIdsIn(await tile(ka.key, `/api/companies/${ka.companyId}/field-tiles`, HERE)).length).toBe(3);
    expect(fieldIdsIn(await tile(kb.key, `/api/companies/${kb.companyId}/field-tiles`, HERE))).toEqual([
      B.field,
    ]);
  });
});

describe('path plan tiles', () => {
  it('answers the outlines and active tracks of the company’s plans', async () => {
    const boundaryId = (await a.get(`/api/fields/${A.north}/boundaries`)).json[0].boundaryId;
    const job = await a.post('/api/guidance', {
      boundaryId,
      request: {
        equipment: { swathWidth: 24, minTurningRadius: 6 },
        exteriorHeadlandPasses: 1,
        routeOptions: { algorithm: 'boustrophedon' },
      },
    });
    expectOk(job, 202);
    let done = await a.get(`/api/guidance/jobs/${job.json.jobId}`);
    for (let i = 0; i < 600 && ['queued', 'running'].includes(done.json.status); i++) {
      await new Promise((r) => setTimeout(r, 200));
      done = await a.get(`/api/guidance/jobs/${job.json.jobId}`);
    }
    expect(done.json.status, done.text).toBe('completed');
    const pathPlanId = done.json.pathPlanIds[0] as string;

    const path = `/api/companies/${ka.companyId}/path-plans/tiles`;
    const t = await tile(ka.key, path, HERE);
    expect(t.status).toBe(200);
    const fs = features(t, 'pathPlans');
    expect(fs.length).toBeGreaterThan(2);
    expect(new Set(fs.map((f) => f.properties.pathPlanId))).toEqual(new Set([pathPlanId]));
    const kinds = new Set(fs.map((f) => f.properties.kind));
    expect(kinds).toEqual(new Set(['outline', 'track', 'headland']));
    expect(fs.find((f) => f.properties.kind === 'outline')?.type).toBe(3);
    expect(fs.find((f) => f.properties.kind === 'track')).toMatchObject({ type: 2 });
    expect(fs.every((f) => f.properties.fieldId === A.north)).toBe(true);

    const outlines = features(await tile(ka.key, path, { ...HERE, kinds: ['outline'] }), 'pathPlans');
    expect(outlines.length).toBeGreaterThan(0);
    expect(outlines.every((f) => f.properties.kind === 'outline')).toBe(true);

    // B's plans tile holds none of A's plans.
    const tb = await tile(kb.key, `/api/companies/${kb.companyId}/path-plans/tiles`, HERE);
    expect(tb.status).toBe(200);
    expect(features(tb, 'pathPlans')).toEqual([]);

    expect(
      features(await tile(ka.key, path, { ...HERE, pathPlanIds: [pathPlanId] }), 'pathPlans').length,
    ).toBe(fs.length);
    expectError(
      await b.post(`/api/companies/${kb.companyId}/path-plans/tiles`, { ...HERE, pathPlanIds: [pathPlanId] }),
      404,
      'NOT_FOUND',
    );

    // Archived plans leave, unless asked for (the cached index follows).
    expectOk(await a.post('/api/path-plans/archive', { pathPlanIds: [pathPlanId], archived: true }));
    expect(features(await tile(ka.key, path, HERE), 'pathPlans')).toEqual([]);
    const withArchived = features(await tile(ka.key, path, { ...HERE, includeArchived: true }), 'pathPlans');
    expect(withArchived.length).toBe(fs.length);
    expect(withArchived[0].properties.archived).toBe(true);
  });
});

describe('OpenAPI', () => {
  it('documents the tile endpoints with named schemas and the MVT media type', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    for (const name of [
      'FieldTilesRequest',
      'PathPlanTilesRequest',
      'ToggleFieldsEnabledRequest',
      'ToggleFieldsEnabledResponse',
    ])
      expect(doc.components.schemas[name], name).toBeDefined();
    const op = doc.paths['/api/companies/{companyId}/field-tiles'].post;
    expect(op.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/FieldTilesRequest',
    );
    expect(Object.keys(op.responses['200'].content)).toEqual(['application/vnd.mapbox-vector-tile']);
    expect(doc.paths['/api/companies/{companyId}/path-plans/tiles'].post).toBeDefined();
    expect(doc.paths['/api/companies/{companyId}/field-tiles/{fieldId}'].get).toBeDefined();
    expect(doc.paths['/api/companies/{companyId}/fields/toggle-enabled'].put).toBeDefined();
  });
});
