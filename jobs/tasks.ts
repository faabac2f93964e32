/**
 * Task jobs: work of one item done by a handler of the job's kind, in one
 * transaction with the record of its outcome, so a retried item (a worker
 * that died, a lost connection) does its work once.
 *
 * A handler answers the job's result (what its poll shows) or throws a
 * TaskError for a refusal that no retry changes; any other error is retried
 * (the queue's retry limit), then ends the job as failed.
 */
import type { Database } from '../store/database.ts';
import type { Store } from '../store/db.ts';
import { createJobsRepository, type JobRecord } from '../store/repositories/jobs.ts';
import { copyCompany } from './copy-company.ts';

export type TaskKind = 'copy-company';

export type TaskHandler = (db: Database, job: JobRecord) => Promise<Record<string, unknown>>;
export type TaskHandlers = Partial<Record<TaskKind, TaskHandler>>;

/** A refusal: the job fails with this code and message, without retries. */
export class TaskError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'TaskError';
    this.code = code;
  }
}

export const BUILT_IN_TASKS: TaskHandlers = {
  'copy-company': (db, job) =>
    copyCompany(db, job.request as { sourceCompanyId: string; targetCompanyId: string }),
};

/** Runs the job's handler and records its outcome, once. */
export async function runTask(store: Store, handlers: TaskHandlers, job: JobRecord): Promise<void> {
  const handler = handlers[job.kind as TaskKind];
  if (!handler) throw new TaskError('UNKNOWN_TASK', `No task handles jobs of kind ${job.kind}.`);
  await store.db.transaction(async (txAny) => {
    const tx = txAny as unknown as Database;
    const jobs = createJobsRepository(tx);
    if (!(await jobs.recordItem(job.id, 'task', {}))) return;
    const result = await handler(tx, job);
    await jobs.completeIfDone(job.id, result);
  });
}
