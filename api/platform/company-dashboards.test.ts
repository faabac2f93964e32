/**
 * Companies as a table and in totals, company units, and the dashboards,
 * against a really listening server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { client, expectError, expectOk } from './client.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
});
afterAll(async () => {
  await srv?.close();
});

const RINGS = [
  [
    [10, 55],
    [10.01, 55],
    [10.01, 55.01],
    [10, 55.01],
    [10, 55],
  ],
];

describe('companies table and list-summary', () => {
  it('pages, sorts, searches and filters by role; the summary totals what matches', async () => {
    const me = await testKey();
    const other = await testKey();
    const c = client(srv.url, { key: me.key });
    const tag = `T${Date.now().toString(36)}`;
    const made: string[] = [];
    for (const n of ['Charlie', 'alpha', 'Bravo']) {
      const r = await c.post('/api/companies', { name: `${tag} ${n}` });
      expectOk(r, 201);
      made.push(r.json.companyId);
    }
    // A company where I only view, with one field.
    const co = client(srv.url, { key: other.key });
    const theirs = await co.post('/api/companies', { name: `${tag} Delta` });
    expectOk(
      await co.post('/api/company-accesses', {
        companyId: theirs.json.companyId,
        userId: me.userId,
        role: 'viewer',
      }),
      201,
    );
    const g = await co.post(`/api/companies/${theirs.json.companyId}/growers`, { name: 'G' });
    const f = await co.post(`/api/growers/${g.json.growerId}/farms`, { name: 'F' });
    expectOk(
      await co.post('/api/fields/save', { farmId: f.json.farmId, name: 'Field', boundary: RINGS }),
      201,
    );

    const page1 = await c.post('/api/companies/table', { search: tag, limit: 2 });
    expectOk(page1);
    expect(page1.json).toMatchObject({ total: 4, offset: 0, limit: 2 });
    expect(page1.json.items.map((x: { name: string }) => x.name)).toEqual([`${tag} alpha`, `${tag} Bravo`]);
    const page2 = await c.post('/api/companies/table', { search: tag, limit: 2, offset: 2 });
    expect(page2.json.items.map((x: { name: string }) => x.name)).toEqual([`${tag} Charlie`, `${tag} Delta`]);
    expect(page2.json.items[1]).toMatchObject({
      role: 'viewer',
      users: 2,
      fields: 1,
      boundaries: 1,
      pathPlans: 0,
    });
    expect(page2.json.items[1].area).toBeGreaterThan(600_000);

    const byArea = await c.post('/api/companies/table', {
      search: tag,
      sort: { field: 'area', direction: 'desc' },
    });
    expect(byArea.json.items[0].name).toBe(`${tag} Delta`);
    const viewed = await c.post('/api/companies/table', { search: tag, roles: ['viewer'] });
    expect(viewed.json.items.map((x: { companyId: string }) => x.companyId)).toEqual([theirs.json.companyId]);

    const sum = await c.post('/api/companies/list-summary', { search: tag });
    expectOk(sum);
    expect(sum.json).toMatchObject({
      companies: 4,
      byRole: { admin: 3, editor: 0, viewer: 1 },
      fields: 1,
      boundaries: 1,
      pathPlans: 0,
    });
    const all = await c.post('/api/companies/list-summary');
    expect(all.json.companies).toBe(5); // and the key's own company

    expectError(await c.post('/api/companies/table', { sort: { field: 'secret' } }), 400, 'VALIDATION_ERROR');
    expectError(await c.post('/api/companies/table', { limit: 0 }), 400, 'VALIDATION_ERROR');
  });
});

describe('company units', () => {
  it('stores imperial units as the company setting and answers the display factors; viewers may not', async () => {
    const admin = await testKey();
    const viewer = await testKey();
    const c = client(srv.url, { key: admin.key });
    const cid = admin.companyId;
    const set = await c.post(`/api/companies/${cid}/uom`, { uom: 'imperial' });
    expectOk(set);
    expect(set.json).toMatchObject({
      companyId: cid,
      uom: 'imperial',
      display: { area: { unit: 'ac' }, width: { unit: 'ft' } },
    });
    // 1 ha is 2.471 acres; 24 m is 78.74 ft.
    expect(10_000 * set.json.display.area.factor).toBeCloseTo(2.4711, 4);
    expect(24 * set.json.display.width.factor).toBeCloseTo(78.74, 2);
    const settings = await c.get(`/api/companies/${cid}/settings`);
    expect(settings.json.find((s: { name: string }) => s.name === 'units').value).toBe('imperial');
    expectError(await c.post(`/api/companies/${cid}/uom`, { uom: 'furlongs' }), 400, 'VALIDATION_ERROR');

    const store = await testStore();
    await store.accounts.grantAccess(viewer.userId, cid, 'viewer');
    const cv = client(srv.url, { key: viewer.key });
    expectError(await cv.post(`/api/companies/${cid}/uom`, { uom: 'metric' }), 403, 'NotAuthorized');
    const stranger = client(srv.url, { key: (await testKey()).key });
    expectError(await stranger.post(`/api/companies/${cid}/uom`, { uom: 'metric' }), 404, 'NOT_FOUND');
  });
});

describe('dashboards', () => {
  it('counts fields, boundaries, plans and areas and shows the recent activity', async () => {
    const admin = await testKey();
    const c = client(srv.url, { key: admin.key });
    const cid = admin.companyId;
    const list = await c.get(`/api/companies/${cid}/dashboards`);
    expectOk(list);
    expect(list.json.items.map((d: { name: string }) => d.name)).toEqual(['summary', 'fieldwatch']);

    const empty = await c.get(`/api/companies/${cid}/dashboards/summary`);
    expectOk(empty);
    expect(empty.json).toMatchObject({
      fields: 0,
      boundaries: { total: 0, active: 0 },
      area: { fields: 0, planned: 0 },
      users: 1,
    });
    expect(empty.json.units.uom).toBe('metric');

    const g = await c.post(`/api/companies/${cid}/growers`, { name: 'G' });
    const f = await c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'F' });
    const saved = await c.post('/api/fields/save', { farmId: f.json.farmId, name: 'North', boundary: RINGS });
    expectOk(saved, 201);
    await c.post('/api/fields/save', { farmId: f.json.farmId, name: 'South', boundary: RINGS });

    const s = await c.get(`/api/companies/${cid}/dashboards/summary`);
    expect(s.json).toMatchObject({ growers: 1, farms: 1, fields: 2, boundaries: { total: 2, active: 2 } });
    expect(s.json.area.fields).toBeCloseTo(2 * saved.json.vBoundary.area, 0);
    expect(s.json.lastChangeAt).not.toBeNull();

    const w = await c.get(`/api/companies/${cid}/dashboards/fieldwatch`);
    expectOk(w);
    expect(w.json.fields).toMatchObject({
      total: 2,
      withActiveBoundary: 2,
      withoutBoundary: 0,
      withPlans: 0,
      withoutPlans: 2,
    });
    expect(w.json.recentFields.map((x: { name: string }) => x.name).sort()).toEqual(['North', 'South']);
    const routes = w.json.recentActivity.map((e: { route: string }) => e.route);
    expect(routes).toContain('/api/fields/save');
    expect(routes).toContain('/api/companies/{companyId}/growers');
    expect(w.json.recentActivity[0].userId).toBe(admin.userId);

    const stranger = client(srv.url, { key: (await testKey()).key });
    expectError(await stranger.get(`/api/companies/${cid}/dashboards/fieldwatch`), 404, 'NOT_FOUND');
  });
});
