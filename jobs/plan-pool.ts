/**
 * The planning threads of job workers (piscina). Jobs bring their own
 * bounded backlog (the items a worker holds), so the pool queues whatever
 * it is given, in order, and hands a plan to piscina only when a thread is
 * free: a plan's time cap runs from its start, not from when it was queued.
 * Threads start with the first item and end after a minute idle, so a
 * server whose jobs are idle holds none. A plan over its time cap ends the
 * thread running it (PlanTimeoutError).
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type {
  JobPlanTaskInput,
  JobPlanTaskOutput,
  RouteDebugTaskInput,
  RouteDebugTaskOutput,
} from './plan-task.ts';

export const JOB_PLAN_TASK_FILE = new URL('./plan-task.ts', import.meta.url).href;

export class PlanTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`Planning did not finish within ${timeoutMs} ms.`);
    this.name = 'PlanTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

export interface JobPlanPool {
  readonly threads: number;
  /** `interactive`: a caller waits on it; it goes ahead of queued job work. */
  run(
    input: JobPlanTaskInput,
    opts: { timeoutMs: number; interactive?: boolean },
  ): Promise<JobPlanTaskOutput>;
  /** Route debugging (core/route/route-debug.ts) for a caller waiting on it: ahead of queued job work. */
  routeDebug(input: RouteDebugTaskInput, opts: { timeoutMs: number }): Promise<RouteDebugTaskOutput>;
  /** Waits for running tasks, then ends the threads. */
  close(): Promise<void>;
}

export function createJobPlanPool(
  opts: {
    threads?: number;
    filename?: string;
    /** Added to the planning threads' nice value (default 10: below direct planning at 5). */
    niceIncrement?: number;
  } = {},
): JobPlanPool {
  const threads = Math.max(1, opts.threads ?? availableParallelism());
  const piscina = new Piscina({
    filename: opts.filename ?? JOB_PLAN_TASK_FILE,
    minThreads: 0,
    maxThreads: threads,
    concurrentTasksPerWorker: 1,
    idleTimeout: 60_000,
    // The young generation V8 would size from host memory buys nothing here (short-lived objects die young either way).
    resourceLimits: { maxYoungGenerationSizeMb: 16 },
    workerData: { niceIncrement: opts.niceIncrement ?? 10 },
  });
  const inFlight = new Set<Promise<unknown>>();
  const waiting: (() => void)[] = [];
  let running = 0;
  let closed = false;
  const acquire = async (first = false) => {
    if (running < threads) {
      running++;
      return;
    }
    // The slot is handed over by release(): running stays counted. Interactive work goes first.
    await new Promise<void>((r) => (first ? waiting.unshift(r) : waiting.push(r)));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  const runTask = async <T>(input: unknown, name: string, timeoutMs: number, first: boolean): Promise<T> => {
    if (closed) throw new Error('The planning pool is closed.');
    await acquire(first);
    const timeout = AbortSignal.timeout(timeoutMs);
    let p: Promise<T> | undefined;
    try {
      p = piscina.run(input, { signal: timeout, name }) as Promise<T>;
      inFlight.add(p);
      return await p;
    } catch (e) {
      if (timeout.aborted) throw new PlanTimeoutError(timeoutMs);
      throw e;
    } finally {
      if (p) inFlight.delete(p);
      release();
    }
  };
  return {
    threads,
    run: (input, { timeoutMs, interactive }) =>
      runTask<JobPlanTaskOutput>(input, 'default', timeoutMs, interactive === true),
    routeDebug: (input, { timeoutMs }) =>
      runTask<RouteDebugTaskOutput>(input, 'routeDebugTask', timeoutMs, true),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...inFlight]);
      await piscina.destroy();
    },
  };
}
