import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyForNewAccount } from '../store/bootstrap.ts';
import type { Store } from '../store/db.ts';
import { createJobsRepository } from '../store/repositories/jobs.ts';
import { openTestPgliteStore } from '../store/testing.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import { PLAN_ITEM_BOUNDARIES } from './queues.ts';
import { createJobSystem, type JobSystem } from './runtime.ts';

let store: Store;
let jobs: JobSystem;
/** Boundary lookups by id; the first lookup of each id fails (a passing fault, e.g. a lost connection). */
const lookups = new Map<string, number>();

beforeAll(async () => {
  store = await openTestPgliteStore();
  jobs = await createJobSystem({
    store,
    loadBoundary: async (_companyId, boundaryId) => {
      const n = (lookups.get(boundaryId) ?? 0) + 1;
      lookups.set(boundaryId, n);
      if (n === 1) throw new Error('connection lost');
      return null;
    },
  });
  // Idle workers look for work only once a minute: what they do sooner, a wake-up made them do.
  await jobs.startWorkers({ threads: 1, pollingIntervalSeconds: 60 });
});
afterAll(async () => {
  await jobs?.stop({ graceful: false, timeoutMs: 5000 });
  await store?.close();
});

/** The job's status once it is neither queued nor running, looked up every 100 ms at most `tries` times. */
async function statusWhenDone(jobId: string, tries: number): Promise<string> {
  const repo = createJobsRepository(store.db);
  let status = 'queued';
  for (let i = 0; i < tries && (status === 'queued' || status === 'running'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = (await repo.byId(jobId))?.status ?? 'gone';
  }
  return status;
}

describe('job system', () => {
  it('wakes its idle workers when this process enqueues, instead of waiting for their next poll', async () => {
    const made = await createKeyForNewAccount(store, { email: 'wake@example.org' });
    // Let the workers' first look for work pass, so they sit idle.
    await new Promise((r) => setTimeout(r, 1500));
    const { jobId } = await jobs.enqueueExport({
      companyId: made.companyId,
      userId: made.userId,
      request: { pathPlanIds: [uuidv7()], format: 'geojson' },
    });
    const status = await statusWhenDone(jobId, 150);
    // The export of a plan that does not exist fails, well before a poll would have found it.
    expect(status).toBe('failed');
  });

  it('retries a failed item after the retry delay, not at the next poll', async () => {
    const made = await createKeyForNewAccount(store, { email: 'retry@example.org' });
    const boundaryId = uuidv7();
    const t0 = performance.now();
    const { jobId } = await jobs.enqueuePlanning({
      companyId: made.companyId,
      userId: made.userId,
      kind: 'guidance',
      boundaryIds: [boundaryId],
      request: { equipment: { swathWidth: 6 } },
    });
    const status = await statusWhenDone(jobId, 150);
    // The first try failed, the retry found no such boundary and finished the job: within the
    // retry delay (1 s) and a little, where the next poll would have come after a minute.
    expect(lookups.get(boundaryId)).toBe(2);
    expect(['completed', 'failed']).toContain(status);
    expect(performance.now() - t0).toBeLessThan(15_000);
  });

  it('takes the next item of a job as soon as one is done, not at the next poll', async () => {
    const made = await createKeyForNewAccount(store, { email: 'items@example.org' });
    // Five items of boundaries that are looked up at once (found to be gone): what keeps the job
    // from finishing at once is only the workers' waiting between items.
    const boundaryIds = Array.from({ length: 4 * PLAN_ITEM_BOUNDARIES + 1 }, () => uuidv7());
    for (const id of boundaryIds) lookups.set(id, 1);
    const t0 = performance.now();
    const { jobId } = await jobs.enqueuePlanning({
      companyId: made.companyId,
      userId: made.userId,
      kind: 'guidance',
      boundaryIds,
      request: { equipment: { swathWidth: 6 } },
    });
    const status = await statusWhenDone(jobId, 300);
    expect(['completed', 'failed']).toContain(status);
    // Two workers, five items: with a poll between items the job would take minutes.
    expect(performance.now() - t0).toBeLessThan(20_000);
  });
});
