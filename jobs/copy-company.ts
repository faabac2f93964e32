/**
 * Deep copy of a company into another (POST /api/admin/copy-company, a task
 * job): its growers, farms, fields and boundaries (with their origins),
 * plan groups and plans, equipment and operators, and company settings, all
 * under new ids, links between them kept. Equipment, operators and
 * settings whose name the target already uses are left as the target has
 * them (counted as skipped).
 */
import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../store/database.ts';
import { decodeModel, encodeModel } from '../store/plan-encoding.ts';
import {
  boundaries,
  boundaryOrigins,
  equipment,
  farms,
  fields,
  growers,
  operators,
  pathPlanGroups,
  pathPlans,
  settings,
} from '../store/schema.ts';
import { uuidv7 } from '../store/uuidv7.ts';

export interface CopyCompanyResult extends Record<string, unknown> {
  sourceCompanyId: string;
  targetCompanyId: string;
  copied: Record<string, number>;
  skipped: Record<string, number>;
}

export async function copyCompany(
  db: Database,
  req: { sourceCompanyId: string; targetCompanyId: string },
): Promise<CopyCompanyResult> {
  const from = req.sourceCompanyId;
  const to = req.targetCompanyId;
  const ids = new Map<string, string>();
  const newId = (old: string) => {
    let id = ids.get(old);
    if (!id) {
      id = uuidv7();
      ids.set(old, id);
    }
    return id;
  };
  const mapped = (old: string | null) => (old === null ? null : (ids.get(old) ?? null));
  const copied: Record<string, number> = {};
  const skipped: Record<string, number> = {};

  const gs = await db.select().from(growers).where(eq(growers.companyId, from));
  for (const g of gs) await db.insert(growers).values({ ...g, id: newId(g.id), companyId: to });
  copied.growers = gs.length;

  const fs = await db.select().from(farms).where(eq(farms.companyId, from));
  for (const f of fs)
    await db.insert(farms).values({ ...f, id: newId(f.id), companyId: to, growerId: newId(f.growerId) });
  copied.farms = fs.length;

  const ds = await db.select().from(fields).where(eq(fields.companyId, from));
  for (const d of ds)
    await db.insert(fields).values({ ...d, id: newId(d.id), companyId: to, farmId: newId(d.farmId) });
  copied.fields = ds.length;

  const bs = await db.select().from(boundaries).where(eq(boundaries.companyId, from));
  for (const b of bs)
    await db.insert(boundaries).values({ ...b, id: newId(b.id), companyId: to, fieldId: newId(b.fieldId) });
  copied.boundaries = bs.length;
  if (bs.length > 0) {
    const os = await db
      .select()
      .from(boundaryOrigins)
      .where(
        inArray(
          boundaryOrigins.boundaryId,
          bs.map((b) => b.id),
        ),
      );
    for (const o of os)
      await db.insert(boundaryOrigins).values({ ...o, boundaryId: newId(o.boundaryId), companyId: to });
  }

  const pgs = await db.select().from(pathPlanGroups).where(eq(pathPlanGroups.companyId, from));
  for (const g of pgs) await db.insert(pathPlanGroups).values({ ...g, id: newId(g.id), companyId: to });
  copied.pathPlanGroups = pgs.length;

  const ps = await db.select().from(pathPlans).where(eq(pathPlans.companyId, from));
  for (const p of ps) {
    const id = newId(p.id);
    // The model names its plan, and its zone, group and part ids are made from the plan id.
    const rename = (json: string) => json.split(p.id).join(id);
    const modelZ =
      p.modelZ !== null ? encodeModel(JSON.parse(rename(JSON.stringify(decodeModel(p.modelZ))))) : null;
    const model =
      p.model !== null && p.model !== undefined ? JSON.parse(rename(JSON.stringify(p.model))) : null;
    await db.insert(pathPlans).values({
      ...p,
      id,
      companyId: to,
      boundaryId: mapped(p.boundaryId),
      fieldId: mapped(p.fieldId),
      groupId: mapped(p.groupId),
      jobId: null,
      model,
      modelZ,
    });
  }
  copied.pathPlans = ps.length;

  /** Inserts a named record unless the target has its name already; counts which it was. */
  const copyNamed = async (kind: string, oldId: string | null, insert: () => Promise<unknown[]>) => {
    copied[kind] ??= 0;
    skipped[kind] ??= 0;
    if ((await insert()).length > 0) copied[kind]++;
    else {
      if (oldId) ids.delete(oldId);
      skipped[kind]++;
    }
  };
  for (const e of await db.select().from(equipment).where(eq(equipment.companyId, from))) {
    await copyNamed('equipment', e.id, () =>
      db
        .insert(equipment)
        .values({ ...e, id: newId(e.id), companyId: to })
        .onConflictDoNothing()
        .returning({ id: equipment.id }),
    );
  }
  for (const o of await db.select().from(operators).where(eq(operators.companyId, from))) {
    await copyNamed('operators', o.id, () =>
      db
        .insert(operators)
        .values({ ...o, id: newId(o.id), companyId: to, equipmentId: mapped(o.equipmentId) })
        .onConflictDoNothing()
        .returning({ id: operators.id }),
    );
  }
  for (const st of await db.select().from(settings).where(eq(settings.companyId, from))) {
    await copyNamed('settings', null, () =>
      db
        .insert(settings)
        .values({ ...st, id: uuidv7(), companyId: to, userId: null })
        .onConflictDoNothing()
        .returning({ id: settings.id }),
    );
  }
  return { sourceCompanyId: from, targetCompanyId: to, copied, skipped };
}
