/**
 * `tramline worker [--threads N] [--concurrency N]`: runs job workers (bulk
 * guidance, guidance, exports) against the PostgreSQL of DATABASE_URL, in
 * this process, with its own planning threads. Start as many as there are
 * machines; they share the work through pg-boss. A killed worker's items go
 * to the others after about 10 s (the heartbeat) and are never stored twice.
 * SIGINT/SIGTERM: finish the items in hand, then exit.
 */

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { storeBoundaryLoader } from '../../jobs/boundaries.ts';
import { createJobSystem } from '../../jobs/runtime.ts';
import { openStore } from '../../store/db.ts';

export interface CommandIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const defaultIO: CommandIO = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

export const WORKER_HELP = `Usage: tramline worker [options]

Run job workers (bulk guidance, guidance, plan exports) against the PostgreSQL
database of DATABASE_URL, the same database the servers use. Run one per
machine (or more); the servers may leave their own workers off with
TRAMLINE_JOB_WORKERS=0. The embedded database (no DATABASE_URL) serves one
process only: there the server runs the workers itself.

Options:
  --threads N       planning threads (default: TRAMLINE_PLAN_THREADS or the CPUs)
  --concurrency N   job items held at once (of up to 8 boundaries each; default 2)
  -h, --help        this help

Environment: DATABASE_URL (required), DATABASE_POOL_SIZE, TRAMLINE_PLAN_THREADS.
`;

export async function run(argv: string[], io: CommandIO = defaultIO): Promise<number> {
  let values: { threads?: string; concurrency?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        threads: { type: 'string' },
        concurrency: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    io.stderr(`tramline worker: ${(e as Error).message}\n\n${WORKER_HELP}`);
    return 2;
  }
  if (values.help) {
    io.stdout(WORKER_HELP);
    return 0;
  }
  const int = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 256)
      throw new Error(`${name} must be an integer 1..256, not "${v}"`);
    return n;
  };
  let threads: number | undefined;
  let concurrency: number | undefined;
  try {
    threads = int('--threads', values.threads ?? process.env.TRAMLINE_PLAN_THREADS);
    concurrency = int('--concurrency', values.concurrency);
  } catch (e) {
    io.stderr(`tramline worker: ${(e as Error).message}\n`);
    return 2;
  }
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    io.stderr(
      'tramline worker: DATABASE_URL is required (workers share a PostgreSQL database with the servers).\n',
    );
    return 2;
  }
  const store = await openStore({ databaseUrl, poolSize: Number(process.env.DATABASE_POOL_SIZE) || 4 });
  const planningThreads = threads ?? availableParallelism();
  const jobs = await createJobSystem({
    store,
    databaseUrl,
    loadBoundary: storeBoundaryLoader(store),
    onError: (err) => io.stderr(`tramline worker: job system: ${String(err)}\n`),
  });
  await jobs.startWorkers({
    threads: planningThreads,
    concurrency,
    log: (msg, extra) => io.stderr(`tramline worker: ${msg} ${JSON.stringify(extra ?? {})}\n`),
  });
  io.stdout(`tramline worker: working (pid ${process.pid}, ${planningThreads} planning threads)\n`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(1);
      stopping = true;
      io.stderr(`tramline worker: ${signal}: finishing the items in hand\n`);
      jobs
        .stop({ graceful: true, timeoutMs: 70_000 })
        .then(() => store.close())
        .then(() => resolve(0))
        .catch((e) => {
          io.stderr(`tramline worker: stopping failed: ${String(e)}\n`);
          resolve(1);
        });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
