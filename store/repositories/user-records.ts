/**
 * Users as others see them: accepted terms, the company last worked in,
 * the directory a company admin reads (lists, table, totals), process and
 * feedback logs, contact messages, and deleting a user (anonymised: the
 * person's data goes, their companies' data stays).
 *
 * Who sees whom: a user sees themself, the users of the companies they
 * administer, and (Partner Admins) the users they created.
 */
import { and, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import {
  apiKeys,
  companies,
  companyAccesses,
  contactMessages,
  sessions,
  userProcessLogs,
  userProfiles,
  users,
} from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { type CompanyRole, companyRole } from './accounts.ts';
import { resultRows } from './companies.ts';

export interface UserProfile {
  termsVersion: string | null;
  termsAcceptedAt: Date | null;
  lastCompanyId: string | null;
  lastEngagedAt: Date | null;
  deletedAt: Date | null;
}

export const USER_SORTS = [
  'email',
  'firstName',
  'lastName',
  'createdAt',
  'companies',
  'lastEngagedAt',
] as const;
export type UserSort = (typeof USER_SORTS)[number];

const SORT_SQL: Record<UserSort, SQL> = {
  email: sql`email`,
  firstName: sql`lower(first_name)`,
  lastName: sql`lower(last_name)`,
  createdAt: sql`created_at`,
  companies: sql`companies`,
  lastEngagedAt: sql`last_engaged_at`,
};

export interface UserFilter {
  search?: string;
  companyId?: string;
  roles?: CompanyRole[];
}

export interface UserRow {
  userId: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  createdAt: Date;
  companies: number;
  termsVersion: string | null;
  lastEngagedAt: Date | null;
}

interface RawUser {
  id: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  created_at: Date | string;
  companies: number | string;
  terms_version: string | null;
  last_engaged_at: Date | string | null;
}

const likeOf = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const date = (v: Date | string | null) => (v === null ? null : new Date(v));

export interface ProcessLogEntry {
  id: string;
  kind: 'process' | 'feedback';
  process: string;
  step: string | null;
  status: string | null;
  rating: number | null;
  message: string | null;
  details: unknown;
  createdAt: Date;
}

export function createUserRecordsRepository(db: Database) {
  /** SQL true when `viewerId` may see the user `u.id`. */
  const visible = (viewerId: string) => sql`(
    u.id = ${viewerId}
    or u.partner_owner_id = ${viewerId}
    or exists (select 1 from company_accesses mine join company_accesses theirs on theirs.company_id = mine.company_id
               where mine.user_id = ${viewerId} and mine.role = 'admin' and theirs.user_id = u.id))`;

  /** The users `viewerId` sees that match, with their counts, as one SQL source. */
  const directory = (viewerId: string, f: UserFilter) => {
    const conds: SQL[] = [visible(viewerId), sql`p.deleted_at is null`];
    if (f.search) {
      const like = likeOf(f.search);
      conds.push(
        sql`(u.email ilike ${like} or u.first_name ilike ${like} or u.last_name ilike ${like} or (coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')) ilike ${like})`,
      );
    }
    if (f.companyId) {
      const stored = (f.roles ?? []).flatMap((r) => (r === 'editor' ? ['editor', 'member'] : [r]));
      const role = stored.length
        ? sql`and a.role in (${sql.join(
            stored.map((r) => sql`${r}`),
            sql`, `,
          )})`
        : sql``;
      conds.push(
        sql`exists (select 1 from company_accesses a where a.user_id = u.id and a.company_id = ${f.companyId} ${role})`,
      );
    } else if (f.roles?.length) {
      const stored = f.roles.flatMap((r) => (r === 'editor' ? ['editor', 'member'] : [r]));
      conds.push(
        sql`exists (select 1 from company_accesses a where a.user_id = u.id and a.role in (${sql.join(
          stored.map((r) => sql`${r}`),
          sql`, `,
        )}))`,
      );
    }
    return sql`
      select u.id, u.email, u.first_name, u.last_name, u.created_at,
        (select count(*) from company_accesses a where a.user_id = u.id) as companies,
        p.terms_version, p.last_engaged_at
      from users u left join user_profiles p on p.user_id = u.id
      where ${sql.join(conds, sql` and `)}`;
  };

  const rowOf = (r: RawUser): UserRow => ({
    userId: r.id,
    email: r.email,
    firstName: r.first_name,
    lastName: r.last_name,
    createdAt: new Date(r.created_at),
    companies: Number(r.companies),
    termsVersion: r.terms_version,
    lastEngagedAt: date(r.last_engaged_at),
  });

  const upsertProfile = async (userId: string, set: Partial<typeof userProfiles.$inferInsert>) => {
    await db
      .insert(userProfiles)
      .values({ userId, ...set })
      .onConflictDoUpdate({ target: userProfiles.userId, set: { ...set, updatedAt: sql`now()` } });
  };

  return {
    async profile(userId: string): Promise<UserProfile> {
      const [row] = await db.select().from(userProfiles).where(eq(userProfiles.userId, userId));
      return {
        termsVersion: row?.termsVersion ?? null,
        termsAcceptedAt: row?.termsAcceptedAt ?? null,
        lastCompanyId: row?.lastCompanyId ?? null,
        lastEngagedAt: row?.lastEngagedAt ?? null,
        deletedAt: row?.deletedAt ?? null,
      };
    },

    async acceptTerms(userId: string, termsVersion: string): Promise<UserProfile> {
      await upsertProfile(userId, { termsVersion, termsAcceptedAt: sql`now()` as unknown as Date });
      return this.profile(userId);
    },

    /** The Partner Admin who created the user, if one did. */
    async partnerOwner(userId: string): Promise<string | null> {
      const [row] = await db.select({ owner: users.partnerOwnerId }).from(users).where(eq(users.id, userId));
      return row?.owner ?? null;
    },

    /** Whether `viewerId` may see the user (and the user exists and is not deleted). */
    async canSee(viewerId: string, userId: string): Promise<boolean> {
      const rows = resultRows(
        await db.execute(sql`select 1 from users u left join user_profiles p on p.user_id = u.id
          where u.id = ${userId} and p.deleted_at is null and ${visible(viewerId)}`),
      );
      return rows.length > 0;
    },

    async table(
      viewerId: string,
      f: UserFilter,
      page: { sort: UserSort; descending: boolean; offset: number; limit: number },
    ): Promise<{ items: UserRow[]; total: number }> {
      const source = directory(viewerId, f);
      const [{ n }] = resultRows<{ n: number | string }>(
        await db.execute(sql`select count(*) as n from (${source}) t`),
      );
      const dir = page.descending ? sql`desc` : sql`asc`;
      const rows = resultRows<RawUser>(
        await db.execute(
          sql`select * from (${source}) t order by ${SORT_SQL[page.sort]} ${dir} nulls last, id ${dir} offset ${page.offset} limit ${page.limit}`,
        ),
      );
      return { items: rows.map(rowOf), total: Number(n) };
    },

    async summary(
      viewerId: string,
      f: UserFilter,
    ): Promise<{
      users: number;
      acceptedTerms: number;
      engagedLast30Days: number;
      byRole: Record<CompanyRole, number>;
    }> {
      const source = directory(viewerId, f);
      const [r] = resultRows<Record<string, number | string>>(
        await db.execute(sql`select count(*) as users,
            count(*) filter (where terms_version is not null) as accepted,
            count(*) filter (where last_engaged_at > now() - interval '30 days') as engaged
          from (${source}) t`),
      );
      // Accesses of the listed users, in the company asked for or in the companies the viewer administers.
      const scope = f.companyId
        ? sql`a.company_id = ${f.companyId}`
        : sql`a.company_id in (select company_id from company_accesses where user_id = ${viewerId} and role = 'admin')`;
      const roles = resultRows<{ role: string; n: number | string }>(
        await db.execute(sql`select a.role, count(*) as n from company_accesses a
          where ${scope} and a.user_id in (select id from (${source}) t) group by a.role`),
      );
      const byRole: Record<CompanyRole, number> = { admin: 0, editor: 0, viewer: 0 };
      for (const x of roles) byRole[companyRole(x.role)] += Number(x.n);
      return {
        users: Number(r.users),
        acceptedTerms: Number(r.accepted),
        engagedLast30Days: Number(r.engaged),
        byRole,
      };
    },

    /** The user's accesses by role, their key and session counts, and how often they changed company data. */
    async activity(userId: string): Promise<{
      byRole: Record<CompanyRole, number>;
      activeApiKeys: number;
      changes: number;
      lastChangeAt: Date | null;
    }> {
      const roles = await db
        .select({ role: companyAccesses.role, n: sql<number>`count(*)` })
        .from(companyAccesses)
        .where(eq(companyAccesses.userId, userId))
        .groupBy(companyAccesses.role);
      const byRole: Record<CompanyRole, number> = { admin: 0, editor: 0, viewer: 0 };
      for (const x of roles) byRole[companyRole(x.role)] += Number(x.n);
      const [k] = await db
        .select({ n: sql<number>`count(*)` })
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
      const [e] = resultRows<{ n: number | string; last: Date | string | null }>(
        await db.execute(
          sql`select count(*) as n, max(created_at) as last from company_events where user_id = ${userId}`,
        ),
      );
      return { byRole, activeApiKeys: Number(k.n), changes: Number(e.n), lastChangeAt: date(e.last) };
    },

    /** The user's last company, if they can still access it. */
    async lastCompany(userId: string): Promise<{ companyId: string; name: string; engagedAt: Date } | null> {
      const [row] = await db
        .select({ companyId: companies.id, name: companies.name, engagedAt: userProfiles.lastEngagedAt })
        .from(userProfiles)
        .innerJoin(companies, eq(companies.id, userProfiles.lastCompanyId))
        .innerJoin(
          companyAccesses,
          and(eq(companyAccesses.companyId, companies.id), eq(companyAccesses.userId, userId)),
        )
        .where(eq(userProfiles.userId, userId));
      return row?.engagedAt ? { companyId: row.companyId, name: row.name, engagedAt: row.engagedAt } : null;
    },

    async log(
      userId: string,
      entry: Omit<ProcessLogEntry, 'id' | 'createdAt' | 'details'> & { details?: unknown },
    ): Promise<ProcessLogEntry> {
      const [row] = await db
        .insert(userProcessLogs)
        .values({ id: uuidv7(), userId, ...entry, details: entry.details ?? null })
        .returning();
      return row as ProcessLogEntry;
    },

    async logs(
      userId: string,
      opts: { process?: string; kind?: 'process' | 'feedback'; limit: number },
    ): Promise<ProcessLogEntry[]> {
      return (await db
        .select()
        .from(userProcessLogs)
        .where(
          and(
            eq(userProcessLogs.userId, userId),
            opts.process ? eq(userProcessLogs.process, opts.process) : undefined,
            opts.kind ? eq(userProcessLogs.kind, opts.kind) : undefined,
          ),
        )
        .orderBy(desc(userProcessLogs.createdAt), desc(userProcessLogs.id))
        .limit(opts.limit)) as ProcessLogEntry[];
    },

    async contact(
      userId: string,
      email: string | null,
      subject: string,
      message: string,
    ): Promise<{ id: string; createdAt: Date }> {
      const [row] = await db
        .insert(contactMessages)
        .values({ id: uuidv7(), userId, email, subject, message })
        .returning({ id: contactMessages.id, createdAt: contactMessages.createdAt });
      return row;
    },

    /** A point (the first vertex) of each active boundary in the companies the user administers. */
    async adminFieldPoints(userId: string): Promise<{ companyId: string; lon: number; lat: number }[]> {
      const rows = resultRows<{ company_id: string; lon: number | string; lat: number | string }>(
        await db.execute(sql`select b.company_id, (b.rings->0->0->>0)::float8 as lon, (b.rings->0->0->>1)::float8 as lat
          from boundaries b join company_accesses a on a.company_id = b.company_id
          where a.user_id = ${userId} and a.role = 'admin' and b.active`),
      );
      return rows.map((r) => ({ companyId: r.company_id, lon: Number(r.lon), lat: Number(r.lat) }));
    },

    /** Marks a contact message as handed to the mail system. */
    async contactMailed(id: string): Promise<void> {
      await db.update(contactMessages).set({ mailedAt: sql`now()` }).where(eq(contactMessages.id, id));
    },

    /** Companies where the user is the only admin while others have access: they must hand over first. */
    async soleAdminOf(userId: string): Promise<string[]> {
      const rows = resultRows<{ company_id: string }>(
        await db.execute(sql`select a.company_id from company_accesses a
          where a.user_id = ${userId} and a.role = 'admin'
            and not exists (select 1 from company_accesses o where o.company_id = a.company_id and o.role = 'admin' and o.user_id <> a.user_id)
            and exists (select 1 from company_accesses o where o.company_id = a.company_id and o.user_id <> a.user_id)`),
      );
      return rows.map((r) => r.company_id);
    },

    /**
     * Deletes a user: name, e-mail, password, partner id and logs go,
     * sessions end, accesses go (the caller revokes the keys, through the key
     * repository and its cache); the companies and their data stay, and the
     * audit log keeps the (now anonymous) user id.
     */
    async anonymise(userId: string): Promise<void> {
      await db
        .update(users)
        .set({
          email: null,
          firstName: null,
          lastName: null,
          passwordHash: null,
          partnerUserId: null,
          partnerAdmin: false,
        })
        .where(eq(users.id, userId));
      await db
        .update(sessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
      await db.delete(companyAccesses).where(eq(companyAccesses.userId, userId));
      await db.delete(userProcessLogs).where(eq(userProcessLogs.userId, userId));
      await db.update(contactMessages).set({ email: null }).where(eq(contactMessages.userId, userId));
      await upsertProfile(userId, { deletedAt: sql`now()` as unknown as Date, lastCompanyId: null });
    },
  };
}

export type UserRecordsRepository = ReturnType<typeof createUserRecordsRepository>;
