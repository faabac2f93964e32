/**
 * What is stored about a boundary's ground: the DEM an admin uploaded for
 * it, its slope analysis, and the NDVI statistics of an image of it. One
 * row each per boundary (a new one replaces the old). Callers check access
 * to the boundary (hierarchy.getBoundary) first; rows go with their
 * boundary.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { boundaryDems, boundaryNdvi, boundarySlopeAnalyses } from '../schema.ts';

export interface BoundaryDemInput {
  boundaryId: string;
  companyId: string;
  uploadedBy: string | null;
  fileName: string;
  epsg: number;
  width: number;
  height: number;
  cellSize: number;
  content: Buffer;
}

export interface BoundaryDemRecord extends BoundaryDemInput {
  size: number;
  createdAt: Date;
}

export interface SlopeAnalysisRecord {
  boundaryId: string;
  companyId: string;
  source: 'upload' | 'directory';
  analysis: Record<string, unknown>;
  computedAt: Date;
}

export interface NdviRecord {
  boundaryId: string;
  companyId: string;
  uploadedBy: string | null;
  fileName: string;
  statistics: Record<string, unknown>;
  zones: Record<string, unknown>;
  createdAt: Date;
}

export function createBoundaryTerrainRepository(db: Database) {
  return {
    async putDem(input: BoundaryDemInput): Promise<BoundaryDemRecord> {
      const values = { ...input, size: input.content.length, createdAt: new Date() };
      const { boundaryId: _id, ...update } = values;
      const [row] = await db
        .insert(boundaryDems)
        .values(values)
        .onConflictDoUpdate({ target: boundaryDems.boundaryId, set: update })
        .returning();
      return row as BoundaryDemRecord;
    },

    async getDem(boundaryId: string): Promise<BoundaryDemRecord | null> {
      const [row] = await db.select().from(boundaryDems).where(eq(boundaryDems.boundaryId, boundaryId));
      return (row as BoundaryDemRecord) ?? null;
    },

    async putSlopeAnalysis(input: Omit<SlopeAnalysisRecord, 'computedAt'>): Promise<SlopeAnalysisRecord> {
      const values = { ...input, computedAt: new Date() };
      const { boundaryId: _id, ...update } = values;
      const [row] = await db
        .insert(boundarySlopeAnalyses)
        .values(values)
        .onConflictDoUpdate({ target: boundarySlopeAnalyses.boundaryId, set: update })
        .returning();
      return row as SlopeAnalysisRecord;
    },

    async getSlopeAnalysis(boundaryId: string): Promise<SlopeAnalysisRecord | null> {
      const [row] = await db
        .select()
        .from(boundarySlopeAnalyses)
        .where(eq(boundarySlopeAnalyses.boundaryId, boundaryId));
      return (row as SlopeAnalysisRecord) ?? null;
    },

    async putNdvi(input: Omit<NdviRecord, 'createdAt'>): Promise<NdviRecord> {
      const values = { ...input, createdAt: new Date() };
      const { boundaryId: _id, ...update } = values;
      const [row] = await db
        .insert(boundaryNdvi)
        .values(values)
        .onConflictDoUpdate({ target: boundaryNdvi.boundaryId, set: update })
        .returning();
      return row as NdviRecord;
    },

    async getNdvi(boundaryId: string): Promise<NdviRecord | null> {
      const [row] = await db.select().from(boundaryNdvi).where(eq(boundaryNdvi.boundaryId, boundaryId));
      return (row as NdviRecord) ?? null;
    },
  };
}

export type BoundaryTerrainRepository = ReturnType<typeof createBoundaryTerrainRepository>;
