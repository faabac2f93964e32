/**
 * Puts fields into the store's field hierarchy as boundaries of a company
 * (one grower, one farm, a field with one active boundary each), in one
 * transaction, for benchmarks and tests of jobs over stored boundaries.
 * Multi-part fields keep all their rings (exterior of the first part first).
 * `area` is the field's area less holes [m^2] as the planner prepares it
 * (as boundaries saved through the API), or the rings' own area when the
 * planner refuses the field.
 */

import { prepareField } from '../core/field/prepare-field.ts';
import { multiPolygonArea } from '../core/geometry/polygon.ts';
import type { BoundaryInput } from '../formats/direct-request.ts';
import { measureBoundary } from '../formats/field-complexity.ts';
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

/** The field's area less holes [m^2]. */
function areaOf(g: BoundaryInput): number {
  try {
    return multiPolygonArea(prepareField(g).field.parts);
  } catch {
    const a = measureBoundary(g).areaM2;
    return Number.isFinite(a) ? a : 0;
  }
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
          area: areaOf(c.geometry),
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
