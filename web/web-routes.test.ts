/**
 * The planning view's server side over HTTP (a really listening server):
 * the page and its redirect to sign-in, the session cookie (HttpOnly, long
 * enough for a working day, honoured by the API, refused for unsafe calls
 * from other sites), /login, /logout, /launch refusals, and the settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/platform/client.ts';
import { safeReturnUrl, webOptionsFromEnv } from '../api/routes/web.ts';
import { startTestServer, type TestServer } from '../api/testing.ts';
import { ensureWebBuild } from './build.ts';

describe('planning view routes', () => {
  let server: TestServer;
  const email = `web-${Date.now()}@example.org`;
  const password = 'a long enough password';

  beforeAll(async () => {
    await ensureWebBuild();
    server = await startTestServer({ web: { allowedOrigins: ['https://portal.example.com'] } });
    expect((await call(server.url, '/api/account/register', { body: { email, password } })).status).toBe(201);
  });
  afterAll(async () => server?.close());

  async function login(): Promise<string> {
    const res = await fetch(`${server.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, returnUrl: '/path-planning/boundary/abc?embedded=true' }),
    });
    expect(res.status).toBe(200);
    // A path on this origin: the browser stays on the origin it signed in at.
    expect(await res.json()).toEqual({ returnUrl: '/path-planning/boundary/abc?embedded=true' });
    const set = res.headers.get('set-cookie') ?? '';
    expect(set).toMatch(/^tramline_session=/);
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/SameSite=None/i);
    expect(set).toMatch(/Secure/i);
    expect(set).toMatch(/Partitioned/i);
    expect(Number(/Max-Age=(\d+)/i.exec(set)?.[1])).toBeGreaterThan(8 * 3600);
    return set.split(';', 1)[0];
  }

  it('sends a visitor without a session to the sign-in page, keeping where they wanted to go', async () => {
    const res = await fetch(`${server.url}/path-planning/boundary/0198c0de-1234?embedded=true&chrome=false`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(
      `/login?returnUrl=${encodeURIComponent('/path-planning/boundary/0198c0de-1234?embedded=true&chrome=false')}`,
    );
    const page = await fetch(`${server.url}/login`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign in to Tramline');
  });

  it('serves the page with its settings and framing policy to a signed-in user; no key in it', async () => {
    const cookie = await login();
    const res = await fetch(`${server.url}/path-planning/boundary/field-1`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(
      "frame-ancestors 'self' https://portal.example.com",
    );
    const html = await res.text();
    const config = JSON.parse(
      /<script id="tramline-config" type="application\/json">(.*?)<\/script>/s.exec(html)![1],
    );
    expect(config).toMatchObject({ mode: 'field', boundaryId: 'field-1', basemapUrl: null });
    expect(config.routeAlgorithms).toContain('boustrophedon');
    expect(html).not.toMatch(/tl_[A-Za-z0-9_-]{43}/);
    const asset = /src="(\/web\/assets\/[^"]+\.js)"/.exec(html)![1];
    const js = await fetch(`${server.url}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toContain('immutable');
    const bad = await fetch(`${server.url}/path-planning/boundary/${'x'.repeat(80)}`, {
      headers: { cookie },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errorCode).toBe('VALIDATION_ERROR');
  });

  it('lets the API take the cookie, but not for unsafe calls from another site', async () => {
    const cookie = await login();
    expect((await call(server.url, '/api/user/current', { headers: { cookie } })).status).toBe(200);
    const own = await call(server.url, '/api/companies', {
      body: { name: 'From the page' },
      headers: { cookie, 'sec-fetch-site': 'same-origin' },
    });
    expect(own.status).toBe(201);
    const foreign = await call(server.url, '/api/companies', {
      body: { name: 'Forged' },
      headers: { cookie, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(401);
    const noHint = await call(server.url, '/api/companies', {
      body: { name: 'Forged' },
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(noHint.status).toBe(401);
  });

  it('signs out: the cookie stops working at once', async () => {
    const cookie = await login();
    const out = await fetch(`${server.url}/logout`, {
      method: 'POST',
      headers: { cookie, 'sec-fetch-site': 'same-origin' },
    });
    expect(out.status).toBe(204);
    expect((await call(server.url, '/api/user/current', { headers: { cookie } })).status).toBe(401);
  });

  it('refuses a wrong password and launch requests it cannot honour', async () => {
    const wrong = await fetch(`${server.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'not the password' }),
    });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).errorCode).toBe('INVALID_CREDENTIALS');
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const missing = await fetch(`${server.url}/launch?code=abc`, { redirect: 'manual' });
    expect(missing.status).toBe(400);
    const m = await missing.json();
    expect(m.errorCode).toBe('VALIDATION_ERROR');
    expect(m.errors.map((e: { path: string }) => e.path)).toEqual([
      '/querystring/userId',
      '/querystring/returnUrl',
    ]);

    for (const returnUrl of ['https://evil.example/x', '//evil.example/x', 'javascript:alert(1)']) {
      const res = await fetch(
        `${server.url}/launch?code=abc&userId=u&returnUrl=${encodeURIComponent(returnUrl)}`,
        { redirect: 'manual' },
      );
      expect(res.status, returnUrl).toBe(400);
      expect((await res.json()).errorCode).toBe('INVALID_RETURN_URL');
    }
  });

  it('accepts return URLs on its own origin and allowed origins only', () => {
    const own = 'http://127.0.0.1:8080';
    const allowed = ['https://portal.example.com'];
    expect(safeReturnUrl('/path-planning/boundary/b1', own, allowed)).toBe('/path-planning/boundary/b1');
    expect(safeReturnUrl(`${own}/a?b=1#c`, own, allowed)).toBe('/a?b=1#c');
    // A path starting with // would leave the origin.
    expect(safeReturnUrl(`${own}//evil.example/x`, own, allowed)).toBeNull();
    expect(safeReturnUrl('https://portal.example.com/farm?x=1', own, allowed)).toBe(
      'https://portal.example.com/farm?x=1',
    );
    expect(safeReturnUrl('https://portal.example.com.evil.example/', own, allowed)).toBeNull();
    expect(safeReturnUrl('https://user:pw@portal.example.com/', own, allowed)).toBeNull();
    expect(safeReturnUrl('/\\evil.example', own, allowed)).toBeNull();
  });

  it('reads its settings from the environment and names what is wrong', () => {
    expect(
      webOptionsFromEnv({
        TRAMLINE_ALLOWED_ORIGINS: 'https://a.example, http://b.example:8080',
        TRAMLINE_BASEMAP_URL: 'https://tiles.example/{z}/{x}/{y}.png',
      }),
    ).toEqual({
      allowedOrigins: ['https://a.example', 'http://b.example:8080'],
      basemapUrl: 'https://tiles.example/{z}/{x}/{y}.png',
      basemapAttribution: undefined,
    });
    expect(webOptionsFromEnv({ TRAMLINE_PUBLIC_URL: 'https://plan.example.com/' }).publicUrl).toBe(
      'https://plan.example.com',
    );
    expect(() => webOptionsFromEnv({ TRAMLINE_PUBLIC_URL: 'https://plan.example.com/app' })).toThrow(
      /TRAMLINE_PUBLIC_URL/,
    );
    expect(() => webOptionsFromEnv({ TRAMLINE_ALLOWED_ORIGINS: 'https://a.example/path' })).toThrow(
      /TRAMLINE_ALLOWED_ORIGINS/,
    );
    expect(() => webOptionsFromEnv({ TRAMLINE_BASEMAP_URL: 'https://tiles.example/tile.png' })).toThrow(
      /TRAMLINE_BASEMAP_URL/,
    );
  });
});
