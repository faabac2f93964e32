/**
 * Bulk guidance benchmark: one bulk guidance job over every field of the
 * benchmark selection (../shared/fields/benchmark_selection.json, or the
 * fixture fields) in S1 (swath 6 m, radius 6 m, 2 exterior + 1 interior
 * headland pass, algorithm boustrophedon), through the HTTP interface, from
 * POST to the completed job.
 *
 *   npm run bench:bulk                          # embedded store (a fresh data directory on disk, as
 *                                               # npm start uses ./data), workers in the server process
 *   npm run bench:bulk -- --memory              # embedded store in memory
 *   npm run bench:bulk -- --postgres --workers 2  # PostgreSQL, two `tramline worker` processes
 *   npm run bench:bulk -- --limit 100
 *
 * Prints wall time, fields per second, plans and errors (by code), duplicate
 * plans (must be 0) and the machine's load average before and after (the
 * machine may be shared). Writes the same to bench/results/bulk-bench.json.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../api/app.ts';
import type { BoundaryInput } from '../formats/direct-request.ts';
import { createKeyForNewAccount } from '../store/bootstrap.ts';
import { openStore, type Store } from '../store/db.ts';
import { createTempDatabase } from '../store/testing.ts';
import { hasCorpus, loadBenchmarkSelection, loadFixtureFields, repoRoot } from '../test/helpers/corpus.ts';
import { seedBoundaries } from './seed-boundaries.ts';

const { values } = parseArgs({
  options: {
    limit: { type: 'string' },
    postgres: { type: 'boolean', default: false },
    memory: { type: 'boolean', default: false },
    workers: { type: 'string', default: '2' },
  },
});

const REQUEST = {
  equipment: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
  routeOptions: { algorithm: 'boustrophedon' },
};

function fields(): { name: string; geometry: BoundaryInput }[] {
  const list = hasCorpus()
    ? loadBenchmarkSelection().map((s) => ({ name: s.id, geometry: s.feature.geometry as BoundaryInput }))
    : loadFixtureFields().map((f, i) => ({
        name: String(f.properties.id ?? `fixture-${i}`),
        geometry: f.geometry as BoundaryInput,
      }));
  const limit = values.limit ? Number(values.limit) : list.length;
  return list.slice(0, limit);
}

/** User + system CPU of a child process so far [s] (Linux /proc; NaN elsewhere). */
function cpuSecondsOf(p: ChildProcess): number {
  try {
    const stat = readFileSync(`/proc/${p.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

async function main(): Promise<void> {
  const list = fields();
  const load0 = loadavg();
  let store: Store;
  let dropDb: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;
  let dataDir: string | undefined;
  if (values.postgres) {
    const db = await createTempDatabase();
    databaseUrl = db.url;
    dropDb = db.drop;
    store = await openStore({ databaseUrl, poolSize: 4 });
  } else if (values.memory) {
    store = await openStore({ dataDir: 'memory://' });
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'tramline-bulk-'));
    store = await openStore({ dataDir });
  }
  const key = await createKeyForNewAccount(store, {
    email: `bench-${Date.now()}@example.org`,
    unlimited: true,
  });
  const seeded = await seedBoundaries(store, key.companyId, list);

  const workers: ChildProcess[] = [];
  const app = await buildApp({
    store,
    logger: false,
    purgeIntervalMs: 0,
    rateLimitPerMin: 1_000_000,
    databaseUrl,
    jobWorkers: !values.postgres,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  if (values.postgres) {
    const n = Number(values.workers);
    for (let i = 0; i < n; i++) {
      const w = spawn(process.execPath, [resolve(repoRoot, 'cli/tramline.ts'), 'worker', '--threads', '1'], {
        env: { ...process.env, DATABASE_URL: databaseUrl },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      workers.push(w);
    }
  }
  const headers = { 'x-api-key': key.key, 'content-type': 'application/json' };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const post = await fetch(`${url}/api/bulk-guidance/normalized`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ boundaryIds: seeded.map((b) => b.boundaryId), request: REQUEST }),
  });
  if (post.status !== 202) throw new Error(`POST answered ${post.status}: ${await post.text()}`);
  const { jobId } = (await post.json()) as { jobId: string };
  let status: { status: string; progress: number; pathPlanIds: string[]; errors: { errorCode: string }[] };
  for (;;) {
    const r = await fetch(`${url}/api/bulk-guidance/normalized/jobs/${jobId}`, { headers });
    status = (await r.json()) as typeof status;
    if (status.status !== 'queued' && status.status !== 'running') break;
    await new Promise((res) => setTimeout(res, 250));
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const workerCpu = workers.map(cpuSecondsOf);
  const load1 = loadavg();
  const byCode: Record<string, number> = {};
  for (const e of status.errors) byCode[e.errorCode] = (byCode[e.errorCode] ?? 0) + 1;
  const dup = await store.db.execute(
    `select count(*)::int as n from (select boundary_id from path_plans where job_id = '${jobId}' group by boundary_id having count(*) > 1) d`,
  );
  const dupRows = Array.isArray(dup) ? dup : ((dup as { rows: { n: number }[] }).rows ?? []);
  const result = {
    mode: values.postgres
      ? `postgres, ${workers.length} worker processes (1 planning thread each)`
      : `embedded PGlite (${values.memory ? 'in memory' : 'data directory on disk'}), workers in the server process`,
    cpus: availableParallelism(),
    fields: list.length,
    status: status.status,
    seconds: Math.round(seconds * 10) / 10,
    fieldsPerSecond: Math.round((list.length / seconds) * 10) / 10,
    // CPU of this process, all threads (server, its job workers and planning threads on the embedded store).
    processCpuSeconds: Math.round(((cpu.user + cpu.system) / 1e6) * 10) / 10,
    // CPU of each `tramline worker` process from its start (PostgreSQL mode).
    workerCpuSeconds: workerCpu.map((s) => Math.round(s * 10) / 10),
    plans: status.pathPlanIds.length,
    errors: status.errors.length,
    errorsByCode: byCode,
    everyFieldAccounted: status.pathPlanIds.length + status.errors.length === list.length,
    duplicatePlans: Number((dupRows[0] as { n: number } | undefined)?.n ?? 0),
    loadAverageBefore: load0.map((x) => Math.round(x * 100) / 100),
    loadAverageAfter: load1.map((x) => Math.round(x * 100) / 100),
  };
  console.log(JSON.stringify(result, null, 2));
  mkdirSync(resolve(repoRoot, 'bench/results'), { recursive: true });
  writeFileSync(
    resolve(repoRoot, `bench/results/bulk-bench${values.postgres ? '-postgres' : ''}.json`),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(
    workers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : w.once('exit', r)))),
  );
  await app.close();
  await store.close();
  if (dropDb) await dropDb();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

await main();
