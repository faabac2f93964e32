/**
 * Field operations and their logged positions. Reads and writes by id are
 * scoped to the companies the user can access, in the same statement. A log
 * call locks its operation's row, so concurrent batches of one operation are
 * measured one after another and the stored figures always include every
 * stored position.
 */
import { and, asc, count, desc, eq, getTableColumns, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';
import {
  mergePositions,
  newPositions,
  type OperationFigures,
  type PositionColumns,
  packPositions,
  unpackPositions,
} from '../../formats/field-operation-log.ts';
import type { Database } from '../database.ts';
import { fieldOperationBatches, fieldOperations, fields, pathPlans } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { accessibleTo } from './scope.ts';
import { atVersion, type ExpectedVersion } from './versions.ts';

/** Stored batches of an operation beyond this are packed into one. */
const MAX_BATCHES = 32;
/** Operations whose merged positions are kept in memory (about 2 MB per 50,000 positions). */
const MAX_CACHED = 32;

export type FieldOperationStatus = 'inProgress' | 'completed' | 'cancelled';

export type FieldOperationRecord = typeof fieldOperations.$inferSelect & { fieldName: string };

export interface StartInput {
  fieldId: string;
  boundaryId: string;
  pathPlanId: string | null;
  operationType: string;
  equipmentId: string | null;
  operatorId: string | null;
  swathWidth: number;
  startedAt: Date;
  notes?: string | null;
  /** Area of the boundary as measured [m^2]. */
  fieldArea: number;
  missedArea: number;
}

export interface OperationFilter {
  fieldIds?: string[];
  operationTypes?: string[];
  statuses?: FieldOperationStatus[];
  /** Started at or after. */
  from?: Date;
  /** Started before. */
  to?: Date;
}

export type OperationOutcome =
  | { ok: true; value: FieldOperationRecord }
  | { ok: false; reason: 'not-found' | 'stale' | 'closed'; currentVersion?: number; status?: string };

const columns = { ...getTableColumns(fieldOperations), fieldName: fields.name };

function filterSql(f: OperationFilter): SQL | undefined {
  return and(
    f.fieldIds?.length ? inArray(fieldOperations.fieldId, f.fieldIds) : undefined,
    f.operationTypes?.length ? inArray(fieldOperations.operationType, f.operationTypes) : undefined,
    f.statuses?.length ? inArray(fieldOperations.status, f.statuses) : undefined,
    f.from ? gte(fieldOperations.startedAt, f.from) : undefined,
    f.to ? lt(fieldOperations.startedAt, f.to) : undefined,
  );
}

export function createFieldOperationsRepository(db: Database) {
  const visible = (userId: string) => accessibleTo(db, userId, fieldOperations.companyId);
  const select = (d: Pick<Database, 'select'> = db) =>
    d.select(columns).from(fieldOperations).innerJoin(fields, eq(fields.id, fieldOperations.fieldId));

  const get = async (userId: string, id: string): Promise<FieldOperationRecord | null> => {
    const [row] = await select().where(and(eq(fieldOperations.id, id), visible(userId)));
    return (row as FieldOperationRecord) ?? null;
  };

  const batchesOf = async (d: Pick<Database, 'select'>, id: string) => {
    const rows = await d
      .select({ points: fieldOperationBatches.points })
      .from(fieldOperationBatches)
      .where(eq(fieldOperationBatches.fieldOpId, id))
      .orderBy(asc(fieldOperationBatches.id));
    return { count: rows.length, positions: mergePositions(rows.map((r) => unpackPositions(r.points))) };
  };
  const positionsOf = async (d: Pick<Database, 'select'>, id: string) => (await batchesOf(d, id)).positions;

  /**
   * The merged positions of the operations this process logged last, with
   * the row version they belong to: the next batch of an operation need not
   * read and merge all its stored batches again. Another process's write
   * changes the version, and the batches are read again.
   */
  const recent = new Map<string, { version: number; count: number; positions: PositionColumns }>();
  const remember = (id: string, v: { version: number; count: number; positions: PositionColumns }) => {
    recent.delete(id);
    recent.set(id, v);
    if (recent.size > MAX_CACHED) recent.delete(recent.keys().next().value as string);
  };

  return {
    get,

    /** A new operation in the company of the field (the caller checked access and the ids). */
    async start(companyId: string, input: StartInput): Promise<FieldOperationRecord> {
      const id = uuidv7();
      await db.insert(fieldOperations).values({ id, companyId, ...input, status: 'inProgress' });
      const [row] = await select().where(eq(fieldOperations.id, id));
      return row as FieldOperationRecord;
    },

    /** A page of operations of a company or a field (the caller checked access), newest start first. */
    async list(
      where: { companyId: string } | { fieldId: string },
      filter: OperationFilter,
      page: { offset: number; limit: number },
    ): Promise<{ items: FieldOperationRecord[]; total: number }> {
      const cond = and(
        'companyId' in where
          ? eq(fieldOperations.companyId, where.companyId)
          : eq(fieldOperations.fieldId, where.fieldId),
        filterSql(filter),
      );
      const [items, [{ n }]] = await Promise.all([
        select()
          .where(cond)
          .orderBy(desc(fieldOperations.startedAt), desc(fieldOperations.id))
          .offset(page.offset)
          .limit(page.limit),
        db.select({ n: count() }).from(fieldOperations).where(cond),
      ]);
      return { items: items as FieldOperationRecord[], total: Number(n) };
    },

    /** Changes status and notes; ending an operation stamps its end time. */
    async update(
      userId: string,
      id: string,
      patch: { status?: 'completed' | 'cancelled'; notes?: string | null; endedAt?: Date },
      expected?: ExpectedVersion,
    ): Promise<OperationOutcome> {
      const { endedAt, ...rest } = patch;
      const [row] = await db
        .update(fieldOperations)
        .set({
          ...rest,
          ...(patch.status
            ? { endedAt: endedAt ? endedAt : sql`coalesce(${fieldOperations.endedAt}, now())` }
            : {}),
          version: sql`${fieldOperations.version} + 1`,
          updatedAt: sql`now()`,
        })
        .where(and(eq(fieldOperations.id, id), visible(userId), atVersion(fieldOperations.version, expected)))
        .returning({ id: fieldOperations.id });
      const now = await get(userId, id);
      if (row && now) return { ok: true, value: now };
      return now
        ? { ok: false, reason: 'stale', currentVersion: now.version }
        : { ok: false, reason: 'not-found' };
    },

    /**
     * Stores the positions of `fresh` the operation has no position for yet
     * (by time) and writes the figures `measure` finds for all its positions,
     * in one transaction holding the operation's row.
     */
    async appendLog(
      userId: string,
      id: string,
      fresh: PositionColumns,
      measure: (op: FieldOperationRecord, all: PositionColumns) => OperationFigures,
    ): Promise<OperationOutcome & { accepted?: number; duplicates?: number }> {
      return db.transaction(async (tx) => {
        const [locked] = await tx
          .select({ id: fieldOperations.id })
          .from(fieldOperations)
          .where(and(eq(fieldOperations.id, id), visible(userId)))
          .for('update');
        if (!locked) return { ok: false, reason: 'not-found' } as const;
        const [op] = (await select(tx).where(eq(fieldOperations.id, id))) as FieldOperationRecord[];
        if (op.status !== 'inProgress') return { ok: false, reason: 'closed', status: op.status } as const;
        // The positions as of the row's version: from memory when this process wrote that version.
        const cached = recent.get(id);
        const { count: stored, positions: known } =
          cached?.version === op.version ? cached : await batchesOf(tx, id);
        const added = newPositions(known, fresh);
        const accepted = added.t.length;
        if (accepted === 0) return { ok: true, value: op, accepted, duplicates: fresh.t.length } as const;
        const all = mergePositions([known, added]);
        if (stored + 1 > MAX_BATCHES) {
          // Many small batches (a position every second, sent every few): kept as one.
          await tx.delete(fieldOperationBatches).where(eq(fieldOperationBatches.fieldOpId, id));
        }
        const kept = stored + 1 > MAX_BATCHES ? all : added;
        await tx.insert(fieldOperationBatches).values({
          id: uuidv7(),
          fieldOpId: id,
          pointCount: kept.t.length,
          points: packPositions(kept),
        });
        const figures = measure(op, all);
        await tx
          .update(fieldOperations)
          .set({ ...figures, version: sql`${fieldOperations.version} + 1`, updatedAt: sql`now()` })
          .where(eq(fieldOperations.id, id));
        const [now] = (await select(tx).where(eq(fieldOperations.id, id))) as FieldOperationRecord[];
        remember(id, { version: now.version, count: kept === all ? 1 : stored + 1, positions: all });
        return { ok: true, value: now, accepted, duplicates: fresh.t.length - accepted } as const;
      });
    },

    /** The version of a plan (whose model a cached measuring context holds), or null. */
    async planVersion(pathPlanId: string): Promise<number | null> {
      const [row] = await db
        .select({ version: pathPlans.version })
        .from(pathPlans)
        .where(eq(pathPlans.id, pathPlanId));
      return row?.version ?? null;
    },

    /** All logged positions of an operation the user can access, time-ordered; null when there is none. */
    async positions(userId: string, id: string): Promise<PositionColumns | null> {
      if (!(await get(userId, id))) return null;
      return positionsOf(db, id);
    },
  };
}
