/**
 * Company events of the writes the role check leaves to their own handlers
 * (creating companies, partner grants, demo companies, deleting a user),
 * against a really listening server; and a walk over every write route of
 * the OpenAPI document that classifies it, so a new route that changes a
 * company without writing an event is caught.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBootstrapKey } from '../../store/bootstrap.ts';
import { routeAccess, USER_COMPANY_WRITES } from '../auth/company-roles.ts';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Client, call, client, eventsOfRequest, expectError, expectOk } from './client.ts';

let srv: TestServer;
let partner: Client;
let partnerUserId: string;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  const key = `bootstrap-${randomBytes(16).toString('hex')}`;
  const b = await ensureBootstrapKey(
    await testStore(),
    key,
    `admin-${randomBytes(4).toString('hex')}@example.org`,
  );
  partnerUserId = b.userId;
  partner = client(srv.url, { key });
});
afterAll(async () => {
  await srv?.close();
});

describe('company events of writes outside the role check', () => {
  it('logs creating a company, by a user, by registering and as a demo company, in the new company', async () => {
    const me = await testKey();
    const c = client(srv.url, { key: me.key });

    const made = await c.post('/api/companies', { name: 'Hedgerow Farms' });
    expectOk(made, 201);
    const companyId = made.json.companyId;
    expect(await eventsOfRequest(c, companyId, made)).toEqual([
      expect.objectContaining({
        companyId,
        userId: me.userId,
        action: 'create',
        method: 'POST',
        route: '/api/companies',
        objectId: companyId,
        status: 201,
      }),
    ]);

    const email = `events-${randomBytes(5).toString('hex')}@example.org`;
    const reg = await call(srv.url, '/api/account/register', {
      body: { email, password: 'correct horse battery', companyName: 'Registered Farms' },
    });
    expectOk(reg, 201);
    const r = client(srv.url, { bearer: reg.json.accessToken });
    expect(await eventsOfRequest(r, reg.json.companyId, reg)).toEqual([
      expect.objectContaining({
        userId: reg.json.userId,
        route: '/api/account/register',
        objectId: reg.json.companyId,
        action: 'create',
      }),
    ]);

    const demo = await c.post('/api/create-demo-company', {});
    expectOk(demo, 201);
    expect(await eventsOfRequest(c, demo.json.companyId, demo)).toEqual([
      expect.objectContaining({
        userId: me.userId,
        route: '/api/create-demo-company',
        objectId: demo.json.companyId,
        status: 201,
      }),
    ]);
    // Asked again it changes nothing: no event.
    const again = await c.post('/api/create-demo-company', {});
    expectOk(again, 200);
    expect(await eventsOfRequest(c, demo.json.companyId, again)).toEqual([]);
  });

  it('logs copying the demo fields into a company, and refuses it to a viewer', async () => {
    const admin = await testKey();
    const viewer = await testKey();
    const ca = client(srv.url, { key: admin.key });
    expectOk(
      await ca.post('/api/company-accesses', {
        companyId: admin.companyId,
        userId: viewer.userId,
        role: 'viewer',
      }),
      201,
    );
    const refused = await call(srv.url, '/api/account/copy-demo-company-fields', {
      key: viewer.key,
      body: { companyId: admin.companyId },
    });
    expectError(refused, 403, 'NotAuthorized');
    expect(await eventsOfRequest(ca, admin.companyId, refused)).toEqual([]);

    const copied = await ca.post('/api/account/copy-demo-company-fields', { companyId: admin.companyId });
    expectOk(copied, 201);
    expect(await eventsOfRequest(ca, admin.companyId, copied)).toEqual([
      expect.objectContaining({
        userId: admin.userId,
        method: 'POST',
        route: '/api/account/copy-demo-company-fields',
        objectId: copied.json.growerId,
        action: 'create',
      }),
    ]);
  });

  it('logs partner companies and partner-granted access in the company', async () => {
    const id = randomBytes(6).toString('hex');
    const pc = await partner.post('/api/partner/companies', {
      partnerCompanyId: `co-${id}`,
      name: 'Partner Co',
    });
    expectOk(pc, 201);
    const companyId = pc.json.companyId;
    expect(await eventsOfRequest(partner, companyId, pc)).toEqual([
      expect.objectContaining({
        userId: partnerUserId,
        route: '/api/partner/companies',
        objectId: companyId,
        status: 201,
      }),
    ]);
    const pu = await partner.post('/api/partner/users', {
      partnerUserId: `u-${id}`,
      email: `u-${id}@partner.example`,
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    expectOk(pu, 201);
    // Creating a user changes no company.
    expect(await eventsOfRequest(partner, companyId, pu)).toEqual([]);
    const grant = await partner.post('/api/partner/company-accesses', {
      partnerUserId: `u-${id}`,
      partnerCompanyId: `co-${id}`,
      role: 'viewer',
    });
    expectOk(grant, 201);
    expect(await eventsOfRequest(partner, companyId, grant)).toEqual([
      expect.objectContaining({
        companyId,
        userId: partnerUserId,
        method: 'POST',
        route: '/api/partner/company-accesses',
        objectId: pu.json.userId,
        action: 'create',
      }),
    ]);
  });

  it('logs a deleted user losing access in each company they could access', async () => {
    const admin = await testKey();
    const other = await testKey();
    const leaving = await testKey();
    for (const a of [admin, other]) {
      expectOk(
        await call(srv.url, '/api/company-accesses', {
          key: a.key,
          body: { companyId: a.companyId, userId: leaving.userId, role: 'editor' },
        }),
        201,
      );
    }
    const del = await call(srv.url, `/api/users/${leaving.userId}`, { method: 'DELETE', key: leaving.key });
    expect(del.status, del.text).toBe(204);
    for (const a of [admin, other]) {
      expect(await eventsOfRequest(client(srv.url, { key: a.key }), a.companyId, del)).toEqual([
        expect.objectContaining({
          companyId: a.companyId,
          userId: leaving.userId,
          method: 'DELETE',
          route: '/api/users/{userId}',
          objectId: leaving.userId,
          action: 'delete',
          status: 204,
        }),
      ]);
    }
  });
});

/**
 * The write routes outside the role check that change no company's data and
 * no one's access to a company, and why. A route missing here and from
 * USER_COMPANY_WRITES fails the walk below.
 */
const NO_COMPANY_CHANGE: Readonly<Record<string, string>> = {
  'POST /api/user/current/company-list': 'reads the caller’s companies',
  'POST /api/user/accept-terms': 'the caller’s terms',
  'POST /api/contact': 'a message to the operator',
  'POST /api/account/log-user-process': 'the caller’s own log',
  'POST /api/account/log-user-feedback': 'the caller’s own log',
  'POST /api/account/login': 'a session',
  'POST /api/account/refresh': 'a session',
  'POST /api/account/logout': 'a session',
  'POST /api/account/logout-everywhere': 'the caller’s sessions',
  'POST /api/account/resend-invite/:id': 'mails a new link; the access was logged when invited',
  'POST /api/account/recover': 'mails a reset link',
  'POST /api/account/reset-password': 'the user’s password and sessions',
  'POST /api/account/check-user': 'reads',
  'POST /api/account/check-user-source': 'reads',
  'POST /api/account/profile': 'the caller’s profile',
  'POST /api/user/edit': 'the caller’s profile',
  'POST /api/account/demo-company': 'reads the caller’s demo company',
  'POST /api/tokens/:tokenId': 'a one-time sign-in token',
  'POST /api/account/token': 'OAuth tokens (sessions)',
  'POST /api/oauth/initiate': 'an OAuth authorization request',
  'POST /api/externallogin': 'starts a sign-in (the callback logs a new account’s company)',
  'POST /api/create-api-key': 'the caller’s key',
  'DELETE /api/api-keys/:id': 'the caller’s key',
  'POST /api/partner/users': 'a user, no access',
  'POST /api/partner/launch': 'a launch code',
  'POST /api/partner/launch/exchange': 'a session',
  'POST /api/user-settings': 'the caller’s settings',
  'DELETE /api/settings/users/:userId': 'the caller’s settings',
  'DELETE /api/notifications/:id': 'the caller’s notification',
  'POST /api/analytics-events': 'the caller’s analytics',
};

describe('every write route of the OpenAPI document', () => {
  it('writes company events through the role check, notes them in its handler, or changes no company', () => {
    // biome-ignore lint/suspicious/noExplicitAny: the generated document is walked freely
    const doc = srv.app.swagger() as any;
    const unclassified: string[] = [];
    const counts = { company: 0, noted: 0, reads: 0, none: 0 };
    for (const [path, ops] of Object.entries(doc.paths ?? {})) {
      for (const m of Object.keys(ops as object)) {
        const method = m.toUpperCase();
        if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) continue;
        const route = `${method} ${path.replace(/\{([^}]+)\}/g, ':$1')}`;
        const access = routeAccess(method, path.replace(/\{([^}]+)\}/g, ':$1'));
        if (access === 'write' || access === 'admin') counts.company++;
        else if (access === 'read') counts.reads++;
        else if (USER_COMPANY_WRITES.includes(route)) counts.noted++;
        else if (NO_COMPANY_CHANGE[route]) counts.none++;
        else unclassified.push(route);
      }
    }
    console.log(
      `company events: ${counts.company} write routes through the role check, ${counts.noted} noted by their handlers, ${counts.reads} read-only POSTs, ${counts.none} changing no company`,
    );
    expect(
      unclassified,
      'write routes outside the role check: call noteCompanyWrite and list them in USER_COMPANY_WRITES, or add them to NO_COMPANY_CHANGE',
    ).toEqual([]);
    expect(counts.company).toBeGreaterThan(60);
    // Every listed exception still exists (a renamed route would otherwise slip through).
    const all = new Set(
      Object.entries(doc.paths ?? {}).flatMap(([path, ops]) =>
        Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
      ),
    );
    for (const r of [...USER_COMPANY_WRITES, ...Object.keys(NO_COMPANY_CHANGE)]) {
      expect(all.has(r), `${r} is listed but not routed`).toBe(true);
    }
  });
});
