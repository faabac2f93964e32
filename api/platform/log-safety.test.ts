/**
 * What the log holds after failures (PGlite and PostgreSQL): a failed
 * registration and failed statements carrying an e-mail, a scrypt password
 * hash and an API key's SHA-256 are logged with their SQL state only, never
 * with those values; credential headers and secret body members are
 * redacted; secret query parameters leave the logged URL.
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/passwords.ts';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { call, client, expectError } from './client.ts';

let srv: TestServer;
let lines: string[] = [];
const EMAIL = `secret.person-${Date.now()}@example.org`;
let hash: string;
const KEY = `tl_${'k'.repeat(43)}`;
const KEY_HASH = createHash('sha256').update(KEY).digest('hex');

beforeAll(async () => {
  hash = await hashPassword('correct horse battery staple');
  const store = await testStore();
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  srv = await startTestServer({ rateLimitPerMin: 100_000, logger: { level: 'info', stream } }, (app) => {
    // Statements that fail in the database with secrets among their values.
    app.post('/api/test/failing-user', async () => {
      await store.accounts.createUser({ email: EMAIL, passwordHash: hash, firstName: 'nul\u0000' });
    });
    app.post('/api/test/failing-key', async (req) => {
      const p = req.principal!;
      await store.apiKeys.create({ userId: p.userId, companyId: p.companyId, name: 'nul\u0000', key: KEY });
    });
    app.post('/api/test/null', async () => {
      const none = null as unknown as { id: string };
      return { id: none.id };
    });
    app.post('/api/test/echo', async (req) => {
      req.log.info({ headers: req.headers, body: req.body }, 'echo');
      return {};
    });
  });
});
afterAll(async () => {
  await srv?.close();
});

const logText = () => lines.join('');

describe('the log after failures', () => {
  it('holds no e-mail, password hash or key hash after a failed registration and failed statements', async () => {
    lines = [];
    const k = await testKey();
    const c = client(srv.url, { key: k.key });
    const reg = await call(srv.url, '/api/account/register', {
      body: { email: EMAIL, password: 'correct horse battery staple', firstName: 'nul\u0000' },
    });
    expectError(reg, 400, 'INVALID_TEXT');
    // Text the database cannot hold that got past the input rule is still the request's fault.
    const failedUser = await c.post('/api/test/failing-user', {});
    expectError(failedUser, 400, 'INVALID_INPUT');
    const failedKey = await c.post('/api/test/failing-key', {});
    expectError(failedKey, 400, 'INVALID_INPUT');
    for (const a of [failedUser, failedKey]) {
      expect(a.text).not.toMatch(/insert|params|users|api_keys|0x00|byte sequence|scrypt|@example/i);
    }
    // A 5xx body says nothing of the cause.
    const failed = await c.post('/api/test/null', {});
    expectError(failed, 500, 'INTERNAL_ERROR');
    expect(Object.keys(failed.json).sort()).toEqual(['correlationId', 'errorCode', 'message']);
    expect(failed.text).not.toMatch(/Cannot read|null|properties/);
    await new Promise((r) => setTimeout(r, 50));
    const log = logText();
    // The failures were logged, with their SQL state and statement kind.
    expect(log).toMatch(/"sqlState":"22/);
    expect(log).toMatch(/"statement":"insert into \\"users\\""/);
    expect(log).toContain(failedUser.json.correlationId);
    for (const secret of [EMAIL, EMAIL.toLowerCase(), hash, hash.split('$').at(-1)!, KEY, KEY_HASH]) {
      expect(log).not.toContain(secret);
    }
    expect(log).not.toMatch(/scrypt\$/);
    expect(log).not.toMatch(/\b[0-9a-f]{64}\b/);
  });

  it('redacts credential headers, secret body members and secret query parameters', async () => {
    lines = [];
    const k = await testKey();
    const store = await testStore();
    expect(store).toBeTruthy();
    await call(srv.url, '/api/test/echo?code=launch-secret-123&x=1', {
      key: k.key,
      body: {
        password: 'hunter2-secret',
        refreshToken: 'rt-secret-456',
        nested: { apiKey: 'nested-secret' },
      },
      headers: { cookie: 'tramline_session=cookie-secret-789', authorization: 'Bearer bearer-secret' },
    });
    const share = `tls_${'s'.repeat(32)}`;
    await call(srv.url, `/api/shares/${share}/path-plans-normalized/${k.keyId}`, {});
    await call(srv.url, `/api/shares/${share}`, { key: k.key });
    await new Promise((r) => setTimeout(r, 50));
    const log = logText();
    expect(log).toContain('"echo"');
    expect(log).toContain('/api/shares/tls_[Redacted]/');
    expect(log).not.toContain(share);
    for (const secret of [
      k.key,
      'hunter2-secret',
      'rt-secret-456',
      'nested-secret',
      'cookie-secret-789',
      'bearer-secret',
      'launch-secret-123',
    ]) {
      expect(log).not.toContain(secret);
    }
    expect(log).toContain('[Redacted]');
  });
});
