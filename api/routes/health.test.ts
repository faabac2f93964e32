/** GET /api/healthz against a listening server: the database check is shared, and a failed one is 503. */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../store/db.ts';
import { startTestServer, testStore } from '../testing.ts';

/** The test store with a ping that counts its calls and answers `state.ok` after `state.delayMs`. */
async function countingStore(state: { ok: boolean; delayMs: number; pings: number }): Promise<Store> {
  const store = await testStore();
  return {
    ...store,
    async ping() {
      state.pings++;
      await new Promise((r) => setTimeout(r, state.delayMs));
      return state.ok;
    },
  };
}

const health = async (url: string) => {
  const r = await fetch(`${url}/api/healthz`);
  return { status: r.status, json: (await r.json()) as { status: string; database: string } };
};

describe('GET /api/healthz', () => {
  it('asks the database once per check interval, also for concurrent probes', async () => {
    const state = { ok: true, delayMs: 50, pings: 0 };
    const srv = await startTestServer({ store: await countingStore(state), healthDatabaseCheckMs: 60_000 });
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => health(srv.url)));
      for (const a of answers)
        expect(a).toMatchObject({ status: 200, json: { status: 'ok', database: 'ok' } });
      expect(await health(srv.url)).toMatchObject({ status: 200 });
      expect(state.pings).toBe(1);
    } finally {
      await srv.close();
    }
  });

  it('answers 503 while the database does not answer, and 200 again once it does', async () => {
    const state = { ok: false, delayMs: 0, pings: 0 };
    const srv = await startTestServer({ store: await countingStore(state), healthDatabaseCheckMs: 50 });
    try {
      expect(await health(srv.url)).toMatchObject({
        status: 503,
        json: { status: 'unavailable', database: 'unavailable' },
      });
      state.ok = true;
      await new Promise((r) => setTimeout(r, 80));
      expect(await health(srv.url)).toMatchObject({ status: 200, json: { status: 'ok', database: 'ok' } });
      expect(state.pings).toBe(2);
    } finally {
      await srv.close();
    }
  });
});
