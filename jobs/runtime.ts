/**
 * The job system: enqueues work (one pg-boss job per item) and runs the
 * workers that do it. The server enqueues; workers run in the server
 * process on the embedded default, and in `tramline worker` processes
 * against a shared PostgreSQL (the server may run none itself).
 */
import { and, eq } from 'drizzle-orm';
import type { JobWithMetadata, PgBoss } from 'pg-boss';
import { type ExportFormat, exportPlans } from '../formats/export/index.ts';
import type { PortalId } from '../formats/export/portals.ts';
import type { Database } from '../store/database.ts';
import { safeErrorText } from '../store/database-errors.ts';
import type { Store } from '../store/db.ts';
import { createHierarchyRepository } from '../store/repositories/hierarchy.ts';
import { createJobsRepository, type JobKind } from '../store/repositories/jobs.ts';
import { createPathPlansRepository } from '../store/repositories/path-plans.ts';
import { accessibleTo } from '../store/repositories/scope.ts';
import { exportBatches } from '../store/schema.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import { type BossOptions, startBoss } from './boss.ts';
import { companyCostInputs, withCompanyCosts } from './company-costs.ts';
import { type BoundaryLoader, type JobPlanRequest, jobTarget, runPlanItem } from './plan-item.ts';
import { createJobPlanPool, type JobPlanPool } from './plan-pool.ts';
import {
  EXPORT_QUEUE,
  type ExportItem,
  PLAN_ITEM_BOUNDARIES,
  PLAN_QUEUE,
  type PlanItem,
  QUEUE_OPTIONS,
  TASK_QUEUE,
  type TaskItem,
} from './queues.ts';
import { type ScenarioJobRequest, scenarioTarget } from './scenario-item.ts';
import { type PathPlanJobRequest, type RouteJobRequest, runStoredPlanItem } from './stored-plan-item.ts';
import { builtInTasks, runTask, TaskError, type TaskHandlers, type TaskKind } from './tasks.ts';

export interface JobSystemOptions extends BossOptions {
  store: Store;
  loadBoundary: BoundaryLoader;
  /** Handlers of task jobs by kind (jobs/tasks.ts; default: the built-in tasks). */
  tasks?: TaskHandlers;
}

export interface WorkerOptions {
  /** Planning threads of this process (default: the CPUs). */
  threads?: number;
  /** A ready pool instead (tests); not closed by stop(). */
  pool?: JobPlanPool;
  /** Items (of up to PLAN_ITEM_BOUNDARIES boundaries) held at once by this process (default 2). */
  concurrency?: number;
  /** Added to maxOptimizerTime for a plan's hard cap [ms] (default 5000). */
  graceMs?: number;
  /**
   * How often idle workers look for work [s] (default 2 on PostgreSQL, 15
   * on the embedded database). Work enqueued by this process wakes its
   * workers at once, and so do items due for a retry; the polling finds
   * work that other processes enqueue (several servers on one PostgreSQL),
   * which the embedded database, one process's own, never has.
   */
  pollingIntervalSeconds?: number;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}

export interface ExportRequest {
  pathPlanIds: string[];
  format: ExportFormat;
  /** Also deliver the zip to this portal (a transmission job made with the batch). */
  transmitTo?: PortalId;
}

export interface JobSystem {
  boss: PgBoss;
  /** Makes a planning job over boundaries (answers before any planning). */
  enqueuePlanning(input: {
    companyId: string;
    userId: string;
    kind: Extract<JobKind, 'bulk-guidance' | 'guidance' | 'headlands'>;
    boundaryIds: readonly string[];
    request: JobPlanRequest;
  }): Promise<{ jobId: string }>;
  /** Makes a job over one stored plan of the company (answers before any planning). */
  enqueueStoredPlan(
    input: { companyId: string; userId: string } & (
      | { kind: 'pathplan'; request: PathPlanJobRequest }
      | { kind: 'postprocess' | 'route'; request: RouteJobRequest }
    ),
  ): Promise<{ jobId: string }>;
  /**
   * Makes an equipment scenario job: every boundary planned with every
   * scenario. `record` writes the scenario set (with the requests as
   * planned) in the transaction that makes the job, before any item is
   * queued. Planning jobs take the company's cost settings under each
   * machine's own cost inputs (jobs/company-costs.ts).
   */
  enqueueScenarios(input: {
    companyId: string;
    userId: string;
    request: ScenarioJobRequest;
    record: (tx: Database, jobId: string, request: ScenarioJobRequest) => Promise<void>;
  }): Promise<{ jobId: string }>;
  enqueueExport(input: {
    companyId: string;
    userId: string;
    request: ExportRequest;
  }): Promise<{ jobId: string }>;
  /** Makes a job of one item that the task handler of its kind does (jobs/tasks.ts). */
  enqueueTask(input: {
    companyId: string;
    userId: string;
    kind: TaskKind;
    request: Record<string, unknown>;
  }): Promise<{ jobId: string }>;
  /** The planning threads of this process (made on first use; the workers' own when they run here). */
  planningPool(): JobPlanPool;
  /** Runs workers in this process until stop(). */
  startWorkers(opts: WorkerOptions): Promise<void>;
  /** Stops the workers (waiting for items in hand) and pg-boss. */
  stop(opts?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
}

export async function createJobSystem(opts: JobSystemOptions): Promise<JobSystem> {
  const { store } = opts;
  const boss = await startBoss(store, opts);
  const jobs = createJobsRepository(store.db);
  const working: string[] = [];
  /** This process's workers per queue, to wake when this process enqueues. */
  const workerIds = new Map<string, string[]>();
  const wake = (queue: string) => {
    for (const id of workerIds.get(queue) ?? []) boss.notifyWorker(id);
  };
  /** Registers `slots` workers of one item each (each its own id, so each can be woken). */
  const work = async <T extends object>(
    queue: string,
    slots: number,
    options: Omit<Parameters<typeof boss.work<T>>[1], 'localConcurrency'>,
    handler: Parameters<typeof boss.work<T>>[2],
  ) => {
    const ids: string[] = [];
    // An item that failed is retried after the queue's retryDelay: wake the
    // workers then, rather than waiting for the next poll.
    const retryMs = ((QUEUE_OPTIONS[queue]?.retryDelay ?? 0) + 0.25) * 1000;
    const wakingHandler: typeof handler = async (batch) => {
      try {
        const done = await handler(batch);
        // More items may wait: look again now, not at the next poll (pg-boss's burst mode goes by a
        // cached ready count that lags the queue, and on the embedded database a poll is 15 s away).
        wake(queue);
        return done;
      } catch (e) {
        setTimeout(() => wake(queue), retryMs).unref();
        throw e;
      }
    };
    for (let i = 0; i < slots; i++)
      ids.push(await boss.work<T>(queue, { ...options, localConcurrency: 1 }, wakingHandler));
    workerIds.set(queue, ids);
    working.push(queue);
  };
  let ownPool: JobPlanPool | undefined;

  return {
    boss,

    async enqueuePlanning(input) {
      const ids = [...new Set(input.boundaryIds)];
      const costs = await companyCostInputs(store.db, input.companyId);
      const job = await jobs.create({
        companyId: input.companyId,
        userId: input.userId,
        kind: input.kind,
        request: { ...withCompanyCosts(input.request, costs), boundaryIds: ids },
        total: ids.length,
      });
      if (ids.length === 0) {
        await jobs.completeIfDone(job.id);
      } else {
        const items: { data: PlanItem; singletonKey: string }[] = [];
        for (let i = 0; i < ids.length; i += PLAN_ITEM_BOUNDARIES) {
          items.push({
            data: { jobId: job.id, boundaryIds: ids.slice(i, i + PLAN_ITEM_BOUNDARIES) },
            singletonKey: `${job.id}:${i / PLAN_ITEM_BOUNDARIES}`,
          });
        }
        await boss.insert(PLAN_QUEUE, items);
        wake(PLAN_QUEUE);
      }
      return { jobId: job.id };
    },

    async enqueueScenarios(input) {
      const ids = [...new Set(input.request.boundaryIds)];
      const costs = await companyCostInputs(store.db, input.companyId);
      const request: ScenarioJobRequest = {
        ...input.request,
        boundaryIds: ids,
        scenarios: input.request.scenarios.map((s) => ({
          ...s,
          request: withCompanyCosts(s.request, costs),
        })),
      };
      const jobId = await store.db.transaction(async (txAny) => {
        const tx = txAny as unknown as Database;
        const job = await createJobsRepository(tx).create({
          companyId: input.companyId,
          userId: input.userId,
          kind: 'equipment-scenario',
          request,
          total: ids.length * request.scenarios.length,
        });
        await input.record(tx, job.id, request);
        return job.id;
      });
      const items: { data: PlanItem; singletonKey: string }[] = [];
      request.scenarios.forEach((_, scenarioIndex) => {
        for (let i = 0; i < ids.length; i += PLAN_ITEM_BOUNDARIES) {
          items.push({
            data: { jobId, scenarioIndex, boundaryIds: ids.slice(i, i + PLAN_ITEM_BOUNDARIES) },
            singletonKey: `${jobId}:${scenarioIndex}:${i / PLAN_ITEM_BOUNDARIES}`,
          });
        }
      });
      if (items.length === 0) await jobs.completeIfDone(jobId);
      else {
        await boss.insert(PLAN_QUEUE, items);
        wake(PLAN_QUEUE);
      }
      return { jobId };
    },

    planningPool() {
      if (!ownPool) ownPool = createJobPlanPool();
      return ownPool;
    },

    async enqueueStoredPlan(input) {
      const job = await jobs.create({
        companyId: input.companyId,
        userId: input.userId,
        kind: input.kind,
        request: input.request,
        total: 1,
      });
      await boss.send(
        PLAN_QUEUE,
        { jobId: job.id, pathPlanId: input.request.pathPlanId } satisfies PlanItem,
        {
          singletonKey: job.id,
        },
      );
      wake(PLAN_QUEUE);
      return { jobId: job.id };
    },

    async enqueueExport(input) {
      const job = await jobs.create({
        companyId: input.companyId,
        userId: input.userId,
        kind: 'export',
        request: input.request,
        total: 1,
      });
      await boss.send(EXPORT_QUEUE, { jobId: job.id } satisfies ExportItem, { singletonKey: job.id });
      wake(EXPORT_QUEUE);
      return { jobId: job.id };
    },

    async enqueueTask(input) {
      const job = await jobs.create({ ...input, total: 1 });
      await boss.send(TASK_QUEUE, { jobId: job.id } satisfies TaskItem, { singletonKey: job.id });
      wake(TASK_QUEUE);
      return { jobId: job.id };
    },

    async startWorkers(w) {
      const log = w.log ?? (() => {});
      // Two items in hand keep the threads busy while the other item's outcomes are written.
      const concurrency = Math.max(1, w.concurrency ?? 2);
      if (!w.pool && !ownPool) ownPool = createJobPlanPool({ threads: w.threads });
      const pool = w.pool ?? (ownPool as JobPlanPool);
      const deps = { store, pool, loadBoundary: opts.loadBoundary, graceMs: w.graceMs };
      // The embedded database has one process: all its work is enqueued here and wakes the workers.
      const pollingIntervalSeconds = w.pollingIntervalSeconds ?? (store.kind === 'pglite' ? 15 : 2);
      await work<PlanItem>(
        PLAN_QUEUE,
        concurrency,
        {
          batchSize: 1,
          pollingIntervalSeconds,
          // While items wait, fetch the next one as soon as one is done (no polling pause between items).
          burstWhenReadyExceeds: 1,
          includeMetadata: true,
        },
        async (batch) => {
          const item = batch[0] as JobWithMetadata<PlanItem>;
          const { jobId } = item.data;
          const boundaryIds = item.data.boundaryIds ?? (item.data.boundaryId ? [item.data.boundaryId] : []);
          const job = await jobs.byId(jobId);
          if (!job) return;
          if (item.data.pathPlanId) {
            try {
              await runStoredPlanItem(deps, job);
            } catch (e) {
              log('plan item failed', { jobId, retryCount: item.retryCount, err: safeErrorText(e) });
              if (item.retryCount < item.retryLimit) throw e;
              await jobs.recordItem(jobId, item.data.pathPlanId, {
                errorCode: 'INTERNAL_ERROR',
                message: 'This job failed unexpectedly after retries.',
              });
              await jobs.completeIfDone(jobId);
            }
            return;
          }
          const target =
            item.data.scenarioIndex === undefined
              ? jobTarget(job)
              : scenarioTarget(job, item.data.scenarioIndex);
          try {
            await runPlanItem(deps, job, boundaryIds, target);
            // A retried item whose outcomes were all written before the kill still completes the job.
            await jobs.completeIfDone(jobId);
          } catch (e) {
            log('plan item failed', {
              jobId,
              boundaryIds,
              retryCount: item.retryCount,
              err: safeErrorText(e),
            });
            if (item.retryCount >= item.retryLimit) {
              // Out of retries: these fields get an error, the batch goes on.
              await jobs.recordItems(
                jobId,
                boundaryIds.map((boundaryId) => ({
                  itemKey: target.itemKey(boundaryId),
                  errorCode: 'INTERNAL_ERROR',
                  message: 'Planning this boundary failed unexpectedly after retries.',
                })),
              );
              await jobs.completeIfDone(jobId);
              return;
            }
            throw e;
          }
        },
      );

      await work<ExportItem>(
        EXPORT_QUEUE,
        1,
        {
          batchSize: 1,
          pollingIntervalSeconds,
          includeMetadata: true,
        },
        async (batch) => {
          const item = batch[0] as JobWithMetadata<ExportItem>;
          const { jobId } = item.data;
          const job = await jobs.byId(jobId);
          // The transmission job is made with the batch; queue it (once: pg-boss keeps one per key), also
          // when an earlier run of this item stored the batch but stopped before queueing it.
          const queueTransmission = async () => {
            const transmissionJobId = (await jobs.byId(jobId))?.result?.transmissionJobId;
            if (typeof transmissionJobId !== 'string') return;
            await boss.send(TASK_QUEUE, { jobId: transmissionJobId } satisfies TaskItem, {
              singletonKey: transmissionJobId,
            });
            wake(TASK_QUEUE);
          };
          if (job?.status === 'completed') return queueTransmission();
          if (!job || job.status === 'cancelled') return;
          await jobs.markRunning(jobId);
          try {
            await runExport(store, job.id, job.companyId, job.request as ExportRequest);
            await queueTransmission();
          } catch (e) {
            log('export failed', { jobId, retryCount: item.retryCount, err: safeErrorText(e) });
            const code = (e as { code?: string }).code;
            if (typeof code === 'string' && code.startsWith('EXPORT_')) {
              await jobs.recordItem(jobId, 'export', { errorCode: code, message: (e as Error).message });
              await jobs.finish(jobId, 'failed');
              return;
            }
            if (item.retryCount >= item.retryLimit) {
              await jobs.recordItem(jobId, 'export', {
                errorCode: 'INTERNAL_ERROR',
                message: 'The export failed unexpectedly after retries.',
              });
              await jobs.finish(jobId, 'failed');
              return;
            }
            throw e;
          }
        },
      );
      const tasks = opts.tasks ?? builtInTasks();
      await work<TaskItem>(
        TASK_QUEUE,
        1,
        { batchSize: 1, pollingIntervalSeconds, includeMetadata: true },
        async (batch) => {
          const item = batch[0] as JobWithMetadata<TaskItem>;
          const job = await jobs.byId(item.data.jobId);
          if (!job || job.status === 'cancelled' || job.status === 'completed' || job.status === 'failed')
            return;
          await jobs.markRunning(job.id);
          try {
            await runTask(store, tasks, job);
          } catch (e) {
            log('task failed', {
              jobId: job.id,
              kind: job.kind,
              retryCount: item.retryCount,
              err: safeErrorText(e),
            });
            if (e instanceof TaskError || item.retryCount >= item.retryLimit) {
              const code = e instanceof TaskError ? e.code : 'INTERNAL_ERROR';
              const message =
                e instanceof TaskError ? e.message : 'The job failed unexpectedly after retries.';
              await jobs.recordItem(job.id, 'task', { errorCode: code, message });
              await jobs.finish(job.id, 'failed', { errorCode: code, message });
              return;
            }
            throw e;
          }
        },
      );
    },

    async stop(s = {}) {
      workerIds.clear();
      for (const q of working.splice(0)) await boss.offWork(q, { wait: s.graceful ?? true }).catch(() => {});
      await boss.stop({ graceful: s.graceful ?? true, timeout: s.timeoutMs ?? 30_000, close: true });
      await ownPool?.close();
      ownPool = undefined;
    },
  };
}

/** Makes the zip of an export job and stores it as its batch, once. */
async function runExport(
  store: Store,
  jobId: string,
  companyId: string,
  request: ExportRequest,
): Promise<void> {
  const plansRepo = createPathPlansRepository(store.db);
  const stored = [];
  for (const id of request.pathPlanIds) {
    const p = await plansRepo.getAny(id);
    if (!p || p.companyId !== companyId) {
      const err = new Error(`Plan ${id} no longer exists.`) as Error & { code: string };
      err.code = 'EXPORT_PLAN_NOT_FOUND';
      throw err;
    }
    stored.push(p);
  }
  // Terminals show client / farm / field: the stored grower, farm and field of each plan.
  const names = await createHierarchyRepository(store.db).namesOfFields(
    companyId,
    stored.flatMap((p) => (p.fieldId ? [p.fieldId] : [])),
  );
  const plans = stored.map((p) => {
    const n = p.fieldId ? names.get(p.fieldId) : undefined;
    return n
      ? { plan: p.model, customerName: n.grower, farmName: n.farm, fieldName: n.field }
      : { plan: p.model, fieldName: p.name };
  });
  const { fileName, zip } = await exportPlans(plans, request.format);
  await store.db.transaction(async (txAny) => {
    const tx = txAny as unknown as Database;
    const r = createJobsRepository(tx);
    const batchId = uuidv7();
    if (!(await r.recordItem(jobId, 'export', {}))) return;
    await tx.insert(exportBatches).values({
      id: batchId,
      companyId,
      jobId,
      format: request.format,
      fileName,
      content: Buffer.from(zip).toString('base64'),
    });
    let transmissionJobId: string | undefined;
    if (request.transmitTo) {
      const t = await r.create({
        companyId,
        userId: (await r.byId(jobId))?.userId ?? null,
        kind: 'transmission',
        request: { batchId, vendor: request.transmitTo },
        total: 1,
      });
      transmissionJobId = t.id;
    }
    await r.completeIfDone(jobId, { batchId, fileName, ...(transmissionJobId ? { transmissionJobId } : {}) });
  });
}

/** An export batch of a company the user can access: its file name and zip bytes. */
export async function readExportBatch(
  db: Database,
  userId: string,
  batchId: string,
): Promise<{ fileName: string; zip: Buffer } | null> {
  const [row] = await db
    .select()
    .from(exportBatches)
    .where(and(eq(exportBatches.id, batchId), accessibleTo(db, userId, exportBatches.companyId)));
  return row ? { fileName: row.fileName, zip: Buffer.from(row.content, 'base64') } : null;
}
