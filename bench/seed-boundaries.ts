/**
 * Puts fields into the store's field hierarchy as boundaries of a company
 * (one grower, one farm, a field with one active boundary each), in one
 * transaction, for benchmarks and tests of jobs over stored boundaries.
 * Multi-part fields keep all their rings (exterior of the first part first).
 * `area` is left 0: planning reads only the rings.
 */
import type { BoundaryInput } from '../api/planning/schemas.ts';
import type { LoadedBoundary } from '../jobs/plan-item.ts';
import type { Database } from '../store/database.ts';
import type { Store } from '../store/db.ts';
import { boundaries, farms, fields, growers } from '../store/schema.ts';
import { uuidv7 } from '../store/uuidv7.ts';

function ringsOf(g: BoundaryInput): number[][][] {
  const geom =
    (g as { type: string; geometry?: unknown; features?: { geometry: unknown }[] }).type === 'Feature'
      ? ((g as { geometry: unknown }).geometry as BoundaryInput)
      : (g as { type: string }).type === 'FeatureCollection'
        ? ((g as { features: { geometry: unknown }[] }).features[0]!.geometry as BoundaryInput)
        : g;
  const x = geom as { type: string; coordinates: number[][][] | number[][][][] };
  return x.type === 'MultiPolygon'
    ? (x.coordinates as number[][][][]).flat()
    : (x.coordinates as number[][][]);
}

export async function seedBoundaries(
  store: Store,
  companyId: string,
  list: readonly { name: string; geometry: BoundaryInput }[],
): Promise<LoadedBoundary[]> {
  return store.db.transaction(async (txAny) => {
    const tx = txAny as unknown as Database;
    const growerId = uuidv7();
    const farmId = uuidv7();
    await tx.insert(growers).values({ id: growerId, companyId, name: 'Benchmark grower' });
    await tx.insert(farms).values({ id: farmId, companyId, growerId, name: 'Benchmark farm' });
    const out: LoadedBoundary[] = [];
    for (let i = 0; i < list.length; i += 200) {
      const chunk = list.slice(i, i + 200).map((f) => ({
        fieldId: uuidv7(),
        boundaryId: uuidv7(),
        name: f.name,
        geometry: f.geometry,
        rings: ringsOf(f.geometry),
      }));
      await tx.insert(fields).values(chunk.map((c) => ({ id: c.fieldId, companyId, farmId, name: c.name })));
      await tx.insert(boundaries).values(
        chunk.map((c) => ({
          id: c.boundaryId,
          companyId,
          fieldId: c.fieldId,
          rings: c.rings,
          area: 0,
          active: true,
        })),
      );
      out.push(
        ...chunk.map((c) => ({
          boundaryId: c.boundaryId,
          fieldId: c.fieldId,
          name: c.name,
          geometry: c.geometry,
        })),
      );
    }
    return out;
  });
}
