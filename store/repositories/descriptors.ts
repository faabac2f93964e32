/**
 * Descriptors: named, typed values a company attaches to its objects. Reads
 * and writes by id are scoped to the companies the user can access in the
 * same statement; objects are looked up within the company.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database } from '../database.ts';
import { descriptors, equipment, farms, fields, growers, pathPlans } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { isUniqueViolation } from './equipment.ts';
import { accessibleTo } from './scope.ts';

export const DESCRIBED_TYPES = ['grower', 'farm', 'field', 'pathPlan', 'equipment'] as const;
export type DescribedType = (typeof DESCRIBED_TYPES)[number];
export const VALUE_TYPES = ['text', 'number', 'boolean', 'date'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

export type DescriptorRecord = typeof descriptors.$inferSelect;

/** The table of each kind of object, with its id, company and name columns. */
const OBJECTS: Record<DescribedType, { table: PgTable; id: PgColumn; companyId: PgColumn; name: PgColumn }> =
  {
    grower: { table: growers, id: growers.id, companyId: growers.companyId, name: growers.name },
    farm: { table: farms, id: farms.id, companyId: farms.companyId, name: farms.name },
    field: { table: fields, id: fields.id, companyId: fields.companyId, name: fields.name },
    pathPlan: { table: pathPlans, id: pathPlans.id, companyId: pathPlans.companyId, name: pathPlans.name },
    equipment: { table: equipment, id: equipment.id, companyId: equipment.companyId, name: equipment.name },
  };

export interface DescriptorInput {
  objectType: DescribedType;
  objectId: string;
  name: string;
  valueType: ValueType;
  value: unknown;
}

export function createDescriptorsRepository(db: Database) {
  const visible = (userId: string) => accessibleTo(db, userId, descriptors.companyId);
  const get = async (userId: string, id: string): Promise<DescriptorRecord | null> => {
    const [row] = await db
      .select()
      .from(descriptors)
      .where(and(eq(descriptors.id, id), visible(userId)));
    return row ?? null;
  };
  return {
    get,

    /** The company of an object the user can access, or null. */
    async objectCompany(userId: string, type: DescribedType, objectId: string): Promise<string | null> {
      const o = OBJECTS[type];
      const [row] = await db
        .select({ companyId: o.companyId })
        .from(o.table)
        .where(and(eq(o.id, objectId), accessibleTo(db, userId, o.companyId)));
      return (row?.companyId as string | undefined) ?? null;
    },

    /** Sets a descriptor of an object (the caller checked the object): created, or its value replaced. */
    async set(
      companyId: string,
      input: DescriptorInput,
    ): Promise<{ value: DescriptorRecord; created: boolean }> {
      const replace = async () => {
        const [row] = await db
          .update(descriptors)
          .set({
            valueType: input.valueType,
            value: input.value as object,
            version: sql`${descriptors.version} + 1`,
            updatedAt: sql`now()`,
          })
          .where(
            and(
              eq(descriptors.objectType, input.objectType),
              eq(descriptors.objectId, input.objectId),
              sql`lower(${descriptors.name}) = lower(${input.name})`,
            ),
          )
          .returning();
        return row;
      };
      const had = await replace();
      if (had) return { value: had, created: false };
      try {
        const [row] = await db
          .insert(descriptors)
          .values({ id: uuidv7(), companyId, ...input, value: input.value as object })
          .returning();
        return { value: row, created: true };
      } catch (e) {
        // Set at the same moment by another request: replace its value.
        if (!isUniqueViolation(e)) throw e;
        return { value: (await replace())!, created: false };
      }
    },

    /** Descriptors of a company (the caller checked access), by object then name. */
    async list(
      companyId: string,
      f: { objectType?: DescribedType; objectId?: string; name?: string },
    ): Promise<DescriptorRecord[]> {
      return db
        .select()
        .from(descriptors)
        .where(
          and(
            eq(descriptors.companyId, companyId),
            f.objectType ? eq(descriptors.objectType, f.objectType) : undefined,
            f.objectId ? eq(descriptors.objectId, f.objectId) : undefined,
            f.name ? sql`lower(${descriptors.name}) = lower(${f.name})` : undefined,
          ),
        )
        .orderBy(
          asc(descriptors.objectType),
          asc(descriptors.objectId),
          asc(sql`lower(${descriptors.name})`),
        );
    },

    /** Objects of a type in the company lacking any of the named descriptors, with the names they lack. */
    async missing(
      companyId: string,
      type: DescribedType,
      names: readonly string[],
    ): Promise<{ objectId: string; objectName: string; missing: string[] }[]> {
      const o = OBJECTS[type];
      const objects = (await db
        .select({ id: o.id, name: o.name })
        .from(o.table)
        .where(eq(o.companyId, companyId))
        .orderBy(asc(o.name), asc(o.id))) as { id: string; name: string }[];
      const have = await db
        .select({ objectId: descriptors.objectId, name: sql<string>`lower(${descriptors.name})` })
        .from(descriptors)
        .where(and(eq(descriptors.companyId, companyId), eq(descriptors.objectType, type)));
      const set = new Set(have.map((h) => `${h.objectId}\u0000${h.name}`));
      return objects
        .map((ob) => ({
          objectId: ob.id,
          objectName: ob.name,
          missing: names.filter((n) => !set.has(`${ob.id}\u0000${n.toLowerCase()}`)),
        }))
        .filter((m) => m.missing.length > 0);
    },

    async remove(userId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(descriptors)
        .where(and(eq(descriptors.id, id), visible(userId)))
        .returning({ id: descriptors.id });
      return rows.length === 1;
    },
  };
}
