/**
 * The field hierarchy under a company: growers, farms, fields and their
 * boundaries. Every read and write by id is scoped to the companies the
 * user can access in the same statement (`accessibleTo`), so another
 * company's ids find nothing. Updates and deletes take an optional expected
 * version (If-Match) and apply only at that version.
 */
import { and, asc, desc, eq, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../database.ts';
import { boundaries, farms, fields, growers } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { accessibleTo, type WriteOutcome } from './scope.ts';
import { atVersion, type ExpectedVersion, versionMatches } from './versions.ts';

export interface GrowerRecord {
  growerId: string;
  companyId: string;
  name: string;
  source: string;
  archived: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface FarmRecord extends GrowerRecord {
  farmId: string;
}

export interface FieldRecord {
  fieldId: string;
  farmId: string;
  growerId: string;
  companyId: string;
  name: string;
  /** The active boundary, if any. */
  activeBoundaryId: string | null;
  /** Area of the active boundary [m²], 0 without one. */
  area: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface BoundaryRecord {
  boundaryId: string;
  fieldId: string;
  farmId: string;
  growerId: string;
  companyId: string;
  fieldName: string;
  name: string | null;
  /** WGS84 [lon, lat] rings, exterior first, closed. */
  rings: number[][][];
  /** [m²] */
  area: number;
  active: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What the hierarchy below a grower, farm or field holds. */
export interface Contents {
  farms: number;
  fields: number;
  boundaries: number;
}

export type DeleteOutcome = WriteOutcome<true> | { ok: false; reason: 'not-empty'; contents: Contents };

export interface NamedRecordInput {
  name: string;
  source?: string;
  archived?: boolean;
}

const growerColumns = {
  growerId: growers.id,
  companyId: growers.companyId,
  name: growers.name,
  source: growers.source,
  archived: growers.archived,
  version: growers.version,
  createdAt: growers.createdAt,
  updatedAt: growers.updatedAt,
};

const farmColumns = {
  farmId: farms.id,
  growerId: farms.growerId,
  companyId: farms.companyId,
  name: farms.name,
  source: farms.source,
  archived: farms.archived,
  version: farms.version,
  createdAt: farms.createdAt,
  updatedAt: farms.updatedAt,
};

const fieldColumns = {
  fieldId: fields.id,
  farmId: fields.farmId,
  growerId: farms.growerId,
  companyId: fields.companyId,
  name: fields.name,
  activeBoundaryId: boundaries.id,
  area: sql<number>`coalesce(${boundaries.area}, 0)`.mapWith(Number),
  version: fields.version,
  createdAt: fields.createdAt,
  updatedAt: fields.updatedAt,
};

const boundaryColumns = {
  boundaryId: boundaries.id,
  fieldId: boundaries.fieldId,
  farmId: fields.farmId,
  growerId: farms.growerId,
  companyId: boundaries.companyId,
  fieldName: fields.name,
  name: boundaries.name,
  rings: boundaries.rings,
  area: boundaries.area,
  active: boundaries.active,
  version: boundaries.version,
  createdAt: boundaries.createdAt,
  updatedAt: boundaries.updatedAt,
};

const bump = (version: PgColumn) => ({ version: sql`${version} + 1`, updatedAt: sql`now()` });

export function createHierarchyRepository(db: Database) {
  // ---- reads ---------------------------------------------------------------

  const fieldQuery = () =>
    db
      .select(fieldColumns)
      .from(fields)
      .innerJoin(farms, eq(farms.id, fields.farmId))
      .leftJoin(boundaries, and(eq(boundaries.fieldId, fields.id), eq(boundaries.active, true)));

  const boundaryQuery = () =>
    db
      .select(boundaryColumns)
      .from(boundaries)
      .innerJoin(fields, eq(fields.id, boundaries.fieldId))
      .innerJoin(farms, eq(farms.id, fields.farmId));

  const getGrower = async (userId: string, growerId: string): Promise<GrowerRecord | null> => {
    const [row] = await db
      .select(growerColumns)
      .from(growers)
      .where(and(eq(growers.id, growerId), accessibleTo(db, userId, growers.companyId)));
    return row ?? null;
  };

  const getFarm = async (userId: string, farmId: string): Promise<FarmRecord | null> => {
    const [row] = await db
      .select(farmColumns)
      .from(farms)
      .where(and(eq(farms.id, farmId), accessibleTo(db, userId, farms.companyId)));
    return row ?? null;
  };

  const getField = async (userId: string, fieldId: string): Promise<FieldRecord | null> => {
    const [row] = await fieldQuery().where(
      and(eq(fields.id, fieldId), accessibleTo(db, userId, fields.companyId)),
    );
    return row ?? null;
  };

  const getBoundary = async (userId: string, boundaryId: string): Promise<BoundaryRecord | null> => {
    const [row] = await boundaryQuery().where(
      and(eq(boundaries.id, boundaryId), accessibleTo(db, userId, boundaries.companyId)),
    );
    return row ?? null;
  };

  const countWhere = async (sqlText: SQL): Promise<number> => {
    const r = await db.execute<{ n: number }>(sqlText);
    const rows = Array.isArray(r) ? r : ((r as { rows: { n: number }[] }).rows ?? []);
    return Number(rows[0]?.n ?? 0);
  };

  const contentsOfGrower = async (growerId: string): Promise<Contents> => ({
    farms: await countWhere(sql`select count(*)::int as n from ${farms} where grower_id = ${growerId}`),
    fields: await countWhere(
      sql`select count(*)::int as n from ${fields} f join ${farms} fa on fa.id = f.farm_id where fa.grower_id = ${growerId}`,
    ),
    boundaries: await countWhere(
      sql`select count(*)::int as n from ${boundaries} b join ${fields} f on f.id = b.field_id join ${farms} fa on fa.id = f.farm_id where fa.grower_id = ${growerId}`,
    ),
  });

  const contentsOfFarm = async (farmId: string): Promise<Contents> => ({
    farms: 0,
    fields: await countWhere(sql`select count(*)::int as n from ${fields} where farm_id = ${farmId}`),
    boundaries: await countWhere(
      sql`select count(*)::int as n from ${boundaries} b join ${fields} f on f.id = b.field_id where f.farm_id = ${farmId}`,
    ),
  });

  /** Makes `boundaryId` the active boundary of `fieldId` (the caller holds the field's row lock). */
  const setActive = async (fieldId: string, boundaryId: string): Promise<void> => {
    await db
      .update(boundaries)
      .set({ active: false, ...bump(boundaries.version) })
      .where(
        and(eq(boundaries.fieldId, fieldId), eq(boundaries.active, true), ne(boundaries.id, boundaryId)),
      );
    await db
      .update(boundaries)
      .set({ active: true, ...bump(boundaries.version) })
      .where(and(eq(boundaries.id, boundaryId), eq(boundaries.active, false)));
    await db.update(fields).set(bump(fields.version)).where(eq(fields.id, fieldId));
  };

  /** Serializes changes of one field's boundaries (which one is active). */
  const lockField = async (fieldId: string): Promise<void> => {
    await db.execute(sql`select id from ${fields} where id = ${fieldId} for update`);
  };

  return {
    // ---- growers -----------------------------------------------------------

    getGrower,

    async createGrower(companyId: string, input: NamedRecordInput): Promise<GrowerRecord> {
      const [row] = await db
        .insert(growers)
        .values({
          id: uuidv7(),
          companyId,
          name: input.name,
          source: input.source ?? 'api',
          archived: input.archived ?? false,
        })
        .returning(growerColumns);
      return row;
    },

    async listGrowers(companyId: string, opts: { archived?: boolean } = {}): Promise<GrowerRecord[]> {
      return db
        .select(growerColumns)
        .from(growers)
        .where(
          and(
            eq(growers.companyId, companyId),
            opts.archived === undefined ? undefined : eq(growers.archived, opts.archived),
          ),
        )
        .orderBy(asc(growers.name), asc(growers.id));
    },

    async updateGrower(
      userId: string,
      growerId: string,
      patch: Partial<NamedRecordInput>,
      expectedVersion?: ExpectedVersion,
    ): Promise<WriteOutcome<GrowerRecord>> {
      const [row] = await db
        .update(growers)
        .set({ ...patch, ...bump(growers.version) })
        .where(
          and(
            eq(growers.id, growerId),
            accessibleTo(db, userId, growers.companyId),
            atVersion(growers.version, expectedVersion),
          ),
        )
        .returning(growerColumns);
      if (row) return { ok: true, value: row };
      return { ok: false, reason: (await getGrower(userId, growerId)) ? 'stale' : 'not-found' };
    },

    /** Deletes a grower; with farms only when `cascade` (everything under it goes too). */
    async deleteGrower(
      userId: string,
      growerId: string,
      opts: { expectedVersion?: ExpectedVersion; cascade?: boolean } = {},
    ): Promise<DeleteOutcome> {
      const [row] = await db
        .delete(growers)
        .where(
          and(
            eq(growers.id, growerId),
            accessibleTo(db, userId, growers.companyId),
            atVersion(growers.version, opts.expectedVersion),
            opts.cascade
              ? undefined
              : sql`not exists (select 1 from ${farms} where grower_id = ${growers.id})`,
          ),
        )
        .returning({ id: growers.id });
      if (row) return { ok: true, value: true };
      const now = await getGrower(userId, growerId);
      if (!now) return { ok: false, reason: 'not-found' };
      if (!versionMatches(opts.expectedVersion, now.version)) return { ok: false, reason: 'stale' };
      return { ok: false, reason: 'not-empty', contents: await contentsOfGrower(growerId) };
    },

    contentsOfGrower,

    // ---- farms -------------------------------------------------------------

    getFarm,

    async createFarm(grower: GrowerRecord, input: NamedRecordInput): Promise<FarmRecord> {
      const [row] = await db
        .insert(farms)
        .values({
          id: uuidv7(),
          companyId: grower.companyId,
          growerId: grower.growerId,
          name: input.name,
          source: input.source ?? 'api',
          archived: input.archived ?? false,
        })
        .returning(farmColumns);
      return row;
    },

    async listFarms(where: { growerId: string } | { companyId: string }): Promise<FarmRecord[]> {
      return db
        .select(farmColumns)
        .from(farms)
        .where(
          'growerId' in where ? eq(farms.growerId, where.growerId) : eq(farms.companyId, where.companyId),
        )
        .orderBy(asc(farms.name), asc(farms.id));
    },

    async updateFarm(
      userId: string,
      farmId: string,
      patch: Partial<NamedRecordInput>,
      expectedVersion?: ExpectedVersion,
    ): Promise<WriteOutcome<FarmRecord>> {
      const [row] = await db
        .update(farms)
        .set({ ...patch, ...bump(farms.version) })
        .where(
          and(
            eq(farms.id, farmId),
            accessibleTo(db, userId, farms.companyId),
            atVersion(farms.version, expectedVersion),
          ),
        )
        .returning(farmColumns);
      if (row) return { ok: true, value: row };
      return { ok: false, reason: (await getFarm(userId, farmId)) ? 'stale' : 'not-found' };
    },

    /** Deletes a farm; with fields only when `cascade`. */
    async deleteFarm(
      userId: string,
      farmId: string,
      opts: { expectedVersion?: ExpectedVersion; cascade?: boolean } = {},
    ): Promise<DeleteOutcome> {
      const [row] = await db
        .delete(farms)
        .where(
          and(
            eq(farms.id, farmId),
            accessibleTo(db, userId, farms.companyId),
            atVersion(farms.version, opts.expectedVersion),
            opts.cascade ? undefined : sql`not exists (select 1 from ${fields} where farm_id = ${farms.id})`,
          ),
        )
        .returning({ id: farms.id });
      if (row) return { ok: true, value: true };
      const now = await getFarm(userId, farmId);
      if (!now) return { ok: false, reason: 'not-found' };
      if (!versionMatches(opts.expectedVersion, now.version)) return { ok: false, reason: 'stale' };
      return { ok: false, reason: 'not-empty', contents: await contentsOfFarm(farmId) };
    },

    contentsOfFarm,

    // ---- fields ------------------------------------------------------------

    getField,

    /** A new field of the farm with its first boundary (active); run in a transaction. */
    async createField(
      farm: FarmRecord,
      input: { name: string; boundary: { name?: string | null; rings: number[][][]; area: number } },
    ): Promise<{ field: FieldRecord; boundary: BoundaryRecord }> {
      const fieldId = uuidv7();
      const boundaryId = uuidv7();
      await db
        .insert(fields)
        .values({ id: fieldId, companyId: farm.companyId, farmId: farm.farmId, name: input.name });
      await db.insert(boundaries).values({
        id: boundaryId,
        companyId: farm.companyId,
        fieldId,
        name: input.boundary.name ?? null,
        rings: input.boundary.rings,
        area: input.boundary.area,
        active: true,
      });
      const [field] = await fieldQuery().where(eq(fields.id, fieldId));
      const [boundary] = await boundaryQuery().where(eq(boundaries.id, boundaryId));
      return { field, boundary };
    },

    /** Fields of a farm, a grower or a company (the caller checked access to it). */
    async listFields(
      where: { farmId: string } | { growerId: string } | { companyId: string },
    ): Promise<FieldRecord[]> {
      const cond =
        'farmId' in where
          ? eq(fields.farmId, where.farmId)
          : 'growerId' in where
            ? eq(farms.growerId, where.growerId)
            : eq(fields.companyId, where.companyId);
      return fieldQuery().where(cond).orderBy(asc(fields.name), asc(fields.id));
    },

    /** Renames a field or moves it to another farm of the same company. */
    async updateField(
      userId: string,
      fieldId: string,
      patch: { name?: string; farmId?: string },
      expectedVersion?: ExpectedVersion,
    ): Promise<WriteOutcome<FieldRecord>> {
      const [row] = await db
        .update(fields)
        .set({ ...patch, ...bump(fields.version) })
        .where(
          and(
            eq(fields.id, fieldId),
            accessibleTo(db, userId, fields.companyId),
            atVersion(fields.version, expectedVersion),
          ),
        )
        .returning({ id: fields.id });
      if (row) return { ok: true, value: (await getField(userId, fieldId))! };
      return { ok: false, reason: (await getField(userId, fieldId)) ? 'stale' : 'not-found' };
    },

    /** Deletes a field with all its boundaries. */
    async deleteField(
      userId: string,
      fieldId: string,
      expectedVersion?: ExpectedVersion,
    ): Promise<WriteOutcome<true>> {
      const [row] = await db
        .delete(fields)
        .where(
          and(
            eq(fields.id, fieldId),
            accessibleTo(db, userId, fields.companyId),
            atVersion(fields.version, expectedVersion),
          ),
        )
        .returning({ id: fields.id });
      if (row) return { ok: true, value: true };
      return { ok: false, reason: (await getField(userId, fieldId)) ? 'stale' : 'not-found' };
    },

    // ---- boundaries --------------------------------------------------------

    getBoundary,

    /**
     * A boundary of any company the user can access, or null. For code that
     * acts on a stored boundary on a user's behalf (plans, jobs, the planning view).
     */
    forUser: getBoundary,

    /**
     * A boundary of the company as planning needs it (named after the
     * boundary, else its field), or null when the company holds no such boundary.
     */
    async forCompany(
      companyId: string,
      boundaryId: string,
    ): Promise<{
      boundaryId: string;
      fieldId: string;
      name: string;
      geometry: { type: 'Polygon'; coordinates: number[][][] };
    } | null> {
      const [row] = await boundaryQuery().where(
        and(eq(boundaries.id, boundaryId), eq(boundaries.companyId, companyId)),
      );
      if (!row) return null;
      return {
        boundaryId: row.boundaryId,
        fieldId: row.fieldId,
        name: row.name || row.fieldName,
        geometry: { type: 'Polygon', coordinates: row.rings },
      };
    },

    /**
     * The grower, farm and field names of fields of the company (what exports
     * name a plan's place), by field id; other companies' fields are absent.
     */
    async namesOfFields(
      companyId: string,
      fieldIds: readonly string[],
    ): Promise<Map<string, { grower: string; farm: string; field: string }>> {
      const out = new Map<string, { grower: string; farm: string; field: string }>();
      if (fieldIds.length === 0) return out;
      const rows = await db
        .select({ fieldId: fields.id, field: fields.name, farm: farms.name, grower: growers.name })
        .from(fields)
        .innerJoin(farms, eq(farms.id, fields.farmId))
        .innerJoin(growers, eq(growers.id, farms.growerId))
        .where(and(inArray(fields.id, [...new Set(fieldIds)]), eq(fields.companyId, companyId)));
      for (const r of rows) out.set(r.fieldId, { grower: r.grower, farm: r.farm, field: r.field });
      return out;
    },

    /** A farm of the company, for work done on its behalf (jobs); null when it holds no such farm. */
    async farmOfCompany(companyId: string, farmId: string): Promise<FarmRecord | null> {
      const [row] = await db
        .select(farmColumns)
        .from(farms)
        .where(and(eq(farms.id, farmId), eq(farms.companyId, companyId)));
      return row ?? null;
    },

    /** A field of the company, for work done on its behalf (jobs); null when it holds no such field. */
    async fieldOfCompany(companyId: string, fieldId: string): Promise<FieldRecord | null> {
      const [row] = await fieldQuery().where(and(eq(fields.id, fieldId), eq(fields.companyId, companyId)));
      return row ?? null;
    },

    /** Which of `boundaryIds` are boundaries of the company. */
    async boundaryIdsOf(companyId: string, boundaryIds: readonly string[]): Promise<string[]> {
      if (boundaryIds.length === 0) return [];
      const rows = await db
        .select({ id: boundaries.id })
        .from(boundaries)
        .where(and(inArray(boundaries.id, [...boundaryIds]), eq(boundaries.companyId, companyId)));
      return rows.map((r) => r.id);
    },

    /** Boundaries of fields (newest first per field). */
    async listBoundaries(where: { fieldIds: string[] }): Promise<BoundaryRecord[]> {
      if (where.fieldIds.length === 0) return [];
      return boundaryQuery()
        .where(inArray(boundaries.fieldId, where.fieldIds))
        .orderBy(
          asc(boundaries.fieldId),
          desc(boundaries.active),
          desc(boundaries.createdAt),
          desc(boundaries.id),
        );
    },

    /** Active boundaries of a farm, a grower or a company. */
    async activeBoundaries(
      where: { farmId: string } | { growerId: string } | { companyId: string },
    ): Promise<BoundaryRecord[]> {
      const cond =
        'farmId' in where
          ? eq(fields.farmId, where.farmId)
          : 'growerId' in where
            ? eq(farms.growerId, where.growerId)
            : eq(boundaries.companyId, where.companyId);
      return boundaryQuery()
        .where(and(cond, eq(boundaries.active, true)))
        .orderBy(asc(fields.name), asc(fields.id));
    },

    /** A new boundary of the field (run in a transaction); active when asked or when the field has none. */
    async addBoundary(
      field: FieldRecord,
      input: { name?: string | null; rings: number[][][]; area: number; active: boolean },
    ): Promise<BoundaryRecord> {
      await lockField(field.fieldId);
      const id = uuidv7();
      const [{ n }] = await db
        .select({ n: sql<number>`count(*)::int`.mapWith(Number) })
        .from(boundaries)
        .where(and(eq(boundaries.fieldId, field.fieldId), eq(boundaries.active, true)));
      const active = input.active || n === 0;
      await db.insert(boundaries).values({
        id,
        companyId: field.companyId,
        fieldId: field.fieldId,
        name: input.name ?? null,
        rings: input.rings,
        area: input.area,
        active: false,
      });
      if (active) await setActive(field.fieldId, id);
      await db.update(fields).set(bump(fields.version)).where(eq(fields.id, field.fieldId));
      const [row] = await boundaryQuery().where(eq(boundaries.id, id));
      return row;
    },

    /** Replaces a boundary's geometry (and name); run in a transaction. */
    async updateBoundary(
      userId: string,
      boundaryId: string,
      patch: { name?: string | null; rings: number[][][]; area: number; active?: boolean },
      expectedVersion?: ExpectedVersion,
    ): Promise<WriteOutcome<BoundaryRecord>> {
      const current = await getBoundary(userId, boundaryId);
      if (!current) return { ok: false, reason: 'not-found' };
      await lockField(current.fieldId);
      const [row] = await db
        .update(boundaries)
        .set({
          rings: patch.rings,
          area: patch.area,
          ...(patch.name === undefined ? {} : { name: patch.name }),
          ...bump(boundaries.version),
        })
        .where(and(eq(boundaries.id, boundaryId), atVersion(boundaries.version, expectedVersion)))
        .returning({ id: boundaries.id });
      if (!row) return { ok: false, reason: (await getBoundary(userId, boundaryId)) ? 'stale' : 'not-found' };
      if (patch.active) await setActive(current.fieldId, boundaryId);
      return { ok: true, value: (await getBoundary(userId, boundaryId))! };
    },

    /** Makes a boundary its field's active one; run in a transaction. */
    async activateBoundary(
      userId: string,
      boundaryId: string,
      expectedVersion?: ExpectedVersion,
    ): Promise<WriteOutcome<BoundaryRecord>> {
      const current = await getBoundary(userId, boundaryId);
      if (!current) return { ok: false, reason: 'not-found' };
      await lockField(current.fieldId);
      const [now] = await db
        .select({ version: boundaries.version })
        .from(boundaries)
        .where(eq(boundaries.id, boundaryId));
      if (!now) return { ok: false, reason: 'not-found' };
      if (!versionMatches(expectedVersion, now.version)) return { ok: false, reason: 'stale' };
      await setActive(current.fieldId, boundaryId);
      return { ok: true, value: (await getBoundary(userId, boundaryId))! };
    },

    /**
     * Deletes a boundary (run in a transaction). When it was the active one,
     * the field's newest remaining boundary becomes active.
     */
    async deleteBoundary(
      userId: string,
      boundaryId: string,
      expectedVersion?: ExpectedVersion,
    ): Promise<WriteOutcome<{ newActiveBoundaryId: string | null }>> {
      const current = await getBoundary(userId, boundaryId);
      if (!current) return { ok: false, reason: 'not-found' };
      await lockField(current.fieldId);
      const [row] = await db
        .delete(boundaries)
        .where(and(eq(boundaries.id, boundaryId), atVersion(boundaries.version, expectedVersion)))
        .returning({ active: boundaries.active });
      if (!row) return { ok: false, reason: (await getBoundary(userId, boundaryId)) ? 'stale' : 'not-found' };
      let newActiveBoundaryId: string | null = null;
      if (row.active) {
        const [next] = await db
          .select({ id: boundaries.id })
          .from(boundaries)
          .where(eq(boundaries.fieldId, current.fieldId))
          .orderBy(desc(boundaries.createdAt), desc(boundaries.id))
          .limit(1);
        if (next) {
          await setActive(current.fieldId, next.id);
          newActiveBoundaryId = next.id;
        }
      }
      await db.update(fields).set(bump(fields.version)).where(eq(fields.id, current.fieldId));
      return { ok: true, value: { newActiveBoundaryId } };
    },
  };
}

export type HierarchyRepository = ReturnType<typeof createHierarchyRepository>;
