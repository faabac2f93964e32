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
      const w = sql.raw(String(Math.max(1, Math.floor(windowSeconds))));
      const t = rateLimitWindows;
      const [row] = await db
        .insert(t)
        .values({
          bucket,
          windowStart: sql`to_timestamp(floor(extract(epoch from now()) / ${w}) * ${w})`,
          count: 1,
        })
        .onConflictDoUpdate({ target: [t.bucket, t.windowStart], set: { count: sql`${t.count} + 1` } })
        .returning({
          count: t.count,
          resetSeconds: sql<number>`greatest(1, ceil(extract(epoch from ${t.windowStart}) + ${w} - extract(epoch from now())))::int`,
        });
      return { count: row.count, resetSeconds: Number(row.resetSeconds) };
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
