/**
 * Notifications of users (a job of theirs ended, a share of their plan was
 * opened, access to a company was granted) and the analytics events clients
 * send. A user reads and deletes only their own notifications.
 */
import { and, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { analyticsEvents, companies, jobs, notifications } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';

export type NotificationKind = 'jobCompleted' | 'jobFailed' | 'shareOpened' | 'accessGranted';

export type NotificationRecord = typeof notifications.$inferSelect;

export interface AnalyticsEventInput {
  name: string;
  properties: Record<string, unknown>;
  occurredAt: Date | null;
}

const JOB_KINDS: Record<string, string> = {
  'bulk-guidance': 'Bulk guidance',
  guidance: 'Guidance',
  route: 'Route',
  export: 'Plan export',
};

export function createNotificationsRepository(db: Database) {
  return {
    /** Tells the user who started a job that it ended (completed or failed); nothing for other endings. */
    async jobEnded(jobId: string): Promise<void> {
      const [job] = await db
        .select({ userId: jobs.userId, companyId: jobs.companyId, kind: jobs.kind, status: jobs.status })
        .from(jobs)
        .where(eq(jobs.id, jobId));
      if (!job?.userId || (job.status !== 'completed' && job.status !== 'failed')) return;
      const what = JOB_KINDS[job.kind] ?? job.kind;
      await db.insert(notifications).values({
        id: uuidv7(),
        userId: job.userId,
        companyId: job.companyId,
        kind: job.status === 'completed' ? 'jobCompleted' : 'jobFailed',
        message: `${what} job ${jobId} ${job.status === 'completed' ? 'finished' : 'failed'}.`,
        data: { jobId, jobKind: job.kind },
      });
    },

    /** Tells the creator of a share it was opened; once until they have read it. */
    async shareOpened(share: {
      id: string;
      createdBy: string | null;
      companyId: string;
      pathPlanId: string;
    }) {
      if (!share.createdBy) return;
      const [open] = await db
        .select({ n: count() })
        .from(notifications)
        .where(
          and(
            eq(notifications.userId, share.createdBy),
            eq(notifications.kind, 'shareOpened'),
            isNull(notifications.readAt),
            sql`${notifications.data}->>'shareId' = ${share.id}`,
          ),
        );
      if (Number(open?.n ?? 0) > 0) return;
      await db.insert(notifications).values({
        id: uuidv7(),
        userId: share.createdBy,
        companyId: share.companyId,
        kind: 'shareOpened',
        message: `Your share of plan ${share.pathPlanId} was opened.`,
        data: { shareId: share.id, pathPlanId: share.pathPlanId },
      });
    },

    /** Tells a user they were given access to a company. */
    async accessGranted(userId: string, companyId: string, role: string): Promise<void> {
      const [c] = await db
        .select({ name: companies.name })
        .from(companies)
        .where(eq(companies.id, companyId));
      await db.insert(notifications).values({
        id: uuidv7(),
        userId,
        companyId,
        kind: 'accessGranted',
        message: `You were given ${role} access to ${c ? JSON.stringify(c.name) : `company ${companyId}`}.`,
        data: { companyId, role },
      });
    },

    /** A page of the user's notifications, unread first, newest first within each. */
    async list(
      userId: string,
      page: { offset: number; limit: number },
    ): Promise<{ items: NotificationRecord[]; total: number; unread: number }> {
      const [items, [totals]] = await Promise.all([
        db
          .select()
          .from(notifications)
          .where(eq(notifications.userId, userId))
          .orderBy(
            sql`${notifications.readAt} is null desc`,
            desc(notifications.createdAt),
            desc(notifications.id),
          )
          .offset(page.offset)
          .limit(page.limit),
        db
          .select({
            total: count(),
            unread: sql<number>`count(*) filter (where ${notifications.readAt} is null)`,
          })
          .from(notifications)
          .where(eq(notifications.userId, userId)),
      ]);
      return { items, total: Number(totals.total), unread: Number(totals.unread) };
    },

    /** Marks the user's notifications of these ids read (others are left alone). */
    async markRead(userId: string, ids: readonly string[]): Promise<void> {
      if (ids.length === 0) return;
      await db
        .update(notifications)
        .set({ readAt: sql`now()` })
        .where(
          and(
            eq(notifications.userId, userId),
            inArray(notifications.id, [...ids]),
            isNull(notifications.readAt),
          ),
        );
    },

    /** Deletes one of the user's notifications; false when they have none of this id. */
    async remove(userId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(notifications)
        .where(and(eq(notifications.id, id), eq(notifications.userId, userId)))
        .returning({ id: notifications.id });
      return rows.length === 1;
    },

    async recordEvents(userId: string, companyId: string | null, events: readonly AnalyticsEventInput[]) {
      if (events.length === 0) return;
      await db.insert(analyticsEvents).values(events.map((e) => ({ id: uuidv7(), userId, companyId, ...e })));
    },

    /** Events of a user, newest first (operator reporting and tests). */
    async eventsOf(userId: string, limit = 100) {
      return db
        .select()
        .from(analyticsEvents)
        .where(eq(analyticsEvents.userId, userId))
        .orderBy(desc(analyticsEvents.createdAt), desc(analyticsEvents.id))
        .limit(limit);
    },
  };
}
