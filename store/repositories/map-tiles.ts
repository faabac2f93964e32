/**
 * What the map tiles of a company are made from: its fields with their
 * active boundaries, its path plans' active geometry, a fingerprint of both
 * (which changes with any change of them), and the enabled switch of fields.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { PathPlanNormalizedModel } from '../../formats/plan-model.ts';
import type { Database } from '../database.ts';
import { decodeModel } from '../plan-encoding.ts';
import { boundaries, farms, fields, growers, pathPlans } from '../schema.ts';

export interface TileField {
  fieldId: string;
  name: string;
  farmId: string;
  growerId: string;
  enabled: boolean;
  /** Area of the active boundary [m²]. */
  area: number;
  rings: number[][][];
}

export interface TilePlan {
  pathPlanId: string;
  name: string;
  fieldId: string | null;
  boundaryId: string | null;
  archived: boolean;
  model: PathPlanNormalizedModel;
}

const rowsOf = <T>(r: unknown): T[] => (Array.isArray(r) ? r : ((r as { rows?: T[] }).rows ?? []));

/**
 * A digest of a company's rows: row count, sum of versions and newest
 * change. Every write of these tables bumps `version` and `updated_at`, so
 * an insert, update (also of a flag) or delete changes it; an aggregate
 * over the company index is some 6x cheaper than hashing the rows.
 */
const digest = (table: string) =>
  sql.raw(
    `(select count(*)::text || ':' || coalesce(sum(version), 0)::text || ':' || coalesce(max(updated_at)::text, '') from ${table} where company_id = `,
  );

export function createMapTilesRepository(db: Database) {
  return {
    /** Changes whenever a field, boundary or (with `plans`) a path plan of the company does. */
    async fingerprint(companyId: string, of: 'fields' | 'plans'): Promise<string> {
      const q =
        of === 'fields'
          ? sql`select ${digest('fields')}${companyId}) || '/' || ${digest('boundaries')}${companyId}) as f`
          : sql`select ${digest('path_plans')}${companyId}) as f`;
      const [row] = rowsOf<{ f: string }>(await db.execute(q));
      return row.f;
    },

    /** Fields of the company that have an active boundary. */
    async fields(companyId: string): Promise<TileField[]> {
      return db
        .select({
          fieldId: fields.id,
          name: fields.name,
          farmId: fields.farmId,
          growerId: farms.growerId,
          enabled: fields.enabled,
          area: boundaries.area,
          rings: boundaries.rings,
        })
        .from(fields)
        .innerJoin(farms, eq(farms.id, fields.farmId))
        .innerJoin(boundaries, and(eq(boundaries.fieldId, fields.id), eq(boundaries.active, true)))
        .where(eq(fields.companyId, companyId));
    },

    /** The field's tile data when it is the company's and has an active boundary; null when not the company's; 'no-boundary' otherwise. */
    async field(companyId: string, fieldId: string): Promise<TileField | 'no-boundary' | null> {
      const [f] = await db
        .select({ id: fields.id })
        .from(fields)
        .where(and(eq(fields.id, fieldId), eq(fields.companyId, companyId)));
      if (!f) return null;
      const [row] = await db
        .select({
          fieldId: fields.id,
          name: fields.name,
          farmId: fields.farmId,
          growerId: farms.growerId,
          enabled: fields.enabled,
          area: boundaries.area,
          rings: boundaries.rings,
        })
        .from(fields)
        .innerJoin(farms, eq(farms.id, fields.farmId))
        .innerJoin(boundaries, and(eq(boundaries.fieldId, fields.id), eq(boundaries.active, true)))
        .where(eq(fields.id, fieldId));
      return row ?? 'no-boundary';
    },

    /** Of the ids given, those that are not the company's (empty: all are). */
    async foreignIds(
      companyId: string,
      ids: { fieldIds?: string[]; farmIds?: string[]; growerIds?: string[]; pathPlanIds?: string[] },
    ): Promise<string[]> {
      const out: string[] = [];
      const tables = [
        [ids.fieldIds, fields],
        [ids.farmIds, farms],
        [ids.growerIds, growers],
        [ids.pathPlanIds, pathPlans],
      ] as const;
      for (const [list, table] of tables) {
        if (!list || list.length === 0) continue;
        const wanted = [...new Set(list)];
        const found = await db
          .select({ id: table.id })
          .from(table)
          .where(and(eq(table.companyId, companyId), inArray(table.id, wanted)));
        const known = new Set(found.map((r) => r.id));
        out.push(...wanted.filter((id) => !known.has(id)));
      }
      return out;
    },

    /** The company's path plans with their models. */
    async plans(companyId: string): Promise<TilePlan[]> {
      const rows = await db
        .select({
          pathPlanId: pathPlans.id,
          name: pathPlans.name,
          fieldId: pathPlans.fieldId,
          boundaryId: pathPlans.boundaryId,
          archived: pathPlans.archived,
          model: pathPlans.model,
          modelZ: pathPlans.modelZ,
        })
        .from(pathPlans)
        .where(eq(pathPlans.companyId, companyId));
      return rows.map(({ model, modelZ, ...r }) => ({
        ...r,
        model: modelZ !== null ? decodeModel(modelZ) : (model as PathPlanNormalizedModel),
      }));
    },

    /**
     * Sets `enabled` on the fields (all of the company's, or none: the ids
     * not the company's are answered and nothing changes). Fields already in
     * that state are left as they are (no new version).
     */
    async setEnabled(
      companyId: string,
      fieldIds: readonly string[],
      enabled: boolean,
    ): Promise<{ ok: true; changed: string[] } | { ok: false; unknown: string[] }> {
      return db.transaction(async (tx) => {
        const ids = [...new Set(fieldIds)];
        const found = await tx
          .select({ id: fields.id })
          .from(fields)
          .where(and(eq(fields.companyId, companyId), inArray(fields.id, ids)));
        const known = new Set(found.map((r) => r.id));
        const unknown = ids.filter((id) => !known.has(id));
        if (unknown.length > 0) return { ok: false as const, unknown };
        const changed = await tx
          .update(fields)
          .set({ enabled, version: sql`${fields.version} + 1`, updatedAt: sql`now()` })
          .where(
            and(
              eq(fields.companyId, companyId),
              inArray(fields.id, ids),
              sql`${fields.enabled} <> ${enabled}`,
            ),
          )
          .returning({ id: fields.id });
        return { ok: true as const, changed: changed.map((r) => r.id) };
      });
    },
  };
}

export type MapTilesRepository = ReturnType<typeof createMapTilesRepository>;
