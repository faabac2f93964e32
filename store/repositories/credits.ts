/**
 * Credit balances of companies (the billing accounts). Every change is one
 * atomic statement, so concurrent requests in any number of processes can
 * never spend more than the balance.
 */
import { and, eq, gte, or, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { creditBalances } from '../schema.ts';

export interface CreditBalance {
  companyId: string;
  /** Credits left; meaningless when `unlimited`. */
  credits: number;
  unlimited: boolean;
}

export type TakeResult = { ok: true; balance: CreditBalance } | { ok: false; available: number };

export function createCreditsRepository(db: Database) {
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

    /** Takes `n` credits if the balance allows (unlimited accounts always pass, unchanged). */
    async take(companyId: string, n = 1): Promise<TakeResult> {
      const [row] = await db
        .update(creditBalances)
        .set({
          credits: sql`CASE WHEN ${creditBalances.unlimited} THEN ${creditBalances.credits} ELSE ${creditBalances.credits} - ${n} END`,
          updatedAt: sql`now()`,
        })
        .where(
          and(
            eq(creditBalances.companyId, companyId),
            or(eq(creditBalances.unlimited, true), gte(creditBalances.credits, n)),
          ),
        )
        .returning({
          companyId: creditBalances.companyId,
          credits: creditBalances.credits,
          unlimited: creditBalances.unlimited,
        });
      if (row) return { ok: true, balance: row };
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
