/**
 * Companies as their users see them: every read and write is scoped to the
 * companies the user can access, in the same statement.
 */
import { and, asc, count, eq, ilike, isNull, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { apiKeys, companies, companyAccesses } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { type CompanyRole, companyRole } from './accounts.ts';
import { companyCounts, purgeCompanyData } from './company-data.ts';
import type { WriteOutcome } from './scope.ts';
import { atVersion, type ExpectedVersion, versionMatches } from './versions.ts';

export interface CompanyView {
  companyId: string;
  name: string;
  partnerCompanyId: string | null;
  role: CompanyRole;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

const viewColumns = {
  companyId: companies.id,
  name: companies.name,
  partnerCompanyId: companies.partnerCompanyId,
  role: companyAccesses.role,
  version: companies.version,
  createdAt: companies.createdAt,
  updatedAt: companies.updatedAt,
};

export type CompanyDeleteOutcome = WriteOutcome<true> | { ok: false; reason: 'in-use' | 'not-empty' };

export function createCompaniesRepository(db: Database) {
  const accessJoin = (userId: string) =>
    and(eq(companyAccesses.companyId, companies.id), eq(companyAccesses.userId, userId));

  return {
    /** A new company; its creator is its admin. */
    async create(userId: string, name: string, partnerCompanyId: string | null = null): Promise<CompanyView> {
      const id = uuidv7();
      await db.insert(companies).values({ id, name, partnerCompanyId });
      await db.insert(companyAccesses).values({ id: uuidv7(), userId, companyId: id, role: 'admin' });
      return (await this.get(userId, id))!;
    },

    /** The company if the user can access it, else null (never tells the two apart). */
    async get(userId: string, companyId: string): Promise<CompanyView | null> {
      const [row] = await db
        .select(viewColumns)
        .from(companies)
        .innerJoin(companyAccesses, accessJoin(userId))
        .where(eq(companies.id, companyId));
      return row ? { ...row, role: companyRole(row.role) } : null;
    },

    /** The user's role in a company, or null without access. */
    async role(userId: string, companyId: string): Promise<CompanyRole | null> {
      const [row] = await db
        .select({ role: companyAccesses.role })
        .from(companyAccesses)
        .where(and(eq(companyAccesses.userId, userId), eq(companyAccesses.companyId, companyId)));
      return row ? companyRole(row.role) : null;
    },

    /** The user's companies, oldest access first, optionally filtered by a name fragment. */
    async list(
      userId: string,
      opts: { search?: string; offset?: number; limit?: number } = {},
    ): Promise<{ items: CompanyView[]; total: number }> {
      const where = opts.search
        ? ilike(companies.name, `%${opts.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
        : undefined;
      const [{ total }] = await db
        .select({ total: count() })
        .from(companies)
        .innerJoin(companyAccesses, accessJoin(userId))
        .where(where);
      const rows = await db
        .select(viewColumns)
        .from(companies)
        .innerJoin(companyAccesses, accessJoin(userId))
        .where(where)
        .orderBy(asc(companyAccesses.createdAt), asc(companies.id))
        .offset(opts.offset ?? 0)
        .limit(opts.limit ?? 1000);
      return { items: rows.map((r) => ({ ...r, role: companyRole(r.role) })), total: Number(total) };
    },

    /**
     * Deletes a company the user administers, in one statement, only when it
     * holds no data and no active API key bills it, and (when given) only at
     * `expectedVersion`.
     */
    async delete(
      userId: string,
      companyId: string,
      expectedVersion?: ExpectedVersion,
    ): Promise<CompanyDeleteOutcome> {
      const rows = await db.execute<{ id: string }>(sql`
        delete from ${companies} c
        where c.id = ${companyId}
          and exists (select 1 from ${companyAccesses} a
                      where a.company_id = c.id and a.user_id = ${userId} and a.role = 'admin')
          and not exists (select 1 from ${apiKeys} k where k.company_id = c.id and k.revoked_at is null)
          and ${companyCounts.emptyCondition(sql`c.id`)}
          ${expectedVersion === undefined ? sql`` : sql`and ${atVersion(sql`c.version`, expectedVersion)}`}
        returning c.id`);
      if (resultRows(rows).length) return { ok: true, value: true };
      const now = await this.get(userId, companyId);
      if (!now) return { ok: false, reason: 'not-found' };
      if (!versionMatches(expectedVersion, now.version)) return { ok: false, reason: 'stale' };
      const [{ keys }] = await db
        .select({ keys: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.companyId, companyId), isNull(apiKeys.revokedAt)));
      if (Number(keys) > 0) return { ok: false, reason: 'in-use' };
      return { ok: false, reason: 'not-empty' };
    },

    /** Deletes all data of the company (not the company, its accesses or keys); answers what went. */
    async purge(companyId: string): Promise<Record<string, number>> {
      const out = await purgeCompanyData(db, companyId);
      await db
        .update(companies)
        .set({ version: sql`${companies.version} + 1`, updatedAt: sql`now()` })
        .where(eq(companies.id, companyId));
      return out;
    },

    async userCount(companyId: string): Promise<number> {
      const [{ n }] = await db
        .select({ n: count() })
        .from(companyAccesses)
        .where(eq(companyAccesses.companyId, companyId));
      return Number(n);
    },

    /** How much the company holds. */
    async counts(companyId: string): Promise<Record<string, number>> {
      return companyCounts.of(db, companyId);
    },
  };
}

/** Rows of `db.execute` on either driver (node-postgres answers a result, PGlite an object with rows). */
export function resultRows<T>(r: unknown): T[] {
  if (Array.isArray(r)) return r as T[];
  return ((r as { rows?: T[] }).rows ?? []) as T[];
}

export type CompaniesRepository = ReturnType<typeof createCompaniesRepository>;
