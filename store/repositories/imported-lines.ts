/**
 * Imported guidance lines: groups of lines a company imported (from a user
 * file or a request), found again by the bounding box of a boundary. The
 * caller checked the company; reads and deletes are within it.
 */
import { and, eq, gte, inArray, lte } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { importedLineGroups, importedLines } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';

export type ImportedLineGroupRecord = typeof importedLineGroups.$inferSelect;

export interface ImportedLineInput {
  name: string | null;
  origin: string;
  patternType: string | null;
  coordinates: number[][];
  bbox: [number, number, number, number];
}

export interface ImportedLineRow {
  id: string;
  groupId: string;
  groupName: string;
  source: string;
  name: string | null;
  origin: string;
  patternType: string | null;
  coordinates: number[][];
}

/** Rows per insert statement (each line has 11 parameters; PostgreSQL allows 65,535). */
const INSERT_CHUNK = 1000;

export function createImportedLinesRepository(db: Database) {
  return {
    /** A new group with its lines (run in a transaction). */
    async createGroup(
      companyId: string,
      group: { name: string; source: string; userFileId: string | null },
      lines: readonly ImportedLineInput[],
    ): Promise<ImportedLineGroupRecord> {
      const [made] = await db
        .insert(importedLineGroups)
        .values({ id: uuidv7(), companyId, ...group })
        .returning();
      for (let i = 0; i < lines.length; i += INSERT_CHUNK) {
        await db.insert(importedLines).values(
          lines.slice(i, i + INSERT_CHUNK).map((l) => ({
            id: uuidv7(),
            groupId: made.id,
            companyId,
            name: l.name,
            origin: l.origin,
            patternType: l.patternType,
            coordinates: l.coordinates,
            minLon: l.bbox[0],
            minLat: l.bbox[1],
            maxLon: l.bbox[2],
            maxLat: l.bbox[3],
          })),
        );
      }
      return made;
    },

    /** The company's lines whose bounding box meets `bbox` [minLon, minLat, maxLon, maxLat], oldest group first. */
    async inBox(companyId: string, bbox: readonly number[]): Promise<ImportedLineRow[]> {
      return db
        .select({
          id: importedLines.id,
          groupId: importedLines.groupId,
          groupName: importedLineGroups.name,
          source: importedLineGroups.source,
          name: importedLines.name,
          origin: importedLines.origin,
          patternType: importedLines.patternType,
          coordinates: importedLines.coordinates,
        })
        .from(importedLines)
        .innerJoin(importedLineGroups, eq(importedLineGroups.id, importedLines.groupId))
        .where(
          and(
            eq(importedLines.companyId, companyId),
            lte(importedLines.minLon, bbox[2]),
            gte(importedLines.maxLon, bbox[0]),
            lte(importedLines.minLat, bbox[3]),
            gte(importedLines.maxLat, bbox[1]),
          ),
        )
        .orderBy(importedLines.groupId, importedLines.id);
    },

    /** Whether the group is the company's. */
    async groupOf(companyId: string, groupId: string): Promise<ImportedLineGroupRecord | null> {
      const [row] = await db
        .select()
        .from(importedLineGroups)
        .where(and(eq(importedLineGroups.id, groupId), eq(importedLineGroups.companyId, companyId)));
      return row ?? null;
    },

    /** Deletes the company's groups (all, or the one named) and their lines; answers what went. */
    async deleteGroups(companyId: string, groupId?: string): Promise<{ groups: number; lines: number }> {
      const where = and(
        eq(importedLineGroups.companyId, companyId),
        ...(groupId === undefined ? [] : [eq(importedLineGroups.id, groupId)]),
      );
      const ids = (await db.select({ id: importedLineGroups.id }).from(importedLineGroups).where(where)).map(
        (r) => r.id,
      );
      if (ids.length === 0) return { groups: 0, lines: 0 };
      const lines = await db
        .delete(importedLines)
        .where(inArray(importedLines.groupId, ids))
        .returning({ id: importedLines.id });
      const groups = await db
        .delete(importedLineGroups)
        .where(inArray(importedLineGroups.id, ids))
        .returning({ id: importedLineGroups.id });
      return { groups: groups.length, lines: lines.length };
    },
  };
}
