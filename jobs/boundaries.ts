/**
 * Where planning jobs read stored boundaries from: the store's field
 * hierarchy (Company > Grower > Farm > Field > Boundary). A boundary's
 * rings are WGS84 [lon, lat] rings, exterior first; the plan is named after
 * the boundary's name, else its field's.
 */
import { and, eq } from 'drizzle-orm';
import type { Store } from '../store/db.ts';
import { boundaries, fields } from '../store/schema.ts';
import type { BoundaryLoader } from './plan-item.ts';

export function storeBoundaryLoader(store: Store): BoundaryLoader {
  return async (companyId, boundaryId) => {
    const [row] = await store.db
      .select({
        id: boundaries.id,
        fieldId: boundaries.fieldId,
        name: boundaries.name,
        fieldName: fields.name,
        rings: boundaries.rings,
      })
      .from(boundaries)
      .innerJoin(fields, eq(fields.id, boundaries.fieldId))
      .where(and(eq(boundaries.id, boundaryId), eq(boundaries.companyId, companyId)));
    if (!row) return null;
    return {
      boundaryId: row.id,
      fieldId: row.fieldId,
      name: row.name || row.fieldName,
      geometry: { type: 'Polygon', coordinates: row.rings },
    };
  };
}
