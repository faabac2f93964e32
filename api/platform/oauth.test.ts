/**
 * OAuth 2.0 end to end against a really listening server, with a standard
 * client library (openid-client) as the client: a user signs in through the
 * consent page with PKCE, the client calls the API with the token, rotates
 * it, and a machine client uses client_credentials.
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOAuthClient } from '../account/oauth-clients.ts';
import { startTestServer, type TestServer, testStore } from '../testing.ts';
import { type Answer, call, expectError, expectOk } from './client.ts';

const PASSWORD = 'correct horse battery';
const CALLBACK = 'http://127.0.0.1:9/callback';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
});
afterAll(async () => {
  await srv?.close();
});

let n = 0;
const email = () => `oauth${++n}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.org`;

async function register() {
  const e = email();
  const a = await call(srv.url, '/api/account/register', {
    body: { email: e, password: PASSWORD, companyName: 'OAuth Farms' },
  });
  expectOk(a, 201);
  return { email: e, ...a.json };
}

/** The client library's view of this server, from its RFC 8414 metadata. */
async function clientConfig(clientId: string, secret?: string) {
  const config = await oidc.discovery(
    new URL(srv.url),
    clientId,
    secret ? { client_secret: secret } : undefined,
    secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
    { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
  );
  return config;
}

const cookieOf = (a: Answer) => /tramline_session=([^;]+)/.exec(a.headers.get('set-cookie') ?? '')?.[1];

/** A browser: follows the authorization URL through sign-in and consent to the redirect with the code. */
async function browserConsents(authorizationUrl: URL, user: { email: string }): Promise<URL> {
  const path = authorizationUrl.pathname + authorizationUrl.search;
  const first = await fetch(srv.url + path, { redirect: 'manual' });
  expect(first.status).toBe(302);
  const login = new URL(first.headers.get('location')!, srv.url);
  expect(login.pathname).toBe('/login');
  const signedIn = await call(srv.url, '/login', {
    body: { email: user.email, password: PASSWORD, returnUrl: login.searchParams.get('returnUrl') },
  });
  expectOk(signedIn);
  const cookie = `tramline_session=${cookieOf(signedIn)}`;
  const consent = await call(srv.url, signedIn.json.returnUrl, { headers: { cookie } });
  expectOk(consent);
  expect(consent.headers.get('content-type')).toMatch(/text\/html/);
  expect(consent.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
  const cfg = JSON.parse(/const cfg = (\{.*\});\n/.exec(consent.text)![1]);
  expect(cfg.endpoint).toBe('/api/oauth/initiate');
  // The page's script posts this with the cookie, from this origin.
  const allowed = await call(srv.url, cfg.endpoint, {
    body: cfg.fixed,
    headers: { cookie, 'sec-fetch-site': 'same-origin' },
  });
  expectOk(allowed);
  return new URL(allowed.json.redirectUri);
}

describe('OAuth 2.0', () => {
  it('signs a user in with PKCE through the consent page; the client calls the API and rotates its token', async () => {
    const user = await register();
    const store = await testStore();
    const { clientId, clientSecret } = await registerOAuthClient(store, {
      name: 'Field Scout',
      redirectUris: [CALLBACK],
      confidential: false,
    });
    expect(clientSecret).toBeNull();
    const config = await clientConfig(clientId);

    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    expect(url.pathname).toBe('/oauth/authorize');
    const callback = await browserConsents(url, user);
    expect(callback.origin + callback.pathname).toBe(CALLBACK);
    expect(callback.searchParams.get('state')).toBe(state);

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.refresh_token).toBeTruthy();
    const me = await call(srv.url, '/api/user/current', { bearer: tokens.access_token });
    expectOk(me);
    expect(me.json.userId).toBe(user.userId);
    const companies = await call(srv.url, `/api/oauth/users/${user.userId}/companies`, {
      bearer: tokens.access_token,
    });
    expectOk(companies);
    expect(companies.json.companies).toEqual([
      { companyId: user.companyId, name: 'OAuth Farms', role: 'admin' },
    ]);
    const all = await call(srv.url, '/api/oauth/users-companies', { bearer: tokens.access_token });
    expect(all.json.clientId).toBe(clientId);
    expect(all.json.users.map((u: { userId: string }) => u.userId)).toEqual([user.userId]);

    // The code works once.
    await expect(
      oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });

    // Refresh rotates; the old refresh token coming back ends the session.
    const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expectOk(await call(srv.url, '/api/user/current', { bearer: next.access_token }));
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await call(srv.url, '/api/user/current', { bearer: next.access_token })).status).toBe(401);
  });

  it('refuses a wrong verifier, another redirect URI, unknown clients and the plain method', async () => {
    const user = await register();
    const store = await testStore();
    const { clientId } = await registerOAuthClient(store, {
      name: 'Strict',
      redirectUris: [CALLBACK],
      confidential: false,
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const challenge = await oidc.calculatePKCECodeChallenge(verifier);
    const initiate = (body: Record<string, unknown>) =>
      call(srv.url, '/api/oauth/initiate', { bearer: user.accessToken, body });
    const ok = await initiate({
      clientId,
      redirectUri: CALLBACK,
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    });
    expectOk(ok);
    const form = (fields: Record<string, string>) =>
      call(srv.url, '/api/account/token', {
        raw: new URLSearchParams(fields).toString(),
        type: 'application/x-www-form-urlencoded',
      });
    const wrong = await form({
      grant_type: 'authorization_code',
      code: ok.json.code,
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: oidc.randomPKCECodeVerifier(),
    });
    expectError(wrong, 400, 'invalid_grant');
    expect(wrong.json.error).toBe('invalid_grant');
    // The failed attempt used the code up.
    expectError(
      await form({
        grant_type: 'authorization_code',
        code: ok.json.code,
        redirect_uri: CALLBACK,
        client_id: clientId,
        code_verifier: verifier,
      }),
      400,
      'invalid_grant',
    );
    expectError(
      await initiate({
        clientId,
        redirectUri: 'https://evil.example/cb',
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
      }),
      400,
      'INVALID_CLIENT',
    );
    expectError(
      await initiate({
        clientId,
        redirectUri: CALLBACK,
        codeChallenge: challenge,
        codeChallengeMethod: 'plain',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await form({ grant_type: 'client_credentials', client_id: 'tlc_nobody', client_secret: 'x' }),
      401,
      'invalid_client',
    );
    expectError(
      await form({ grant_type: 'password', username: 'a', password: 'b' }),
      400,
      'VALIDATION_ERROR',
    );
    // An authorization request for an unregistered redirect URI is never redirected.
    const page = await fetch(
      `${srv.url}/oauth/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}&code_challenge=${challenge}&code_challenge_method=S256`,
      { redirect: 'manual' },
    );
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
  });

  it('gives a machine client a token of its service user; it lists the users who let it in', async () => {
    const user = await register();
    const store = await testStore();
    const { clientId, clientSecret } = await registerOAuthClient(store, {
      name: 'Farm ERP',
      redirectUris: [CALLBACK],
      confidential: true,
      serviceUserEmail: email(),
    });
    expect(clientSecret).toMatch(/^tls_/);
    const config = await clientConfig(clientId, clientSecret!);
    // The user lets the client in (as the consent page would).
    const verifier = oidc.randomPKCECodeVerifier();
    const allowed = await call(srv.url, '/api/oauth/initiate', {
      bearer: user.accessToken,
      body: {
        clientId,
        redirectUri: CALLBACK,
        codeChallenge: await oidc.calculatePKCECodeChallenge(verifier),
        codeChallengeMethod: 'S256',
      },
    });
    expectOk(allowed);

    const machine = await oidc.clientCredentialsGrant(config);
    expect(machine.refresh_token).toBeUndefined();
    const listed = await call(srv.url, '/api/oauth/users-companies', { bearer: machine.access_token });
    expectOk(listed);
    expect(listed.json.clientId).toBe(clientId);
    expect(listed.json.users).toEqual([
      {
        userId: user.userId,
        email: user.email,
        firstName: null,
        lastName: null,
        companies: [{ companyId: user.companyId, name: 'OAuth Farms', role: 'admin' }],
      },
    ]);
    expectOk(
      await call(srv.url, `/api/oauth/users/${user.userId}/companies`, { bearer: machine.access_token }),
    );
    // Users who did not let it in are not its business.
    const other = await register();
    expectError(
      await call(srv.url, `/api/oauth/users/${other.userId}/companies`, { bearer: machine.access_token }),
      404,
      'NOT_FOUND',
    );
    // A wrong secret is refused.
    const bad = await clientConfig(clientId, 'tls_wrong');
    await expect(oidc.clientCredentialsGrant(bad)).rejects.toMatchObject({ error: 'invalid_client' });
  });
});
