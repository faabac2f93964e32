/**
 * The audit log of companies: who changed what, when, in which batch
 * (correlation id). Written by the central hook after every successful
 * write request, and by clients through POST /api/company-events.
 */
import { and, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { companyAccesses, companyEvents, users } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';

export interface NewCompanyEvent {
  companyId: string;
  userId: string | null;
  batchId: string;
  action: string;
  method: string;
  route: string;
  objectId: string | null;
  status: number;
  details?: unknown;
}

export interface CompanyEventRecord extends NewCompanyEvent {
  id: string;
  userEmail: string | null;
  createdAt: Date;
}

const columns = {
  id: companyEvents.id,
  companyId: companyEvents.companyId,
  userId: companyEvents.userId,
  userEmail: users.email,
  batchId: companyEvents.batchId,
  action: companyEvents.action,
  method: companyEvents.method,
  route: companyEvents.route,
  objectId: companyEvents.objectId,
  status: companyEvents.status,
  details: companyEvents.details,
  createdAt: companyEvents.createdAt,
};

/** Where a page of events starts: after the event with this id (newest first). */
export interface EventPage {
  before?: string;
  limit: number;
}

export function createCompanyEventsRepository(db: Database) {
  const visibleTo = (userId: string) =>
    inArray(
      companyEvents.companyId,
      db
        .select({ id: companyAccesses.companyId })
        .from(companyAccesses)
        .where(eq(companyAccesses.userId, userId)),
    );
  const select = () =>
    db.select(columns).from(companyEvents).leftJoin(users, eq(users.id, companyEvents.userId));
  const older = (before: string | undefined) =>
    before === undefined
      ? undefined
      : or(
          lt(
            companyEvents.createdAt,
            sql`(select created_at from company_events where id = ${before}::uuid)`,
          ),
          and(
            eq(
              companyEvents.createdAt,
              sql`(select created_at from company_events where id = ${before}::uuid)`,
            ),
            lt(companyEvents.id, before),
          ),
        );

  return {
    /** Stores events; answers their ids. */
    async record(events: readonly NewCompanyEvent[]): Promise<string[]> {
      if (events.length === 0) return [];
      const ids = events.map(() => uuidv7());
      await db.insert(companyEvents).values(
        events.map((e, i) => ({
          id: ids[i],
          companyId: e.companyId,
          userId: e.userId,
          batchId: e.batchId,
          action: e.action,
          method: e.method,
          route: e.route,
          objectId: e.objectId,
          status: e.status,
          details: e.details ?? null,
        })),
      );
      return ids;
    },

    /**
     * The events of one successful write request, and the user's last company
     * (user_profiles) as the first of them, in one statement.
     */
    async recordWrite(events: readonly NewCompanyEvent[], userId: string): Promise<void> {
      if (events.length === 0) return;
      const values = sql.join(
        events.map(
          (e) =>
            sql`(${uuidv7()}::uuid, ${e.companyId}::uuid, ${e.userId}::uuid, ${e.batchId}, ${e.action}, ${e.method}, ${e.route}, ${e.objectId}, ${e.status}::int)`,
        ),
        sql`, `,
      );
      await db.execute(sql`
        with logged as (
          insert into company_events (id, company_id, user_id, batch_id, action, method, route, object_id, status)
          values ${values} returning 1)
        insert into user_profiles (user_id, last_company_id, last_engaged_at, updated_at)
        values (${userId}::uuid, ${events[0].companyId}::uuid, now(), now())
        on conflict (user_id) do update
          set last_company_id = excluded.last_company_id, last_engaged_at = excluded.last_engaged_at, updated_at = now()`);
    },

    /** Events of a company the user can access, newest first. */
    async ofCompany(userId: string, companyId: string, page: EventPage): Promise<CompanyEventRecord[]> {
      return (await select()
        .where(and(eq(companyEvents.companyId, companyId), visibleTo(userId), older(page.before)))
        .orderBy(desc(companyEvents.createdAt), desc(companyEvents.id))
        .limit(page.limit)) as CompanyEventRecord[];
    },

    /** Events of one batch in the companies the user can access, oldest first. */
    async ofBatch(userId: string, batchId: string): Promise<CompanyEventRecord[]> {
      return (await select()
        .where(and(eq(companyEvents.batchId, batchId), visibleTo(userId)))
        .orderBy(companyEvents.createdAt, companyEvents.id)
        .limit(1000)) as CompanyEventRecord[];
    },

    /** The newest events of a company since a time (dashboards). */
    async recent(companyId: string, limit: number): Promise<CompanyEventRecord[]> {
      return (await select()
        .where(eq(companyEvents.companyId, companyId))
        .orderBy(desc(companyEvents.createdAt), desc(companyEvents.id))
        .limit(limit)) as CompanyEventRecord[];
    },
  };
}

export type CompanyEventsRepository = ReturnType<typeof createCompanyEventsRepository>;
