/**
 * Descriptors over HTTP (PGlite and PostgreSQL): set (created, then value
 * replaced), list with filters, read, delete, the objects lacking required
 * descriptors, typed values, validation, and isolation (another company's
 * descriptors, objects and company answer 404).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let kb: Awaited<ReturnType<typeof testKey>>;
const A: Record<string, string> = {};
let bField: string;

async function field(c: Client, farmId: string, name: string, lon: number) {
  const ans = await c.post('/api/fields/save', {
    farmId,
    name,
    boundary: rectangleField(3, lon, 55).coordinates,
  });
  expectOk(ans, 201);
  return ans.json.field.fieldId as string;
}

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey();
  kb = await testKey();
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  A.growerId = (await a.post(`/api/companies/${ka.companyId}/growers`, { name: 'G' })).json.growerId;
  A.farmId = (await a.post(`/api/growers/${A.growerId}/farms`, { name: 'F' })).json.farmId;
  A.north = await field(a, A.farmId, 'North', 10);
  A.south = await field(a, A.farmId, 'South', 10.02);
  const bg = (await b.post(`/api/companies/${kb.companyId}/growers`, { name: 'G' })).json.growerId;
  const bf = (await b.post(`/api/growers/${bg}/farms`, { name: 'F' })).json.farmId;
  bField = await field(b, bf, 'Theirs', 10.04);
});
afterAll(async () => {
  await srv?.close();
});

describe('descriptors', () => {
  it('sets, replaces, lists, reads and deletes typed descriptors', async () => {
    const crop = {
      objectType: 'field',
      objectId: A.north,
      name: 'crop',
      valueType: 'text',
      value: 'winter wheat',
    };
    const made = await a.post('/api/descriptors', crop);
    expectOk(made, 201);
    expect(made.json).toMatchObject({ ...crop, companyId: ka.companyId, etag: '"1"' });
    const replaced = await a.post('/api/descriptors', { ...crop, name: 'Crop', value: 'barley' });
    expectOk(replaced, 200);
    expect(replaced.json).toMatchObject({
      descriptorId: made.json.descriptorId,
      name: 'crop',
      value: 'barley',
      etag: '"2"',
    });
    expectOk(
      await a.post('/api/descriptors', {
        objectType: 'field',
        objectId: A.north,
        name: 'sown',
        valueType: 'date',
        value: '2026-10-01',
      }),
      201,
    );
    expectOk(
      await a.post('/api/descriptors', {
        objectType: 'farm',
        objectId: A.farmId,
        name: 'organic',
        valueType: 'boolean',
        value: true,
      }),
      201,
    );
    const all = (await a.get('/api/descriptors')).json;
    expect(all).toHaveLength(3);
    const north = (await a.get(`/api/descriptors?objectType=field&objectId=${A.north}`)).json;
    expect(north.map((d: { name: string }) => d.name)).toEqual(['crop', 'sown']);
    expect((await a.get(`/api/descriptors?name=CROP&companyId=${ka.companyId}`)).json).toHaveLength(1);
    const one = await a.get(`/api/descriptors/${made.json.descriptorId}`);
    expectOk(one);
    expect(one.json.value).toBe('barley');
    expectOk(await a.del(`/api/descriptors/${made.json.descriptorId}`), 204);
    expectError(await a.get(`/api/descriptors/${made.json.descriptorId}`), 404, 'NOT_FOUND');
  });

  it('finds the objects lacking required descriptors', async () => {
    expectOk(
      await a.post('/api/descriptors', {
        objectType: 'field',
        objectId: A.south,
        name: 'crop',
        valueType: 'text',
        value: 'maize',
      }),
      201,
    );
    const m = await a.get('/api/descriptors/missing?objectType=field&names=crop,sown');
    expectOk(m);
    expect(m.json).toEqual([
      { objectType: 'field', objectId: A.north, objectName: 'North', missing: ['crop'] },
      { objectType: 'field', objectId: A.south, objectName: 'South', missing: ['sown'] },
    ]);
    const farms = (await a.get('/api/descriptors/missing?objectType=farm&names=Organic')).json;
    expect(farms).toEqual([]);
  });

  it('refuses bad input naming the field', async () => {
    const wrongType = await a.post('/api/descriptors', {
      objectType: 'field',
      objectId: A.north,
      name: 'area',
      valueType: 'number',
      value: 'big',
    });
    expectError(wrongType, 400, 'VALIDATION_ERROR');
    expect(wrongType.json.errors[0].path).toBe('/value');
    expectError(
      await a.post('/api/descriptors', {
        objectType: 'field',
        objectId: A.north,
        name: 'd',
        valueType: 'date',
        value: '2026-13-01',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await a.post('/api/descriptors', {
        objectType: 'tractor',
        objectId: A.north,
        name: 'x',
        valueType: 'text',
        value: 'y',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await a.get('/api/descriptors/missing?objectType=field&names=,,'), 400, 'VALIDATION_ERROR');
    expectError(await a.get('/api/descriptors/missing?names=crop'), 400, 'VALIDATION_ERROR');
  });

  it("answers 404 to another company's descriptors, objects and company", async () => {
    const mine = (await a.get('/api/descriptors')).json[0].descriptorId as string;
    expectError(await b.get(`/api/descriptors/${mine}`), 404, 'NOT_FOUND');
    expectError(await b.del(`/api/descriptors/${mine}`), 404, 'NOT_FOUND');
    expectError(
      await b.post('/api/descriptors', {
        objectType: 'field',
        objectId: A.north,
        name: 'x',
        valueType: 'text',
        value: 'y',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await a.post('/api/descriptors', {
        objectType: 'field',
        objectId: bField,
        name: 'x',
        valueType: 'text',
        value: 'y',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(await b.get(`/api/descriptors?companyId=${ka.companyId}`), 404, 'NOT_FOUND');
    expectError(
      await b.get(`/api/descriptors/missing?companyId=${ka.companyId}&objectType=field&names=crop`),
      404,
      'NOT_FOUND',
    );
    expect((await b.get('/api/descriptors')).json).toEqual([]);
    const theirs = (await b.get('/api/descriptors/missing?objectType=field&names=crop')).json;
    expect(theirs.map((m: { objectId: string }) => m.objectId)).toEqual([bField]);
    expectOk(await a.get(`/api/descriptors/${mine}`));
  });

  it('is in the OpenAPI document with named schemas', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    for (const name of ['Descriptor', 'SetDescriptorRequest', 'MissingDescriptors'])
      expect(doc.components.schemas[name], name).toBeDefined();
    expect(doc.paths['/api/descriptors/missing'].get).toBeDefined();
    expect(doc.paths['/api/descriptors/{id}'].delete).toBeDefined();
  });
});
