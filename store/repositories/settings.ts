/**
 * Named settings of a company (`user_id` null) or of one user (`company_id`
 * null). A company setting is reached only through a company access, a user
 * setting only by its user, in the same statement as the read or write.
 * Setting a name twice updates it (one row per company or user and name),
 * honouring an expected version.
 */
import { and, asc, count, eq, ilike, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { settings } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { accessibleTo } from './scope.ts';
import { atVersion, type ExpectedVersion } from './versions.ts';

export interface SettingRecord {
  id: string;
  companyId: string | null;
  userId: string | null;
  name: string;
  value: unknown;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type SettingOutcome =
  | { ok: true; value: SettingRecord }
  | { ok: false; reason: 'not-found' | 'stale'; currentVersion?: number };

export function createSettingsRepository(db: Database) {
  /** Settings the user may see: of their companies, and their own. */
  const visible = (userId: string): SQL =>
    or(
      and(isNull(settings.userId), accessibleTo(db, userId, settings.companyId)),
      and(isNull(settings.companyId), eq(settings.userId, userId)),
    ) as SQL;
  const get = async (userId: string, id: string): Promise<SettingRecord | null> => {
    const [row] = await db
      .select()
      .from(settings)
      .where(and(eq(settings.id, id), visible(userId)));
    return (row as SettingRecord) ?? null;
  };
  const ownerWhere = (owner: { companyId: string } | { userId: string }) =>
    'companyId' in owner
      ? and(eq(settings.companyId, owner.companyId), isNull(settings.userId))
      : and(eq(settings.userId, owner.userId), isNull(settings.companyId));

  return {
    get,

    /** Values of the named settings of a company (access checked by the caller); names not set are left out. */
    async companyValues(companyId: string, names: readonly string[]): Promise<Record<string, unknown>> {
      const rows = await db
        .select({ name: settings.name, value: settings.value })
        .from(settings)
        .where(and(ownerWhere({ companyId }), inArray(settings.name, [...names])));
      return Object.fromEntries(rows.map((r) => [r.name, r.value]));
    },

    /** Sets a name of a company (access checked by the caller) or of a user; updates it when set already. */
    async put(
      owner: { companyId: string } | { userId: string },
      name: string,
      value: unknown,
      expectedVersion?: ExpectedVersion,
    ): Promise<SettingOutcome & { created?: boolean }> {
      const company = 'companyId' in owner;
      const json = sql`${JSON.stringify(value)}::jsonb`;
      if (expectedVersion !== undefined) {
        // A conditional write changes an existing setting only.
        const [row] = await db
          .update(settings)
          .set({ value: json, version: sql`${settings.version} + 1`, updatedAt: sql`now()` })
          .where(
            and(ownerWhere(owner), eq(settings.name, name), atVersion(settings.version, expectedVersion)),
          )
          .returning();
        if (row) return { ok: true, value: row as SettingRecord, created: false };
        const [now] = await db
          .select({ version: settings.version })
          .from(settings)
          .where(and(ownerWhere(owner), eq(settings.name, name)));
        return now
          ? { ok: false, reason: 'stale', currentVersion: now.version }
          : { ok: false, reason: 'not-found' };
      }
      const [row] = await db
        .insert(settings)
        .values({
          id: uuidv7(),
          companyId: company ? owner.companyId : null,
          userId: company ? null : owner.userId,
          name,
          value: json,
          version: 1,
        })
        .onConflictDoUpdate({
          target: company ? [settings.companyId, settings.name] : [settings.userId, settings.name],
          targetWhere: company ? sql`user_id is null` : sql`company_id is null`,
          set: { value: sql`excluded.value`, version: sql`${settings.version} + 1`, updatedAt: sql`now()` },
        })
        .returning();
      const r = row as SettingRecord;
      return { ok: true, value: r, created: r.version === 1 };
    },

    /** Changes the value of a setting by id. */
    async update(
      userId: string,
      id: string,
      value: unknown,
      expectedVersion?: ExpectedVersion,
    ): Promise<SettingOutcome> {
      const [row] = await db
        .update(settings)
        .set({
          value: sql`${JSON.stringify(value)}::jsonb`,
          version: sql`${settings.version} + 1`,
          updatedAt: sql`now()`,
        })
        .where(and(eq(settings.id, id), visible(userId), atVersion(settings.version, expectedVersion)))
        .returning();
      if (row) return { ok: true, value: row as SettingRecord };
      const now = await get(userId, id);
      return now
        ? { ok: false, reason: 'stale', currentVersion: now.version }
        : { ok: false, reason: 'not-found' };
    },

    async delete(userId: string, id: string, expectedVersion?: ExpectedVersion): Promise<SettingOutcome> {
      const [row] = await db
        .delete(settings)
        .where(and(eq(settings.id, id), visible(userId), atVersion(settings.version, expectedVersion)))
        .returning();
      if (row) return { ok: true, value: row as SettingRecord };
      const now = await get(userId, id);
      return now
        ? { ok: false, reason: 'stale', currentVersion: now.version }
        : { ok: false, reason: 'not-found' };
    },

    /** Deletes all settings of a user; answers how many. */
    async deleteOfUser(userId: string): Promise<number> {
      const rows = await db
        .delete(settings)
        .where(and(eq(settings.userId, userId), isNull(settings.companyId)))
        .returning({ id: settings.id });
      return rows.length;
    },

    async list(
      userId: string,
      owner: { companyId: string } | { userId: string },
      opts: { search?: string; offset?: number; limit?: number } = {},
    ): Promise<{ items: SettingRecord[]; total: number }> {
      const where = and(
        ownerWhere(owner),
        visible(userId),
        opts.search
          ? ilike(settings.name, `%${opts.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
          : undefined,
      );
      const [{ total }] = await db.select({ total: count() }).from(settings).where(where);
      const items = await db
        .select()
        .from(settings)
        .where(where)
        .orderBy(asc(settings.name), asc(settings.id))
        .offset(opts.offset ?? 0)
        .limit(opts.limit ?? 1000);
      return { items: items as SettingRecord[], total: Number(total) };
    },

    /** Names in use in the user's companies (or one of them) and by the user. */
    async distinctNames(userId: string, companyId?: string): Promise<string[]> {
      const rows = await db
        .selectDistinct({ name: settings.name })
        .from(settings)
        .where(
          and(
            visible(userId),
            companyId ? or(eq(settings.companyId, companyId), isNull(settings.companyId)) : undefined,
          ),
        )
        .orderBy(asc(settings.name));
      return rows.map((r) => r.name);
    },
  };
}
