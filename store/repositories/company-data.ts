/**
 * What a company holds, in one place: the counts of its summary, the
 * condition "holds nothing" used by company deletion, and purging.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';

/** Tables of company data, in deletion order (children first), with the name used in summaries. */
const DATA_TABLES: ReadonlyArray<{ table: string; name: string }> = [
  { table: 'shares', name: 'shares' },
  { table: 'export_batches', name: 'exportBatches' },
  { table: 'path_plans', name: 'pathPlans' },
  { table: 'path_plan_groups', name: 'pathPlanGroups' },
  { table: 'jobs', name: 'jobs' },
  { table: 'boundaries', name: 'boundaries' },
  { table: 'fields', name: 'fields' },
  { table: 'farms', name: 'farms' },
  { table: 'growers', name: 'growers' },
  { table: 'operators', name: 'operators' },
  { table: 'equipment', name: 'equipment' },
  { table: 'settings', name: 'settings' },
  { table: 'user_files', name: 'userFiles' },
  { table: 'user_labels', name: 'userLabels' },
];

export const companyCounts = {
  /** SQL true when the company `idExpr` holds no data. */
  emptyCondition(idExpr: SQL): SQL {
    if (DATA_TABLES.length === 0) return sql`true`;
    return sql.join(
      DATA_TABLES.map(
        (t) => sql`not exists (select 1 from ${sql.identifier(t.table)} d where d.company_id = ${idExpr})`,
      ),
      sql` and `,
    );
  },

  async of(db: Database, companyId: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const t of DATA_TABLES) {
      const r = await db.execute<{ n: number }>(
        sql`select count(*)::int as n from ${sql.identifier(t.table)} where company_id = ${companyId}`,
      );
      const rows = Array.isArray(r) ? r : ((r as { rows: { n: number }[] }).rows ?? []);
      out[t.name] = Number(rows[0]?.n ?? 0);
    }
    return out;
  },
};

export async function purgeCompanyData(db: Database, companyId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of DATA_TABLES) {
    const r = await db.execute<{ n: number }>(
      sql`with d as (delete from ${sql.identifier(t.table)} where company_id = ${companyId} returning 1) select count(*)::int as n from d`,
    );
    const rows = Array.isArray(r) ? r : ((r as { rows: { n: number }[] }).rows ?? []);
    out[t.name] = Number(rows[0]?.n ?? 0);
  }
  return out;
}
