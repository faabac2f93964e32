/**
 * Company accesses with roles, and the question every request asks first:
 * which companies do the ids it names belong to, and what may this user do
 * there (api/auth/company-roles.ts).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { companies, companyAccesses, users } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { type CompanyRole, companyRole } from './accounts.ts';
import { resultRows } from './companies.ts';

/** Kinds of ids a request may name, with the table whose `company_id` tells their company. */
export const ID_TABLES = {
  company: 'companies',
  grower: 'growers',
  farm: 'farms',
  field: 'fields',
  boundary: 'boundaries',
  pathPlan: 'path_plans',
  pathPlanGroup: 'path_plan_groups',
  equipment: 'equipment',
  operator: 'operators',
  setting: 'settings',
  userFile: 'user_files',
  userLabel: 'user_labels',
  job: 'jobs',
  share: 'shares',
  exportBatch: 'export_batches',
  companyAccess: 'company_accesses',
  descriptor: 'descriptors',
  fieldOperation: 'field_operations',
  equipmentScenario: 'equipment_scenarios',
  equipmentScenarioDetails: 'equipment_scenario_details',
} as const;

export type IdKind = keyof typeof ID_TABLES;

export interface IdRef {
  kind: IdKind;
  id: string;
}

export interface CompanyAccessRecord {
  id: string;
  userId: string;
  companyId: string;
  companyName: string;
  role: CompanyRole;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  createdAt: Date;
}

const accessColumns = {
  id: companyAccesses.id,
  userId: companyAccesses.userId,
  companyId: companyAccesses.companyId,
  companyName: companies.name,
  role: companyAccesses.role,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  createdAt: companyAccesses.createdAt,
};

export function createCompanyAccessRepository(db: Database) {
  const selectAccesses = () =>
    db
      .select(accessColumns)
      .from(companyAccesses)
      .innerJoin(companies, eq(companies.id, companyAccesses.companyId))
      .innerJoin(users, eq(users.id, companyAccesses.userId));
  const shape = (r: { role: string } & Omit<CompanyAccessRecord, 'role'>): CompanyAccessRecord => ({
    ...r,
    role: companyRole(r.role),
  });

  /** Locks the company's admin accesses (run in a transaction) and answers how many there are. */
  const lockAdmins = async (companyId: string): Promise<number> => {
    const rows = await db
      .select({ id: companyAccesses.id })
      .from(companyAccesses)
      .where(and(eq(companyAccesses.companyId, companyId), eq(companyAccesses.role, 'admin')))
      .for('update');
    return rows.length;
  };

  return {
    /**
     * The company of each named id that exists (unknown ids are left out) with
     * the user's role there (null: no access), in one statement; `userOwned`
     * when an id names a record of a user, not of a company (a user setting).
     */
    async companiesOf(
      userId: string,
      refs: readonly IdRef[],
    ): Promise<{ companies: Map<string, { ref: IdRef; role: CompanyRole | null }>; userOwned: boolean }> {
      const byKind = new Map<IdKind, string[]>();
      for (const r of refs) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r.id]);
      const parts = [...byKind].map(([kind, ids]) => {
        const col = kind === 'company' ? sql`id` : sql`company_id`;
        const list = sql.join(
          ids.map((id) => sql`${id}::uuid`),
          sql`, `,
        );
        return sql`select ${kind}::text as kind, id::text as id, ${col} as company_id from ${sql.identifier(ID_TABLES[kind])} where id in (${list})`;
      });
      const out = new Map<string, { ref: IdRef; role: CompanyRole | null }>();
      if (parts.length === 0) return { companies: out, userOwned: false };
      const rows = resultRows<{ kind: IdKind; id: string; company_id: string | null; role: string | null }>(
        await db.execute(sql`select n.kind, n.id, n.company_id::text as company_id,
            (select a.role from company_accesses a where a.user_id = ${userId} and a.company_id = n.company_id) as role
          from (${sql.join(parts, sql` union all `)}) n`),
      );
      let userOwned = false;
      for (const r of rows) {
        if (!r.company_id) userOwned = true;
        else if (!out.has(r.company_id)) {
          out.set(r.company_id, {
            ref: { kind: r.kind, id: r.id },
            role: r.role === null ? null : companyRole(r.role),
          });
        }
      }
      return { companies: out, userOwned };
    },

    /** The user's role in each of the companies (absent: no access). */
    async rolesIn(userId: string, companyIds: readonly string[]): Promise<Map<string, CompanyRole>> {
      if (companyIds.length === 0) return new Map();
      const rows = await db
        .select({ companyId: companyAccesses.companyId, role: companyAccesses.role })
        .from(companyAccesses)
        .where(and(eq(companyAccesses.userId, userId), inArray(companyAccesses.companyId, [...companyIds])));
      return new Map(rows.map((r) => [r.companyId, companyRole(r.role)]));
    },

    /**
     * Gives a user a role in a company, or changes it; answers the access and
     * whether it is new. Refuses ('last-admin') to demote the last admin; run
     * in a transaction, so concurrent demotions cannot leave none.
     */
    async grant(
      companyId: string,
      userId: string,
      role: CompanyRole,
    ): Promise<
      { ok: true; access: CompanyAccessRecord; created: boolean } | { ok: false; reason: 'last-admin' }
    > {
      const admins = await lockAdmins(companyId);
      const [before] = await db
        .select({ role: companyAccesses.role })
        .from(companyAccesses)
        .where(and(eq(companyAccesses.userId, userId), eq(companyAccesses.companyId, companyId)))
        .for('update');
      if (before && companyRole(before.role) === 'admin' && role !== 'admin' && admins <= 1) {
        return { ok: false, reason: 'last-admin' };
      }
      await db
        .insert(companyAccesses)
        .values({ id: uuidv7(), userId, companyId, role })
        .onConflictDoUpdate({ target: [companyAccesses.userId, companyAccesses.companyId], set: { role } });
      const [row] = await selectAccesses().where(
        and(eq(companyAccesses.userId, userId), eq(companyAccesses.companyId, companyId)),
      );
      return { ok: true, access: shape(row), created: !before };
    },

    async get(id: string): Promise<CompanyAccessRecord | null> {
      const [row] = await selectAccesses().where(eq(companyAccesses.id, id));
      return row ? shape(row) : null;
    },

    /** The user's accesses, only in companies `viewerId` can access too (all of them for the user themself). */
    async ofUser(userId: string, viewerId: string): Promise<CompanyAccessRecord[]> {
      const visible =
        userId === viewerId
          ? undefined
          : inArray(
              companyAccesses.companyId,
              db
                .select({ id: sql`${companyAccesses.companyId}` })
                .from(companyAccesses)
                .where(eq(companyAccesses.userId, viewerId)),
            );
      const rows = await selectAccesses()
        .where(and(eq(companyAccesses.userId, userId), visible))
        .orderBy(asc(companyAccesses.createdAt), asc(companyAccesses.id));
      return rows.map(shape);
    },

    /** Every access to a company, oldest first. */
    async ofCompany(companyId: string): Promise<CompanyAccessRecord[]> {
      const rows = await selectAccesses()
        .where(eq(companyAccesses.companyId, companyId))
        .orderBy(asc(companyAccesses.createdAt), asc(companyAccesses.id));
      return rows.map(shape);
    },

    /** Removes an access; refuses ('last-admin') to remove the last admin of a company. */
    async revoke(id: string): Promise<{ ok: true } | { ok: false; reason: 'not-found' | 'last-admin' }> {
      const [row] = await db
        .select({ companyId: companyAccesses.companyId, role: companyAccesses.role })
        .from(companyAccesses)
        .where(eq(companyAccesses.id, id))
        .for('update');
      if (!row) return { ok: false, reason: 'not-found' };
      if (companyRole(row.role) === 'admin' && (await lockAdmins(row.companyId)) <= 1) {
        return { ok: false, reason: 'last-admin' };
      }
      await db.delete(companyAccesses).where(eq(companyAccesses.id, id));
      return { ok: true };
    },
  };
}

export type CompanyAccessRepository = ReturnType<typeof createCompanyAccessRepository>;
