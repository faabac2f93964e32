/**
 * User labels of a company: named (distinct per company, case-insensitive),
 * with an optional colour, active or not. Reads and writes by id are scoped
 * to the companies the user can access, in the same statement.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { userLabels } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { isUniqueViolation } from './equipment.ts';
import { accessibleTo } from './scope.ts';
import { atVersion, type ExpectedVersion } from './versions.ts';

export interface UserLabelRecord {
  id: string;
  companyId: string;
  name: string;
  color: string | null;
  active: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface UserLabelInput {
  name: string;
  color?: string | null;
  active?: boolean;
}

export type LabelOutcome =
  | { ok: true; value: UserLabelRecord }
  | { ok: false; reason: 'not-found' | 'stale' | 'duplicate'; currentVersion?: number };

const columns = {
  id: userLabels.id,
  companyId: userLabels.companyId,
  name: userLabels.name,
  color: userLabels.color,
  active: userLabels.active,
  version: userLabels.version,
  createdAt: userLabels.createdAt,
  updatedAt: userLabels.updatedAt,
};

export function createUserLabelsRepository(db: Database) {
  const visible = (userId: string) => accessibleTo(db, userId, userLabels.companyId);
  const get = async (userId: string, id: string): Promise<UserLabelRecord | null> => {
    const [row] = await db
      .select(columns)
      .from(userLabels)
      .where(and(eq(userLabels.id, id), visible(userId)));
    return row ?? null;
  };
  return {
    get,

    /** The company's labels by name (the caller checked access to the company). */
    async list(companyId: string, opts: { active?: boolean } = {}): Promise<UserLabelRecord[]> {
      return db
        .select(columns)
        .from(userLabels)
        .where(
          and(
            eq(userLabels.companyId, companyId),
            opts.active === undefined ? undefined : eq(userLabels.active, opts.active),
          ),
        )
        .orderBy(asc(sql`lower(${userLabels.name})`), asc(userLabels.id));
    },

    async create(companyId: string, input: UserLabelInput): Promise<LabelOutcome> {
      try {
        const [row] = await db
          .insert(userLabels)
          .values({
            id: uuidv7(),
            companyId,
            name: input.name,
            color: input.color ?? null,
            active: input.active ?? true,
          })
          .returning(columns);
        return { ok: true, value: row };
      } catch (e) {
        if (isUniqueViolation(e)) return { ok: false, reason: 'duplicate' };
        throw e;
      }
    },

    async update(
      userId: string,
      id: string,
      patch: Partial<UserLabelInput>,
      expected?: ExpectedVersion,
    ): Promise<LabelOutcome> {
      try {
        const [row] = await db
          .update(userLabels)
          .set({ ...patch, version: sql`${userLabels.version} + 1`, updatedAt: sql`now()` })
          .where(and(eq(userLabels.id, id), visible(userId), atVersion(userLabels.version, expected)))
          .returning(columns);
        if (row) return { ok: true, value: row };
      } catch (e) {
        if (isUniqueViolation(e)) return { ok: false, reason: 'duplicate' };
        throw e;
      }
      const now = await get(userId, id);
      return now
        ? { ok: false, reason: 'stale', currentVersion: now.version }
        : { ok: false, reason: 'not-found' };
    },

    async remove(userId: string, id: string, expected?: ExpectedVersion): Promise<LabelOutcome> {
      const [row] = await db
        .delete(userLabels)
        .where(and(eq(userLabels.id, id), visible(userId), atVersion(userLabels.version, expected)))
        .returning(columns);
      if (row) return { ok: true, value: row };
      const now = await get(userId, id);
      return now
        ? { ok: false, reason: 'stale', currentVersion: now.version }
        : { ok: false, reason: 'not-found' };
    },
  };
}
