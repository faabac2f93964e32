/**
 * Fixed-window rate limit counters in the database, so every server process
 * shares them. One atomic upsert per request; windows start on multiples of
 * the window length on the database clock, so processes with skewed clocks
 * still agree.
 */
import { lt, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { rateLimitWindows } from '../schema.ts';

export interface WindowHit {
  /** Requests counted in this window, this one included. */
  count: number;
  /** Whole seconds until the window ends (1..windowSeconds). */
  resetSeconds: number;
}

export function createRateLimitsRepository(db: Database) {
  return {
    /** Counts one request of `bucket` in the current window of `windowSeconds`. */
    async hit(bucket: string, windowSeconds = 60): Promise<WindowHit> {
      // Plain SQL: this runs on every request, and building it with the query builder costs
      // several times the statement itself on the embedded database.
      const w = sql.raw(String(Math.max(1, Math.floor(windowSeconds))));
      const r = await db.execute(sql`
        insert into ${rateLimitWindows} as t (bucket, window_start, count)
        values (${bucket}, to_timestamp(floor(extract(epoch from now()) / ${w}) * ${w}), 1)
        on conflict (bucket, window_start) do update set count = t.count + 1
        returning t.count as count,
          greatest(1, ceil(extract(epoch from t.window_start) + ${w} - extract(epoch from now())))::int as reset`);
      const row = (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows)[0] as {
        count: number | string;
        reset: number | string;
      };
      return { count: Number(row.count), resetSeconds: Number(row.reset) };
    },

    /** Deletes windows that ended before `olderThanSeconds` ago. */
    async purge(olderThanSeconds = 120): Promise<number> {
      const rows = await db
        .delete(rateLimitWindows)
        .where(
          lt(
            rateLimitWindows.windowStart,
            sql`now() - make_interval(secs => ${sql.raw(String(Math.floor(olderThanSeconds)))})`,
          ),
        )
        .returning({ bucket: rateLimitWindows.bucket });
      return rows.length;
    },
  };
}

export type RateLimitsRepository = ReturnType<typeof createRateLimitsRepository> & {
  /** Writes counts kept in memory back to the database (embedded store). */
  flush?: () => Promise<void>;
};

/**
 * Rate limit counters of the embedded database, which only this process can
 * open: counted in memory, so a request costs no statement. A bucket's
 * stored count is read once per window (a restart within a window goes on
 * from it) and the counts are written back within `flushMs` (default 1 s)
 * and when the store closes, so the database holds them as with PostgreSQL.
 */
export function createEmbeddedRateLimitsRepository(
  db: Database,
  opts: { flushMs?: number; now?: () => number } = {},
) {
  const stored = createRateLimitsRepository(db);
  const flushMs = opts.flushMs ?? 1000;
  const now = opts.now ?? Date.now;
  interface Entry {
    /** Window start and length [s since the epoch, s]. */
    start: number;
    seconds: number;
    count: number;
    written: number;
    loaded: Promise<void> | null;
  }
  const entries = new Map<string, Entry>();
  /** Ended windows whose last counts are not written yet. */
  const ended: [string, Entry][] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let flushing: Promise<void> = Promise.resolve();

  const load = async (bucket: string, e: Entry) => {
    const r = await db.execute(sql`
      select count from ${rateLimitWindows}
      where bucket = ${bucket} and window_start = to_timestamp(${e.start})`);
    const row = (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows)[0] as { count: number } | undefined;
    // Hits counted while the row was read come on top of what was stored.
    e.count += Number(row?.count ?? 0);
    e.written = Number(row?.count ?? 0);
    e.loaded = null;
  };

  const write = async (bucket: string, e: Entry) => {
    if (e.loaded) await e.loaded;
    if (e.count <= e.written) return;
    const count = e.count;
    await db.execute(sql`
      insert into ${rateLimitWindows} as t (bucket, window_start, count)
      values (${bucket}, to_timestamp(${e.start}), ${count})
      on conflict (bucket, window_start) do update set count = greatest(t.count, excluded.count)`);
    e.written = Math.max(e.written, count);
  };

  const writeBack = async () => {
    timer = null;
    for (const [bucket, e] of ended.splice(0)) await write(bucket, e);
    const nowS = now() / 1000;
    for (const [bucket, e] of [...entries]) {
      await write(bucket, e);
      // Ended windows are in the database; only current ones stay in memory.
      if (e.start + e.seconds <= nowS && e.count === e.written && entries.get(bucket) === e)
        entries.delete(bucket);
    }
  };

  const flush = (): Promise<void> => {
    flushing = flushing.then(writeBack, writeBack);
    return flushing;
  };

  return {
    /** Counts one request of `bucket` in the current window of `windowSeconds`. */
    async hit(bucket: string, windowSeconds = 60): Promise<WindowHit> {
      const w = Math.max(1, Math.floor(windowSeconds));
      const nowS = now() / 1000;
      const start = Math.floor(nowS / w) * w;
      let e = entries.get(bucket);
      if (!e || e.start !== start || e.seconds !== w) {
        if (e && e.count > e.written) ended.push([bucket, e]);
        const fresh: Entry = { start, seconds: w, count: 0, written: 0, loaded: null };
        fresh.loaded = load(bucket, fresh);
        entries.set(bucket, fresh);
        e = fresh;
      }
      if (e.loaded) await e.loaded;
      const count = ++e.count;
      if (!timer) {
        timer = setTimeout(() => void flush().catch(() => {}), flushMs);
        timer.unref?.();
      }
      return { count, resetSeconds: Math.max(1, Math.ceil(start + w - nowS)) };
    },

    /** Deletes stored windows that ended before `olderThanSeconds` ago. */
    purge: stored.purge,

    /** Writes the counts back now (the store calls this before it closes). */
    async flush(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      await flush();
    },
  };
}
