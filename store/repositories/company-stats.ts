/**
 * Companies in numbers: the paged, sorted, searchable table of the
 * companies a user can access, its summary, and the dashboards of one
 * company (what it holds, how much is planned, what changed lately).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { type CompanyRole, companyRole } from './accounts.ts';
import { resultRows } from './companies.ts';

export const COMPANY_SORTS = [
  'name',
  'role',
  'createdAt',
  'updatedAt',
  'users',
  'fields',
  'boundaries',
  'pathPlans',
  'area',
] as const;
export type CompanySort = (typeof COMPANY_SORTS)[number];

const SORT_SQL: Record<CompanySort, SQL> = {
  name: sql`lower(name)`,
  role: sql`role`,
  createdAt: sql`created_at`,
  updatedAt: sql`updated_at`,
  users: sql`users`,
  fields: sql`fields`,
  boundaries: sql`boundaries`,
  pathPlans: sql`path_plans`,
  area: sql`area`,
};

export interface CompanyTableQuery {
  search?: string;
  roles?: CompanyRole[];
  sort: CompanySort;
  descending: boolean;
  offset: number;
  limit: number;
}

export interface CompanyTableRow {
  companyId: string;
  name: string;
  role: CompanyRole;
  partnerCompanyId: string | null;
  createdAt: Date;
  updatedAt: Date;
  users: number;
  fields: number;
  boundaries: number;
  pathPlans: number;
  /** Area of the active boundaries [m²]. */
  area: number;
}

interface RawRow {
  company_id: string;
  name: string;
  role: string;
  partner_company_id: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  users: number | string;
  fields: number | string;
  boundaries: number | string;
  path_plans: number | string;
  area: number | string;
}

const likeOf = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface CompanyDashboard {
  growers: number;
  farms: number;
  fields: {
    total: number;
    enabled: number;
    withActiveBoundary: number;
    withPlans: number;
    /** With an active boundary and no plan that is not archived. */
    awaitingPlan: number;
  };
  boundaries: { total: number; active: number };
  pathPlans: { total: number; active: number; archived: number; starred: number; groups: number };
  /** [m²]: of the active boundaries, and of the fields of the plans that are not archived. */
  area: { fields: number; planned: number };
  equipment: number;
  operators: number;
  users: number;
  lastChangeAt: Date | null;
}

export function createCompanyStatsRepository(db: Database) {
  /** The user's companies with their counts, as one SQL source (`rows`). */
  const rows = (userId: string, q: Pick<CompanyTableQuery, 'search' | 'roles'>) => {
    const conds: SQL[] = [sql`a.user_id = ${userId}`];
    if (q.search) conds.push(sql`c.name ilike ${likeOf(q.search)}`);
    if (q.roles?.length) {
      // 'member' (written before roles) is an editor.
      const stored = q.roles.flatMap((r) => (r === 'editor' ? ['editor', 'member'] : [r]));
      conds.push(
        sql`a.role in (${sql.join(
          stored.map((r) => sql`${r}`),
          sql`, `,
        )})`,
      );
    }
    return sql`
      select c.id as company_id, c.name, a.role, c.partner_company_id, c.created_at, c.updated_at,
        (select count(*) from company_accesses x where x.company_id = c.id) as users,
        (select count(*) from fields f where f.company_id = c.id) as fields,
        (select count(*) from boundaries b where b.company_id = c.id and b.active) as boundaries,
        (select count(*) from path_plans p where p.company_id = c.id and not p.archived) as path_plans,
        (select coalesce(sum(b.area), 0) from boundaries b where b.company_id = c.id and b.active) as area
      from companies c join company_accesses a on a.company_id = c.id
      where ${sql.join(conds, sql` and `)}`;
  };

  return {
    async table(userId: string, q: CompanyTableQuery): Promise<{ items: CompanyTableRow[]; total: number }> {
      const source = rows(userId, q);
      const [{ n }] = resultRows<{ n: number | string }>(
        await db.execute(sql`select count(*) as n from (${source}) t`),
      );
      const dir = q.descending ? sql`desc` : sql`asc`;
      const page = resultRows<RawRow>(
        await db.execute(
          sql`select * from (${source}) t order by ${SORT_SQL[q.sort]} ${dir}, company_id ${dir} offset ${q.offset} limit ${q.limit}`,
        ),
      );
      return {
        total: Number(n),
        items: page.map((r) => ({
          companyId: r.company_id,
          name: r.name,
          role: companyRole(r.role),
          partnerCompanyId: r.partner_company_id,
          createdAt: new Date(r.created_at),
          updatedAt: new Date(r.updated_at),
          users: Number(r.users),
          fields: Number(r.fields),
          boundaries: Number(r.boundaries),
          pathPlans: Number(r.path_plans),
          area: Number(r.area),
        })),
      };
    },

    /** Totals over the user's companies that match. */
    async listSummary(
      userId: string,
      q: Pick<CompanyTableQuery, 'search' | 'roles'>,
    ): Promise<{
      companies: number;
      byRole: Record<CompanyRole, number>;
      fields: number;
      boundaries: number;
      pathPlans: number;
      area: number;
    }> {
      const [r] = resultRows<Record<string, number | string | null>>(
        await db.execute(sql`
          select count(*) as companies,
            count(*) filter (where role = 'admin') as admins,
            count(*) filter (where role in ('editor', 'member')) as editors,
            count(*) filter (where role = 'viewer') as viewers,
            coalesce(sum(fields), 0) as fields, coalesce(sum(boundaries), 0) as boundaries,
            coalesce(sum(path_plans), 0) as path_plans, coalesce(sum(area), 0) as area
          from (${rows(userId, q)}) t`),
      );
      return {
        companies: Number(r.companies),
        byRole: { admin: Number(r.admins), editor: Number(r.editors), viewer: Number(r.viewers) },
        fields: Number(r.fields),
        boundaries: Number(r.boundaries),
        pathPlans: Number(r.path_plans),
        area: Number(r.area),
      };
    },

    /** What one company holds (access checked by the caller). */
    async dashboard(companyId: string): Promise<CompanyDashboard> {
      const [r] = resultRows<Record<string, number | string | Date | null>>(
        await db.execute(sql`
          select
            (select count(*) from growers where company_id = ${companyId}) as growers,
            (select count(*) from farms where company_id = ${companyId}) as farms,
            (select count(*) from fields where company_id = ${companyId}) as fields,
            (select count(*) from fields where company_id = ${companyId} and enabled) as fields_enabled,
            (select count(*) from fields f where f.company_id = ${companyId}
               and exists (select 1 from boundaries b where b.field_id = f.id and b.active)) as fields_bounded,
            (select count(*) from fields f where f.company_id = ${companyId}
               and exists (select 1 from path_plans p where p.field_id = f.id and not p.archived)) as fields_planned,
            (select count(*) from fields f where f.company_id = ${companyId}
               and exists (select 1 from boundaries b where b.field_id = f.id and b.active)
               and not exists (select 1 from path_plans p where p.field_id = f.id and not p.archived)) as fields_awaiting,
            (select count(*) from boundaries where company_id = ${companyId}) as boundaries,
            (select count(*) from boundaries where company_id = ${companyId} and active) as boundaries_active,
            (select count(*) from path_plans where company_id = ${companyId}) as plans,
            (select count(*) from path_plans where company_id = ${companyId} and archived) as plans_archived,
            (select count(*) from path_plans where company_id = ${companyId} and starred) as plans_starred,
            (select count(*) from path_plan_groups where company_id = ${companyId}) as plan_groups,
            (select coalesce(sum(area), 0) from boundaries where company_id = ${companyId} and active) as area_fields,
            (select coalesce(sum(area), 0) from path_plans where company_id = ${companyId} and not archived) as area_planned,
            (select count(*) from equipment where company_id = ${companyId}) as equipment,
            (select count(*) from operators where company_id = ${companyId}) as operators,
            (select count(*) from company_accesses where company_id = ${companyId}) as users,
            (select max(created_at) from company_events where company_id = ${companyId}) as last_change_at`),
      );
      const n = (k: string) => Number(r[k] ?? 0);
      const plans = n('plans');
      return {
        growers: n('growers'),
        farms: n('farms'),
        fields: {
          total: n('fields'),
          enabled: n('fields_enabled'),
          withActiveBoundary: n('fields_bounded'),
          withPlans: n('fields_planned'),
          awaitingPlan: n('fields_awaiting'),
        },
        boundaries: { total: n('boundaries'), active: n('boundaries_active') },
        pathPlans: {
          total: plans,
          active: plans - n('plans_archived'),
          archived: n('plans_archived'),
          starred: n('plans_starred'),
          groups: n('plan_groups'),
        },
        area: { fields: n('area_fields'), planned: n('area_planned') },
        equipment: n('equipment'),
        operators: n('operators'),
        users: n('users'),
        lastChangeAt: r.last_change_at ? new Date(r.last_change_at as string) : null,
      };
    },

    /** The fields changed last, with their active boundary's area and number of plans. */
    async recentFields(
      companyId: string,
      limit: number,
    ): Promise<
      {
        fieldId: string;
        name: string;
        updatedAt: Date;
        area: number | null;
        pathPlans: number;
        enabled: boolean;
      }[]
    > {
      const out = resultRows<{
        id: string;
        name: string;
        updated_at: Date | string;
        area: number | string | null;
        plans: number | string;
        enabled: boolean;
      }>(
        await db.execute(sql`
          select f.id, f.name, f.updated_at, f.enabled,
            (select b.area from boundaries b where b.field_id = f.id and b.active) as area,
            (select count(*) from path_plans p where p.field_id = f.id and not p.archived) as plans
          from fields f where f.company_id = ${companyId}
          order by f.updated_at desc, f.id desc limit ${limit}`),
      );
      return out.map((r) => ({
        fieldId: r.id,
        name: r.name,
        updatedAt: new Date(r.updated_at),
        area: r.area === null ? null : Number(r.area),
        pathPlans: Number(r.plans),
        enabled: r.enabled,
      }));
    },
  };
}

export type CompanyStatsRepository = ReturnType<typeof createCompanyStatsRepository>;
