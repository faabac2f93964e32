/**
 * Company sync (POST /api/external/companies/sync, a task job): the fields
 * of a vendor organization, with their growers, farms and boundaries, pulled
 * into a company through its linked account.
 *
 * Vendor API (relative to the vendor's API base URL):
 *   GET /organizations/{organizationId}/fields   Authorization: Bearer <token>
 *     -> 200 { fields: [{ id, name, grower?: { id, name }, farm?: { id, name },
 *                         boundary: GeoJSON Polygon (WGS84) }] }
 *
 * Idempotent on the vendor's ids (schema `external_links`): a record made
 * by an earlier sync is updated when the vendor changed it (a new active
 * boundary, a new name) and left alone when nothing changed; one changed
 * here since the last sync is reported as conflicting and kept as it is.
 * A field whose boundary the planner cannot read is reported as failed.
 * The vendor is read before the transaction that writes the outcome.
 */
import { and, eq } from 'drizzle-orm';
import { checkRings } from '../api/routes/boundary-geometry.ts';
import type { VendorAccounts } from '../integrations/vendor-accounts.ts';
import { type Vendor, VendorAuthError, type VendorSettingsMap } from '../integrations/vendor-oauth.ts';
import type { Database } from '../store/database.ts';
import { createHierarchyRepository } from '../store/repositories/hierarchy.ts';
import type { JobRecord } from '../store/repositories/jobs.ts';
import { boundaries, externalLinks, farms, fields, growers } from '../store/schema.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import { TaskError } from './task-error.ts';

export interface CompanySyncRequest {
  vendor: Vendor;
  organizationId: string;
}

export interface VendorField {
  id: string;
  name: string;
  grower?: { id: string; name: string };
  farm?: { id: string; name: string };
  boundary: { type: 'Polygon'; coordinates: number[][][] };
}

export type SyncOutcome = 'created' | 'updated' | 'unchanged' | 'conflicting' | 'failed';

export interface SyncItem {
  kind: 'grower' | 'farm' | 'field';
  externalId: string;
  name: string;
  outcome: SyncOutcome;
  localId: string | null;
  message?: string;
}

/** Reads the organization's fields from the vendor (outside any transaction). */
export async function fetchVendorFields(
  accounts: VendorAccounts,
  vendors: VendorSettingsMap,
  job: JobRecord,
  doFetch: typeof fetch = fetch,
): Promise<VendorField[]> {
  const req = job.request as CompanySyncRequest;
  const s = vendors[req.vendor];
  if (!s) throw new TaskError('VENDOR_NOT_CONFIGURED', `${req.vendor} is not configured on this server.`);
  let token: string;
  try {
    token = await accounts.accessToken(job.companyId, req.vendor);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'VENDOR_NOT_CONNECTED' || (e instanceof VendorAuthError && code === 'VENDOR_AUTH_REFUSED')) {
      throw new TaskError(code, (e as Error).message);
    }
    throw e;
  }
  const url = `${s.apiUrl.replace(/\/+$/, '')}/organizations/${encodeURIComponent(req.organizationId)}/fields`;
  const res = await doFetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    signal: AbortSignal.timeout(30_000),
  });
  if (res.status === 401 || res.status === 403) {
    throw new TaskError(
      'VENDOR_AUTH_REFUSED',
      `${req.vendor} refused access to organization ${req.organizationId}.`,
    );
  }
  if (res.status === 404) {
    throw new TaskError(
      'VENDOR_ORGANIZATION_NOT_FOUND',
      `${req.vendor} has no organization ${req.organizationId}.`,
    );
  }
  // 429, 5xx: the job queue tries again later.
  if (!res.ok) throw new Error(`${req.vendor} answered ${res.status} for the organization's fields.`);
  const body = (await res.json()) as { fields?: unknown };
  if (!Array.isArray(body.fields)) {
    throw new TaskError(
      'VENDOR_BAD_RESPONSE',
      `${req.vendor} answered no fields list for organization ${req.organizationId}.`,
    );
  }
  return body.fields as VendorField[];
}

const sameRings = (a: number[][][], b: number[][][]) => JSON.stringify(a) === JSON.stringify(b);

/** Writes the vendor's fields into the company (inside the job's transaction). */
export async function applyCompanySync(
  db: Database,
  job: JobRecord,
  vendorFields: VendorField[],
): Promise<Record<string, unknown>> {
  const { vendor, organizationId } = job.request as CompanySyncRequest;
  const companyId = job.companyId;
  const h = createHierarchyRepository(db);
  const items: SyncItem[] = [];
  const seen = new Map<string, string>();

  const link = async (kind: SyncItem['kind'], externalId: string) => {
    const [row] = await db
      .select()
      .from(externalLinks)
      .where(
        and(
          eq(externalLinks.companyId, companyId),
          eq(externalLinks.vendor, vendor),
          eq(externalLinks.kind, kind),
          eq(externalLinks.externalId, externalId),
        ),
      );
    return row;
  };
  const remember = async (kind: SyncItem['kind'], externalId: string, localId: string, version: number) => {
    await db
      .insert(externalLinks)
      .values({ companyId, vendor, kind, externalId, localId, syncedVersion: version })
      .onConflictDoUpdate({
        target: [externalLinks.companyId, externalLinks.vendor, externalLinks.kind, externalLinks.externalId],
        set: { localId, syncedVersion: version },
      });
  };

  /** A grower or farm by the vendor's id: found, renamed, or made. */
  const named = async (
    kind: 'grower' | 'farm',
    ext: { id: string; name: string },
    parent: string | null,
  ): Promise<string> => {
    const key = `${kind}:${ext.id}`;
    const known = seen.get(key);
    if (known) return known;
    const table = kind === 'grower' ? growers : farms;
    const l = await link(kind, ext.id);
    const [row] = l ? await db.select().from(table).where(eq(table.id, l.localId)) : [];
    let outcome: SyncOutcome;
    let localId: string;
    if (l && row) {
      localId = row.id;
      if (row.version !== l.syncedVersion) outcome = row.name === ext.name ? 'unchanged' : 'conflicting';
      else if (row.name === ext.name) outcome = 'unchanged';
      else {
        const [u] = await db
          .update(table)
          .set({ name: ext.name, version: row.version + 1 })
          .where(eq(table.id, row.id))
          .returning({ version: table.version });
        await remember(kind, ext.id, row.id, u!.version);
        outcome = 'updated';
      }
    } else {
      localId = uuidv7();
      if (kind === 'grower')
        await db.insert(growers).values({ id: localId, companyId, name: ext.name, source: vendor });
      else
        await db
          .insert(farms)
          .values({ id: localId, companyId, growerId: parent!, name: ext.name, source: vendor });
      await remember(kind, ext.id, localId, 1);
      outcome = 'created';
    }
    items.push({ kind, externalId: ext.id, name: ext.name, outcome, localId });
    seen.set(key, localId);
    return localId;
  };

  for (const vf of vendorFields) {
    const name = String(vf.name ?? vf.id).slice(0, 200);
    const externalId = String(vf.id);
    let checked: { rings: number[][][]; area: number };
    try {
      if (vf.boundary?.type !== 'Polygon') throw new Error('the boundary is not a GeoJSON Polygon');
      checked = checkRings(vf.boundary.coordinates);
    } catch (e) {
      items.push({
        kind: 'field',
        externalId,
        name,
        outcome: 'failed',
        localId: null,
        message: (e as Error).message,
      });
      continue;
    }
    const growerId = await named(
      'grower',
      vf.grower ?? { id: `org:${organizationId}`, name: `${vendor} ${organizationId}` },
      null,
    );
    const farmId = await named(
      'farm',
      vf.farm ?? { id: `grower:${vf.grower?.id ?? organizationId}`, name },
      growerId,
    );
    const l = await link('field', externalId);
    const [field] = l ? await db.select().from(fields).where(eq(fields.id, l.localId)) : [];
    if (!l || !field) {
      const farm = (await h.farmOfCompany(companyId, farmId))!;
      const made = await h.createField(farm, {
        name,
        boundary: { name: `${vendor} ${externalId}`.slice(0, 200), ...checked },
      });
      await remember('field', externalId, made.field.fieldId, made.field.version);
      items.push({ kind: 'field', externalId, name, outcome: 'created', localId: made.field.fieldId });
      continue;
    }
    if (field.version !== l.syncedVersion) {
      items.push({
        kind: 'field',
        externalId,
        name,
        outcome: 'conflicting',
        localId: field.id,
        message: 'Changed here since the last sync; kept as it is.',
      });
      continue;
    }
    const [active] = await db
      .select({ rings: boundaries.rings })
      .from(boundaries)
      .where(and(eq(boundaries.fieldId, field.id), eq(boundaries.active, true)));
    const renamed = field.name !== name;
    const reshaped = !active || !sameRings(active.rings, checked.rings);
    if (!renamed && !reshaped && field.farmId === farmId) {
      items.push({ kind: 'field', externalId, name, outcome: 'unchanged', localId: field.id });
      continue;
    }
    if (renamed || field.farmId !== farmId) {
      await db
        .update(fields)
        .set({ name, farmId, version: field.version + 1 })
        .where(eq(fields.id, field.id));
    }
    if (reshaped) {
      const record = (await h.fieldOfCompany(companyId, field.id))!;
      await h.addBoundary(record, {
        name: `${vendor} ${externalId}`.slice(0, 200),
        ...checked,
        active: true,
      });
    }
    const [now] = await db.select({ version: fields.version }).from(fields).where(eq(fields.id, field.id));
    await remember('field', externalId, field.id, now!.version);
    items.push({ kind: 'field', externalId, name, outcome: 'updated', localId: field.id });
  }

  const count = (o: SyncOutcome) => items.filter((i) => i.outcome === o).length;
  return {
    vendor,
    organizationId,
    created: count('created'),
    updated: count('updated'),
    unchanged: count('unchanged'),
    conflicting: count('conflicting'),
    failed: count('failed'),
    items,
  };
}
