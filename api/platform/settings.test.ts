/**
 * Company and user settings over HTTP (PGlite and PostgreSQL): set, read,
 * update with ETags (412 when stale), typed values of known names, distinct
 * names, tables, and isolation (another company's or user's settings: 404).
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

describe('company settings', () => {
  it('sets, reads, updates with If-Match and deletes', async () => {
    const made = await a.post(`/api/companies/${ka.companyId}/settings`, {
      name: 'defaultSwathWidth',
      value: 24,
    });
    expectOk(made, 201);
    expect(made.json).toMatchObject({
      scope: 'company',
      companyId: ka.companyId,
      userId: null,
      name: 'defaultSwathWidth',
      value: 24,
      etag: '"1"',
    });
    const again = await a.post(`/api/companies/${ka.companyId}/settings`, {
      name: 'defaultSwathWidth',
      value: 27,
    });
    expectOk(again, 200);
    expect(again.json).toMatchObject({ settingId: made.json.settingId, value: 27, etag: '"2"' });
    expectError(
      await a.post(
        `/api/companies/${ka.companyId}/settings`,
        { name: 'defaultSwathWidth', value: 30 },
        { headers: { 'if-match': '"1"' } },
      ),
      412,
      'PRECONDITION_FAILED',
    );
    const byId = await a.post(
      '/api/setting',
      { settingId: made.json.settingId, value: 36 },
      { headers: { 'if-match': '"2"' } },
    );
    expectOk(byId);
    expect(byId.json.value).toBe(36);
    const got = await a.get(`/api/settings/${made.json.settingId}`);
    expect(got.headers.get('etag')).toBe('"3"');
    expect(got.json.value).toBe(36);
    const custom = await a.post('/api/setting', {
      companyId: ka.companyId,
      name: 'fieldColours',
      value: { wheat: '#d4a017' },
    });
    expectOk(custom, 201);
    const list = await a.get(`/api/companies/${ka.companyId}/settings`);
    expect(list.json.map((s: { name: string }) => s.name)).toEqual(['defaultSwathWidth', 'fieldColours']);
    const table = await a.post('/api/settings/table', { companyId: ka.companyId, search: 'colour' });
    expect(table.json.total).toBe(1);
    expect(table.json.items[0].value).toEqual({ wheat: '#d4a017' });
    expectError(
      await a.del(`/api/settings/${made.json.settingId}`, { headers: { 'if-match': '"2"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expect((await a.del(`/api/settings/${made.json.settingId}`)).status).toBe(204);
    expectError(await a.get(`/api/settings/${made.json.settingId}`), 404, 'NOT_FOUND');
  });

  it('checks the values of known names and the form of names', async () => {
    const bad = await a.post(`/api/companies/${ka.companyId}/settings`, {
      name: 'defaultTrackType',
      value: 'Zigzag',
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json.errors).toEqual([
      {
        path: '/value',
        message: "must be one of 'Straight', 'Curved', 'Spiral' (setting 'defaultTrackType')",
      },
    ]);
    const units = await a.post('/api/user-settings', { name: 'units', value: 'furlongs' });
    expectError(units, 400, 'VALIDATION_ERROR');
    expect(units.json.message).toMatch(/must be one of 'metric', 'imperial'/);
    expectError(
      await a.post('/api/user-settings', { name: '1 bad name', value: 1 }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await a.post('/api/user-settings', { name: 'x' }), 400, 'VALIDATION_ERROR');
    const v = await a.post('/api/settings/validate', { name: 'timeZone', value: 'Mars/Olympus' });
    expectOk(v);
    expect(v.json).toMatchObject({ valid: false, known: true });
    expect(v.json.errors[0].path).toBe('/value');
    expect(
      (await a.post('/api/settings/validate', { name: 'timeZone', value: 'Europe/Copenhagen' })).json,
    ).toEqual({ valid: true, known: true, errors: [] });
    expect((await a.post('/api/settings/validate', { name: 'anything.else', value: [1] })).json).toEqual({
      valid: true,
      known: false,
      errors: [],
    });
  });

  it('refuses values nested too deep (10,000 levels once overflowed the stack: 500)', async () => {
    for (const deep of [
      '['.repeat(10_000) + ']'.repeat(10_000),
      `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
    ]) {
      const raw = `{"name":"deep.value","value":${deep}}`;
      const set = await a.call('/api/user-settings', { method: 'POST', raw });
      // The input rule of every request refuses it before the settings route sees it.
      expectError(set, 400, 'NESTING_TOO_DEEP');
      expect(set.json.errors[0].path).toMatch(/^\/value\//);
      expect(set.json.errors[0].message).toMatch(/at most 32 levels/);
      const check = await a.call('/api/settings/validate', { method: 'POST', raw });
      expect(check.status).toBeLessThan(500);
    }
    const shallow = await a.post('/api/settings/validate', { name: 'deep.ok', value: [[[[1]]]] });
    expect(shallow.json).toMatchObject({ valid: true });
  });
});

describe('user settings', () => {
  it('are the caller’s own; distinct names cover both', async () => {
    const s = await a.post('/api/user-settings', { name: 'language', value: 'da' });
    expectOk(s, 201);
    expect(s.json).toMatchObject({ scope: 'user', userId: ka.userId, companyId: null });
    expectOk(await a.post('/api/setting', { name: 'timeZone', value: 'Europe/Copenhagen' }), 201);
    const mine = await a.get(`/api/users/${ka.userId}/settings`);
    expect(mine.json.map((x: { name: string }) => x.name)).toEqual(['language', 'timeZone']);
    expectOk(
      await a.post(`/api/companies/${ka.companyId}/settings`, { name: 'exportFormat', value: 'isoxml' }),
      201,
    );
    const names = await a.get('/api/settings/distinct-names');
    expect(names.json.names).toEqual(expect.arrayContaining(['language', 'timeZone', 'exportFormat']));
    expect(names.json.known.map((k: { name: string }) => k.name)).toContain('units');
    expectError(await b.get(`/api/users/${ka.userId}/settings`), 404, 'NOT_FOUND');
    expectError(await b.get(`/api/settings/${s.json.settingId}`), 404, 'NOT_FOUND');
    expectError(await b.del(`/api/settings/users/${ka.userId}`), 404, 'NOT_FOUND');
    expect((await b.get('/api/settings/distinct-names')).json.names).not.toContain('language');
    const gone = await a.del(`/api/settings/users/${ka.userId}`);
    expect(gone.json).toEqual({ deleted: 2 });
    expect((await a.get(`/api/users/${ka.userId}/settings`)).json).toEqual([]);
  });
});

describe('another company’s settings', () => {
  it('answer 404 and change nothing', async () => {
    const s = await b.post(`/api/companies/${kb.companyId}/settings`, {
      name: 'defaultSwathWidth',
      value: 12,
    });
    const id = s.json.settingId;
    const tries = await Promise.all([
      a.get(`/api/settings/${id}`),
      a.del(`/api/settings/${id}`),
      a.post('/api/setting', { settingId: id, value: 1 }),
      a.get(`/api/companies/${kb.companyId}/settings`),
      a.post(`/api/companies/${kb.companyId}/settings`, { name: 'defaultSwathWidth', value: 1 }),
      a.post('/api/setting', { companyId: kb.companyId, name: 'x', value: 1 }),
      a.post('/api/settings/table', { companyId: kb.companyId }),
      a.get(`/api/settings/distinct-names?companyId=${kb.companyId}`),
    ]);
    for (const t of tries) expectError(t, 404, 'NOT_FOUND');
    expect((await b.get(`/api/settings/${id}`)).json).toEqual(s.json);
  });
});
