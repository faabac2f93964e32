/**
 * Data survives a restart: a server writes through the API, the server and
 * its store are closed, a new store is opened on the same data (the PGlite
 * directory, or the same PostgreSQL database in the `postgres` project) and
 * a new server answers the same: keys, the hierarchy, boundaries with their
 * geometry and ETags (a stale If-Match still gets 412).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKeyForNewAccount } from '../../store/bootstrap.ts';
import { openStore, type Store } from '../../store/db.ts';
import { startTestServer, testPostgresUrl } from '../testing.ts';
import { client, expectError, expectOk } from './client.ts';

const postgresUrl = await testPostgresUrl();
const dir = postgresUrl ? null : mkdtempSync(join(tmpdir(), 'tramline-restart-'));

const open = (): Promise<Store> =>
  postgresUrl ? openStore({ databaseUrl: postgresUrl, poolSize: 3 }) : openStore({ dataDir: dir! });

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const RINGS = [
  [
    [9.5, 55.2],
    [9.506, 55.2],
    [9.506, 55.203],
    [9.5, 55.203],
    [9.5, 55.2],
  ],
  [
    [9.502, 55.201],
    [9.5025, 55.201],
    [9.5025, 55.2015],
    [9.502, 55.201],
  ],
];

describe(`restart (${postgresUrl ? 'PostgreSQL' : 'PGlite directory'})`, () => {
  it('answers the same after the server and its store are closed and opened again', async () => {
    let store = await open();
    const made = await createKeyForNewAccount(store, {
      email: `restart-${Date.now()}-${Math.random().toString(36).slice(2)}@example.org`,
      credits: 5,
    });
    let srv = await startTestServer({ store, rateLimitPerMin: 100_000 });
    let c = client(srv.url, { key: made.key });
    const g = await c.post(`/api/companies/${made.companyId}/growers`, {
      name: 'Persistent',
      archived: true,
    });
    expectOk(g, 201);
    const f = await c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'Farm' });
    const saved = await c.post('/api/fields/save', { farmId: f.json.farmId, name: 'Field', boundary: RINGS });
    expectOk(saved, 201);
    const fieldId = saved.json.field.fieldId;
    const second = await c.post('/api/vBoundary/upsert', { fieldId, boundary: [RINGS[0]], active: false });
    expectOk(second, 201);
    const renamed = await c.put(`/api/fields/${fieldId}`, { name: 'Field renamed' });
    expectOk(renamed);
    const before = {
      grower: (await c.get(`/api/growers/${g.json.growerId}`)).json,
      field: (await c.get(`/api/fields/${fieldId}`)).json,
      boundaries: (await c.get(`/api/fields/${fieldId}/boundaries`)).json,
      wkt: (await c.get(`/api/boundaries/${saved.json.vBoundary.boundaryId}/wkt`)).text,
      summary: (await c.get(`/api/companies/${made.companyId}/summary`)).json,
    };
    await srv.close();
    await store.close();

    store = await open();
    srv = await startTestServer({ store, rateLimitPerMin: 100_000 });
    try {
      c = client(srv.url, { key: made.key });
      const after = {
        grower: (await c.get(`/api/growers/${g.json.growerId}`)).json,
        field: (await c.get(`/api/fields/${fieldId}`)).json,
        boundaries: (await c.get(`/api/fields/${fieldId}/boundaries`)).json,
        wkt: (await c.get(`/api/boundaries/${saved.json.vBoundary.boundaryId}/wkt`)).text,
        summary: (await c.get(`/api/companies/${made.companyId}/summary`)).json,
      };
      expect(after).toEqual(before);
      expect(after.grower).toMatchObject({ name: 'Persistent', archived: true });
      expect(after.boundaries[0].boundary).toEqual(RINGS);
      expect(after.field.name).toBe('Field renamed');
      expect(after.field.etag).not.toBe('"1"');
      // ETags carry over: the old one is stale, the current one works.
      expectError(
        await c.put(`/api/fields/${fieldId}`, { name: 'x' }, { headers: { 'if-match': '"1"' } }),
        412,
        'PRECONDITION_FAILED',
      );
      expectOk(
        await c.put(`/api/fields/${fieldId}`, { name: 'y' }, { headers: { 'if-match': after.field.etag } }),
      );
    } finally {
      await srv.close();
      await store.close();
    }
  });
});
