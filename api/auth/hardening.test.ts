/**
 * Access hardening against a really listening server, with clients on
 * distinct loopback addresses (127.0.0.x), so per-client rate limits are
 * seen as a deployment sees them:
 *   - sign-in and launch through the web routes count per client, never in
 *     one shared bucket of the server's own address; health probes are not
 *     rate limited;
 *   - /launch judges return URLs by configured origins, never by the Host header;
 *   - a used refresh token coming back ends its whole session;
 *   - /logout clears the session cookie with the attributes it was set with;
 *   - every answer carries X-Content-Type-Options: nosniff.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey } from '../testing.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
  json: any;
}

/** One HTTP request from `from` (a local address); the Host header may be set freely. */
function send(
  base: string,
  path: string,
  opts: { from?: string; method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const u = new URL(path, base);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method ?? (body === undefined ? 'GET' : 'POST'),
        localAddress: opts.from,
        agent: false,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const PASSWORD = 'a long enough password';
const email = () => `hardening-${randomBytes(6).toString('hex')}@example.org`;

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
});
afterAll(async () => {
  await srv?.close();
});

describe('rate limits per client for calls the server makes to itself', () => {
  it('bad sign-ins from one address do not lock another address out of /login', async () => {
    // A long window, so the requests do not straddle a window boundary.
    const limited = await startTestServer({ rateLimitPerMin: 5, rateLimitWindowSeconds: 3600 });
    try {
      const e = email();
      const reg = await send(limited.url, '/api/account/register', {
        from: '127.0.0.21',
        body: { email: e, password: PASSWORD },
      });
      expect(reg.status, reg.text).toBe(201);
      const attacker = [];
      for (let i = 0; i < 7; i++) {
        attacker.push(
          (
            await send(limited.url, '/login', {
              from: '127.0.0.22',
              body: { email: e, password: 'not the password at all' },
            })
          ).status,
        );
      }
      // The attacker's own window runs out; nobody else's does.
      expect(attacker).toEqual([401, 401, 401, 401, 401, 429, 429]);
      const victim = await send(limited.url, '/login', {
        from: '127.0.0.23',
        body: { email: e, password: PASSWORD },
      });
      expect(victim.status, victim.text).toBe(200);
      expect(victim.headers['x-ratelimit-remaining']).toBe('4');
    } finally {
      await limited.close();
    }
  });

  it('failed launches from one address do not lock another address out of /launch', async () => {
    const limited = await startTestServer({ rateLimitPerMin: 4, rateLimitWindowSeconds: 3600 });
    try {
      for (let i = 0; i < 6; i++) {
        await send(limited.url, `/launch?code=nope${i}&userId=u&returnUrl=%2F`, { from: '127.0.0.24' });
      }
      const other = await send(limited.url, '/launch?code=nope&userId=u&returnUrl=%2F', {
        from: '127.0.0.25',
      });
      // The exchange itself answers (a bad code), not the rate limit of the server's own address.
      expect(other.status, other.text).toBe(400);
      expect(other.json.errorCode).not.toBe('RATE_LIMIT_EXCEEDED');
    } finally {
      await limited.close();
    }
  });

  it('a forged inner-call header counts like any other request', async () => {
    const limited = await startTestServer({ rateLimitPerMin: 2, rateLimitWindowSeconds: 3600 });
    try {
      const forged = { 'x-tramline-inner-call': `AAAA.${Buffer.from('ip:10.9.8.7').toString('base64url')}` };
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push(
          (await send(limited.url, '/api/user/current', { from: '127.0.0.26', headers: forged })).status,
        );
      }
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await limited.close();
    }
  });

  it('never rate limits health probes', async () => {
    const limited = await startTestServer({ rateLimitPerMin: 2, rateLimitWindowSeconds: 3600 });
    try {
      const from = '127.0.0.27';
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await send(limited.url, '/api/user/current', { from })).status);
      expect(statuses).toEqual([401, 401, 429]);
      for (let i = 0; i < 5; i++) {
        const h = await send(limited.url, '/api/healthz', { from });
        expect(h.status).toBe(200);
        expect(h.json.status).toBe('ok');
      }
    } finally {
      await limited.close();
    }
  });
});

describe('/launch knows its own origin from configuration, not from the Host header', () => {
  async function launchCode(): Promise<{ code: string; userId: string }> {
    const partner = await testKey({ partnerAdmin: true });
    const pid = `ext-${randomBytes(6).toString('hex')}`;
    const u = await send(srv.url, '/api/partner/users', {
      headers: { 'x-api-key': partner.key },
      body: { partnerUserId: pid, email: `${pid}@partner.example`, firstName: 'Ada', lastName: 'Lovelace' },
    });
    expect(u.status, u.text).toBe(201);
    const l = await send(srv.url, '/api/partner/launch', {
      headers: { 'x-api-key': partner.key },
      body: { userId: pid },
    });
    expect(l.status, l.text).toBe(200);
    return { code: l.json.code, userId: l.json.userId };
  }

  it('refuses a return URL on whatever host the request names', async () => {
    const { code, userId } = await launchCode();
    const res = await send(
      srv.url,
      `/launch?code=${code}&userId=${userId}&returnUrl=${encodeURIComponent('http://evil.example/x')}`,
      { headers: { host: 'evil.example' } },
    );
    expect(res.status, res.text).toBe(400);
    expect(res.json.errorCode).toBe('INVALID_RETURN_URL');
    expect(res.headers.location).toBeUndefined();
    // Also behind a trusted proxy that passes the Host header on without X-Forwarded-Host.
    const proxied = await startTestServer({ trustProxy: true });
    try {
      const again = await send(
        proxied.url,
        `/launch?code=${code}&userId=${userId}&returnUrl=${encodeURIComponent('http://evil.example/x')}`,
        { headers: { host: 'evil.example' } },
      );
      expect(again.status, again.text).toBe(400);
      expect(again.json.errorCode).toBe('INVALID_RETURN_URL');
    } finally {
      await proxied.close();
    }
  });

  it('redirects to a path on its own origin, as configured by the public URL', async () => {
    const pub = await startTestServer({ web: { publicUrl: 'https://plan.example.com', allowedOrigins: [] } });
    try {
      const a = await launchCode();
      const own = await send(
        pub.url,
        `/launch?code=${a.code}&userId=${a.userId}&returnUrl=${encodeURIComponent('https://plan.example.com/path-planning/boundary/b1?embedded=true')}`,
        { headers: { host: 'evil.example' } },
      );
      expect(own.status, own.text).toBe(302);
      expect(own.headers.location).toBe('/path-planning/boundary/b1?embedded=true');
      // The cookie follows the public URL (https), whatever the connection.
      for (const a of [/; Secure/, /; Partitioned/, /; SameSite=None/])
        expect(String(own.headers['set-cookie'])).toMatch(a);
      const b = await launchCode();
      const local = await send(
        pub.url,
        `/launch?code=${b.code}&userId=${b.userId}&returnUrl=${encodeURIComponent(`${pub.url}/x`)}`,
      );
      expect(local.status, local.text).toBe(400);
      expect(local.json.errorCode).toBe('INVALID_RETURN_URL');
      expect(local.json.message).toContain('https://plan.example.com');
    } finally {
      await pub.close();
    }
  });

  it('without a public URL, takes the address the connection came in on', async () => {
    const a = await launchCode();
    const res = await send(
      srv.url,
      `/launch?code=${a.code}&userId=${a.userId}&returnUrl=${encodeURIComponent(`${srv.url}/path-planning/boundary/b2`)}`,
    );
    expect(res.status, res.text).toBe(302);
    expect(res.headers.location).toBe('/path-planning/boundary/b2');
  });
});

describe('refresh tokens', () => {
  it('a used refresh token coming back ends the whole session', async () => {
    const reg = await send(srv.url, '/api/account/register', {
      body: { email: email(), password: PASSWORD },
    });
    expect(reg.status, reg.text).toBe(201);
    const first = await send(srv.url, '/api/account/refresh', {
      body: { refreshToken: reg.json.refreshToken },
    });
    expect(first.status, first.text).toBe(200);
    const me = () =>
      send(srv.url, '/api/user/current', { headers: { authorization: `Bearer ${first.json.accessToken}` } });
    expect((await me()).status).toBe(200);
    // The old token again (a thief, or the victim after the thief): refused, and the session ends.
    const reuse = await send(srv.url, '/api/account/refresh', {
      body: { refreshToken: reg.json.refreshToken },
    });
    expect(reuse.status).toBe(401);
    expect(reuse.json.errorCode).toBe('INVALID_REFRESH_TOKEN');
    expect(reuse.json.message).toMatch(/session is ended/);
    const next = await send(srv.url, '/api/account/refresh', {
      body: { refreshToken: first.json.refreshToken },
    });
    expect(next.status).toBe(401);
    expect((await me()).status).toBe(401);
  });

  it('a forged token naming a live session ends nothing', async () => {
    const reg = await send(srv.url, '/api/account/register', {
      body: { email: email(), password: PASSWORD },
    });
    const [sid] = reg.json.refreshToken.slice(4).split('.');
    const forged = `tlr_${sid}.${'A'.repeat(22)}.${'B'.repeat(43)}`;
    expect((await send(srv.url, '/api/account/refresh', { body: { refreshToken: forged } })).status).toBe(
      401,
    );
    const ok = await send(srv.url, '/api/account/refresh', { body: { refreshToken: reg.json.refreshToken } });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('/logout', () => {
  it('clears the session cookie with the attributes it was set with', async () => {
    const e = email();
    await send(srv.url, '/api/account/register', { body: { email: e, password: PASSWORD } });
    const login = await send(srv.url, '/login', { body: { email: e, password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const set = String(login.headers['set-cookie']);
    const attrs = (c: string) =>
      c
        .split(';')
        .slice(1)
        .map((s) => s.trim().split('=')[0].toLowerCase())
        .filter((a) => !['max-age', 'expires'].includes(a))
        .sort();
    const out = await send(srv.url, '/logout', {
      method: 'POST',
      headers: { cookie: set.split(';', 1)[0], 'sec-fetch-site': 'same-origin' },
    });
    expect(out.status).toBe(204);
    const cleared = String(out.headers['set-cookie']);
    expect(cleared).toMatch(/^tramline_session=;/);
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(attrs(cleared)).toEqual(attrs(set));
    expect(attrs(set)).toEqual(['httponly', 'partitioned', 'path', 'samesite', 'secure']);
    expect(cleared).toMatch(/SameSite=None/);
  });
});

describe('X-Content-Type-Options', () => {
  it('is nosniff on every answer: success, errors, 401, 404, 429 and pages', async () => {
    const key = (await testKey()).key;
    const limited = await startTestServer({ rateLimitPerMin: 1, rateLimitWindowSeconds: 3600 });
    try {
      const answers = [
        await send(srv.url, '/api/healthz'),
        await send(srv.url, '/api/user/current', { headers: { 'x-api-key': key } }),
        await send(srv.url, '/api/user/current'),
        await send(srv.url, '/api/no-such-thing', { headers: { 'x-api-key': key } }),
        await send(srv.url, '/api/companies', { headers: { 'x-api-key': key }, body: { name: 1 } }),
        await send(srv.url, '/api/openapi.json'),
        await send(srv.url, '/launch'),
        await send(limited.url, '/api/user/current', { from: '127.0.0.28' }),
        await send(limited.url, '/api/user/current', { from: '127.0.0.28' }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 404, 400, 200, 400, 401, 429]);
      for (const a of answers) expect(a.headers['x-content-type-options'], String(a.status)).toBe('nosniff');
    } finally {
      await limited.close();
    }
  });
});
