/**
 * The account's own details, demo companies and session hand-over tokens,
 * against a really listening server and a real SMTP server.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkIn, type SmtpInbox, startSmtpInbox } from '../../test/helpers/smtp-inbox.ts';
import { loadDemoFields } from '../routes/demo-company.ts';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { call, client, expectError, expectOk } from './client.ts';

const PASSWORD = 'correct horse battery';

let srv: TestServer;
let inbox: SmtpInbox;
beforeAll(async () => {
  inbox = await startSmtpInbox();
  srv = await startTestServer({ rateLimitPerMin: 100_000, mail: { smtpUrl: inbox.url } });
});
afterAll(async () => {
  await srv?.close();
  await inbox?.close();
});

let n = 0;
const email = () => `profile${++n}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.org`;

async function register() {
  const e = email();
  const a = await call(srv.url, '/api/account/register', { body: { email: e, password: PASSWORD } });
  expectOk(a, 201);
  return { email: e, ...a.json };
}

describe('profile', () => {
  it('reads and changes the profile; a new address is taken only once its link is followed', async () => {
    const r = await register();
    const me = client(srv.url, { bearer: r.accessToken });
    const read = await me.post('/api/account/profile');
    expectOk(read);
    expect(read.json).toMatchObject({
      userId: r.userId,
      email: r.email,
      emailConfirmed: false,
      pendingEmail: null,
      source: 'password',
      hasPassword: true,
    });

    const changed = await me.post('/api/account/profile', {
      firstName: 'Pia',
      phone: '+45 12 34 56 78',
      language: 'da',
    });
    expectOk(changed);
    expect(changed.json).toMatchObject({
      firstName: 'Pia',
      lastName: null,
      phone: '+45 12 34 56 78',
      language: 'da',
    });
    expect((await me.post('/api/account/profile', { firstName: null })).json.firstName).toBeNull();

    const next = email();
    const moved = await me.post('/api/account/profile', { email: next });
    expectOk(moved);
    expect(moved.json).toMatchObject({ email: r.email, pendingEmail: next, mailDelivery: 'sent' });
    const mail = await inbox.waitFor(next);
    expect(mail.subject).toBe('Confirm your new e-mail address for Tramline');
    const link = linkIn(mail, `${new URL(srv.url).origin}/api/account/confirm-email?token=`);
    const c = await call(srv.url, link.pathname + link.search);
    expectOk(c);
    expect(c.json).toEqual({ userId: r.userId, email: next, confirmed: true });
    expect((await me.post('/api/account/profile')).json).toMatchObject({
      email: next,
      pendingEmail: null,
      emailConfirmed: true,
    });
    expectOk(await call(srv.url, '/api/account/login', { body: { email: next, password: PASSWORD } }));

    // Taken addresses and bad values.
    const other = await register();
    expectError(await me.post('/api/account/profile', { email: other.email }), 409, 'EMAIL_TAKEN');
    const bad = await me.post('/api/account/profile', { phone: 'call me', language: 'x', nickname: 'p' });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(new Set(bad.json.errors.map((e: { path: string }) => e.path))).toEqual(
      new Set(['/phone', '/language', '/nickname']),
    );
  });

  it('changes the password only with the current one; the other sessions end', async () => {
    const r = await register();
    const other = await call(srv.url, '/api/account/login', { body: { email: r.email, password: PASSWORD } });
    const me = client(srv.url, { bearer: r.accessToken });
    expectError(
      await me.post('/api/account/profile', { newPassword: 'another long password' }),
      403,
      'WRONG_PASSWORD',
    );
    expectError(
      await me.post('/api/account/profile', {
        currentPassword: 'wrong one!!',
        newPassword: 'another long password',
      }),
      403,
      'WRONG_PASSWORD',
    );
    expectOk(
      await me.post('/api/account/profile', {
        currentPassword: PASSWORD,
        newPassword: 'another long password',
      }),
    );
    expectOk(await me.post('/api/account/profile'));
    expect((await call(srv.url, '/api/user/current', { bearer: other.json.accessToken })).status).toBe(401);
    expectOk(
      await call(srv.url, '/api/account/login', {
        body: { email: r.email, password: 'another long password' },
      }),
    );
  });

  it('edits yourself and people you invited who have not accepted; 404 for others', async () => {
    const r = await register();
    const me = client(srv.url, { bearer: r.accessToken });
    const self = await me.post('/api/user/edit', { userId: r.userId, lastName: 'Self' });
    expectOk(self);
    expect(self.json.lastName).toBe('Self');
    const inv = await me.post('/api/account/register-invite', {
      email: email(),
      companyId: r.companyId,
      firstName: 'Tpyo',
    });
    expectOk(inv, 201);
    const fixed = await me.post('/api/user/edit', { userId: inv.json.userId, firstName: 'Typo' });
    expectOk(fixed);
    expect(fixed.json).toMatchObject({
      userId: inv.json.userId,
      firstName: 'Typo',
      source: 'invite',
      hasPassword: false,
    });
    const stranger = await register();
    expectError(
      await me.post('/api/user/edit', { userId: stranger.userId, firstName: 'X' }),
      404,
      'NOT_FOUND',
    );
  });

  it('checks users and how they sign in without telling strangers who has an account', async () => {
    const r = await register();
    const me = client(srv.url, { bearer: r.accessToken });
    const unknown = email();
    expect((await me.post('/api/account/check-user', { email: r.email.toUpperCase() })).json).toEqual({
      email: r.email,
      exists: true,
      confirmed: false,
      invitePending: false,
    });
    expect((await me.post('/api/account/check-user', { email: unknown })).json).toMatchObject({
      exists: false,
    });
    expect((await call(srv.url, '/api/account/check-user', { body: { email: unknown } })).status).toBe(401);

    const known = await call(srv.url, '/api/account/check-user-source', { body: { email: r.email } });
    const nobody = await call(srv.url, '/api/account/check-user-source', { body: { email: unknown } });
    expectOk(known);
    expect(known.json).toEqual({ signIn: 'password', provider: null });
    expect(nobody.json).toEqual(known.json);
    // A partner's user without a password starts from the partner application.
    const partner = await testKey({ partnerAdmin: true });
    const made = await call(srv.url, '/api/partner/users', {
      key: partner.key,
      body: { partnerUserId: `p-${n}-${Date.now()}`, email: email(), firstName: 'P', lastName: 'U' },
    });
    expect(made.status).toBeLessThan(300);
    const viaPartner = await call(srv.url, '/api/account/check-user-source', {
      body: { email: made.json.email },
    });
    expect(viaPartner.json).toEqual({ signIn: 'partner', provider: null });
  });
});

describe('demo company', () => {
  it('makes a demo company with real fields once, answers it, and copies its fields into another company', async () => {
    const r = await register();
    const me = client(srv.url, { bearer: r.accessToken });
    expectError(await me.post('/api/account/demo-company'), 404, 'NOT_FOUND');
    const made = await me.post('/api/create-demo-company', { name: 'Try-out farm' });
    expectOk(made, 201);
    const count = loadDemoFields().length;
    expect(count).toBeGreaterThanOrEqual(3);
    expect(made.json).toMatchObject({ name: 'Try-out farm', fieldCount: count });
    const again = await me.post('/api/create-demo-company');
    expectOk(again, 200);
    expect(again.json).toEqual(made.json);
    expect((await me.post('/api/account/demo-company')).json).toEqual(made.json);

    const fields = await me.get(`/api/farms/${made.json.farmId}/fields-with-boundaries`);
    expectOk(fields);
    expect(fields.json).toHaveLength(count);
    for (const f of fields.json) expect(f.area).toBeGreaterThan(5_000);

    const copied = await me.post('/api/account/copy-demo-company-fields', { companyId: r.companyId });
    expectOk(copied, 201);
    expect(copied.json.fieldIds).toHaveLength(count);
    const own = await me.get(`/api/fields/${copied.json.fieldIds[0]}`);
    expectOk(own);
    expect(own.json.companyId).toBe(r.companyId);

    const stranger = await register();
    expectError(
      await call(srv.url, '/api/account/copy-demo-company-fields', {
        bearer: stranger.accessToken,
        body: { companyId: r.companyId },
      }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('session hand-over tokens', () => {
  it('registers a token id that is exchanged once for a session of the same user', async () => {
    const r = await register();
    const tokenId = randomBytes(32).toString('base64url');
    const reg = await call(srv.url, `/api/tokens/${tokenId}`, { method: 'POST', bearer: r.accessToken });
    expectOk(reg, 201);
    expect(reg.json.tokenId).toBe(tokenId);
    expectError(
      await call(srv.url, `/api/tokens/${tokenId}`, { method: 'POST', bearer: r.accessToken }),
      409,
      'TOKEN_EXISTS',
    );
    const ex = await call(srv.url, `/api/tokens/${tokenId}/exchange`);
    expectOk(ex);
    expect(ex.json.userId).toBe(r.userId);
    expectOk(await call(srv.url, '/api/user/current', { bearer: ex.json.accessToken }));
    expectError(await call(srv.url, `/api/tokens/${tokenId}/exchange`), 400, 'INVALID_TOKEN');
    expectError(await call(srv.url, `/api/tokens/${'x'.repeat(40)}/exchange`), 400, 'INVALID_TOKEN');
    expectError(await call(srv.url, '/api/tokens/short/exchange'), 400, 'VALIDATION_ERROR');
    expect(
      (await call(srv.url, `/api/tokens/${randomBytes(32).toString('base64url')}`, { method: 'POST' }))
        .status,
    ).toBe(401);
    const slow = await call(srv.url, `/api/tokens/${randomBytes(32).toString('base64url')}`, {
      bearer: r.accessToken,
      body: { ttlSeconds: 3600 },
    });
    expectError(slow, 400, 'VALIDATION_ERROR');
  });
});
