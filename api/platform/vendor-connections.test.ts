/**
 * Vendor account links against a really listening server: the vendor's
 * tokens are stored encrypted with the key from the environment, bound to
 * their row, and never answered back.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenCipher, tokenKeyFromEnv } from '../account/token-cipher.ts';
import { ConfigError } from '../config.ts';
import { connectionContext } from '../routes/vendor-connections.ts';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { call, client, expectError, expectOk } from './client.ts';

const KEY = randomBytes(32);
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000, vendorTokenKey: KEY });
});
afterAll(async () => {
  await srv?.close();
});

describe('vendor-a connections', () => {
  it('stores the tokens encrypted, answers no token, and replaces them for the same account', async () => {
    const k = await testKey();
    const c = client(srv.url, { key: k.key });
    const access = `vendor-access-${randomBytes(12).toString('hex')}`;
    const refresh = `vendor-refresh-${randomBytes(12).toString('hex')}`;
    const made = await c.post('/api/vendor-a-connections', {
      externalAccountId: 'org-4711',
      companyId: k.companyId,
      accessToken: access,
      refreshToken: refresh,
      expiresIn: 3600,
      scope: 'ag1 eq1',
    });
    expectOk(made, 201);
    expect(made.json).toMatchObject({
      vendor: 'vendor-a',
      externalAccountId: 'org-4711',
      companyId: k.companyId,
      hasRefreshToken: true,
      scope: 'ag1 eq1',
    });
    expect(made.text).not.toContain(access);
    expect(made.text).not.toContain(refresh);

    const store = await testStore();
    const row = (await store.vendorConnections.find(k.userId, 'vendor-a', 'org-4711'))!;
    expect(row.accessTokenEnc).not.toContain(access);
    expect(row.accessTokenEnc).toMatch(/^v1\./);
    const cipher = createTokenCipher(KEY);
    const ctx = connectionContext(row);
    expect(cipher.decrypt(row.accessTokenEnc, ctx)).toBe(access);
    expect(cipher.decrypt(row.refreshTokenEnc!, ctx)).toBe(refresh);
    // Bound to the row and the key.
    expect(() =>
      cipher.decrypt(row.accessTokenEnc, connectionContext({ ...row, externalAccountId: 'other' })),
    ).toThrow();
    expect(() => createTokenCipher(randomBytes(32)).decrypt(row.accessTokenEnc, ctx)).toThrow();

    const again = await c.post('/api/vendor-a-connections', {
      externalAccountId: 'org-4711',
      accessToken: 'new-token',
    });
    expectOk(again, 200);
    expect(again.json).toMatchObject({
      connectionId: made.json.connectionId,
      hasRefreshToken: false,
      companyId: null,
    });
    const row2 = (await store.vendorConnections.find(k.userId, 'vendor-a', 'org-4711'))!;
    expect(cipher.decrypt(row2.accessTokenEnc, connectionContext(row2))).toBe('new-token');
  });

  it('refuses companies of others (404) and bad bodies (400); without a key the service refuses (503)', async () => {
    const k = await testKey();
    const other = await testKey();
    const c = client(srv.url, { key: k.key });
    expectError(
      await c.post('/api/vendor-a-connections', {
        externalAccountId: 'x',
        companyId: other.companyId,
        accessToken: 't',
      }),
      404,
      'NOT_FOUND',
    );
    const bad = await c.post('/api/vendor-a-connections', {
      externalAccountId: '',
      accessToken: 't',
      expiresIn: 0,
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(new Set(bad.json.errors.map((e: { path: string }) => e.path))).toEqual(
      new Set(['/externalAccountId', '/expiresIn']),
    );
    expect(
      (
        await call(srv.url, '/api/vendor-a-connections', {
          body: { externalAccountId: 'x', accessToken: 't' },
        })
      ).status,
    ).toBe(401);

    const keyless = await startTestServer({ rateLimitPerMin: 100_000, vendorTokenKey: undefined });
    try {
      if (process.env.TRAMLINE_VENDOR_TOKEN_KEY) return;
      expectError(
        await call(keyless.url, '/api/vendor-a-connections', {
          key: k.key,
          body: { externalAccountId: 'x', accessToken: 't' },
        }),
        503,
        'VENDOR_CONNECTIONS_DISABLED',
      );
    } finally {
      await keyless.close();
    }
  });

  it('reads the key from TRAMLINE_VENDOR_TOKEN_KEY as base64 or hex, 32 bytes only', () => {
    const key = randomBytes(32);
    expect(tokenKeyFromEnv({ TRAMLINE_VENDOR_TOKEN_KEY: key.toString('base64') })).toEqual(key);
    expect(tokenKeyFromEnv({ TRAMLINE_VENDOR_TOKEN_KEY: key.toString('hex') })).toEqual(key);
    expect(tokenKeyFromEnv({})).toBeUndefined();
    expect(() => tokenKeyFromEnv({ TRAMLINE_VENDOR_TOKEN_KEY: 'c2hvcnQ=' })).toThrow(ConfigError);
  });
});
