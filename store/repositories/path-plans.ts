/**
 * Stored plans (the v2.0.0 normalized model as jsonb) and path plan groups.
 * Every read and write is scoped to the companies the user can access, in
 * the same statement. A plan made by a job is unique per job and boundary,
 * so a retried job item stores it at most once.
 */
import { and, asc, count, desc, eq, inArray, notExists, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { sumStats } from '../../core/metrics/compute-stats.ts';
import { figuresOf, type PlanFigures } from '../../formats/plan-figures.ts';
import { type PathPlanNormalizedModel, roundStats } from '../../formats/plan-model.ts';
import type { Database } from '../database.ts';
import { decodeModel, encodeModel } from '../plan-encoding.ts';
import { equipmentScenarioDetails, pathPlanGroups, pathPlans } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { accessibleTo } from './scope.ts';

/**
 * The sum of a double column that cannot overflow: summed as numeric (exact,
 * unbounded; a stored infinity counts as the cap) and capped at 1e300 before
 * it becomes a double again.
 */
const safeSum = (column: PgColumn) => sql<number>`least(coalesce(sum(${column}::numeric), 0), 1e300)::float8`;

export interface PathPlanRow {
  id: string;
  companyId: string;
  boundaryId: string | null;
  fieldId: string | null;
  jobId: string | null;
  groupId: string | null;
  name: string;
  operationType: string;
  area: number;
  numberOfTracks: number;
  traffickedArea: number;
  totalTime: number;
  archived: boolean;
  starred: boolean;
  rating: number | null;
  ratingComment: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface StoredPlan extends PathPlanRow {
  model: PathPlanNormalizedModel;
}

const rowColumns = {
  id: pathPlans.id,
  companyId: pathPlans.companyId,
  boundaryId: pathPlans.boundaryId,
  fieldId: pathPlans.fieldId,
  jobId: pathPlans.jobId,
  groupId: pathPlans.groupId,
  name: pathPlans.name,
  operationType: pathPlans.operationType,
  area: pathPlans.area,
  numberOfTracks: pathPlans.numberOfTracks,
  traffickedArea: pathPlans.traffickedArea,
  totalTime: pathPlans.totalTime,
  archived: pathPlans.archived,
  starred: pathPlans.starred,
  rating: pathPlans.rating,
  ratingComment: pathPlans.ratingComment,
  version: pathPlans.version,
  createdAt: pathPlans.createdAt,
  updatedAt: pathPlans.updatedAt,
};

export { figuresOf, type PlanFigures, wheelFootprintWidth } from '../../formats/plan-figures.ts';

/** The model of a row: the stored form, else the legacy jsonb. */
function modelOf(row: { model: unknown; modelZ: string | null }): PathPlanNormalizedModel {
  return row.modelZ !== null ? decodeModel(row.modelZ) : (row.model as PathPlanNormalizedModel);
}

function withModel<T extends { model: unknown; modelZ: string | null }>(
  row: T,
): Omit<T, 'model' | 'modelZ'> & { model: PathPlanNormalizedModel } {
  const { modelZ: _z, model: _m, ...rest } = row;
  return { ...rest, model: modelOf(row) };
}

const modelColumns = { model: pathPlans.model, modelZ: pathPlans.modelZ };

/** A plan made elsewhere (a planning thread) with its model already encoded. */
export interface EncodedPlan {
  id: string;
  companyId: string;
  boundaryId?: string | null;
  fieldId?: string | null;
  jobId?: string | null;
  name: string;
  operationType: string;
  /** store/plan-encoding.ts form of the model (whose pathPlanId is `id`). */
  modelZ: string;
  figures: PlanFigures;
}

export interface ListOptions {
  includeArchived?: boolean;
  /** Also the plans equipment scenarios made (their job_id is a scenario machine's id). */
  includeScenarioPlans?: boolean;
  offset?: number;
  limit?: number;
}

export function createPathPlansRepository(db: Database) {
  const visible = (userId: string) => accessibleTo(db, userId, pathPlans.companyId);

  return {
    /**
     * Stores a plan. With a jobId and boundaryId it is stored once per job and
     * boundary: a second insert for the same pair returns null.
     */
    async insert(input: {
      id?: string;
      companyId: string;
      boundaryId?: string | null;
      fieldId?: string | null;
      jobId?: string | null;
      model: PathPlanNormalizedModel;
    }): Promise<string | null> {
      const id = input.id ?? input.model.pathPlanId ?? uuidv7();
      const model = { ...input.model, pathPlanId: id };
      const rows = await db
        .insert(pathPlans)
        .values({
          id,
          companyId: input.companyId,
          boundaryId: input.boundaryId ?? null,
          fieldId: input.fieldId ?? null,
          jobId: input.jobId ?? null,
          name: model.pathPlanName,
          operationType: model.operationType ?? 'generic',
          modelZ: encodeModel(model),
          ...figuresOf(model),
        })
        .onConflictDoNothing()
        .returning({ id: pathPlans.id });
      return rows[0]?.id ?? null;
    },

    /** Stores plans whose models are already encoded, in one statement; returns the ids stored (a job's retried item stores none twice). */
    async insertEncoded(plans: readonly EncodedPlan[]): Promise<string[]> {
      if (plans.length === 0) return [];
      const rows = await db
        .insert(pathPlans)
        .values(
          plans.map((p) => ({
            id: p.id,
            companyId: p.companyId,
            boundaryId: p.boundaryId ?? null,
            fieldId: p.fieldId ?? null,
            jobId: p.jobId ?? null,
            name: p.name,
            operationType: p.operationType,
            modelZ: p.modelZ,
            ...p.figures,
          })),
        )
        .onConflictDoNothing()
        .returning({ id: pathPlans.id });
      return rows.map((r) => r.id);
    },

    /** Replaces the model of a plan the user can access (upsert of an existing id). */
    async replaceModel(userId: string, id: string, model: PathPlanNormalizedModel): Promise<boolean> {
      const m = { ...model, pathPlanId: id };
      const rows = await db
        .update(pathPlans)
        .set({
          model: null,
          modelZ: encodeModel(m),
          name: m.pathPlanName,
          operationType: m.operationType ?? 'generic',
          ...figuresOf(m),
          version: sql`${pathPlans.version} + 1`,
          updatedAt: sql`now()`,
        })
        .where(and(eq(pathPlans.id, id), visible(userId)))
        .returning({ id: pathPlans.id });
      return rows.length === 1;
    },

    /** Replaces the model only if the plan is still at `version` (no lost update); false otherwise. */
    async replaceModelIfVersion(
      userId: string,
      id: string,
      model: PathPlanNormalizedModel,
      version: number,
    ): Promise<boolean> {
      const rows = await db
        .update(pathPlans)
        .set({
          model: null,
          modelZ: encodeModel(model),
          ...figuresOf(model),
          version: sql`${pathPlans.version} + 1`,
          updatedAt: sql`now()`,
        })
        .where(and(eq(pathPlans.id, id), eq(pathPlans.version, version), visible(userId)))
        .returning({ id: pathPlans.id });
      return rows.length === 1;
    },

    /** As replaceModelIfVersion, for a plan of `companyId` (workers act for the company, not a user). */
    async replaceCompanyModelIfVersion(
      companyId: string,
      id: string,
      model: PathPlanNormalizedModel,
      version: number,
    ): Promise<boolean> {
      const rows = await db
        .update(pathPlans)
        .set({
          model: null,
          modelZ: encodeModel(model),
          ...figuresOf(model),
          version: sql`${pathPlans.version} + 1`,
          updatedAt: sql`now()`,
        })
        .where(and(eq(pathPlans.id, id), eq(pathPlans.version, version), eq(pathPlans.companyId, companyId)))
        .returning({ id: pathPlans.id });
      return rows.length === 1;
    },

    async get(userId: string, id: string): Promise<StoredPlan | null> {
      const [row] = await db
        .select({ ...rowColumns, ...modelColumns })
        .from(pathPlans)
        .where(and(eq(pathPlans.id, id), visible(userId)));
      return row ? (withModel(row) as StoredPlan) : null;
    },

    /** A plan by id without tenant scope (shares resolve the company themselves). */
    async getAny(id: string): Promise<StoredPlan | null> {
      const [row] = await db
        .select({ ...rowColumns, ...modelColumns })
        .from(pathPlans)
        .where(eq(pathPlans.id, id));
      return row ? (withModel(row) as StoredPlan) : null;
    },

    async row(userId: string, id: string): Promise<PathPlanRow | null> {
      const [row] = await db
        .select(rowColumns)
        .from(pathPlans)
        .where(and(eq(pathPlans.id, id), visible(userId)));
      return (row as PathPlanRow) ?? null;
    },

    /** Plans of the given ids the user can access, in the order asked (unknown ids left out). */
    async getMany(userId: string, ids: readonly string[]): Promise<StoredPlan[]> {
      if (ids.length === 0) return [];
      const rows = (
        await db
          .select({ ...rowColumns, ...modelColumns })
          .from(pathPlans)
          .where(and(inArray(pathPlans.id, [...ids]), visible(userId)))
      ).map((r) => withModel(r) as StoredPlan);
      const by = new Map(rows.map((r) => [r.id, r]));
      return ids.flatMap((id) => (by.has(id) ? [by.get(id)!] : []));
    },

    /** Rows (no model) of the given ids the user can access. */
    async getManyRows(userId: string, ids: readonly string[]): Promise<PathPlanRow[]> {
      if (ids.length === 0) return [];
      return (await db
        .select(rowColumns)
        .from(pathPlans)
        .where(and(inArray(pathPlans.id, [...ids]), visible(userId)))) as PathPlanRow[];
    },

    /** Plans of a field or boundary, newest first. */
    async list(
      userId: string,
      where: { fieldId?: string; boundaryId?: string; groupId?: string },
      opts: ListOptions = {},
    ): Promise<{ items: PathPlanRow[]; total: number }> {
      const cond = and(
        visible(userId),
        where.fieldId ? eq(pathPlans.fieldId, where.fieldId) : undefined,
        where.boundaryId ? eq(pathPlans.boundaryId, where.boundaryId) : undefined,
        where.groupId ? eq(pathPlans.groupId, where.groupId) : undefined,
        opts.includeArchived ? undefined : eq(pathPlans.archived, false),
        opts.includeScenarioPlans
          ? undefined
          : notExists(
              db
                .select({ one: sql`1` })
                .from(equipmentScenarioDetails)
                .where(eq(equipmentScenarioDetails.id, pathPlans.jobId)),
            ),
      );
      const [{ total }] = await db.select({ total: count() }).from(pathPlans).where(cond);
      const items = (await db
        .select(rowColumns)
        .from(pathPlans)
        .where(cond)
        .orderBy(desc(pathPlans.createdAt), desc(pathPlans.id))
        .offset(opts.offset ?? 0)
        .limit(opts.limit ?? 1000)) as PathPlanRow[];
      return { items, total };
    },

    /** Full models of a field's plans, newest first. */
    async listModels(userId: string, fieldId: string, opts: ListOptions = {}): Promise<StoredPlan[]> {
      const rows = await db
        .select({ ...rowColumns, ...modelColumns })
        .from(pathPlans)
        .where(
          and(
            visible(userId),
            eq(pathPlans.fieldId, fieldId),
            opts.includeArchived ? undefined : eq(pathPlans.archived, false),
          ),
        )
        .orderBy(desc(pathPlans.createdAt), desc(pathPlans.id))
        .offset(opts.offset ?? 0)
        .limit(opts.limit ?? 100);
      return rows.map((r) => withModel(r) as StoredPlan);
    },

    /** Sets flags of the user's plans among `ids`; returns the ids changed. */
    async update(
      userId: string,
      ids: readonly string[],
      set: Partial<{
        archived: boolean;
        starred: boolean;
        rating: number | null;
        ratingComment: string | null;
        groupId: string | null;
      }>,
    ): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .update(pathPlans)
        .set({ ...set, version: sql`${pathPlans.version} + 1`, updatedAt: sql`now()` })
        .where(and(inArray(pathPlans.id, [...ids]), visible(userId)))
        .returning({ id: pathPlans.id });
      return rows.map((r) => r.id);
    },

    async remove(userId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(pathPlans)
        .where(and(eq(pathPlans.id, id), visible(userId)))
        .returning({ id: pathPlans.id });
      return rows.length === 1;
    },

    /**
     * Makes a geometry group the active group of its zone (spec 3): the zone
     * and group must belong to the plan. Locks the row, so concurrent switches
     * serialise. 'no-zone' / 'no-group' when they do not exist.
     */
    async setActive(
      userId: string,
      zoneId: string,
      groupId: string,
    ): Promise<{ ok: true; model: PathPlanNormalizedModel } | { ok: false; reason: 'no-zone' | 'no-group' }> {
      const planId = zoneId.replace(/-z\d+$/, '');
      if (planId === zoneId) return { ok: false, reason: 'no-zone' };
      return db.transaction(async (tx) => {
        const [row] = await tx
          .select(modelColumns)
          .from(pathPlans)
          .where(
            and(
              eq(pathPlans.id, planId),
              accessibleTo(tx as unknown as Database, userId, pathPlans.companyId),
            ),
          )
          .for('update');
        if (!row) return { ok: false, reason: 'no-zone' } as const;
        const model = modelOf(row);
        const zone = model.zones.find((z) => z.zoneId === zoneId);
        if (!zone) return { ok: false, reason: 'no-zone' } as const;
        const group = zone.geometryGroups.find((g) => g.geometryGroupId === groupId);
        if (!group) return { ok: false, reason: 'no-group' } as const;
        for (const g of zone.geometryGroups) g.isActive = g === group;
        zone.activeGeometryGroupId = groupId;
        zone.stats = group.stats;
        // The plan's figures are those of the active groups of all zones.
        model.stats = roundStats(sumStats(model.zones.map((z) => z.stats)));
        model.numberOfTracks = model.stats.trackCount;
        const figures = figuresOf(model);
        await tx
          .update(pathPlans)
          .set({
            model: null,
            modelZ: encodeModel(model),
            ...figures,
            version: sql`${pathPlans.version} + 1`,
            updatedAt: sql`now()`,
          })
          .where(eq(pathPlans.id, planId));
        return { ok: true, model } as const;
      });
    },

    // ---- path plan groups ----

    async createGroup(
      companyId: string,
      name: string,
    ): Promise<{ id: string; name: string; createdAt: Date }> {
      const [g] = await db
        .insert(pathPlanGroups)
        .values({ id: uuidv7(), companyId, name })
        .returning({ id: pathPlanGroups.id, name: pathPlanGroups.name, createdAt: pathPlanGroups.createdAt });
      return g;
    },

    async getGroup(userId: string, id: string) {
      const [g] = await db
        .select()
        .from(pathPlanGroups)
        .where(and(eq(pathPlanGroups.id, id), accessibleTo(db, userId, pathPlanGroups.companyId)));
      return g ?? null;
    },

    async deleteGroup(userId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(pathPlanGroups)
        .where(and(eq(pathPlanGroups.id, id), accessibleTo(db, userId, pathPlanGroups.companyId)))
        .returning({ id: pathPlanGroups.id });
      return rows.length === 1;
    },

    async groupNames(companyId: string) {
      return db
        .select({ pathPlanGroupId: pathPlanGroups.id, name: pathPlanGroups.name })
        .from(pathPlanGroups)
        .where(eq(pathPlanGroups.companyId, companyId))
        .orderBy(asc(pathPlanGroups.name), asc(pathPlanGroups.id));
    },

    /** Per group of a company: plan count, total trafficked area [m^2] and total time [s] (archived plans left out). */
    async groupSummary(companyId: string, groupIds?: readonly string[]) {
      return db
        .select({
          pathPlanGroupId: pathPlanGroups.id,
          name: pathPlanGroups.name,
          planCount: sql<number>`count(${pathPlans.id})::int`,
          totalArea: safeSum(pathPlans.area),
          totalTraffickedArea: safeSum(pathPlans.traffickedArea),
          totalTime: safeSum(pathPlans.totalTime),
        })
        .from(pathPlanGroups)
        .leftJoin(pathPlans, and(eq(pathPlans.groupId, pathPlanGroups.id), eq(pathPlans.archived, false)))
        .where(
          and(
            eq(pathPlanGroups.companyId, companyId),
            groupIds?.length ? inArray(pathPlanGroups.id, [...groupIds]) : undefined,
          ),
        )
        .groupBy(pathPlanGroups.id, pathPlanGroups.name)
        .orderBy(asc(pathPlanGroups.name), asc(pathPlanGroups.id));
    },

    /** Plans of a group (ids). */
    async groupPlanIds(groupId: string): Promise<string[]> {
      const rows = await db
        .select({ id: pathPlans.id })
        .from(pathPlans)
        .where(eq(pathPlans.groupId, groupId))
        .orderBy(asc(pathPlans.createdAt));
      return rows.map((r) => r.id);
    },

    /** Puts plans of the group's company into the group; returns the ids moved. */
    async addToGroup(groupId: string, companyId: string, ids: readonly string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .update(pathPlans)
        .set({ groupId, updatedAt: sql`now()` })
        .where(and(inArray(pathPlans.id, [...ids]), eq(pathPlans.companyId, companyId)))
        .returning({ id: pathPlans.id });
      return rows.map((r) => r.id);
    },

    async removeFromGroup(groupId: string, ids: readonly string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .update(pathPlans)
        .set({ groupId: null, updatedAt: sql`now()` })
        .where(and(inArray(pathPlans.id, [...ids]), eq(pathPlans.groupId, groupId)))
        .returning({ id: pathPlans.id });
      return rows.map((r) => r.id);
    },

    async deleteGroupPlans(groupId: string, ids: readonly string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .delete(pathPlans)
        .where(and(inArray(pathPlans.id, [...ids]), eq(pathPlans.groupId, groupId)))
        .returning({ id: pathPlans.id });
      return rows.map((r) => r.id);
    },

    /** Plans of a company stored under the given job ids (for a job whose access the caller checked). */
    async byJobs(companyId: string, jobIds: readonly string[]): Promise<StoredPlan[]> {
      if (jobIds.length === 0) return [];
      return (
        await db
          .select({ ...rowColumns, ...modelColumns })
          .from(pathPlans)
          .where(and(eq(pathPlans.companyId, companyId), inArray(pathPlans.jobId, [...jobIds])))
      ).map((r) => withModel(r) as StoredPlan);
    },

    /** Counts plans of a job (used to check that no item stored twice). */
    async countByJob(jobId: string): Promise<number> {
      const [r] = await db.select({ n: count() }).from(pathPlans).where(eq(pathPlans.jobId, jobId));
      return r?.n ?? 0;
    },
  };
}
