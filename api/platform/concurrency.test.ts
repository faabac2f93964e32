/**
 * Concurrent writers on the hierarchy: of two writers holding the same
 * ETag exactly one wins (the other gets 412), and concurrent activations
 * leave exactly one active boundary per field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectOk } from './client.ts';

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

const RINGS = [
  [
    [8.6, 49.9],
    [8.605, 49.9],
    [8.605, 49.903],
    [8.6, 49.903],
    [8.6, 49.9],
  ],
];

async function field() {
  const g = await c.post(`/api/companies/${companyId}/growers`, { name: 'Race' });
  const f = await c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'Race' });
  const saved = await c.post('/api/fields/save', { farmId: f.json.farmId, name: 'Race', boundary: RINGS });
  expectOk(saved, 201);
  return {
    growerId: g.json.growerId as string,
    fieldId: saved.json.field.fieldId as string,
    saved: saved.json,
  };
}

describe('concurrent writers', () => {
  it('lets exactly one of two writers with the same ETag win', async () => {
    const { growerId, fieldId, saved } = await field();
    for (let round = 0; round < 3; round++) {
      const g = await c.get(`/api/growers/${growerId}`);
      const etag = g.headers.get('etag')!;
      const two = await Promise.all(
        ['A', 'B'].map((n) =>
          c.put(`/api/growers/${growerId}`, { name: n }, { headers: { 'if-match': etag } }),
        ),
      );
      expect(two.map((a) => a.status).sort()).toEqual([200, 412]);
      const winner = two.find((a) => a.status === 200)!;
      expect((await c.get(`/api/growers/${growerId}`)).json.name).toBe(winner.json.name);
    }
    const boundaryId = saved.vBoundary.boundaryId;
    const b = await c.get(`/api/vboundary/${boundaryId}`);
    const etag = b.headers.get('etag')!;
    const shifted = [RINGS[0].map(([x, y]) => [x + 0.001, y])];
    const two = await Promise.all(
      [RINGS, shifted].map((rings) =>
        c.post(
          '/api/vBoundary/upsert',
          { fieldId, boundaryId, boundary: rings },
          { headers: { 'if-match': etag } },
        ),
      ),
    );
    expect(two.map((a) => a.status).sort()).toEqual([200, 412]);
    const now = (await c.get(`/api/vboundary/${boundaryId}`)).json;
    expect(now.boundary).toEqual(two.find((a) => a.status === 200)!.json.boundary);
  });

  it('keeps exactly one active boundary under concurrent activations and additions', async () => {
    const { fieldId, saved } = await field();
    const ids: string[] = [saved.vBoundary.boundaryId];
    for (let i = 0; i < 3; i++) {
      const a = await c.post('/api/vBoundary/upsert', { fieldId, boundary: RINGS, active: false });
      expectOk(a, 201);
      ids.push(a.json.boundaryId);
    }
    const answers = await Promise.all([
      ...[...ids, ...ids].map((id) => c.post(`/api/boundaries/${id}/activate`)),
      ...[1, 2, 3].map(() => c.post('/api/vBoundary/upsert', { fieldId, boundary: RINGS })),
    ]);
    for (const a of answers) expect([200, 201], a.text).toContain(a.status);
    const list = (await c.get(`/api/fields/${fieldId}/boundaries`)).json as {
      boundaryId: string;
      active: boolean;
    }[];
    expect(list).toHaveLength(7);
    const active = list.filter((b) => b.active);
    expect(active).toHaveLength(1);
    expect((await c.get(`/api/fields/${fieldId}`)).json.activeBoundaryId).toBe(active[0].boundaryId);
  });
});
