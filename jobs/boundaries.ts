/**
 * Where planning jobs read stored boundaries from: the store's field
 * hierarchy (Company > Grower > Farm > Field > Boundary).
 */
import type { Store } from '../store/db.ts';
import type { BoundaryLoader } from './plan-item.ts';

export function storeBoundaryLoader(store: Store): BoundaryLoader {
  const hierarchy = (store as unknown as Record<string, unknown>).boundaries as
    | { forCompany?: (companyId: string, boundaryId: string) => Promise<unknown> }
    | undefined;
  return async (companyId, boundaryId) => {
    if (!hierarchy?.forCompany) return null;
    return (await hierarchy.forCompany(companyId, boundaryId)) as Awaited<ReturnType<BoundaryLoader>>;
  };
}
