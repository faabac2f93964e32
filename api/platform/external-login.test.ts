/**
 * Sign-in through an external OpenID Connect provider, end to end: a real
 * provider (oidc-provider) on a local port, the service as its confidential
 * client, a browser following the redirects. The first sign-in makes and
 * links an account (or links the account of a verified e-mail address);
 * later ones find it by the provider's subject.
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, startOidcProvider, type TestOidcProvider } from '../../test/helpers/oidc-provider.ts';
import { startTestServer, type TestServer } from '../testing.ts';
import { call, client, eventsOfRequest, expectError, expectOk } from './client.ts';

const PUBLIC = 'https://plan.example.test';
const CALLBACK = `${PUBLIC}/api/externallogin/callback`;
const APP_CALLBACK = 'http://127.0.0.1:9/app';
const PASSWORD = 'correct horse battery';

let srv: TestServer;
let idp: TestOidcProvider;
beforeAll(async () => {
  idp = await startOidcProvider([CALLBACK, APP_CALLBACK]);
  srv = await startTestServer({
    rateLimitPerMin: 100_000,
    web: { publicUrl: PUBLIC },
    externalIdp: {
      name: 'farm-sso',
      discoveryUrl: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
    },
  });
});
afterAll(async () => {
  await srv?.close();
  await idp?.close();
});

let n = 0;
const uniq = () => `${++n}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

/** A browser signs `sub` in: start, the provider's redirects, then the callback on the service. */
async function signIn(sub: string) {
  idp.signInAs(sub);
  const start = await call(srv.url, '/api/externallogin', { body: {} });
  expectOk(start);
  expect(start.json).toMatchObject({ provider: 'farm-sso', redirectUri: CALLBACK, expiresIn: 600 });
  expect(start.json.authorizationUrl.startsWith(`${idp.issuer}/`)).toBe(true);
  const back = await browse(start.json.authorizationUrl, CALLBACK);
  return { back, answer: await call(srv.url, back.pathname + back.search) };
}

describe('external sign-in', () => {
  it('makes and links an account on the first sign-in and finds it by subject later', async () => {
    const sub = `person-${uniq()}`;
    const email = `${sub}@farm.example`;
    idp.addPerson({ sub, email, emailVerified: true, givenName: 'Ingrid', familyName: 'Ext' });
    const first = await signIn(sub);
    expectOk(first.answer);
    expect(first.answer.json).toMatchObject({
      provider: 'farm-sso',
      created: true,
      linked: true,
      tokenType: 'Bearer',
    });
    expect(first.answer.json.companyId).toBeTruthy();
    expect(
      await eventsOfRequest(
        client(srv.url, { bearer: first.answer.json.accessToken }),
        first.answer.json.companyId,
        first.answer,
      ),
    ).toEqual([
      expect.objectContaining({
        userId: first.answer.json.userId,
        method: 'GET',
        route: '/api/externallogin/callback',
        objectId: first.answer.json.companyId,
      }),
    ]);
    const me = await call(srv.url, '/api/user/current', { bearer: first.answer.json.accessToken });
    expectOk(me);
    expect(me.json).toMatchObject({
      userId: first.answer.json.userId,
      email,
      firstName: 'Ingrid',
      lastName: 'Ext',
      companyAccess: [{ companyId: first.answer.json.companyId, role: 'admin' }],
    });
    const confirmed = await call(srv.url, `/api/account/is-confirmed/${me.json.userId}`, {
      bearer: first.answer.json.accessToken,
    });
    expect(confirmed.json.confirmed).toBe(true);
    expect((await call(srv.url, '/api/account/check-user-source', { body: { email } })).json).toEqual({
      signIn: 'external',
      provider: 'farm-sso',
    });

    // The callback works once (the provider's code is used up).
    expectError(await call(srv.url, first.back.pathname + first.back.search), 400, 'EXTERNAL_LOGIN_FAILED');

    const second = await signIn(sub);
    expectOk(second.answer);
    expect(second.answer.json).toMatchObject({
      userId: first.answer.json.userId,
      created: false,
      linked: false,
      companyId: null,
    });
  });

  it('links the account of a verified e-mail address; an unverified one is refused', async () => {
    const email = `owner-${uniq()}@farm.example`;
    const reg = await call(srv.url, '/api/account/register', { body: { email, password: PASSWORD } });
    expectOk(reg, 201);
    const sub = `sso-${uniq()}`;
    idp.addPerson({ sub, email, emailVerified: true });
    const linked = await signIn(sub);
    expectOk(linked.answer);
    expect(linked.answer.json).toMatchObject({ userId: reg.json.userId, created: false, linked: true });
    // The password still works too.
    expectOk(await call(srv.url, '/api/account/login', { body: { email, password: PASSWORD } }));

    const email2 = `owner-${uniq()}@farm.example`;
    expectOk(
      await call(srv.url, '/api/account/register', { body: { email: email2, password: PASSWORD } }),
      201,
    );
    const sub2 = `sso-${uniq()}`;
    idp.addPerson({ sub: sub2, email: email2, emailVerified: false });
    expectError((await signIn(sub2)).answer, 409, 'EMAIL_TAKEN');
  });

  it('refuses forged or foreign state and provider errors', async () => {
    expectError(
      await call(srv.url, '/api/externallogin/callback?code=abc&state=not-a-sealed-state'),
      400,
      'EXTERNAL_LOGIN_FAILED',
    );
    const start = await call(srv.url, '/api/externallogin', { body: { provider: 'farm-sso' } });
    const state = new URL(start.json.authorizationUrl).searchParams.get('state')!;
    expectError(
      await call(
        srv.url,
        `/api/externallogin/callback?error=access_denied&state=${encodeURIComponent(state)}`,
      ),
      400,
      'EXTERNAL_LOGIN_FAILED',
    );
    expectError(
      await call(srv.url, `/api/externallogin/callback?code=forged&state=${encodeURIComponent(state)}`),
      400,
      'EXTERNAL_LOGIN_FAILED',
    );
    expectError(
      await call(srv.url, '/api/externallogin', { body: { provider: 'other' } }),
      404,
      'EXTERNAL_PROVIDER_UNKNOWN',
    );
  });

  it('registers an app user from an ID token of the provider', async () => {
    const sub = `app-${uniq()}`;
    const email = `${sub}@farm.example`;
    idp.addPerson({ sub, email, emailVerified: true, givenName: 'Nadia' });
    idp.signInAs(sub);
    // The app signs the person in with the provider itself (as the service's client).
    const config = await oidc.discovery(
      new URL(idp.issuer),
      idp.clientId,
      { client_secret: idp.clientSecret },
      oidc.ClientSecretPost(idp.clientSecret),
      { execute: [oidc.allowInsecureRequests] },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: APP_CALLBACK,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const back = await browse(url.href, APP_CALLBACK);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
    const idToken = tokens.id_token!;

    const reg = await call(srv.url, '/api/account/register-external', {
      body: { idToken, companyName: 'App Farm' },
    });
    expectOk(reg, 201);
    expect(reg.json).toMatchObject({ created: true, linked: true, provider: 'farm-sso' });
    expect(
      await eventsOfRequest(client(srv.url, { bearer: reg.json.accessToken }), reg.json.companyId, reg),
    ).toEqual([
      expect.objectContaining({
        userId: reg.json.userId,
        route: '/api/account/register-external',
        objectId: reg.json.companyId,
        status: 201,
      }),
    ]);
    const me = await call(srv.url, '/api/user/current', { bearer: reg.json.accessToken });
    expect(me.json).toMatchObject({
      email,
      firstName: 'Nadia',
      companyAccess: [{ companyName: 'App Farm' }],
    });
    expectError(
      await call(srv.url, '/api/account/register-external', { body: { idToken } }),
      409,
      'IDENTITY_LINKED',
    );
    const forged = `${idToken.slice(0, -6)}AAAAAA`;
    expectError(
      await call(srv.url, '/api/account/register-external', { body: { idToken: forged } }),
      401,
      'INVALID_ID_TOKEN',
    );

    // The browser sign-in finds the same account.
    const again = await signIn(sub);
    expect(again.answer.json).toMatchObject({ userId: reg.json.userId, created: false, linked: false });
  });

  it('asserts a company per external organization, per user; only for users of the provider', async () => {
    const sub = `orgs-${uniq()}`;
    idp.addPerson({ sub, email: `${sub}@farm.example`, emailVerified: true });
    const s = (await signIn(sub)).answer.json;
    const assertAs = (bearer: string, path: string, companies: { externalId: string; name: string }[]) =>
      call(srv.url, `/api/account/${path}`, { bearer, body: { companies } });
    const first = await assertAs(s.accessToken, 'assert-user-external-companies', [
      { externalId: 'org-1', name: 'North Farm' },
      { externalId: 'org-2', name: 'South Farm' },
    ]);
    expectOk(first);
    expect(first.json.provider).toBe('farm-sso');
    expect(first.json.companies.map((c: { created: boolean }) => c.created)).toEqual([true, true]);
    const fresh = await assertAs(s.accessToken, 'assert-new-external-companies', [
      { externalId: 'org-1', name: 'North Farm' },
      { externalId: 'org-3', name: 'East Farm' },
    ]);
    expectOk(fresh);
    expect(fresh.json.companies).toHaveLength(1);
    expect(fresh.json.companies[0]).toMatchObject({ externalId: 'org-3', name: 'East Farm', created: true });
    // Each company made has its event; a company asserted again changes nothing.
    for (const [a, c] of [
      [first, first.json.companies[0]],
      [first, first.json.companies[1]],
      [fresh, fresh.json.companies[0]],
    ]) {
      expect(await eventsOfRequest(client(srv.url, { bearer: s.accessToken }), c.companyId, a)).toEqual([
        expect.objectContaining({ userId: s.userId, objectId: c.companyId, method: 'POST' }),
      ]);
    }
    expect(
      await eventsOfRequest(
        client(srv.url, { bearer: s.accessToken }),
        first.json.companies[0].companyId,
        fresh,
      ),
    ).toEqual([]);
    const again = await assertAs(s.accessToken, 'assert-user-external-companies', [
      { externalId: 'org-2', name: 'Renamed' },
      { externalId: 'org-1', name: 'North Farm' },
    ]);
    expect(again.json.companies).toEqual([
      { ...first.json.companies[1], created: false },
      { ...first.json.companies[0], created: false },
    ]);
    const me = await call(srv.url, '/api/user/current', { bearer: s.accessToken });
    expect(me.json.companyAccess.map((c: { companyName: string }) => c.companyName)).toEqual(
      expect.arrayContaining(['North Farm', 'South Farm', 'East Farm']),
    );

    // Another user of the provider naming org-1 gets a company of their own.
    const sub2 = `orgs-${uniq()}`;
    idp.addPerson({ sub: sub2, email: `${sub2}@farm.example`, emailVerified: true });
    const s2 = (await signIn(sub2)).answer.json;
    const theirs = await assertAs(s2.accessToken, 'assert-user-external-companies', [
      { externalId: 'org-1', name: 'North Farm' },
    ]);
    expect(theirs.json.companies[0].created).toBe(true);
    expect(theirs.json.companies[0].companyId).not.toBe(first.json.companies[0].companyId);

    // Users of passwords only, duplicates and empty lists are refused.
    const pw = await call(srv.url, '/api/account/register', {
      body: { email: `pw-${uniq()}@farm.example`, password: PASSWORD },
    });
    expectError(
      await assertAs(pw.json.accessToken, 'assert-user-external-companies', [{ externalId: 'x', name: 'X' }]),
      403,
      'NotAuthorized',
    );
    expectError(
      await assertAs(s.accessToken, 'assert-user-external-companies', [
        { externalId: 'dup', name: 'A' },
        { externalId: 'dup', name: 'B' },
      ]),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await assertAs(s.accessToken, 'assert-new-external-companies', []), 400, 'VALIDATION_ERROR');
  });
});
