/**
 * Task jobs: work of one item done by a handler of the job's kind. A
 * transactional handler runs in one transaction with the record of its
 * outcome, so a retried item (a worker that died, a lost connection) does
 * its work once; others (calls to vendors, which no transaction can take
 * back) keep their own progress and are written to be run again.
 *
 * A handler answers the job's result (what its poll shows) or throws a
 * TaskError for a refusal that no retry changes; any other error is retried
 * (the queue's retry limit), then ends the job as failed.
 */
import { createVendorAccounts } from '../integrations/vendor-accounts.ts';
import { type VendorSettingsMap, vendorSettingsFromEnv } from '../integrations/vendor-oauth.ts';
import type { Database } from '../store/database.ts';
import type { Store } from '../store/db.ts';
import { createJobsRepository, type JobRecord } from '../store/repositories/jobs.ts';
import { createVendorConnectionsRepository } from '../store/repositories/vendor-connections.ts';
import { deploymentTokenCipher } from '../store/token-crypto.ts';
import { applyCompanySync, fetchVendorFields, type VendorField } from './company-sync.ts';
import { copyCompany } from './copy-company.ts';
import { TaskError } from './task-error.ts';
import { runTransmission } from './transmission.ts';

export { TaskError } from './task-error.ts';

export type TaskKind = 'copy-company' | 'transmission' | 'company-sync';

export interface TaskHandler {
  /** Run inside the transaction that records the outcome (default true). */
  transactional?: boolean;
  /** Work before that transaction (reading a vendor); its answer is handed to run. */
  prepare?(store: Store, job: JobRecord): Promise<unknown>;
  run(db: Database, job: JobRecord, store: Store, prepared?: unknown): Promise<Record<string, unknown>>;
}
export type TaskHandlers = Partial<Record<TaskKind, TaskHandler>>;

export interface TaskOptions {
  /** Vendor settings (default: the environment, integrations/vendor-oauth.ts). */
  vendors?: VendorSettingsMap;
  /** Portal polling without Retry-After and first backoff [ms] (defaults 5000, 1000). */
  portalPollMs?: number;
  portalBackoffMs?: number;
  fetch?: typeof fetch;
}

export function builtInTasks(o: TaskOptions = {}): TaskHandlers {
  const vendors = o.vendors ?? vendorSettingsFromEnv();
  const accountsOf = async (db: Database, store: Store) =>
    createVendorAccounts({
      connections: createVendorConnectionsRepository(db, await deploymentTokenCipher(store.secrets)),
      vendors,
      fetch: o.fetch,
    });
  return {
    'company-sync': {
      prepare: async (store, job) =>
        fetchVendorFields(await accountsOf(store.db, store), vendors, job, o.fetch),
      run: (db, job, _store, prepared) => applyCompanySync(db, job, prepared as VendorField[]),
    },
    'copy-company': {
      run: (db, job) => copyCompany(db, job.request as { sourceCompanyId: string; targetCompanyId: string }),
    },
    transmission: {
      transactional: false,
      async run(db, job, store) {
        return runTransmission(db, job, {
          vendors,
          accounts: await accountsOf(db, store),
          pollIntervalMs: o.portalPollMs,
          backoffMs: o.portalBackoffMs,
          fetch: o.fetch,
        });
      },
    },
  };
}

/** Runs the job's handler and records its outcome, once. */
export async function runTask(store: Store, handlers: TaskHandlers, job: JobRecord): Promise<void> {
  const handler = handlers[job.kind as TaskKind];
  if (!handler) throw new TaskError('UNKNOWN_TASK', `No task handles jobs of kind ${job.kind}.`);
  const record = async (tx: Database, result: () => Promise<Record<string, unknown>>) => {
    const jobs = createJobsRepository(tx);
    if (!(await jobs.recordItem(job.id, 'task', {}))) return;
    await jobs.completeIfDone(job.id, await result());
  };
  const prepared = handler.prepare ? await handler.prepare(store, job) : undefined;
  if (handler.transactional === false) {
    const result = await handler.run(store.db, job, store, prepared);
    await store.db.transaction((tx) => record(tx as unknown as Database, async () => result));
    return;
  }
  await store.db.transaction((tx) =>
    record(tx as unknown as Database, () => handler.run(tx as unknown as Database, job, store, prepared)),
  );
}
