import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyForNewAccount, ensureBootstrapKey } from './bootstrap.ts';
import { openStore, type Store } from './db.ts';
import { generateApiKey, hashApiKey, maskApiKey } from './repositories/api-keys.ts';
import {
  createEmbeddedRateLimitsRepository,
  createRateLimitsRepository,
} from './repositories/rate-limits.ts';
import { createTempDatabase, skipPostgres, type TempDatabase } from './testing.ts';
import { UUID_RE, uuidv7 } from './uuidv7.ts';

describe('uuidv7', () => {
  it('makes version-7 ids that sort by creation', () => {
    const ids = Array.from({ length: 2000 }, () => uuidv7());
    for (const id of ids) {
      expect(id).toMatch(UUID_RE);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('api key format', () => {
  it('is tl_ + 43 base64url characters, hashed and masked', () => {
    const k = generateApiKey();
    expect(k).toMatch(/^tl_[A-Za-z0-9_-]{43}$/);
    expect(hashApiKey(k)).toMatch(/^[0-9a-f]{64}$/);
    expect(maskApiKey(k)).toBe(`tl_${k.slice(3, 7)}…${k.slice(-4)}`);
  });
});

const skipPg = await skipPostgres();

const variants: Array<{
  name: string;
  skip: boolean;
  open: () => Promise<{ store: Store; done: () => Promise<void> }>;
}> = [
  {
    name: 'PGlite',
    skip: false,
    open: async () => {
      const store = await openStore({ dataDir: 'memory://' });
      return { store, done: () => store.close() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: skipPg,
    open: async () => {
      const tmp: TempDatabase = await createTempDatabase();
      const store = await openStore({ databaseUrl: tmp.url, poolSize: 4 });
      return {
        store,
        done: async () => {
          await store.close();
          await tmp.drop();
        },
      };
    },
  },
];

for (const v of variants) {
  describe.skipIf(v.skip)(`store on ${v.name}`, () => {
    let store: Store;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ store, done } = await v.open());
    });
    afterAll(async () => {
      await done?.();
    });

    it('bootstraps an admin key idempotently', async () => {
      const key = generateApiKey();
      const a = await ensureBootstrapKey(store, key, 'Admin@Example.org');
      expect(a.created).toBe(true);
      const b = await ensureBootstrapKey(store, key, 'admin@example.org');
      expect(b).toMatchObject({ created: false, revoked: false, userId: a.userId, companyId: a.companyId });
      const p = await store.apiKeys.authenticate(key);
      expect(p).toMatchObject({ userId: a.userId, companyId: a.companyId, partnerAdmin: true });
      const bal = await store.credits.get(a.companyId);
      expect(bal.unlimited).toBe(true);
      const acc = await store.accounts.listAccesses(a.userId);
      expect(acc).toEqual([{ companyId: a.companyId, companyName: 'Tramline', role: 'admin' }]);
      // A second bootstrap key for the same admin reuses the user and company.
      const c = await ensureBootstrapKey(store, generateApiKey(), 'admin@example.org');
      expect(c).toMatchObject({ created: true, userId: a.userId, companyId: a.companyId });
    });

    it('stores only the hash; revoked keys stop authenticating', async () => {
      const made = await createKeyForNewAccount(store, { name: 'ci', email: 'ci@example.org', credits: 3 });
      expect(made.credits).toBe(3);
      const rows = await store.db.execute('select key_hash, masked from api_keys');
      const text = JSON.stringify(rows);
      expect(text).not.toContain(made.key);
      expect(text).toContain(hashApiKey(made.key));
      expect(await store.apiKeys.authenticate(made.key)).toMatchObject({
        keyId: made.keyId,
        partnerAdmin: false,
      });
      expect(await store.apiKeys.authenticate(`${made.key}x`)).toBeNull();
      expect(await store.apiKeys.revoke(made.keyId)).toBe(true);
      expect(await store.apiKeys.revoke(made.keyId)).toBe(false);
      expect(await store.apiKeys.authenticate(made.key)).toBeNull();
      const listed = await store.apiKeys.list(made.userId);
      expect(listed).toHaveLength(1);
      expect(listed[0].revokedAt).toBeInstanceOf(Date);
    });

    it('takes credits atomically and never below zero', async () => {
      const made = await createKeyForNewAccount(store, { email: 'credits@example.org', credits: 5 });
      const results = await Promise.all(Array.from({ length: 12 }, () => store.credits.take(made.companyId)));
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      expect(results.filter((r) => !r.ok)).toHaveLength(7);
      expect(results.find((r) => !r.ok)).toEqual({ ok: false, available: 0 });
      await store.credits.refund(made.companyId);
      expect((await store.credits.get(made.companyId)).credits).toBe(1);
      expect((await store.credits.add(made.companyId, -10)).credits).toBe(0);
      expect((await store.credits.add(made.companyId, 4)).credits).toBe(4);
      const unl = await store.credits.set(made.companyId, 0, true);
      expect(unl.unlimited).toBe(true);
      const t = await store.credits.take(made.companyId);
      expect(t).toEqual({ ok: true, balance: { companyId: made.companyId, credits: 0, unlimited: true } });
      await store.credits.refund(made.companyId);
      expect((await store.credits.get(made.companyId)).credits).toBe(0);
    });

    it('counts requests per bucket and window with one upsert each', async () => {
      // The statements themselves (the embedded store counts in memory on top of them: see below).
      const limits = createRateLimitsRepository(store.db);
      const hits = await Promise.all(Array.from({ length: 20 }, () => limits.hit('key:a', 60)));
      expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      for (const h of hits) {
        expect(h.resetSeconds).toBeGreaterThanOrEqual(1);
        expect(h.resetSeconds).toBeLessThanOrEqual(60);
      }
      expect((await limits.hit('key:b', 60)).count).toBe(1);
      expect(await limits.purge(120)).toBe(0);
      await store.db.execute("update rate_limit_windows set window_start = window_start - interval '1 hour'");
      expect(await limits.purge(120)).toBe(2);
      expect((await limits.hit('key:a', 60)).count).toBe(1);
    });

    it('rotates a refresh token exactly once under concurrency; keeps one shared secret', async () => {
      const made = await createKeyForNewAccount(store, { email: 'sessions@example.org' });
      const s = await store.sessions.create(made.userId, 'login', 60);
      const tries = await Promise.all(Array.from({ length: 8 }, () => store.sessions.rotate(s.refreshToken)));
      const won = tries.filter((t) => t !== null);
      expect(won).toHaveLength(1);
      expect(await store.sessions.rotate(s.refreshToken)).toBeNull();
      expect(await store.sessions.principal(s.sessionId)).toMatchObject({
        userId: made.userId,
        companyId: made.companyId,
      });
      expect(await store.sessions.revoke(s.sessionId, made.userId)).toBe(true);
      expect(await store.sessions.principal(s.sessionId)).toBeNull();
      expect(await store.sessions.rotate(won[0]!.refreshToken)).toBeNull();
      const secrets = await Promise.all([1, 2, 3].map((i) => store.secrets.ensure('t', () => `v${i}`)));
      expect(new Set(secrets).size).toBe(1);
    });

    it('answers ping', async () => {
      expect(await store.ping()).toBe(true);
    });
  });
}

describe('embedded rate limit counters', () => {
  it('count in memory, write back, go on from the stored count after a restart, and start again each window', async () => {
    const store = await openStore({ dataDir: 'memory://' });
    try {
      let clock = Date.UTC(2026, 0, 1, 12, 0, 10);
      const now = () => clock;
      const stored = async (bucket: string) => {
        const r = await store.db.execute(
          `select count from rate_limit_windows where bucket = '${bucket}' order by window_start desc limit 1`,
        );
        const rows = (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as { count: number }[];
        return rows[0] ? Number(rows[0].count) : null;
      };
      const a = createEmbeddedRateLimitsRepository(store.db, { now, flushMs: 60_000 });
      const hits = await Promise.all(Array.from({ length: 25 }, () => a.hit('key:x', 60)));
      expect(hits.map((h) => h.count).sort((p, q) => p - q)).toEqual(
        Array.from({ length: 25 }, (_, i) => i + 1),
      );
      expect(hits[0].resetSeconds).toBe(50);
      // Nothing written yet: the counts are in memory until the write-back.
      expect(await stored('key:x')).toBeNull();
      await a.flush();
      expect(await stored('key:x')).toBe(25);
      // A new process in the same window goes on from the stored count.
      const b = createEmbeddedRateLimitsRepository(store.db, { now, flushMs: 60_000 });
      expect((await b.hit('key:x', 60)).count).toBe(26);
      // The next window starts again at 1, and the ended one is written back.
      expect((await b.hit('key:x', 60)).count).toBe(27);
      clock += 60_000;
      expect((await b.hit('key:x', 60)).count).toBe(1);
      await b.flush();
      const r = await store.db.execute(
        "select count from rate_limit_windows where bucket = 'key:x' order by window_start",
      );
      const rows = (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as { count: number }[];
      expect(rows.map((x) => Number(x.count))).toEqual([27, 1]);
    } finally {
      await store.close();
    }
  });

  it('are written back when the store closes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tramline-rl-'));
    try {
      const first = await openStore({ dataDir: dir });
      for (let i = 0; i < 7; i++) await first.rateLimits.hit('key:y', 3600);
      await first.close();
      const again = await openStore({ dataDir: dir });
      expect((await again.rateLimits.hit('key:y', 3600)).count).toBe(8);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
