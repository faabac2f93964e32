/**
 * Equipment and operators of a company. Every read and write is scoped to
 * the companies the user can access in the same statement; updates and
 * deletes honour an expected version (optimistic concurrency); names are
 * distinct per company (the unique index decides, so concurrent creates of
 * one name cannot both win).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { equipment, equipmentCostInputs, operators } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { accessibleTo } from './scope.ts';
import { atVersion, type ExpectedVersion, versionMatches } from './versions.ts';

export interface EquipmentInput {
  name: string;
  type: string;
  swathWidth: number;
  trackWidths: number[];
  tireWidths: number[];
  turningRadius: number | null;
  workingSpeed: number | null;
  turningSpeed: number | null;
  tankCapacity: number | null;
  fuelUse: number | null;
  notes: string | null;
  archived: boolean;
  /** Rated PTO power [kW] (fuel and cost defaults). */
  ptoPowerKw: number | null;
  /** Inputs of the machinery cost model (partial MachineCostInputs). */
  cost: Record<string, unknown> | null;
}

export type EquipmentRecord = EquipmentInput & {
  id: string;
  companyId: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
};

export interface OperatorInput {
  name: string;
  email: string | null;
  phone: string | null;
  equipmentId: string | null;
  notes: string | null;
  archived: boolean;
}

export type OperatorRecord = OperatorInput & {
  id: string;
  companyId: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
};

/** Outcome of a write: done, or why not. */
export type CatalogOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; reason: 'not-found' | 'stale' | 'duplicate'; currentVersion?: number };

/** Whether an error is a unique-index violation (PostgreSQL 23505), on either driver. */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
  return String(code) === '23505';
}

async function uniqueOr<T>(f: () => Promise<CatalogOutcome<T>>): Promise<CatalogOutcome<T>> {
  try {
    return await f();
  } catch (e) {
    if (isUniqueViolation(e)) return { ok: false, reason: 'duplicate' };
    throw e;
  }
}

export function createEquipmentRepository(db: Database) {
  const scoped = (userId: string, id: string) =>
    and(eq(equipment.id, id), accessibleTo(db, userId, equipment.companyId));
  /** The machines with their cost inputs (kept in their own table). */
  const withCosts = async (rows: readonly object[]): Promise<EquipmentRecord[]> => {
    const list = rows as (Omit<EquipmentRecord, 'ptoPowerKw' | 'cost'> & { id: string })[];
    if (list.length === 0) return [];
    const costs = await db
      .select()
      .from(equipmentCostInputs)
      .where(
        inArray(
          equipmentCostInputs.equipmentId,
          list.map((r) => r.id),
        ),
      );
    const by = new Map(costs.map((c) => [c.equipmentId, c]));
    return list.map((r) => ({
      ...r,
      ptoPowerKw: by.get(r.id)?.ptoPowerKw ?? null,
      cost: by.get(r.id)?.cost ?? null,
    }));
  };
  /** Writes a machine's cost inputs (none: its row goes). */
  const saveCosts = async (id: string, input: Pick<EquipmentInput, 'ptoPowerKw' | 'cost'>) => {
    if (input.ptoPowerKw === null && input.cost === null) {
      await db.delete(equipmentCostInputs).where(eq(equipmentCostInputs.equipmentId, id));
      return;
    }
    const values = { ptoPowerKw: input.ptoPowerKw, cost: input.cost };
    await db
      .insert(equipmentCostInputs)
      .values({ equipmentId: id, ...values })
      .onConflictDoUpdate({ target: equipmentCostInputs.equipmentId, set: values });
  };
  const get = async (userId: string, id: string): Promise<EquipmentRecord | null> => {
    const rows = await db.select().from(equipment).where(scoped(userId, id));
    return (await withCosts(rows))[0] ?? null;
  };
  return {
    get,

    async list(userId: string, companyId: string, includeArchived = true): Promise<EquipmentRecord[]> {
      return withCosts(
        await db
          .select()
          .from(equipment)
          .where(
            and(
              eq(equipment.companyId, companyId),
              accessibleTo(db, userId, equipment.companyId),
              includeArchived ? undefined : eq(equipment.archived, false),
            ),
          )
          .orderBy(asc(sql`lower(${equipment.name})`), asc(equipment.id)),
      );
    },

    /** A new machine in a company the caller has checked access to. */
    async create(companyId: string, input: EquipmentInput): Promise<CatalogOutcome<EquipmentRecord>> {
      const { ptoPowerKw, cost, ...fields } = input;
      return uniqueOr(async () => {
        const [row] = await db
          .insert(equipment)
          .values({ id: uuidv7(), companyId, ...fields })
          .returning();
        await saveCosts(row.id, { ptoPowerKw, cost });
        return { ok: true, value: { ...(row as EquipmentRecord), ptoPowerKw, cost } };
      });
    },

    async update(
      userId: string,
      id: string,
      input: EquipmentInput,
      expectedVersion?: ExpectedVersion,
    ): Promise<CatalogOutcome<EquipmentRecord>> {
      const { ptoPowerKw, cost, ...fields } = input;
      return uniqueOr(async () => {
        const [row] = await db
          .update(equipment)
          .set({ ...fields, version: sql`${equipment.version} + 1`, updatedAt: sql`now()` })
          .where(and(scoped(userId, id), atVersion(equipment.version, expectedVersion)))
          .returning();
        if (row) {
          await saveCosts(row.id, { ptoPowerKw, cost });
          return { ok: true, value: { ...(row as EquipmentRecord), ptoPowerKw, cost } };
        }
        const now = await get(userId, id);
        return now
          ? { ok: false, reason: 'stale', currentVersion: now.version }
          : { ok: false, reason: 'not-found' };
      });
    },

    /** Deletes the machines (all or none: every id must be the caller's, at the expected version when given). */
    async delete(
      userId: string,
      ids: string[],
      expectedVersion?: ExpectedVersion,
    ): Promise<CatalogOutcome<number>> {
      const found = await db
        .select({ id: equipment.id, version: equipment.version })
        .from(equipment)
        .where(and(inArray(equipment.id, ids), accessibleTo(db, userId, equipment.companyId)));
      if (found.length !== new Set(ids).size) return { ok: false, reason: 'not-found' };
      if (found.some((f) => !versionMatches(expectedVersion, f.version)))
        return { ok: false, reason: 'stale', currentVersion: found[0].version };
      const gone = await db
        .delete(equipment)
        .where(
          and(
            inArray(equipment.id, ids),
            accessibleTo(db, userId, equipment.companyId),
            atVersion(equipment.version, expectedVersion),
          ),
        )
        .returning({ id: equipment.id });
      return { ok: true, value: gone.length };
    },
  };
}

export function createOperatorsRepository(db: Database) {
  const scoped = (userId: string, id: string) =>
    and(eq(operators.id, id), accessibleTo(db, userId, operators.companyId));
  const get = async (userId: string, id: string): Promise<OperatorRecord | null> => {
    const [row] = await db.select().from(operators).where(scoped(userId, id));
    return (row as OperatorRecord) ?? null;
  };
  return {
    get,

    async list(userId: string, companyId: string, includeArchived = true): Promise<OperatorRecord[]> {
      return (await db
        .select()
        .from(operators)
        .where(
          and(
            eq(operators.companyId, companyId),
            accessibleTo(db, userId, operators.companyId),
            includeArchived ? undefined : eq(operators.archived, false),
          ),
        )
        .orderBy(asc(sql`lower(${operators.name})`), asc(operators.id))) as OperatorRecord[];
    },

    async create(companyId: string, input: OperatorInput): Promise<CatalogOutcome<OperatorRecord>> {
      return uniqueOr(async () => {
        const [row] = await db
          .insert(operators)
          .values({ id: uuidv7(), companyId, ...input })
          .returning();
        return { ok: true, value: row as OperatorRecord };
      });
    },

    async update(
      userId: string,
      id: string,
      input: OperatorInput,
      expectedVersion?: ExpectedVersion,
    ): Promise<CatalogOutcome<OperatorRecord>> {
      return uniqueOr(async () => {
        const [row] = await db
          .update(operators)
          .set({ ...input, version: sql`${operators.version} + 1`, updatedAt: sql`now()` })
          .where(and(scoped(userId, id), atVersion(operators.version, expectedVersion)))
          .returning();
        if (row) return { ok: true, value: row as OperatorRecord };
        const now = await get(userId, id);
        return now
          ? { ok: false, reason: 'stale', currentVersion: now.version }
          : { ok: false, reason: 'not-found' };
      });
    },

    async delete(
      userId: string,
      id: string,
      expectedVersion?: ExpectedVersion,
    ): Promise<CatalogOutcome<true>> {
      const gone = await db
        .delete(operators)
        .where(and(scoped(userId, id), atVersion(operators.version, expectedVersion)))
        .returning({ id: operators.id });
      if (gone.length) return { ok: true, value: true };
      const now = await get(userId, id);
      return now
        ? { ok: false, reason: 'stale', currentVersion: now.version }
        : { ok: false, reason: 'not-found' };
    },
  };
}
