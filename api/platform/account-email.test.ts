/**
 * Accounts by e-mail end to end, against a really listening server and a
 * real SMTP server: invite a person, read the mail, accept, sign in; confirm
 * a new account; recover a password; resend invitations; sign out
 * everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkIn, type SmtpInbox, startSmtpInbox } from '../../test/helpers/smtp-inbox.ts';
import { startTestServer, type TestServer, testStore } from '../testing.ts';
import { call, client, eventsOfRequest, expectError, expectOk } from './client.ts';

const PUBLIC = 'https://plan.example.test';
const PASSWORD = 'correct horse battery';

let srv: TestServer;
let inbox: SmtpInbox;
beforeAll(async () => {
  inbox = await startSmtpInbox();
  srv = await startTestServer({
    rateLimitPerMin: 100_000,
    mail: { smtpUrl: inbox.url, from: 'Tramline <noreply@plan.example.test>' },
    web: { publicUrl: PUBLIC },
  });
});
afterAll(async () => {
  await srv?.close();
  await inbox?.close();
});

let n = 0;
const email = () => `mail${++n}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.org`;

async function register() {
  const e = email();
  const a = await call(srv.url, '/api/account/register', {
    body: { email: e, password: PASSWORD, firstName: 'Olga', lastName: 'Owner', companyName: 'Owner Farms' },
  });
  expectOk(a, 201);
  return { email: e, ...a.json };
}

const tokenOf = (u: URL) => u.searchParams.get('token')!;

describe('invitations', () => {
  it('invites a person by e-mail; the mail carries a link that sets the password, confirms and signs in', async () => {
    const owner = await register();
    const o = client(srv.url, { bearer: owner.accessToken });
    const invitee = email();
    const inv = await o.post('/api/account/register-invite', {
      email: invitee,
      companyId: owner.companyId,
      firstName: 'Anna',
    });
    expectOk(inv, 201);
    expect(inv.json).toMatchObject({
      email: invitee,
      companyId: owner.companyId,
      role: 'editor',
      mailDelivery: 'sent',
    });

    const mail = await inbox.waitFor(invitee, (m) => /invited you/.test(m.subject));
    expect(mail.subject).toBe('Olga Owner invited you to Tramline');
    expect(mail.parsed.from?.text).toContain('noreply@plan.example.test');
    expect(mail.text).toContain('Owner Farms');
    const link = linkIn(mail, `${PUBLIC}/account/accept-invite?token=`);
    expect(mail.html).toContain(link.href.replace(/&/g, '&amp;'));
    // The link opens a page of this server that sets the password through the API.
    const page = await call(srv.url, link.pathname + link.search);
    expectOk(page);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    expect(page.text).toContain('/api/account/accept-invite');
    expect(page.text).toContain(tokenOf(link));
    expect((await call(srv.url, '/account/accept-invite?token=<script>')).status).toBe(400);

    // Not confirmed, invitation pending: as the owner sees it.
    const before = await o.get(`/api/account/is-confirmed/${inv.json.userId}`);
    expectOk(before);
    expect(before.json).toMatchObject({ confirmed: false, invitePending: true, confirmedAt: null });
    // No password yet: signing in fails.
    expectError(
      await call(srv.url, '/api/account/login', { body: { email: invitee, password: PASSWORD } }),
      401,
      'INVALID_CREDENTIALS',
    );

    const accept = await call(srv.url, '/api/account/accept-invite', {
      body: { token: tokenOf(link), password: PASSWORD, lastName: 'Agronomist' },
    });
    expectOk(accept);
    expect(accept.json.userId).toBe(inv.json.userId);
    // The link works once.
    expectError(
      await call(srv.url, '/api/account/accept-invite', {
        body: { token: tokenOf(link), password: PASSWORD },
      }),
      400,
      'INVALID_TOKEN',
    );

    // The company's log tells of both: the invitation by the owner, its acceptance by the invitee.
    expect(await eventsOfRequest(o, owner.companyId, inv)).toEqual([
      expect.objectContaining({
        userId: owner.userId,
        method: 'POST',
        route: '/api/account/register-invite',
        objectId: inv.json.userId,
        status: 201,
      }),
    ]);
    expect(await eventsOfRequest(o, owner.companyId, accept)).toEqual([
      expect.objectContaining({
        userId: inv.json.userId,
        route: '/api/account/accept-invite',
        objectId: inv.json.userId,
        status: 200,
      }),
    ]);

    const after = await call(srv.url, `/api/account/is-confirmed/${inv.json.userId}`, {
      bearer: accept.json.accessToken,
    });
    expectOk(after);
    expect(after.json).toMatchObject({ confirmed: true, invitePending: false });

    const login = await call(srv.url, '/api/account/login', { body: { email: invitee, password: PASSWORD } });
    expectOk(login);
    const me = await call(srv.url, '/api/user/current', { bearer: login.json.accessToken });
    expect(me.json).toMatchObject({
      email: invitee,
      firstName: 'Anna',
      lastName: 'Agronomist',
      companyAccess: [{ companyId: owner.companyId, companyName: 'Owner Farms', role: 'editor' }],
    });
  });

  it('resends a new link (the old one dies); only the inviter or a company admin may; refuses accounts in use', async () => {
    const owner = await register();
    const o = client(srv.url, { bearer: owner.accessToken });
    const invitee = email();
    const inv = await o.post('/api/account/register-invite', { email: invitee, companyId: owner.companyId });
    expectOk(inv, 201);
    const first = linkIn(await inbox.waitFor(invitee), `${PUBLIC}/account/accept-invite`);

    const stranger = await register();
    expectError(
      await call(srv.url, `/api/account/resend-invite/${inv.json.userId}`, {
        method: 'POST',
        bearer: stranger.accessToken,
      }),
      404,
      'NOT_FOUND',
    );
    // A stranger cannot invite into a company they cannot access.
    expectError(
      await call(srv.url, '/api/account/register-invite', {
        bearer: stranger.accessToken,
        body: { email: email(), companyId: owner.companyId },
      }),
      404,
      'NOT_FOUND',
    );

    const again = await o.post(`/api/account/resend-invite/${inv.json.userId}`);
    expectOk(again);
    expect(again.json).toMatchObject({ userId: inv.json.userId, mailDelivery: 'sent' });
    const second = linkIn(
      await inbox.waitFor(invitee, (m) => !m.text.includes(tokenOf(first))),
      `${PUBLIC}/account/accept-invite`,
    );
    expect(tokenOf(second)).not.toBe(tokenOf(first));
    expectError(
      await call(srv.url, '/api/account/accept-invite', {
        body: { token: tokenOf(first), password: PASSWORD },
      }),
      400,
      'INVALID_TOKEN',
    );
    expectOk(
      await call(srv.url, '/api/account/accept-invite', {
        body: { token: tokenOf(second), password: PASSWORD },
      }),
    );
    expectError(await o.post(`/api/account/resend-invite/${inv.json.userId}`), 409, 'INVITE_ACCEPTED');
    expectError(
      await o.post('/api/account/register-invite', { email: invitee, companyId: owner.companyId }),
      409,
      'USER_EXISTS',
    );
    expectError(
      await o.post('/api/account/register-invite', { email: owner.email, companyId: owner.companyId }),
      409,
      'USER_EXISTS',
    );
    const bad = await o.post('/api/account/register-invite', {
      email: 'nope',
      companyId: owner.companyId,
      role: 'owner',
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect([...new Set(bad.json.errors.map((e: { path: string }) => e.path))].sort()).toEqual([
      '/email',
      '/role',
    ]);
  });
});

describe('confirmation and recovery', () => {
  it('mails a confirmation link on registration; following it confirms the address once', async () => {
    const r = await register();
    const mail = await inbox.waitFor(r.email, (m) => m.subject.startsWith('Confirm your e-mail'));
    const link = linkIn(mail, `${PUBLIC}/api/account/confirm-account?token=`);
    const me = client(srv.url, { bearer: r.accessToken });
    expect((await me.get(`/api/account/is-confirmed/${r.userId}`)).json.confirmed).toBe(false);
    const unconfirmed = await me.get('/api/user/email-confirmed');
    expectOk(unconfirmed);
    expect(unconfirmed.json).toEqual({
      userId: r.userId,
      email: r.email,
      emailConfirmed: false,
      confirmedAt: null,
      pendingEmail: null,
    });
    const c = await call(srv.url, `/api/account/confirm-account?token=${tokenOf(link)}`);
    expectOk(c);
    const confirmed = await me.get('/api/user/email-confirmed');
    expectOk(confirmed);
    expect(confirmed.json).toMatchObject({ userId: r.userId, email: r.email, emailConfirmed: true });
    expect(Date.now() - Date.parse(confirmed.json.confirmedAt)).toBeLessThan(60_000);
    expect((await call(srv.url, '/api/user/email-confirmed')).status).toBe(401);
    expect(c.json).toEqual({ userId: r.userId, email: r.email, confirmed: true });
    expectError(
      await call(srv.url, `/api/account/confirm-account?token=${tokenOf(link)}`),
      400,
      'INVALID_TOKEN',
    );
    expect((await me.get(`/api/account/is-confirmed/${r.userId}`)).json.confirmed).toBe(true);
    // Another user's state is not for strangers.
    const stranger = await register();
    expectError(
      await call(srv.url, `/api/account/is-confirmed/${r.userId}`, { bearer: stranger.accessToken }),
      404,
      'NOT_FOUND',
    );
    expectError(await call(srv.url, '/api/account/confirm-account'), 400, 'VALIDATION_ERROR');
  });

  it('recovers a password by mail: 202 for any address, a reset link for known ones, every session ends', async () => {
    const r = await register();
    const unknown = email();
    const a = await call(srv.url, '/api/account/recover', { body: { email: unknown } });
    expect(a.status).toBe(202);
    const b = await call(srv.url, '/api/account/recover', { body: { email: r.email.toUpperCase() } });
    expect(b.status).toBe(202);
    expect(b.json).toEqual(a.json);

    const mail = await inbox.waitFor(r.email, (m) => /password reset/i.test(m.subject));
    expect(mail.subject).toBe('Password reset for your Tramline account');
    expect(mail.text).toMatch(/reset the password/);
    const link = linkIn(mail, `${PUBLIC}/account/reset-password?token=`);

    const NEW = 'a brand new password';
    const reset = await call(srv.url, '/api/account/reset-password', {
      body: { token: tokenOf(link), password: NEW },
    });
    expectOk(reset);
    expect(reset.json.userId).toBe(r.userId);
    // The sessions from before are over; the new one works.
    expect((await call(srv.url, '/api/user/current', { bearer: r.accessToken })).status).toBe(401);
    expectError(
      await call(srv.url, '/api/account/refresh', { body: { refreshToken: r.refreshToken } }),
      401,
      'INVALID_REFRESH_TOKEN',
    );
    expectOk(await call(srv.url, '/api/user/current', { bearer: reset.json.accessToken }));
    expectError(
      await call(srv.url, '/api/account/reset-password', { body: { token: tokenOf(link), password: NEW } }),
      400,
      'INVALID_TOKEN',
    );
    expectError(
      await call(srv.url, '/api/account/login', { body: { email: r.email, password: PASSWORD } }),
      401,
      'INVALID_CREDENTIALS',
    );
    expectOk(await call(srv.url, '/api/account/login', { body: { email: r.email, password: NEW } }));
    // No mail went to the unknown address.
    await new Promise((res) => setTimeout(res, 300));
    expect(inbox.mails.some((m) => m.to.includes(unknown))).toBe(false);
  });
});

describe('sessions', () => {
  it('signs out everywhere: every session ends, keys stay', async () => {
    const r = await register();
    const second = await call(srv.url, '/api/account/login', {
      body: { email: r.email, password: PASSWORD },
    });
    expectOk(second);
    const out = await call(srv.url, '/api/account/logout-everywhere', {
      method: 'POST',
      bearer: r.accessToken,
    });
    expectOk(out);
    expect(out.json).toEqual({ endedSessions: 2 });
    for (const t of [r.accessToken, second.json.accessToken]) {
      expect((await call(srv.url, '/api/user/current', { bearer: t })).status).toBe(401);
    }
    expectError(
      await call(srv.url, '/api/account/refresh', { body: { refreshToken: second.json.refreshToken } }),
      401,
      'INVALID_REFRESH_TOKEN',
    );
  });
});

describe('without an SMTP server', () => {
  it('keeps the mail in the outbox of the database; the answer says so', async () => {
    const plain = await startTestServer({ rateLimitPerMin: 100_000, mail: {}, web: { publicUrl: PUBLIC } });
    try {
      const ownerEmail = email();
      const owner = await call(plain.url, '/api/account/register', {
        body: { email: ownerEmail, password: PASSWORD },
      });
      expectOk(owner, 201);
      const invitee = email();
      const inv = await call(plain.url, '/api/account/register-invite', {
        bearer: owner.json.accessToken,
        body: { email: invitee, companyId: owner.json.companyId },
      });
      expectOk(inv, 201);
      expect(inv.json.mailDelivery).toBe('kept');
      const store = await testStore();
      const [kept] = await store.mailOutbox.list({ recipient: invitee });
      expect(kept).toMatchObject({
        kind: 'invite',
        status: 'kept',
        subject: `${ownerEmail} invited you to Tramline`,
      });
      expect(kept.textBody).toContain(`${PUBLIC}/account/accept-invite?token=tlt_`);
      // The kept link works like a mailed one.
      const token = /token=(tlt_[A-Za-z0-9_-]+)/.exec(kept.textBody)![1];
      expectOk(await call(plain.url, '/api/account/accept-invite', { body: { token, password: PASSWORD } }));
    } finally {
      await plain.close();
    }
  });
});
