/**
 * The company's own places for the location search: growers, farms and
 * fields of the companies a user can access whose name contains a text,
 * each with the centre of its active boundaries (fields), or of its
 * fields' active boundaries (farms, growers). Records without any
 * boundary have no position and are left out.
 */
import { and, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../database.ts';
import { boundaries, farms, fields, growers } from '../schema.ts';
import { accessibleTo } from './scope.ts';

export interface NamedPlace {
  kind: 'grower' | 'farm' | 'field';
  id: string;
  companyId: string;
  name: string;
  /** Centre of the bounding box of its boundaries [lon, lat]. */
  center: [number, number];
}

/** `%text%` with LIKE's wildcards taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function createPlaceNamesRepository(db: Database) {
  const centers = async (where: SQL, key: 'fieldId' | 'farmId' | 'growerId') => {
    const rows = await db
      .select({
        fieldId: fields.id,
        farmId: fields.farmId,
        growerId: farms.growerId,
        rings: boundaries.rings,
      })
      .from(boundaries)
      .innerJoin(fields, eq(fields.id, boundaries.fieldId))
      .innerJoin(farms, eq(farms.id, fields.farmId))
      .where(and(eq(boundaries.active, true), where));
    const box = new Map<string, [number, number, number, number]>();
    for (const r of rows) {
      const b = box.get(r[key]) ?? [Infinity, Infinity, -Infinity, -Infinity];
      for (const [lon, lat] of r.rings[0] ?? []) {
        b[0] = Math.min(b[0], lon!);
        b[1] = Math.min(b[1], lat!);
        b[2] = Math.max(b[2], lon!);
        b[3] = Math.max(b[3], lat!);
      }
      box.set(r[key], b);
    }
    const out = new Map<string, [number, number]>();
    for (const [id, b] of box) if (Number.isFinite(b[0])) out.set(id, [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]);
    return out;
  };

  return {
    /** Growers, farms and fields whose name contains `text` (case-insensitive), at most `limit` of each kind. */
    async search(userId: string, text: string, limit: number, companyId?: string): Promise<NamedPlace[]> {
      const pattern = containing(text);
      const inCompany = (col: PgColumn) =>
        companyId ? and(eq(col, companyId), accessibleTo(db, userId, col)) : accessibleTo(db, userId, col);
      const [gs, fs, ds] = await Promise.all([
        db
          .select({ id: growers.id, companyId: growers.companyId, name: growers.name })
          .from(growers)
          .where(and(ilike(growers.name, pattern), inCompany(growers.companyId)))
          .limit(limit),
        db
          .select({ id: farms.id, companyId: farms.companyId, name: farms.name })
          .from(farms)
          .where(and(ilike(farms.name, pattern), inCompany(farms.companyId)))
          .limit(limit),
        db
          .select({ id: fields.id, companyId: fields.companyId, name: fields.name })
          .from(fields)
          .where(and(ilike(fields.name, pattern), inCompany(fields.companyId)))
          .limit(limit),
      ]);
      const [gc, fc, dc] = await Promise.all([
        gs.length
          ? centers(
              inArray(
                farms.growerId,
                gs.map((g) => g.id),
              ),
              'growerId',
            )
          : new Map(),
        fs.length
          ? centers(
              inArray(
                fields.farmId,
                fs.map((f) => f.id),
              ),
              'farmId',
            )
          : new Map(),
        ds.length
          ? centers(
              inArray(
                fields.id,
                ds.map((d) => d.id),
              ),
              'fieldId',
            )
          : new Map(),
      ]);
      const out: NamedPlace[] = [];
      const add = (kind: NamedPlace['kind'], list: typeof gs, c: Map<string, [number, number]>) => {
        for (const r of list) {
          const center = c.get(r.id);
          if (center) out.push({ kind, id: r.id, companyId: r.companyId, name: r.name, center });
        }
      };
      add('field', ds, dc);
      add('farm', fs, fc);
      add('grower', gs, gc);
      return out;
    },
  };
}
