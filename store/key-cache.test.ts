/**
 * API keys remembered per process: what this process changes applies at
 * once; what another process changes (a second store on the same
 * PostgreSQL) applies within the cache's TTL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyForNewAccount } from './bootstrap.ts';
import { openStore, type Store } from './db.ts';
import { createKeyCache } from './repositories/api-keys.ts';
import { createTempDatabase, openTestPgliteStore, skipPostgres, type TempDatabase } from './testing.ts';

describe('key cache', () => {
  it('keeps principals for its TTL, not across a clear, and not a lookup that straddled a clear', () => {
    const cache = createKeyCache(60_000);
    const p = { keyId: 'k', keyName: '', keyMasked: '', userId: 'u', companyId: 'c', partnerAdmin: false };
    cache.set('h', p, cache.generation);
    expect(cache.get('h')).toEqual(p);
    const before = cache.generation;
    cache.clear();
    expect(cache.get('h')).toBeUndefined();
    cache.set('h', p, before);
    expect(cache.get('h')).toBeUndefined();
    expect(createKeyCache(0).get('h')).toBeUndefined();
  });
});

describe('keys through one store (this process)', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestPgliteStore();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('refuses a revoked key at once, also when revoked inside a transaction', async () => {
    for (const revokeIn of ['store', 'transaction'] as const) {
      const k = await createKeyForNewAccount(store, { name: 'r' });
      expect(await store.apiKeys.authenticate(k.key)).toMatchObject({ keyId: k.keyId });
      if (revokeIn === 'store') await store.apiKeys.revoke(k.keyId);
      else await store.transaction((r) => r.apiKeys.revoke(k.keyId));
      expect(await store.apiKeys.authenticate(k.key)).toBeNull();
    }
  });

  it('sees a changed partner admin flag and an unlimited balance at once', async () => {
    const k = await createKeyForNewAccount(store, { name: 'f', credits: 3 });
    expect(await store.apiKeys.authenticate(k.key)).toMatchObject({
      partnerAdmin: false,
      unlimitedCredits: false,
    });
    await store.accounts.setPartnerAdmin(k.userId, true);
    await store.credits.set(k.companyId, 0, true);
    expect(await store.apiKeys.authenticate(k.key)).toMatchObject({
      partnerAdmin: true,
      unlimitedCredits: true,
    });
    await store.credits.set(k.companyId, 5, false);
    expect(await store.apiKeys.authenticate(k.key)).toMatchObject({ unlimitedCredits: false });
  });
});

const skipPg = await skipPostgres();

describe.skipIf(skipPg)('keys across processes (two stores on one PostgreSQL)', () => {
  let tmp: TempDatabase;
  let a: Store;
  let b: Store;
  beforeAll(async () => {
    tmp = await createTempDatabase();
    a = await openStore({ databaseUrl: tmp.url, poolSize: 2, keyCacheSeconds: 2 });
    b = await openStore({ databaseUrl: tmp.url, poolSize: 2, migrate: false });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await tmp?.drop();
  });

  it('applies a revocation made elsewhere within the TTL', async () => {
    const k = await createKeyForNewAccount(b, { name: 'x' });
    const cachedAt = performance.now();
    expect(await a.apiKeys.authenticate(k.key)).toMatchObject({ keyId: k.keyId });
    const cachedBy = performance.now();
    expect(await b.apiKeys.revoke(k.keyId)).toBe(true);
    expect(await b.apiKeys.authenticate(k.key)).toBeNull();
    // Process a may still trust what it looked up, for at most its TTL (2 s here).
    const stillTrusted = await a.apiKeys.authenticate(k.key);
    if (performance.now() - cachedAt < 1500) expect(stillTrusted).toMatchObject({ keyId: k.keyId });
    await new Promise((r) => setTimeout(r, Math.max(0, 2100 - (performance.now() - cachedBy))));
    expect(await a.apiKeys.authenticate(k.key)).toBeNull();
  });
});
