/**
 * Transmission of an export batch to a vendor portal (a task job): the zip
 * is uploaded with the company's linked account and polled until the
 * portal accepts or refuses it. Each file's state is kept in
 * `vendor_transmissions` as it changes (queued, sent with the portal's
 * transfer id, accepted, failed with the portal's message), so a retried
 * job polls the transfer it already sent instead of sending it again. The
 * connector retries 429 and 5xx answers with backoff; a portal that stays
 * unavailable fails the attempt and the job queue tries again later.
 */
import { and, eq, sql } from 'drizzle-orm';
import { createPortalConnector, PORTALS, PortalError, type PortalId } from '../formats/export/portals.ts';
import type { VendorAccounts } from '../integrations/vendor-accounts.ts';
import type { VendorSettingsMap } from '../integrations/vendor-oauth.ts';
import type { Database } from '../store/database.ts';
import type { JobRecord } from '../store/repositories/jobs.ts';
import { exportBatches, vendorTransmissions } from '../store/schema.ts';
import { TaskError } from './task-error.ts';

export interface TransmissionRequest {
  batchId: string;
  vendor: PortalId;
}

export type TransmissionFileStatus = 'queued' | 'sent' | 'accepted' | 'failed';

export interface TransmissionFile {
  fileName: string;
  vendor: string;
  status: TransmissionFileStatus;
  transferId: string | null;
  message: string | null;
}

export interface TransmissionOptions {
  vendors: VendorSettingsMap;
  accounts: VendorAccounts;
  /** Portal polling without Retry-After [ms] (default 5000). */
  pollIntervalMs?: number;
  /** First backoff of 429/5xx [ms] (default 1000). */
  backoffMs?: number;
  fetch?: typeof fetch;
}

export async function transmissionFiles(db: Database, jobId: string): Promise<TransmissionFile[]> {
  return db
    .select({
      fileName: vendorTransmissions.fileName,
      vendor: vendorTransmissions.vendor,
      status: vendorTransmissions.status,
      transferId: vendorTransmissions.transferId,
      message: vendorTransmissions.message,
    })
    .from(vendorTransmissions)
    .where(eq(vendorTransmissions.jobId, jobId))
    .orderBy(vendorTransmissions.fileName) as Promise<TransmissionFile[]>;
}

export async function runTransmission(
  db: Database,
  job: JobRecord,
  o: TransmissionOptions,
): Promise<Record<string, unknown>> {
  const req = job.request as TransmissionRequest;
  if (!(PORTALS as readonly string[]).includes(req.vendor)) {
    throw new TaskError('VENDOR_NOT_A_PORTAL', `${req.vendor} takes no file transmissions.`);
  }
  const settings = o.vendors[req.vendor];
  if (!settings)
    throw new TaskError('VENDOR_NOT_CONFIGURED', `${req.vendor} is not configured on this server.`);
  const [batch] = await db
    .select({ fileName: exportBatches.fileName, content: exportBatches.content })
    .from(exportBatches)
    .where(and(eq(exportBatches.id, req.batchId), eq(exportBatches.companyId, job.companyId)));
  if (!batch) throw new TaskError('EXPORT_BATCH_NOT_FOUND', `Export batch ${req.batchId} no longer exists.`);

  const key = and(eq(vendorTransmissions.jobId, job.id), eq(vendorTransmissions.fileName, batch.fileName));
  const set = (v: Partial<Omit<TransmissionFile, 'fileName' | 'vendor'>>) =>
    db
      .update(vendorTransmissions)
      .set({ ...v, updatedAt: sql`now()` })
      .where(key);
  await db
    .insert(vendorTransmissions)
    .values({
      jobId: job.id,
      fileName: batch.fileName,
      companyId: job.companyId,
      vendor: req.vendor,
      status: 'queued',
    })
    .onConflictDoNothing();
  const [row] = await db.select().from(vendorTransmissions).where(key);
  const result = async () => ({
    vendor: req.vendor,
    batchId: req.batchId,
    files: await transmissionFiles(db, job.id),
  });
  if (row!.status === 'accepted' || row!.status === 'failed') return result();

  try {
    const connector = createPortalConnector(req.vendor, {
      baseUrl: settings.apiUrl,
      token: await o.accounts.accessToken(job.companyId, req.vendor),
      pollIntervalMs: o.pollIntervalMs,
      backoffMs: o.backoffMs,
      fetch: o.fetch,
    });
    let transfer =
      row!.transferId === null
        ? await connector.upload({ fileName: batch.fileName, zip: Buffer.from(batch.content, 'base64') })
        : await connector.status(row!.transferId, batch.fileName);
    if (row!.transferId === null) await set({ status: 'sent', transferId: transfer.transferId });
    transfer = await connector.waitUntilDone(transfer);
    await set(
      transfer.status === 'completed'
        ? { status: 'accepted', message: null }
        : { status: 'failed', message: transfer.message ?? 'The portal refused the file.' },
    );
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (e instanceof PortalError && (code === 'PORTAL_UNAVAILABLE' || code === 'PORTAL_TIMEOUT')) throw e;
    if (e instanceof PortalError || code === 'VENDOR_NOT_CONNECTED' || code === 'VENDOR_AUTH_REFUSED') {
      await set({ status: 'failed', message: (e as Error).message });
      throw new TaskError(code ?? 'PORTAL_REJECTED', (e as Error).message);
    }
    throw e;
  }
  return result();
}
