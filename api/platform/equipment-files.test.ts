/**
 * Equipment, operators and user files over HTTP (PGlite and PostgreSQL):
 * create, read, update with ETags (412 when stale), distinct names (409),
 * validation naming the field, uploads (multipart and raw) with kinds told
 * from content, download, hide, delete, and another company's ids: 404.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/helpers/corpus.ts';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let companyA: string;
let companyB: string;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  const ka = await testKey();
  const kb = await testKey();
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  companyA = ka.companyId;
  companyB = kb.companyId;
});
afterAll(async () => {
  await srv?.close();
});

const sprayer = {
  name: 'Sprayer 24',
  type: 'sprayer',
  swathWidth: 24,
  trackWidths: [2.25],
  tireWidths: [0.46],
  turningRadius: 7.5,
  workingSpeed: 3.5,
  turningSpeed: 2,
  tankCapacity: 4000,
  fuelUse: 18,
};

describe('equipment', () => {
  it('creates, reads, lists, updates with If-Match and deletes a machine', async () => {
    const made = await a.post('/api/equipment', { companyId: companyA, ...sprayer });
    expectOk(made, 201);
    expect(made.json).toMatchObject({
      ...sprayer,
      companyId: companyA,
      archived: false,
      notes: null,
      etag: '"1"',
    });
    expect(made.headers.get('etag')).toBe('"1"');
    const id = made.json.equipmentId;
    const got = await a.get(`/api/equipment/${id}`);
    expectOk(got);
    expect(got.json).toEqual(made.json);
    const list = await a.get(`/api/companies/${companyA}/equipments`);
    expect(list.json.map((e: { equipmentId: string }) => e.equipmentId)).toContain(id);

    const upd = await a.post(
      '/api/equipment',
      { equipmentId: id, ...sprayer, swathWidth: 27 },
      { headers: { 'if-match': '"1"' } },
    );
    expectOk(upd);
    expect(upd.json).toMatchObject({ swathWidth: 27, etag: '"2"' });
    expectError(
      await a.post(
        '/api/equipment',
        { equipmentId: id, ...sprayer, swathWidth: 30 },
        { headers: { 'if-match': '"1"' } },
      ),
      412,
      'PRECONDITION_FAILED',
    );
    expect((await a.get(`/api/equipment/${id}`)).json.swathWidth).toBe(27);
    expectError(
      await a.del(`/api/equipment/${id}`, { headers: { 'if-match': '"1"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expect((await a.del(`/api/equipment/${id}`, { headers: { 'if-match': '"2"' } })).status).toBe(204);
    expectError(await a.get(`/api/equipment/${id}`), 404, 'NOT_FOUND');
  });

  it('keeps names distinct per company (ignoring case) and validates the fields', async () => {
    expectOk(
      await a.post('/api/equipment', { companyId: companyA, ...sprayer, name: 'Combine 1', type: 'combine' }),
      201,
    );
    const dup = await a.post('/api/equipment', { companyId: companyA, ...sprayer, name: 'COMBINE 1' });
    expectError(dup, 409, 'NAME_TAKEN');
    expect(dup.json.errors[0].path).toBe('/name');
    // Another company may use the name.
    expectOk(await b.post('/api/equipment', { companyId: companyB, ...sprayer, name: 'Combine 1' }), 201);

    const bad = await a.post('/api/equipment', {
      companyId: companyA,
      ...sprayer,
      name: 'X',
      swathWidth: -1,
      type: 'rocket',
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    const paths = bad.json.errors.map((e: { path: string }) => e.path);
    expect(paths).toContain('/swathWidth');
    expect(paths).toContain('/type');
    const noCompany = await a.post('/api/equipment', { ...sprayer, name: 'Y' });
    expectError(noCompany, 400, 'VALIDATION_ERROR');
    expect(noCompany.json.errors[0].path).toBe('/companyId');
    // Concurrent creates of one name: exactly one wins.
    const race = await Promise.all(
      [1, 2, 3].map(() => a.post('/api/equipment', { companyId: companyA, ...sprayer, name: 'Race' })),
    );
    expect(race.filter((x) => x.status === 201)).toHaveLength(1);
    expect(race.filter((x) => x.status === 409)).toHaveLength(2);
  });

  it('deletes machines in a batch, all or none', async () => {
    const ids: string[] = [];
    for (const n of ['T1', 'T2']) {
      const m = await a.post('/api/equipment', {
        companyId: companyA,
        name: n,
        type: 'tractor',
        swathWidth: 3,
      });
      ids.push(m.json.equipmentId);
    }
    const other = await b.post('/api/equipment', {
      companyId: companyB,
      name: 'B1',
      type: 'tractor',
      swathWidth: 3,
    });
    expectError(
      await a.post('/api/equipment/delete', { equipmentIds: [...ids, other.json.equipmentId] }),
      404,
      'NOT_FOUND',
    );
    expectOk(await a.get(`/api/equipment/${ids[0]}`));
    const ok = await a.post('/api/equipment/delete', { equipmentIds: ids });
    expectOk(ok);
    expect(ok.json).toEqual({ deleted: 2 });
    expectOk(await b.get(`/api/equipment/${other.json.equipmentId}`));
  });
});

describe('operators', () => {
  it('creates, updates and deletes an operator; the machine must be of the same company', async () => {
    const m = await a.post('/api/equipment', {
      companyId: companyA,
      name: 'Op tractor',
      type: 'tractor',
      swathWidth: 3,
    });
    const mb = await b.post('/api/equipment', {
      companyId: companyB,
      name: 'B tractor',
      type: 'tractor',
      swathWidth: 3,
    });
    const o = await a.post('/api/operators', {
      companyId: companyA,
      name: 'Jens Hansen',
      email: 'jens@example.org',
      phone: '+45 1234 5678',
      equipmentId: m.json.equipmentId,
    });
    expectOk(o, 201);
    expect(o.json).toMatchObject({ name: 'Jens Hansen', equipmentId: m.json.equipmentId, etag: '"1"' });
    const id = o.json.operatorId;
    const wrong = await a.post('/api/operators', {
      operatorId: id,
      name: 'Jens Hansen',
      equipmentId: mb.json.equipmentId,
    });
    // Another company's machine answers as an unknown one.
    expectError(wrong, 404, 'NOT_FOUND');
    const upd = await a.post(
      '/api/operators',
      { operatorId: id, name: 'Jens P. Hansen' },
      { headers: { 'if-match': '"1"' } },
    );
    expectOk(upd);
    expect(upd.json).toMatchObject({ name: 'Jens P. Hansen', equipmentId: null, etag: '"2"' });
    expectError(
      await a.post('/api/operators', { operatorId: id, name: 'Z' }, { headers: { 'if-match': '"1"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expectOk(await a.post('/api/operators', { companyId: companyA, name: 'Second' }), 201);
    expectError(await a.post('/api/operators', { companyId: companyA, name: 'second' }), 409, 'NAME_TAKEN');
    const list = await a.get(`/api/companies/${companyA}/operators`);
    expect(list.json.map((x: { name: string }) => x.name)).toEqual(['Jens P. Hansen', 'Second']);
    expectError(
      await a.post('/api/operators', { companyId: companyA, name: 'E', email: 'not-an-email' }),
      400,
      'VALIDATION_ERROR',
    );
    expect((await a.del(`/api/operators/${id}`)).status).toBe(204);
    expectError(await a.get(`/api/operators/${id}`), 404, 'NOT_FOUND');
  });
});

describe('user files', () => {
  const dk = resolve(repoRoot, 'test/fixtures/shapefile/dk');
  const shpZip = zipSync({
    'Marker_2026.shp': readFileSync(resolve(dk, 'Marker_2026.shp')),
    'Marker_2026.shx': readFileSync(resolve(dk, 'Marker_2026.shx')),
    'Marker_2026.dbf': readFileSync(resolve(dk, 'Marker_2026.dbf')),
    'Marker_2026.prj': readFileSync(resolve(dk, 'Marker_2026.prj')),
  });

  it('uploads as multipart and as raw body; the kind comes from the content, not the name', async () => {
    const form = new FormData();
    form.append('file', new Blob([shpZip as Uint8Array<ArrayBuffer>]), 'fields.txt');
    const ka = await testKey();
    const c = client(srv.url, { key: ka.key });
    const res = await fetch(`${srv.url}/api/companies/${ka.companyId}/user-files/file-upload`, {
      method: 'POST',
      headers: { 'x-api-key': ka.key },
      body: form,
    });
    expect(res.status).toBe(201);
    const up = await res.json();
    expect(up).toMatchObject({
      fileName: 'fields.txt',
      kind: 'shapefile-zip',
      mediaType: 'application/zip',
      size: shpZip.length,
      hidden: false,
      uploadedBy: ka.userId,
    });

    const kinds: [string, string, string][] = [
      ['<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document/></kml>', 'a.zip', 'kml'],
      ['<gpx version="1.1"></gpx>', 'a.kml', 'gpx'],
      ['\uFEFF<?xml version="1.0"?>\n<!-- x --><ISO11783_TaskData VersionMajor="4"/>', 'x', 'isoxml'],
      ['<other/>', 'x', 'xml'],
      ['{"type":"Polygon","coordinates":[]}', 'x.wkt', 'geojson'],
      ['[1,2]', 'x', 'json'],
      ['POLYGON ((10 55, 10.01 55, 10.01 55.01, 10 55))', 'x.json', 'wkt'],
    ];
    for (const [content, name, kind] of kinds) {
      const r = await c.call(
        `/api/companies/${ka.companyId}/user-files/file-upload?fileName=${encodeURIComponent(name)}`,
        {
          method: 'POST',
          raw: content as string,
          type: 'application/octet-stream',
        },
      );
      expectOk(r, 201);
      expect(r.json.kind, content).toBe(kind);
      expect(r.json.fileName).toBe(name);
    }
    // JSON bodies are taken as files too.
    const gj = await c.call(`/api/companies/${ka.companyId}/user-files/file-upload`, {
      method: 'POST',
      raw: '{"type":"FeatureCollection","features":[]}',
      type: 'application/geo+json',
    });
    expectOk(gj, 201);
    expect(gj.json).toMatchObject({ kind: 'geojson', fileName: 'boundary.geojson' });

    const bad = await c.call(`/api/companies/${ka.companyId}/user-files/file-upload`, {
      method: 'POST',
      raw: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]),
      type: 'image/png',
    });
    expectError(bad, 415, 'UNSUPPORTED_FILE_TYPE');
    expect(bad.json.message).toMatch(/binary data, but not a zip/);
    expectError(
      await c.call(`/api/companies/${ka.companyId}/user-files/file-upload`, {
        method: 'POST',
        raw: '{"a":',
        type: 'application/json',
      }),
      415,
      'UNSUPPORTED_FILE_TYPE',
    );

    // Download: the same bytes.
    const dl = await fetch(`${srv.url}/api/user-files/${up.userFileId}`, {
      headers: { 'x-api-key': ka.key },
    });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('application/zip');
    expect(dl.headers.get('content-disposition')).toContain('filename="fields.txt"');
    expect(Buffer.from(await dl.arrayBuffer()).equals(Buffer.from(shpZip))).toBe(true);

    // Hide, list, show, delete.
    const hidden = await c.post(`/api/user-files/${up.userFileId}/hide`);
    expectOk(hidden);
    expect(hidden.json.hidden).toBe(true);
    const visible = await c.get(`/api/companies/${ka.companyId}/user-files`);
    expect(visible.json.map((f: { userFileId: string }) => f.userFileId)).not.toContain(up.userFileId);
    expect(visible.json).toHaveLength(kinds.length + 1);
    const all = await c.get(`/api/companies/${ka.companyId}/user-files?includeHidden=true`);
    expect(all.json.map((f: { userFileId: string }) => f.userFileId)).toContain(up.userFileId);
    const shown = await c.post(`/api/user-files/${up.userFileId}/hide`, { hidden: false });
    expect(shown.json.hidden).toBe(false);
    expect((await c.get(`/api/user-files/${up.userFileId}/metadata`)).json.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await c.del(`/api/user-files/${up.userFileId}`)).status).toBe(204);
    expectError(await c.get(`/api/user-files/${up.userFileId}/metadata`), 404, 'NOT_FOUND');
  });

  it('refuses files over 20 MB with 413', async () => {
    const big = new Uint8Array(20 * 1024 * 1024 + 200_000).fill(32);
    const r = await a.call(`/api/companies/${companyA}/user-files/file-upload`, {
      method: 'POST',
      raw: big,
      type: 'text/plain',
    });
    expectError(r, 413, 'PAYLOAD_TOO_LARGE');
    expect(r.json.message).toMatch(/20 MB/);
  });
});

describe('company summary and purge', () => {
  it('count and delete machines, operators, settings and files', async () => {
    const k = await testKey();
    const c = client(srv.url, { key: k.key });
    expectOk(await c.post('/api/equipment', { companyId: k.companyId, ...sprayer }), 201);
    expectOk(await c.post('/api/operators', { companyId: k.companyId, name: 'Ole' }), 201);
    expectOk(await c.post(`/api/companies/${k.companyId}/settings`, { name: 'units', value: 'metric' }), 201);
    expectOk(
      await c.call(`/api/companies/${k.companyId}/user-files/file-upload`, {
        method: 'POST',
        raw: 'POLYGON EMPTY',
        type: 'text/plain',
      }),
      201,
    );
    const summary = await c.get(`/api/companies/${k.companyId}/summary`);
    expect(summary.json.counts).toMatchObject({ equipment: 1, operators: 1, settings: 1, userFiles: 1 });
    const purged = await c.del(`/api/companies/${k.companyId}/purge`);
    expectOk(purged);
    expect(purged.json.deleted).toMatchObject({ equipment: 1, operators: 1, settings: 1, userFiles: 1 });
    expect((await c.get(`/api/companies/${k.companyId}/equipments`)).json).toEqual([]);
    expect((await c.get(`/api/companies/${k.companyId}/user-files?includeHidden=true`)).json).toEqual([]);
  });
});

describe('another company’s ids', () => {
  it('answer 404 and change nothing', async () => {
    const m = await b.post('/api/equipment', {
      companyId: companyB,
      name: 'Private',
      type: 'mower',
      swathWidth: 3,
    });
    const o = await b.post('/api/operators', { companyId: companyB, name: 'Private op' });
    const f = await b.call(`/api/companies/${companyB}/user-files/file-upload?fileName=p.wkt`, {
      method: 'POST',
      raw: 'POLYGON ((10 55, 10.01 55, 10.01 55.01, 10 55))',
      type: 'text/plain',
    });
    expectOk(f, 201);
    const eid = m.json.equipmentId;
    const oid = o.json.operatorId;
    const fid = f.json.userFileId;
    const tries = [
      a.get(`/api/equipment/${eid}`),
      a.post('/api/equipment', { equipmentId: eid, name: 'Stolen', type: 'mower', swathWidth: 3 }),
      a.del(`/api/equipment/${eid}`),
      a.post('/api/equipment/delete', { equipmentIds: [eid] }),
      a.get(`/api/companies/${companyB}/equipments`),
      a.post('/api/equipment', { companyId: companyB, name: 'Intruder', type: 'mower', swathWidth: 3 }),
      a.get(`/api/operators/${oid}`),
      a.post('/api/operators', { operatorId: oid, name: 'Stolen' }),
      a.del(`/api/operators/${oid}`),
      a.get(`/api/companies/${companyB}/operators`),
      a.get(`/api/user-files/${fid}`),
      a.get(`/api/user-files/${fid}/metadata`),
      a.post(`/api/user-files/${fid}/hide`),
      a.del(`/api/user-files/${fid}`),
      a.get(`/api/companies/${companyB}/user-files`),
      a.call(`/api/companies/${companyB}/user-files/file-upload`, {
        method: 'POST',
        raw: 'POLYGON EMPTY',
        type: 'text/plain',
      }),
    ];
    for (const t of await Promise.all(tries)) expectError(t, 404, 'NOT_FOUND');
    expect((await b.get(`/api/equipment/${eid}`)).json).toEqual(m.json);
    expect((await b.get(`/api/operators/${oid}`)).json).toEqual(o.json);
    expect((await b.get(`/api/user-files/${fid}/metadata`)).json).toEqual(f.json);
    expect(
      (await b.get(`/api/companies/${companyB}/equipments`)).json.map((x: { name: string }) => x.name),
    ).not.toContain('Intruder');
  });
});
