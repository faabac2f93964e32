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

export type RateLimitsRepository = ReturnType<typeof createRateLimitsRepository>;
