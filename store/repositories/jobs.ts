/**
 * Jobs as their companies see them (bulk guidance, guidance, routes,
 * exports). A job's items are written once each (primary key job + item),
 * so a retried item never counts twice; the job completes when every item
 * has an outcome. Reads are scoped to the companies the user can access.
 */
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { jobItems, jobs } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { createNotificationsRepository } from './notifications.ts';
import { accessibleTo } from './scope.ts';

/**
 * bulk-guidance and guidance plan stored boundaries, headlands plans their
 * headland passes only; pathplan makes a plan from a stored plan's
 * headlands; postprocess and route route a stored plan again;
 * equipment-scenario plans every boundary of a scenario set with each
 * scenario's machine (item keys `scenarioIndex:boundaryId`).
 */
export type JobKind =
  | 'bulk-guidance'
  | 'guidance'
  | 'headlands'
  | 'pathplan'
  | 'postprocess'
  | 'route'
  | 'export'
  | 'copy-company'
  | 'transmission'
  | 'company-sync'
  | 'equipment-scenario';
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export const OPEN_STATUSES: readonly JobStatus[] = ['queued', 'running'];

export interface JobRecord {
  id: string;
  companyId: string;
  userId: string | null;
  kind: JobKind;
  status: JobStatus;
  request: unknown;
  total: number;
  result: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface JobItemError {
  boundaryId: string;
  errorCode: string;
  message: string;
}

export interface JobView extends JobRecord {
  /** Items with an outcome. */
  done: number;
  pathPlanIds: string[];
  errors: JobItemError[];
}

export function createJobsRepository(db: Database) {
  // The user who started a job is told when it finishes or fails.
  const notices = createNotificationsRepository(db);
  return {
    async create(input: {
      companyId: string;
      userId: string | null;
      kind: JobKind;
      request: unknown;
      total: number;
    }): Promise<JobRecord> {
      const [row] = await db
        .insert(jobs)
        .values({ id: uuidv7(), ...input, request: input.request as object })
        .returning();
      return row as JobRecord;
    },

    /** The job, for workers (no tenant scope: the id came from the queue). */
    async byId(id: string): Promise<JobRecord | null> {
      const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
      return (row as JobRecord) ?? null;
    },

    /** The job with its outcomes, when the user can access its company; optionally of one kind. */
    async view(userId: string, id: string, kinds?: readonly JobKind[]): Promise<JobView | null> {
      const [row] = await db
        .select()
        .from(jobs)
        .where(
          and(
            eq(jobs.id, id),
            accessibleTo(db, userId, jobs.companyId),
            kinds ? inArray(jobs.kind, [...kinds]) : undefined,
          ),
        );
      if (!row) return null;
      const items = await db
        .select()
        .from(jobItems)
        .where(eq(jobItems.jobId, id))
        .orderBy(jobItems.createdAt, jobItems.itemKey);
      return {
        ...(row as JobRecord),
        done: items.length,
        pathPlanIds: items.flatMap((i) => (i.pathPlanId ? [i.pathPlanId] : [])),
        errors: items.flatMap((i) =>
          i.errorCode ? [{ boundaryId: i.itemKey, errorCode: i.errorCode, message: i.message ?? '' }] : [],
        ),
      };
    },

    /** The outcomes of a job (for a job whose access the caller checked). */
    async items(
      jobId: string,
    ): Promise<
      { itemKey: string; pathPlanId: string | null; errorCode: string | null; message: string | null }[]
    > {
      return db
        .select({
          itemKey: jobItems.itemKey,
          pathPlanId: jobItems.pathPlanId,
          errorCode: jobItems.errorCode,
          message: jobItems.message,
        })
        .from(jobItems)
        .where(eq(jobItems.jobId, jobId));
    },

    /** queued -> running (first item started). */
    async markRunning(id: string): Promise<void> {
      await db
        .update(jobs)
        .set({ status: 'running', updatedAt: sql`now()` })
        .where(and(eq(jobs.id, id), eq(jobs.status, 'queued')));
    },

    /**
     * Records an item's outcome once. Returns false when the item already has one
     * (a retried delivery): the caller must then undo nothing and store nothing.
     */
    async recordItem(
      jobId: string,
      itemKey: string,
      outcome: { pathPlanId?: string } | { errorCode: string; message: string },
    ): Promise<boolean> {
      const rows = await db
        .insert(jobItems)
        .values({
          jobId,
          itemKey,
          pathPlanId: 'pathPlanId' in outcome ? (outcome.pathPlanId ?? null) : null,
          errorCode: 'errorCode' in outcome ? outcome.errorCode : null,
          message: 'errorCode' in outcome ? outcome.message : null,
        })
        .onConflictDoNothing()
        .returning({ jobId: jobItems.jobId });
      return rows.length === 1;
    },

    /** Of `itemKeys`, those that already have an outcome. */
    async itemsWithOutcome(jobId: string, itemKeys: readonly string[]): Promise<Set<string>> {
      if (itemKeys.length === 0) return new Set();
      const rows = await db
        .select({ key: jobItems.itemKey })
        .from(jobItems)
        .where(and(eq(jobItems.jobId, jobId), inArray(jobItems.itemKey, [...itemKeys])));
      return new Set(rows.map((r) => r.key));
    },

    /** Records many outcomes in one statement; returns the keys recorded now (not before). */
    async recordItems(
      jobId: string,
      items: readonly ({ itemKey: string } & (
        | { pathPlanId: string }
        | { errorCode: string; message: string }
      ))[],
    ): Promise<Set<string>> {
      if (items.length === 0) return new Set();
      const rows = await db
        .insert(jobItems)
        .values(
          items.map((i) => ({
            jobId,
            itemKey: i.itemKey,
            pathPlanId: 'pathPlanId' in i ? i.pathPlanId : null,
            errorCode: 'errorCode' in i ? i.errorCode : null,
            message: 'errorCode' in i ? i.message : null,
          })),
        )
        .onConflictDoNothing()
        .returning({ key: jobItems.itemKey });
      return new Set(rows.map((r) => r.key));
    },

    /**
     * The job's status, locking its row to the end of the transaction: writers
     * of one job's outcomes take turns, and a cancel waits for them.
     */
    async lockStatus(id: string): Promise<JobStatus | null> {
      const [row] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, id)).for('update');
      return (row?.status as JobStatus | undefined) ?? null;
    },

    async hasItem(jobId: string, itemKey: string): Promise<boolean> {
      const [row] = await db
        .select({ n: count() })
        .from(jobItems)
        .where(and(eq(jobItems.jobId, jobId), eq(jobItems.itemKey, itemKey)));
      return (row?.n ?? 0) > 0;
    },

    /** Completes an open job whose items all have an outcome; true when this call completed it. */
    async completeIfDone(id: string, result?: Record<string, unknown>): Promise<boolean> {
      const rows = await db
        .update(jobs)
        .set({
          status: 'completed',
          updatedAt: sql`now()`,
          finishedAt: sql`now()`,
          ...(result ? { result } : {}),
        })
        .where(
          and(
            eq(jobs.id, id),
            inArray(jobs.status, [...OPEN_STATUSES]),
            sql`(select count(*) from ${jobItems} where ${jobItems.jobId} = ${jobs.id}) >= ${jobs.total}`,
          ),
        )
        .returning({ id: jobs.id });
      if (rows.length === 1) await notices.jobEnded(id);
      return rows.length === 1;
    },

    /** An open job ends (failed or cancelled); false when it had already ended. */
    async finish(
      id: string,
      status: 'failed' | 'cancelled',
      result?: Record<string, unknown>,
    ): Promise<boolean> {
      const rows = await db
        .update(jobs)
        .set({ status, updatedAt: sql`now()`, finishedAt: sql`now()`, ...(result ? { result } : {}) })
        .where(and(eq(jobs.id, id), inArray(jobs.status, [...OPEN_STATUSES])))
        .returning({ id: jobs.id });
      if (rows.length === 1) await notices.jobEnded(id);
      return rows.length === 1;
    },

    /** Cancels an open job the user can access: 'cancelled', 'ended' (already finished) or 'not-found'. */
    async cancel(userId: string, id: string): Promise<'cancelled' | 'ended' | 'not-found'> {
      const rows = await db
        .update(jobs)
        .set({ status: 'cancelled', updatedAt: sql`now()`, finishedAt: sql`now()` })
        .where(
          and(
            eq(jobs.id, id),
            accessibleTo(db, userId, jobs.companyId),
            inArray(jobs.status, [...OPEN_STATUSES]),
          ),
        )
        .returning({ id: jobs.id });
      if (rows.length === 1) return 'cancelled';
      const [row] = await db
        .select({ id: jobs.id })
        .from(jobs)
        .where(and(eq(jobs.id, id), accessibleTo(db, userId, jobs.companyId)));
      return row ? 'ended' : 'not-found';
    },
  };
}
