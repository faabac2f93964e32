/**
 * Equipment scenario sets, their scenarios (details) and their shares. Reads
 * and writes by users are scoped to the companies the user can access in
 * the same statement; reads by share code check the code's live share.
 */
import { and, asc, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { equipmentScenarioDetails, equipmentScenarioShares, equipmentScenarios } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { accessibleTo } from './scope.ts';
import { newShareCode, shareCodeHash } from './shares.ts';

export interface ScenarioDetailsRecord {
  id: string;
  scenarioId: string;
  companyId: string;
  position: number;
  name: string;
  equipmentId: string | null;
  request: unknown;
  costInputs: Record<string, unknown> | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ScenarioSetRecord {
  id: string;
  companyId: string;
  createdBy: string | null;
  name: string;
  jobId: string;
  normalized: boolean;
  boundaryIds: string[];
  createdAt: Date;
}

export interface ScenarioSet extends ScenarioSetRecord {
  /** In request order. */
  details: ScenarioDetailsRecord[];
}

export interface ScenarioShareRecord {
  id: string;
  companyId: string;
  scenarioId: string;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

const shareCols = {
  id: equipmentScenarioShares.id,
  companyId: equipmentScenarioShares.companyId,
  scenarioId: equipmentScenarioShares.scenarioId,
  createdBy: equipmentScenarioShares.createdBy,
  createdAt: equipmentScenarioShares.createdAt,
  expiresAt: equipmentScenarioShares.expiresAt,
  revokedAt: equipmentScenarioShares.revokedAt,
};

export function createEquipmentScenariosRepository(db: Database) {
  const withDetails = async (set: ScenarioSetRecord | undefined): Promise<ScenarioSet | null> => {
    if (!set) return null;
    const details = (await db
      .select()
      .from(equipmentScenarioDetails)
      .where(eq(equipmentScenarioDetails.scenarioId, set.id))
      .orderBy(asc(equipmentScenarioDetails.position))) as ScenarioDetailsRecord[];
    return { ...set, details };
  };
  return {
    /** Writes a new set and its scenarios (in the transaction that makes its job). */
    async insert(input: {
      id: string;
      companyId: string;
      createdBy: string;
      name: string;
      jobId: string;
      normalized: boolean;
      boundaryIds: string[];
      details: { id: string; name: string; equipmentId: string | null; request: unknown }[];
    }): Promise<void> {
      const { details, ...set } = input;
      await db.insert(equipmentScenarios).values(set);
      if (details.length) {
        await db.insert(equipmentScenarioDetails).values(
          details.map((d, position) => ({
            ...d,
            request: d.request as object,
            scenarioId: input.id,
            companyId: input.companyId,
            position,
          })),
        );
      }
    },

    /** A set of a company the user can access, with its scenarios. */
    async get(userId: string, id: string): Promise<ScenarioSet | null> {
      const [row] = await db
        .select()
        .from(equipmentScenarios)
        .where(and(eq(equipmentScenarios.id, id), accessibleTo(db, userId, equipmentScenarios.companyId)));
      return withDetails(row as ScenarioSetRecord | undefined);
    },

    /** A set by id, unscoped (the caller checked a share of it). */
    async getAny(id: string): Promise<ScenarioSet | null> {
      const [row] = await db.select().from(equipmentScenarios).where(eq(equipmentScenarios.id, id));
      return withDetails(row as ScenarioSetRecord | undefined);
    },

    /** The set a job made, when the user can access it. */
    async byJob(userId: string, jobId: string): Promise<ScenarioSetRecord | null> {
      const [row] = await db
        .select()
        .from(equipmentScenarios)
        .where(
          and(eq(equipmentScenarios.jobId, jobId), accessibleTo(db, userId, equipmentScenarios.companyId)),
        );
      return (row as ScenarioSetRecord) ?? null;
    },

    /** The sets of a company, newest first. */
    async list(companyId: string, limit = 100): Promise<ScenarioSetRecord[]> {
      return (await db
        .select()
        .from(equipmentScenarios)
        .where(eq(equipmentScenarios.companyId, companyId))
        .orderBy(desc(equipmentScenarios.createdAt))
        .limit(limit)) as ScenarioSetRecord[];
    },

    /** A scenario of a set the user can access. */
    async getDetails(userId: string, id: string): Promise<ScenarioDetailsRecord | null> {
      const [row] = await db
        .select()
        .from(equipmentScenarioDetails)
        .where(
          and(
            eq(equipmentScenarioDetails.id, id),
            accessibleTo(db, userId, equipmentScenarioDetails.companyId),
          ),
        );
      return (row as ScenarioDetailsRecord) ?? null;
    },

    /** Replaces a scenario's cost inputs; null when the user cannot access it. */
    async setCostInputs(
      userId: string,
      id: string,
      costInputs: Record<string, unknown>,
    ): Promise<ScenarioDetailsRecord | null> {
      const [row] = await db
        .update(equipmentScenarioDetails)
        .set({
          costInputs,
          version: sql`${equipmentScenarioDetails.version} + 1`,
          updatedAt: sql`now()`,
        })
        .where(
          and(
            eq(equipmentScenarioDetails.id, id),
            accessibleTo(db, userId, equipmentScenarioDetails.companyId),
          ),
        )
        .returning();
      return (row as ScenarioDetailsRecord) ?? null;
    },

    /** A new share of a set; the plain code is returned once. */
    async createShare(input: {
      companyId: string;
      scenarioId: string;
      userId: string;
      expiresInSeconds: number;
    }): Promise<{ share: ScenarioShareRecord; code: string }> {
      const code = newShareCode();
      const [share] = await db
        .insert(equipmentScenarioShares)
        .values({
          id: uuidv7(),
          codeHash: shareCodeHash(code),
          companyId: input.companyId,
          scenarioId: input.scenarioId,
          createdBy: input.userId,
          expiresAt: sql`now() + make_interval(secs => ${input.expiresInSeconds})`,
        })
        .returning(shareCols);
      return { share: share as ScenarioShareRecord, code };
    },

    /** The live share of a code (not expired, not revoked), or null. */
    async shareByCode(code: string): Promise<ScenarioShareRecord | null> {
      const [row] = await db
        .select(shareCols)
        .from(equipmentScenarioShares)
        .where(
          and(
            eq(equipmentScenarioShares.codeHash, shareCodeHash(code)),
            isNull(equipmentScenarioShares.revokedAt),
            gt(equipmentScenarioShares.expiresAt, sql`now()`),
          ),
        );
      return (row as ScenarioShareRecord) ?? null;
    },

    async getShare(userId: string, id: string): Promise<ScenarioShareRecord | null> {
      const [row] = await db
        .select(shareCols)
        .from(equipmentScenarioShares)
        .where(
          and(
            eq(equipmentScenarioShares.id, id),
            accessibleTo(db, userId, equipmentScenarioShares.companyId),
          ),
        );
      return (row as ScenarioShareRecord) ?? null;
    },

    /** Revokes a share the user can access; false when there is none. */
    async revokeShare(userId: string, id: string): Promise<boolean> {
      const rows = await db
        .update(equipmentScenarioShares)
        .set({ revokedAt: sql`coalesce(${equipmentScenarioShares.revokedAt}, now())` })
        .where(
          and(
            eq(equipmentScenarioShares.id, id),
            accessibleTo(db, userId, equipmentScenarioShares.companyId),
          ),
        )
        .returning({ id: equipmentScenarioShares.id });
      return rows.length === 1;
    },

    newId: uuidv7,
  };
}
