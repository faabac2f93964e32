/**
 * What plan summaries read: a company's plans with their place in the
 * hierarchy (grower, farm, field), their crop season and their models. The
 * crop season is the `cropSeason` descriptor of the plan, else of its field,
 * else the year the plan was made.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { PathPlanNormalizedModel } from '../../formats/plan-model.ts';
import type { Database } from '../database.ts';
import { decodeModel } from '../plan-encoding.ts';
import { descriptors, farms, fields, growers, pathPlans } from '../schema.ts';

/** The descriptor naming a plan's or field's crop season. */
export const CROP_SEASON_DESCRIPTOR = 'cropSeason';

export interface SummaryPlan {
  pathPlanId: string;
  season: string;
  growerId: string | null;
  growerName: string | null;
  farmId: string | null;
  farmName: string | null;
  model: PathPlanNormalizedModel;
}

export function createPlanSummariesRepository(db: Database) {
  return {
    /** The company's plans (the caller checked access), optionally narrowed. */
    async plans(
      companyId: string,
      f: { growerIds?: string[]; farmIds?: string[]; fieldIds?: string[]; includeArchived?: boolean },
    ): Promise<SummaryPlan[]> {
      const rows = await db
        .select({
          id: pathPlans.id,
          fieldId: pathPlans.fieldId,
          createdAt: pathPlans.createdAt,
          model: pathPlans.model,
          modelZ: pathPlans.modelZ,
          growerId: growers.id,
          growerName: growers.name,
          farmId: farms.id,
          farmName: farms.name,
        })
        .from(pathPlans)
        .leftJoin(fields, eq(fields.id, pathPlans.fieldId))
        .leftJoin(farms, eq(farms.id, fields.farmId))
        .leftJoin(growers, eq(growers.id, farms.growerId))
        .where(
          and(
            eq(pathPlans.companyId, companyId),
            f.includeArchived ? undefined : eq(pathPlans.archived, false),
            f.growerIds?.length ? inArray(growers.id, f.growerIds) : undefined,
            f.farmIds?.length ? inArray(farms.id, f.farmIds) : undefined,
            f.fieldIds?.length ? inArray(pathPlans.fieldId, f.fieldIds) : undefined,
          ),
        );
      const seasons = await db
        .select({
          objectId: descriptors.objectId,
          objectType: descriptors.objectType,
          value: descriptors.value,
        })
        .from(descriptors)
        .where(
          and(
            eq(descriptors.companyId, companyId),
            inArray(descriptors.objectType, ['pathPlan', 'field']),
            sql`lower(${descriptors.name}) = lower(${CROP_SEASON_DESCRIPTOR})`,
          ),
        );
      const seasonOf = new Map(seasons.map((s) => [`${s.objectType}:${s.objectId}`, String(s.value)]));
      return rows.map((r) => ({
        pathPlanId: r.id,
        season:
          seasonOf.get(`pathPlan:${r.id}`) ??
          (r.fieldId ? seasonOf.get(`field:${r.fieldId}`) : undefined) ??
          String(r.createdAt.getUTCFullYear()),
        growerId: r.growerId,
        growerName: r.growerName,
        farmId: r.farmId,
        farmName: r.farmName,
        model: r.modelZ !== null ? decodeModel(r.modelZ) : (r.model as PathPlanNormalizedModel),
      }));
    },
  };
}
