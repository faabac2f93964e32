/**
 * The planning pool: planning runs off the event loop in worker threads
 * (piscina), with bounded concurrency (threads) and a small queue. A full
 * queue is refused at once (PoolBusyError -> 503); every task has a hard
 * time cap, after which piscina ends the worker thread running it
 * (PlanTimeoutError -> 422 PLAN_TOO_COMPLEX).
 *
 * Memory: each planning thread has a compact heap (default 64 MB of old
 * generation, `heapMb`), which bounds what a plan may hold and so the
 * server's resident memory: at most threads x heap, whatever is asked. A
 * plan that needs more ends its thread (V8 out of memory); it is refused
 * (PlanOutOfMemoryError -> 422 PLAN_TOO_COMPLEX) and piscina starts a new
 * thread. Such plans are rare: one field of the benchmark selection (807 ha
 * with 7 obstacles at a 6 m swath, a 22 MB answer), which on a heap of V8's
 * own size took the server from about 330 to 500 MB resident. Operators who
 * can spare the memory raise `heapMb` (TRAMLINE_PLAN_HEAP_MB).
 */
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { Piscina } from 'piscina';
import type { PlanTaskInput, PlanTaskOutput } from './plan-task.ts';

export const PLAN_TASK_FILE = new URL('./plan-task.ts', import.meta.url).href;

export interface PlanPoolOptions {
  /** Worker threads (default: available CPUs). */
  threads?: number;
  /**
   * Tasks that may wait for a thread (default 8 x threads, at least 8): room
   * for a realistic burst of concurrent clients (a waiting plan of a small
   * field costs a few ms per task ahead of it), while a flood still gets 503
   * at once instead of an ever-growing queue.
   */
  maxQueue?: number;
  /** Worker entry (default plan-task.ts); tests inject slow fakes. */
  filename?: string;
  /**
   * Semi-space of each planning thread's young generation [MB] (default
   * 12; the young generation is 3 of them). A median S1 plan allocates some
   * 30 MB of short-lived objects: with the request thread's 4 MB a planning
   * thread stopped for about 10 scavenges per plan, with 12-16 MB for about
   * 3 (S1, 200 selection fields, one at a time: Server-Timing plan median
   * 28.2 -> 23.2 ms; 10 ha under load about 80 -> 120-140 plans/s, CPU per
   * plan 20.7 -> 12-15 ms) for some 40 MB more peak resident memory (16 MB
   * bought no more speed for 10 MB more). V8 grows a semi-space only as
   * survivors need it.
   */
  semiSpaceMb?: number;
  /**
   * Nice value added to the planning threads (default 5; Linux sets it per
   * thread): when the CPUs are busy the request thread (admission, health
   * checks, sending answers) runs first, and plans take what is left.
   */
  niceIncrement?: number;
  /**
   * Old generation of each planning thread's heap [MB] (default 64): the
   * most a plan may hold; about 40 MB less resident memory per thread under
   * load than V8's own limit, for about 7% more CPU per plan over the
   * benchmark selection.
   */
  heapMb?: number;
  /**
   * Threads started with the pool and kept while idle (default: all). Fewer
   * start on the first plans that need them (a thread takes about a second
   * of CPU to load the planner) and end after a minute idle: for processes
   * that may never plan, such as tests of other routes.
   */
  idleThreads?: number;
}

export class PoolBusyError extends Error {
  constructor() {
    super('All planning workers are busy and the queue is full.');
    this.name = 'PoolBusyError';
  }
}

export class PlanTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`Planning did not finish within ${timeoutMs} ms.`);
    this.name = 'PlanTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

export class PlanOutOfMemoryError extends Error {
  constructor() {
    super('Planning needs more memory than a planning thread has.');
    this.name = 'PlanOutOfMemoryError';
  }
}

const outOfMemory = (e: unknown) => (e as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';

export class PlanCancelledError extends Error {
  constructor() {
    super('Planning was cancelled.');
    this.name = 'PlanCancelledError';
  }
}

export interface PlanPool {
  readonly threads: number;
  readonly maxQueue: number;
  /** True when a new task would be refused. */
  saturated(): boolean;
  stats(): { threads: number; running: number; queued: number; maxQueue: number };
  run(input: PlanTaskInput, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<PlanTaskOutput>;
  /** Waits for running tasks, then ends the threads. */
  close(): Promise<void>;
}

export function createPlanPool(opts: PlanPoolOptions = {}): PlanPool {
  const semiSpaceMb = opts.semiSpaceMb ?? 12;
  const threads = Math.max(1, opts.threads ?? availableParallelism());
  const maxQueue = Math.max(0, opts.maxQueue ?? Math.max(8, 8 * threads));
  // V8's --max-semi-space-size, which keeps the request thread's young
  // generation small (process-settings.ts), binds every isolate of the
  // process and wins over a worker's own young generation limit; V8 reads it
  // when a thread's heap is set up, so the planning threads get theirs here.
  setFlagsFromString(`--max-semi-space-size=${semiSpaceMb}`);
  const piscina = new Piscina({
    filename: opts.filename ?? PLAN_TASK_FILE,
    concurrentTasksPerWorker: 1,
    workerData: { niceIncrement: opts.niceIncrement ?? 5 },
    minThreads: Math.min(threads, Math.max(0, opts.idleThreads ?? threads)),
    maxThreads: threads,
    maxQueue,
    idleTimeout: 60_000,
    resourceLimits: {
      maxYoungGenerationSizeMb: 3 * semiSpaceMb,
      maxOldGenerationSizeMb: opts.heapMb ?? 64,
    },
  });
  // A thread that dies with no task in hand (its tasks are rejected on their own) must not end the process.
  piscina.on('error', () => {});
  let running = 0;
  let closed = false;
  const inFlight = new Set<Promise<unknown>>();
  return {
    threads,
    maxQueue,
    saturated: () => closed || running >= threads + maxQueue,
    stats: () => ({
      threads,
      running: Math.min(running, threads),
      queued: Math.max(0, running - threads),
      maxQueue,
    }),
    async run(input, { timeoutMs, signal }) {
      if (closed || running >= threads + maxQueue) throw new PoolBusyError();
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([timeout, signal]) : timeout;
      running++;
      const p = piscina.run(input, { signal: combined }) as Promise<PlanTaskOutput>;
      inFlight.add(p);
      try {
        return await p;
      } catch (e) {
        if (timeout.aborted) throw new PlanTimeoutError(timeoutMs);
        if (outOfMemory(e)) throw new PlanOutOfMemoryError();
        if (signal?.aborted) throw new PlanCancelledError();
        if (e instanceof Error && /queue is at limit/i.test(e.message)) throw new PoolBusyError();
        throw e;
      } finally {
        running--;
        inFlight.delete(p);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...inFlight]);
      await piscina.destroy();
    },
  };
}
