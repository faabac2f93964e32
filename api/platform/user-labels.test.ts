/**
 * User labels over HTTP (PGlite and PostgreSQL): create, list (all and
 * active), read with ETag, update with If-Match (412 when stale), names
 * distinct per company (409), delete, validation, and isolation (another
 * company's labels and company id answer 404).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let kb: Awaited<ReturnType<typeof testKey>>;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey();
  kb = await testKey();
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
});
afterAll(async () => {
  await srv?.close();
});

describe('user labels', () => {
  it('creates, lists, reads, updates with If-Match and deletes', async () => {
    const made = await a.post('/api/user-labels', { name: 'Organic', color: '#22aa44' });
    expectOk(made, 201);
    expect(made.json).toMatchObject({
      companyId: ka.companyId,
      name: 'Organic',
      color: '#22aa44',
      active: true,
      etag: '"1"',
    });
    expect(made.headers.get('etag')).toBe('"1"');
    const id = made.json.userLabelId as string;
    expectOk(
      await a.post('/api/user-labels', { companyId: ka.companyId, name: 'drained', active: false }),
      201,
    );
    expectOk(await a.post('/api/user-labels', { name: 'Irrigated' }), 201);

    const all = await a.get('/api/user-labels');
    expectOk(all);
    expect(all.json.map((l: { name: string }) => l.name)).toEqual(['drained', 'Irrigated', 'Organic']);
    const active = await a.get(`/api/user-labels/active?companyId=${ka.companyId}`);
    expect(active.json.map((l: { name: string }) => l.name)).toEqual(['Irrigated', 'Organic']);

    const one = await a.get(`/api/user-labels/${id}`);
    expectOk(one);
    expect(one.json).toEqual(made.json);

    const changed = await a.put(
      `/api/user-labels/${id}`,
      { active: false, color: null },
      { headers: { 'if-match': '"1"' } },
    );
    expectOk(changed);
    expect(changed.json).toMatchObject({ name: 'Organic', color: null, active: false, etag: '"2"' });
    expectError(
      await a.put(`/api/user-labels/${id}`, { name: 'Bio' }, { headers: { 'if-match': '"1"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expect((await a.get('/api/user-labels/active')).json.map((l: { name: string }) => l.name)).toEqual([
      'Irrigated',
    ]);

    expectError(
      await a.del(`/api/user-labels/${id}`, { headers: { 'if-match': '"1"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expectOk(await a.del(`/api/user-labels/${id}`), 204);
    expectError(await a.get(`/api/user-labels/${id}`), 404, 'NOT_FOUND');
  });

  it('keeps names distinct per company, case-insensitively', async () => {
    expectOk(await a.post('/api/user-labels', { name: 'Clay' }), 201);
    expectError(await a.post('/api/user-labels', { name: 'CLAY' }), 409, 'CONFLICT');
    const other = await a.post('/api/user-labels', { name: 'Sand' });
    expectError(await a.put(`/api/user-labels/${other.json.userLabelId}`, { name: 'clay' }), 409, 'CONFLICT');
    // Another company may use the name.
    expectOk(await b.post('/api/user-labels', { name: 'Clay' }), 201);
  });

  it('refuses bad input naming the field', async () => {
    const bad = await a.post('/api/user-labels', { name: 'x', color: 'green' });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(bad.json.errors)).toContain('/color');
    expectError(await a.post('/api/user-labels', { name: '' }), 400, 'VALIDATION_ERROR');
    expectError(await a.post('/api/user-labels', { name: 'x', extra: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await a.get('/api/user-labels?companyId=nope'), 400, 'VALIDATION_ERROR');
  });

  it("answers 404 to another company's labels and company, and changes nothing", async () => {
    const mine = (await a.post('/api/user-labels', { name: 'Private' })).json.userLabelId as string;
    expectError(await b.get(`/api/user-labels/${mine}`), 404, 'NOT_FOUND');
    expectError(await b.put(`/api/user-labels/${mine}`, { name: 'Stolen' }), 404, 'NOT_FOUND');
    expectError(await b.del(`/api/user-labels/${mine}`), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/user-labels?companyId=${ka.companyId}`), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/user-labels/active?companyId=${ka.companyId}`), 404, 'NOT_FOUND');
    expectError(await b.post('/api/user-labels', { companyId: ka.companyId, name: 'x' }), 404, 'NOT_FOUND');
    expect((await a.get(`/api/user-labels/${mine}`)).json.name).toBe('Private');
    const bNames = (await b.get('/api/user-labels')).json.map((l: { name: string }) => l.name);
    expect(bNames).not.toContain('Private');
  });

  it('is in the OpenAPI document with named schemas', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    for (const name of ['UserLabel', 'CreateUserLabelRequest', 'UpdateUserLabelRequest'])
      expect(doc.components.schemas[name], name).toBeDefined();
    expect(doc.paths['/api/user-labels/active'].get).toBeDefined();
    expect(doc.paths['/api/user-labels/{userLabelId}'].put).toBeDefined();
  });
});
