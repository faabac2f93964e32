/**
 * Partner hand-over end to end (spec 4.3, 5, 7): users, companies and
 * accesses by partner ids (idempotent), launch codes and their exchange
 * (single use, 600 s, exactly one winner of a race), and 403 for everyone
 * who is not a Partner Admin.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBootstrapKey } from '../../store/bootstrap.ts';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Client, call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let partner: Client;
let partnerUserId: string;
/** The bootstrap key of this file's partner. */
let bootstrapKey: string;

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  const store = await testStore();
  // A fresh install's bootstrap key is a Partner Admin.
  bootstrapKey = `bootstrap-${randomBytes(16).toString('hex')}`;
  const b = await ensureBootstrapKey(
    store,
    bootstrapKey,
    `admin-${randomBytes(4).toString('hex')}@example.org`,
  );
  partnerUserId = b.userId;
  partner = client(srv.url, { key: bootstrapKey });
  const me = await partner.get('/api/user/current');
  expect(me.json.userId).toBe(partnerUserId);
  expect(me.json.partnerAdmin).toBe(true);
});
afterAll(async () => {
  await srv?.close();
});

const uid = () => `ext-${randomBytes(6).toString('hex')}`;

async function partnerUser(c: Client = partner, id = uid()) {
  const a = await c.post('/api/partner/users', {
    partnerUserId: id,
    email: `${id}@partner.example`,
    firstName: 'Grace',
    lastName: 'Hopper',
  });
  expectOk(a, 201);
  return a.json;
}

describe('partner records', () => {
  it('creates users idempotently on partnerUserId', async () => {
    const id = uid();
    const first = await partner.post('/api/partner/users', { partnerUserId: id });
    expectError(first, 400, 'VALIDATION_ERROR');
    expect(first.json.errors.map((e: { path: string }) => e.path)).toEqual([
      '/email',
      '/firstName',
      '/lastName',
    ]);

    const made = await partnerUser(partner, id);
    expect(made).toMatchObject({
      partnerUserId: id,
      email: `${id}@partner.example`,
      firstName: 'Grace',
      created: true,
    });
    const again = await partner.post('/api/partner/users', { partnerUserId: id });
    expectOk(again, 200);
    expect(again.json).toEqual({ ...made, created: false });
    const changed = await partner.post('/api/partner/users', {
      partnerUserId: id,
      email: 'other@partner.example',
      firstName: 'X',
      lastName: 'Y',
    });
    expect(changed.json).toEqual({ ...made, created: false });

    // Concurrent first calls make one user.
    const id2 = uid();
    const body = { partnerUserId: id2, email: `${id2}@partner.example`, firstName: 'A', lastName: 'B' };
    const race = await Promise.all([1, 2, 3, 4].map(() => partner.post('/api/partner/users', body)));
    expect(new Set(race.map((x) => x.json.userId)).size).toBe(1);
    expect(race.filter((x) => x.status === 201)).toHaveLength(1);

    expectError(
      await partner.post('/api/partner/users', { ...body, partnerUserId: uid() }),
      409,
      'EMAIL_TAKEN',
    );
  });

  it('creates companies idempotently, makes the caller admin, grants access idempotently', async () => {
    const pc = uid();
    const a = await partner.post('/api/partner/companies', { partnerCompanyId: pc, name: 'Hopper Farms' });
    expectOk(a, 201);
    expect(a.json).toMatchObject({ partnerCompanyId: pc, name: 'Hopper Farms', created: true });
    const b = await partner.post('/api/partner/companies', { partnerCompanyId: pc, name: 'Renamed' });
    expectOk(b, 200);
    expect(b.json).toEqual({ ...a.json, created: false });
    const mine = await partner.get('/api/user/current/companies');
    expect(mine.json).toContainEqual({ companyId: a.json.companyId, name: 'Hopper Farms', role: 'admin' });

    const u = await partnerUser();
    const grant = { partnerUserId: u.partnerUserId, partnerCompanyId: pc };
    const g1 = await partner.post('/api/partner/company-accesses', grant);
    expectOk(g1, 201);
    expect(g1.json).toMatchObject({
      userId: u.userId,
      companyId: a.json.companyId,
      role: 'member',
      created: true,
    });
    const g2 = await partner.post('/api/partner/company-accesses', grant);
    expectOk(g2, 200);
    expect(g2.json.created).toBe(false);
    expectError(
      await partner.post('/api/partner/company-accesses', { ...grant, partnerUserId: uid() }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await partner.post('/api/partner/company-accesses', { ...grant, partnerCompanyId: uid() }),
      404,
      'NOT_FOUND',
    );
  });

  it("keeps partners apart: one partner's ids mean nothing to another", async () => {
    const other = await testKey({ partnerAdmin: true });
    const o = client(srv.url, { key: other.key });
    const u = await partnerUser();
    expectError(await o.post('/api/partner/launch', { userId: u.partnerUserId }), 404, 'NOT_FOUND');
    const same = await o.post('/api/partner/users', {
      partnerUserId: u.partnerUserId,
      email: `twin-${uid()}@partner.example`,
      firstName: 'T',
      lastName: 'W',
    });
    expectOk(same, 201);
    expect(same.json.userId).not.toBe(u.userId);
  });
});

describe('launch and exchange', () => {
  async function setUp() {
    const pc = uid();
    const company = await partner.post('/api/partner/companies', {
      partnerCompanyId: pc,
      name: 'Launch Farm',
    });
    const u = await partnerUser();
    await partner.post('/api/partner/company-accesses', {
      partnerUserId: u.partnerUserId,
      partnerCompanyId: pc,
      role: 'admin',
    });
    return { user: u, companyId: company.json.companyId as string };
  }

  it('hands a partner user over: launch, exchange without a key, act as the user; replay fails', async () => {
    const { user, companyId } = await setUp();
    const launch = await partner.post('/api/partner/launch', {
      userId: user.partnerUserId,
      returnUrl: 'https://partner.example/back?x=1',
    });
    expectOk(launch);
    expect(launch.json).toMatchObject({ userId: user.userId, expiresInSec: 600 });
    const q = new URL(launch.json.launchUrl, 'http://x').searchParams;
    expect(launch.json.launchUrl.startsWith('/launch?')).toBe(true);
    expect(Object.fromEntries(q)).toEqual({
      code: launch.json.code,
      userId: user.userId,
      returnUrl: 'https://partner.example/back?x=1',
    });

    const ex = await call(srv.url, '/api/partner/launch/exchange', {
      body: { code: launch.json.code, userId: user.userId },
    });
    expectOk(ex);
    expect(ex.json).toMatchObject({
      userId: user.userId,
      expiresIn: 900,
      tokenType: 'Bearer',
      returnUrl: 'https://partner.example/back?x=1',
    });
    const me = await call(srv.url, '/api/user/current', { bearer: ex.json.accessToken });
    expectOk(me);
    expect(me.json).toMatchObject({
      userId: user.userId,
      partnerUserId: user.partnerUserId,
      partnerAdmin: false,
      authentication: 'session',
      companyAccess: [{ companyId, companyName: 'Launch Farm', role: 'admin' }],
    });
    // The session's user is not a partner: 403 on partner endpoints.
    expectError(
      await call(srv.url, '/api/partner/launch', { bearer: ex.json.accessToken, body: { userId: 'x' } }),
      403,
      'NotAuthorized',
    );
    const replay = await call(srv.url, '/api/partner/launch/exchange', {
      body: { code: launch.json.code, userId: user.userId },
    });
    expectError(replay, 400, 'LAUNCH_CODE_USED');
    // The refresh token of a launched session works like any other.
    expectOk(await call(srv.url, '/api/account/refresh', { body: { refreshToken: ex.json.refreshToken } }));
  });

  it('refuses codes of another user, unknown codes and bad bodies', async () => {
    const { user } = await setUp();
    const other = await partnerUser();
    const launch = await partner.post('/api/partner/launch', { userId: user.partnerUserId });
    expectError(
      await call(srv.url, '/api/partner/launch/exchange', {
        body: { code: launch.json.code, userId: other.userId },
      }),
      400,
      'LAUNCH_CODE_INVALID',
    );
    expectError(
      await call(srv.url, '/api/partner/launch/exchange', { body: { code: 'nope', userId: user.userId } }),
      400,
      'LAUNCH_CODE_INVALID',
    );
    const bad = await call(srv.url, '/api/partner/launch/exchange', { body: { code: launch.json.code } });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json.errors[0].path).toBe('/userId');
    // Still good for its own user after the failed attempts.
    expectOk(
      await call(srv.url, '/api/partner/launch/exchange', {
        body: { code: launch.json.code, userId: user.userId },
      }),
    );
    expectError(
      await partner.post('/api/partner/launch', {
        userId: user.partnerUserId,
        returnUrl: 'javascript:alert(1)',
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('lets exactly one of many concurrent exchanges of one code win', async () => {
    const { user } = await setUp();
    for (let round = 0; round < 3; round++) {
      const launch = await partner.post('/api/partner/launch', { userId: user.partnerUserId });
      const answers = await Promise.all(
        Array.from({ length: 12 }, () =>
          call(srv.url, '/api/partner/launch/exchange', {
            body: { code: launch.json.code, userId: user.userId },
          }),
        ),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expectError(a, 400, 'LAUNCH_CODE_USED');
    }
  });

  it('expires codes after their lifetime', async () => {
    const short = await startTestServer({ launchCodeTtlSeconds: 1, rateLimitPerMin: 100_000 });
    try {
      const { user } = await setUp();
      const launch = await call(short.url, '/api/partner/launch', {
        key: bootstrapKey,
        body: { userId: user.partnerUserId },
      });
      expectOk(launch);
      expect(launch.json.expiresInSec).toBe(1);
      await new Promise((r) => setTimeout(r, 1300));
      expectError(
        await call(short.url, '/api/partner/launch/exchange', {
          body: { code: launch.json.code, userId: user.userId },
        }),
        400,
        'LAUNCH_CODE_EXPIRED',
      );
    } finally {
      await short.close();
    }
  });
});

describe('403 for credentials that are not Partner Admin', () => {
  it('answers NotAuthorized on every partner endpoint, before reading the body', async () => {
    const plain = await testKey();
    const c = client(srv.url, { key: plain.key });
    for (const path of [
      '/api/partner/users',
      '/api/partner/companies',
      '/api/partner/company-accesses',
      '/api/partner/launch',
    ]) {
      const a = await c.post(path, { partnerUserId: 'x', partnerCompanyId: 'y', name: 'n', userId: 'x' });
      expectError(a, 403, 'NotAuthorized');
      expect(Object.keys(a.json).sort()).toEqual(['correlationId', 'errorCode', 'message']);
      expectError(
        await c.call(path, { method: 'POST', raw: '{broken', type: 'application/json' }),
        403,
        'NotAuthorized',
      );
      const none = await call(srv.url, path, { body: {} });
      expect(none.status).toBe(401);
      expect(none.text).toBe('');
    }
  });
});
