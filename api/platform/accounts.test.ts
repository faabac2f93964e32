/**
 * Accounts, sessions, API keys and companies against a really listening
 * server: register/login/refresh/logout, Bearer wherever a key works, key
 * creation/listing/revocation, companies with roles, ETags and isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
});
afterAll(async () => {
  await srv?.close();
});

let n = 0;
const email = () => `person${++n}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@Example.org`;
const PASSWORD = 'correct horse battery';

async function register(extra: Record<string, unknown> = {}) {
  const e = email();
  const a = await call(srv.url, '/api/account/register', {
    body: { email: e, password: PASSWORD, ...extra },
  });
  expectOk(a, 201);
  return { email: e, ...a.json };
}

describe('register, login, refresh, logout', () => {
  it('registers a user with a company and signs them in; the bearer token works like a key', async () => {
    const r = await register({ firstName: 'Ada', companyName: 'Ada Farms' });
    expect(r).toMatchObject({ tokenType: 'Bearer', expiresIn: 900 });
    expect(r.refreshToken).toMatch(/^tlr_/);
    const me = await call(srv.url, '/api/user/current', { bearer: r.accessToken });
    expectOk(me);
    expect(me.json).toMatchObject({
      userId: r.userId,
      email: r.email.toLowerCase(),
      firstName: 'Ada',
      authentication: 'session',
      apiKey: null,
      session: { companyId: r.companyId },
      companyAccess: [{ companyId: r.companyId, companyName: 'Ada Farms', role: 'admin' }],
      credits: { available: 0, unlimited: false },
    });
    expect(me.headers.get('x-ratelimit-limit')).toBe('100000');
  });

  it('refuses a taken e-mail (409), bad bodies (400 naming the field) and wrong passwords (401 with a body)', async () => {
    const r = await register();
    expectError(
      await call(srv.url, '/api/account/register', {
        body: { email: r.email.toUpperCase(), password: PASSWORD },
      }),
      409,
      'EMAIL_TAKEN',
    );
    const short = await call(srv.url, '/api/account/register', {
      body: { email: email(), password: 'short' },
    });
    expectError(short, 400, 'VALIDATION_ERROR');
    expect(short.json.errors[0].path).toBe('/password');
    const bad = await call(srv.url, '/api/account/register', {
      body: { email: 'not-an-email', password: PASSWORD, admin: true },
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/admin', '/email']);

    expectError(
      await call(srv.url, '/api/account/login', { body: { email: r.email, password: 'wrong password!' } }),
      401,
      'INVALID_CREDENTIALS',
    );
    expectError(
      await call(srv.url, '/api/account/login', { body: { email: email(), password: PASSWORD } }),
      401,
      'INVALID_CREDENTIALS',
    );
    const ok = await call(srv.url, '/api/account/login', {
      body: { email: r.email.toUpperCase(), password: PASSWORD },
    });
    expectOk(ok);
    expect(ok.json.userId).toBe(r.userId);
  });

  it('refresh tokens work once; logout ends the session; junk bearer tokens get 401', async () => {
    const r = await register();
    const a = await call(srv.url, '/api/account/refresh', { body: { refreshToken: r.refreshToken } });
    expectOk(a);
    expect(a.json.refreshToken).not.toBe(r.refreshToken);
    const b = await call(srv.url, '/api/account/refresh', { body: { refreshToken: a.json.refreshToken } });
    expectOk(b);
    // Two concurrent refreshes of one token: exactly one wins, and the loser's reuse ends the session.
    const race = await Promise.all(
      [1, 2, 3].map(() =>
        call(srv.url, '/api/account/refresh', { body: { refreshToken: b.json.refreshToken } }),
      ),
    );
    expect(race.filter((x) => x.status === 200)).toHaveLength(1);
    for (const x of race.filter((y) => y.status !== 200)) expectError(x, 401, 'INVALID_REFRESH_TOKEN');
    const raced = race.find((x) => x.status === 200)!.json;
    expect((await call(srv.url, '/api/user/current', { bearer: raced.accessToken })).status).toBe(401);

    const r2 = await register();
    const live = (await call(srv.url, '/api/account/refresh', { body: { refreshToken: r2.refreshToken } }))
      .json;
    expectOk(await call(srv.url, '/api/user/current', { bearer: live.accessToken }));
    expect(
      (await call(srv.url, '/api/account/logout', { method: 'POST', bearer: live.accessToken })).status,
    ).toBe(204);
    const after = await call(srv.url, '/api/user/current', { bearer: live.accessToken });
    expect(after.status).toBe(401);
    expect(after.text).toBe('');
    // The original access token belongs to the same (now ended) session.
    expect((await call(srv.url, '/api/user/current', { bearer: r2.accessToken })).status).toBe(401);
    expectError(
      await call(srv.url, '/api/account/refresh', { body: { refreshToken: live.refreshToken } }),
      401,
      'INVALID_REFRESH_TOKEN',
    );
    for (const junk of ['x', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', `${r.accessToken.slice(0, -3)}abc`]) {
      expect((await call(srv.url, '/api/user/current', { bearer: junk })).status).toBe(401);
    }
    expect(
      (await call(srv.url, '/api/user/current', { headers: { authorization: `Basic ${btoa('a:b')}` } }))
        .status,
    ).toBe(401);
  });

  it('refuses tokens signed with another key', async () => {
    const other = await startTestServer({ jwtSecret: 'another secret entirely, 32 bytes+' });
    try {
      const r = await register();
      expectOk(await call(srv.url, '/api/user/current', { bearer: r.accessToken }));
      expect((await call(other.url, '/api/user/current', { bearer: r.accessToken })).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('API keys', () => {
  it('creates a key shown once, lists it masked and revokes it', async () => {
    const r = await register();
    const s = client(srv.url, { bearer: r.accessToken });
    const made = await s.post('/api/create-api-key', { name: 'farm office' });
    expectOk(made, 201);
    expect(made.json).toMatchObject({ name: 'farm office', companyId: r.companyId });
    expect(made.json.key).toMatch(/^tl_[A-Za-z0-9_-]{43}$/);
    expect(made.json.maskedKey).toBe(`tl_${made.json.key.slice(3, 7)}…${made.json.key.slice(-4)}`);

    const k = client(srv.url, { key: made.json.key });
    const me = await k.get('/api/user/current');
    expect(me.json).toMatchObject({ userId: r.userId, authentication: 'apiKey', session: null });

    const noBody = await k.post('/api/create-api-key');
    expectOk(noBody, 201);
    const list = await s.get('/api/user-api-keys');
    expectOk(list);
    expect(list.text).not.toContain(made.json.key);
    expect(list.json.map((x: { id: string }) => x.id)).toEqual([made.json.id, noBody.json.id]);
    expect(list.json[0]).toMatchObject({ maskedKey: made.json.maskedKey, active: true, revokedAt: null });

    expect((await s.del(`/api/api-keys/${made.json.id}`)).status).toBe(204);
    expect((await k.get('/api/user/current')).status).toBe(401);
    expect((await s.del(`/api/api-keys/${made.json.id}`)).status).toBe(204);
    const after = await s.get('/api/user-api-keys');
    expect(after.json[0]).toMatchObject({ active: false });
    expect(after.json[0].revokedAt).toEqual(expect.any(String));
  });

  it("answers 404 for another user's key and for companies the user cannot access", async () => {
    const a = await testKey();
    const b = await testKey();
    const ca = client(srv.url, { key: a.key });
    const cb = client(srv.url, { key: b.key });
    expectError(await cb.del(`/api/api-keys/${a.keyId}`), 404, 'NOT_FOUND');
    expectOk(await ca.get('/api/user/current'));
    expectError(await cb.post('/api/create-api-key', { companyId: a.companyId }), 404, 'NOT_FOUND');
    const bad = await cb.del('/api/api-keys/not-a-uuid');
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json.errors[0].path).toBe('/params/id');
  });
});

describe('companies', () => {
  it('creates, reads, lists, summarises and deletes companies with ETags', async () => {
    const u = await testKey();
    const c = client(srv.url, { key: u.key });
    const made = await c.post('/api/companies', { name: 'North Estate' });
    expectOk(made, 201);
    expect(made.json).toMatchObject({ name: 'North Estate', role: 'admin', partnerCompanyId: null });
    expect(made.headers.get('etag')).toBe(made.json.etag);
    const id = made.json.companyId;

    const got = await c.get(`/api/companies/${id}`);
    expectOk(got);
    expect(got.json).toEqual(made.json);

    const companies = await c.get('/api/user/current/companies');
    expect(companies.json).toEqual([
      { companyId: u.companyId, name: expect.any(String), role: 'admin' },
      { companyId: id, name: 'North Estate', role: 'admin' },
    ]);
    const page = await c.get('/api/user/current/company-list?search=north&limit=5');
    expectOk(page);
    expect(page.json).toMatchObject({
      total: 1,
      offset: 0,
      limit: 5,
      items: [{ companyId: id, role: 'admin' }],
    });
    const post = await c.post('/api/user/current/company-list', { offset: 1, limit: 1 });
    expect(post.json).toMatchObject({ total: 2, items: [{ companyId: id }] });
    expectError(await c.get('/api/user/current/company-list?limit=0'), 400, 'VALIDATION_ERROR');
    expectError(await c.post('/api/user/current/company-list', { limit: '5' }), 400, 'VALIDATION_ERROR');

    const summary = await c.get(`/api/companies/${id}/summary`);
    expect(summary.json).toMatchObject({
      companyId: id,
      counts: { growers: 0, farms: 0, fields: 0, boundaries: 0 },
      credits: { available: 0, unlimited: false },
      users: 1,
    });
    expect((await c.get(`/api/companies/${id}/empty`)).json).toEqual({
      companyId: id,
      empty: true,
      boundaries: 0,
    });

    // The key's own company is billed by an active key.
    expectError(await c.del(`/api/companies/${u.companyId}`), 409, 'COMPANY_IN_USE');
    expectError(
      await c.del(`/api/companies/${id}`, { headers: { 'if-match': '"999"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expectOk(await c.get(`/api/companies/${id}`));
    const purge = await c.del(`/api/companies/${id}/purge`);
    expectOk(purge);
    expect(purge.json.deleted).toMatchObject({ growers: 0, boundaries: 0 });
    const now = await c.get(`/api/companies/${id}`);
    expect(now.json.etag).not.toBe(made.json.etag);
    expect((await c.del(`/api/companies/${id}`, { headers: { 'if-match': now.json.etag } })).status).toBe(
      204,
    );
    expectError(await c.get(`/api/companies/${id}`), 404, 'NOT_FOUND');
  });

  it('lets editors read but not delete; other companies answer 404 and change nothing', async () => {
    const owner = await testKey();
    const member = await testKey();
    const stranger = await testKey();
    const store = await testStore();
    await store.accounts.grantAccess(member.userId, owner.companyId, 'editor');
    const co = client(srv.url, { key: owner.key });
    const cm = client(srv.url, { key: member.key });
    const cs = client(srv.url, { key: stranger.key });
    const made = await co.post('/api/companies', { name: 'Shared' });
    await store.accounts.grantAccess(member.userId, made.json.companyId, 'editor');
    const id = made.json.companyId;

    expect((await cm.get(`/api/companies/${id}`)).json.role).toBe('editor');
    expectError(await cm.del(`/api/companies/${id}`), 403, 'NotAuthorized');
    expectError(await cm.del(`/api/companies/${id}/purge`), 403, 'NotAuthorized');

    for (const [method, path] of [
      ['GET', `/api/companies/${id}`],
      ['DELETE', `/api/companies/${id}`],
      ['DELETE', `/api/companies/${id}/purge`],
      ['GET', `/api/companies/${id}/summary`],
      ['GET', `/api/companies/${id}/empty`],
    ]) {
      expectError(await cs.call(path, { method }), 404, 'NOT_FOUND');
    }
    const after = await co.get(`/api/companies/${id}`);
    expect(after.json).toEqual(made.json);
  });
});

describe('test database', () => {
  it('is PostgreSQL in the postgres project and PGlite otherwise', async () => {
    const h = await call(srv.url, '/api/healthz');
    expect(h.json.databaseKind).toBe(
      process.env.TRAMLINE_TEST_PROJECT === 'postgres' || process.env.TRAMLINE_TEST_DATABASE_URL
        ? 'postgres'
        : 'pglite',
    );
  });
});
