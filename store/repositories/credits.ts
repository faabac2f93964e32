/**
 * Credit balances of companies (the billing accounts). Every change is one
 * atomic statement, so concurrent requests in any number of processes can
 * never spend more than the balance.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { creditBalances } from '../schema.ts';
import type { KeyCache } from './api-keys.ts';

export interface CreditBalance {
  companyId: string;
  /** Credits left; meaningless when `unlimited`. */
  credits: number;
  unlimited: boolean;
}

export type TakeResult = { ok: true; balance: CreditBalance } | { ok: false; available: number };

/**
 * `keyCache`: keys remember whether their company's balance is unlimited;
 * setting a balance here clears what this process remembers.
 */
export function createCreditsRepository(db: Database, keyCache?: KeyCache) {
  return {
    async get(companyId: string): Promise<CreditBalance> {
      const [row] = await db
        .select({
          companyId: creditBalances.companyId,
          credits: creditBalances.credits,
          unlimited: creditBalances.unlimited,
        })
        .from(creditBalances)
        .where(eq(creditBalances.companyId, companyId));
      return row ?? { companyId, credits: 0, unlimited: false };
    },

    /** Takes `n` credits if the balance allows (unlimited accounts always pass, unchanged). One statement. */
    async take(companyId: string, n = 1): Promise<TakeResult> {
      // Plain SQL (it runs for every plan). Unlimited balances are read, not written.
      const r = await db.execute(sql`
        with t as (
          update ${creditBalances} set credits = credits - ${n}, updated_at = now()
           where company_id = ${companyId} and not unlimited and credits >= ${n}
          returning credits, unlimited)
        select credits, unlimited, true as taken from t
        union all
        select credits, unlimited, unlimited as taken from ${creditBalances}
         where company_id = ${companyId} and not exists (select 1 from t)`);
      const row = (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows)[0] as
        | { credits: number | string; unlimited: boolean; taken: boolean }
        | undefined;
      if (row?.taken)
        return { ok: true, balance: { companyId, credits: Number(row.credits), unlimited: row.unlimited } };
      // Refused: that statement read the balance as it stood when it began; report it as it is now.
      const b = await this.get(companyId);
      return { ok: false, available: b.credits };
    },

    /** Gives back `n` credits taken for work that did not succeed. */
    async refund(companyId: string, n = 1): Promise<void> {
      await db
        .update(creditBalances)
        .set({ credits: sql`${creditBalances.credits} + ${n}`, updatedAt: sql`now()` })
        .where(and(eq(creditBalances.companyId, companyId), eq(creditBalances.unlimited, false)));
    },

    /** Sets the balance (and whether it is unlimited). */
    async set(companyId: string, credits: number, unlimited = false): Promise<CreditBalance> {
      const [row] = await db
        .insert(creditBalances)
        .values({ companyId, credits, unlimited })
        .onConflictDoUpdate({
          target: creditBalances.companyId,
          set: { credits, unlimited, updatedAt: sql`now()` },
        })
        .returning({
          companyId: creditBalances.companyId,
          credits: creditBalances.credits,
          unlimited: creditBalances.unlimited,
        });
      keyCache?.clear();
      return row;
    },

    /** Adds (or with a negative n removes, never below 0) credits. */
    async add(companyId: string, n: number): Promise<CreditBalance> {
      const [row] = await db
        .insert(creditBalances)
        .values({ companyId, credits: Math.max(0, n) })
        .onConflictDoUpdate({
          target: creditBalances.companyId,
          set: { credits: sql`greatest(0, ${creditBalances.credits} + ${n})`, updatedAt: sql`now()` },
        })
        .returning({
          companyId: creditBalances.companyId,
          credits: creditBalances.credits,
          unlimited: creditBalances.unlimited,
        });
      return row;
    },
  };
}

export type CreditsRepository = ReturnType<typeof createCreditsRepository>;
