/**
 * Origins of boundaries copied from external providers (schema
 * `boundary_origins`): which provider and boundary they came from and the
 * licence and attribution they carry. Reads are scoped to a company.
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { boundaryOrigins } from '../schema.ts';

export interface BoundaryOrigin {
  boundaryId: string;
  companyId: string;
  provider: string;
  externalId: string;
  licence: string | null;
  attribution: string | null;
}

export function createBoundaryOriginsRepository(db: Database) {
  return {
    async record(o: BoundaryOrigin): Promise<void> {
      await db.insert(boundaryOrigins).values(o);
    },

    /** The origin of a boundary of the company, or null (not copied from a provider, or another company's). */
    async get(companyId: string, boundaryId: string): Promise<BoundaryOrigin | null> {
      const [row] = await db
        .select({
          boundaryId: boundaryOrigins.boundaryId,
          companyId: boundaryOrigins.companyId,
          provider: boundaryOrigins.provider,
          externalId: boundaryOrigins.externalId,
          licence: boundaryOrigins.licence,
          attribution: boundaryOrigins.attribution,
        })
        .from(boundaryOrigins)
        .where(and(eq(boundaryOrigins.boundaryId, boundaryId), eq(boundaryOrigins.companyId, companyId)));
      return row ?? null;
    },
  };
}
