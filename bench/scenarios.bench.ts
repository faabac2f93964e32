/**
 * Equipment scenario benchmark: one scenario set of three machines over
 * every field of the benchmark selection (../shared/fields/
 * benchmark_selection.json, or the fixture fields) through the HTTP
 * interface, from POST /api/equipment-scenarios/normalized to the completed
 * job and the set's figures (GET /api/equipment-scenarios/{id}). The plans
 * run in the job workers' planning threads (the piscina pool of
 * jobs/plan-pool.ts), one thread per CPU, as in production.
 *
 *   npm run bench:scenarios                     # embedded store in memory, workers in the server process
 *   npm run bench:scenarios -- --limit 60       # an even sample of 60 fields (x 3 machines)
 *
 * Prints wall time, field plans per second, the time the whole selection
 * would take at that rate, the CPU time per field plan and the selection's
 * time on idle CPUs from it (CPU per plan x plans / CPUs: on a shared
 * machine the wall time says more about the other load), each machine's totals (hours, fuel, emissions,
 * cost per ha, trafficked %), errors by code and the machine's load average
 * before and after (the machine may be shared: compare rates, not times).
 * Writes the same to bench/results/scenarios-bench.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../api/app.ts';
import type { BoundaryInput } from '../formats/direct-request.ts';
import { createKeyForNewAccount } from '../store/bootstrap.ts';
import { openStore } from '../store/db.ts';
import {
  hasCorpus,
  loadBenchmarkSelection,
  loadFixtureFields,
  repoRoot,
  sampleSelection,
} from '../test/helpers/corpus.ts';
import { seedBoundaries } from './seed-boundaries.ts';

const { values } = parseArgs({
  options: {
    limit: { type: 'string' },
  },
});

const PLANNING = { exteriorHeadlandPasses: 1, routeOptions: { algorithm: 'boustrophedon' } };

/** Three machines a farm might compare: a 6 m drill, a 12 m cultivator on a larger tractor, a 24 m sprayer. */
const MACHINES = [
  {
    name: 'Drill 6 m',
    equipment: { swathWidth: 6, minTurningRadius: 6, trackWidths: [1.8], tireWidths: [0.5] },
  },
  {
    name: 'Cultivator 12 m, 4wd',
    equipment: {
      swathWidth: 12,
      minTurningRadius: 8,
      ptoPowerKw: 220,
      trackWidths: [2.25],
      tireWidths: [0.71],
      cost: { machineClass: 'tractor4wd', listPrice: 320_000 },
    },
  },
  {
    name: 'Sprayer 24 m',
    equipment: {
      swathWidth: 24,
      minTurningRadius: 8,
      workingSpeed: 4,
      trackWidths: [2.25],
      tireWidths: [0.46],
      fuelUseWorkingLph: 18,
    },
  },
];

/** The selection, or with --limit an even sample of it over every reason for selection. */
function fields(): { name: string; geometry: BoundaryInput }[] {
  const limit = values.limit ? Number(values.limit) : undefined;
  if (hasCorpus()) {
    const picked = limit ? sampleSelection(limit) : loadBenchmarkSelection();
    return picked.map((s) => ({ name: s.id, geometry: s.feature.geometry as BoundaryInput }));
  }
  return loadFixtureFields()
    .slice(0, limit)
    .map((f, i) => ({
      name: String(f.properties.id ?? `fixture-${i}`),
      geometry: f.geometry as BoundaryInput,
    }));
}

const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

async function main(): Promise<void> {
  const list = fields();
  const selection = hasCorpus() ? loadBenchmarkSelection().length : list.length;
  const load0 = loadavg();
  const store = await openStore({ dataDir: 'memory://' });
  const key = await createKeyForNewAccount(store, {
    email: `bench-${Date.now()}@example.org`,
    unlimited: true,
  });
  const seeded = await seedBoundaries(store, key.companyId, list);
  const app = await buildApp({
    store,
    logger: false,
    purgeIntervalMs: 0,
    rateLimitPerMin: 1_000_000,
    jobWorkers: true,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const headers = { 'x-api-key': key.key, 'content-type': 'application/json' };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const post = await fetch(`${url}/api/equipment-scenarios/normalized`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'Benchmark selection',
      boundaryIds: seeded.map((b) => b.boundaryId),
      scenarios: MACHINES.map((m) => ({ ...m, ...PLANNING })),
    }),
  });
  if (post.status !== 202) throw new Error(`POST answered ${post.status}: ${await post.text()}`);
  const { jobId } = (await post.json()) as { jobId: string };
  type Job = { status: string; total: number; equipmentScenarioId: string; errors: { errorCode: string }[] };
  let job: Job;
  for (;;) {
    job = (await (
      await fetch(`${url}/api/equipment-scenarios/normalized/jobs/${jobId}`, { headers })
    ).json()) as Job;
    if (job.status !== 'queued' && job.status !== 'running') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const t1 = performance.now();
  const set = (await (
    await fetch(`${url}/api/equipment-scenarios/${job.equipmentScenarioId}`, { headers })
  ).json()) as {
    scenarios: { name: string; totals: Record<string, number>; fields: { figures: unknown }[] }[];
  };
  const readSeconds = (performance.now() - t1) / 1000;
  const byCode: Record<string, number> = {};
  for (const e of job.errors) byCode[e.errorCode] = (byCode[e.errorCode] ?? 0) + 1;
  const perSecond = job.total / seconds;
  const result = {
    mode: 'embedded PGlite in memory, workers and planning threads in the server process',
    cpus: availableParallelism(),
    fields: list.length,
    machines: MACHINES.length,
    fieldPlans: job.total,
    status: job.status,
    seconds: round(seconds),
    fieldPlansPerSecond: round(perSecond, 2),
    // The whole selection at this rate (the same as `seconds` without --limit).
    selectionSecondsAtThisRate: round((selection * MACHINES.length) / perSecond),
    // CPU of this process, all threads (server, job workers, planning threads): it does not grow with
    // the machine's load as wall time does.
    processCpuSeconds: round(cpuSeconds),
    cpuSecondsPerFieldPlan: round(cpuSeconds / job.total, 3),
    // The whole selection on this machine's CPUs with nothing else running: CPU per plan x plans / CPUs.
    selectionSecondsOnIdleCpus: round(
      ((cpuSeconds / job.total) * selection * MACHINES.length) / availableParallelism(),
    ),
    readSetSeconds: round(readSeconds, 2),
    errors: job.errors.length,
    errorsByCode: byCode,
    totals: set.scenarios.map((s) => ({
      name: s.name,
      plans: s.fields.filter((f) => f.figures).length,
      areaHa: round(s.totals.areaHa ?? 0),
      totalHours: round(s.totals.totalHours ?? 0),
      fuelLitres: round(s.totals.fuelLitres ?? 0),
      ghgKgCo2e: round(s.totals.ghgKgCo2e ?? 0),
      costPerHa: round(s.totals.costPerHa ?? 0, 2),
      traffickedAreaPercent: round(s.totals.traffickedAreaPercent ?? 0),
    })),
    loadAverageBefore: load0.map((x) => round(x, 2)),
    loadAverageAfter: loadavg().map((x) => round(x, 2)),
  };
  console.log(JSON.stringify(result, null, 2));
  mkdirSync(resolve(repoRoot, 'bench/results'), { recursive: true });
  writeFileSync(
    resolve(repoRoot, 'bench/results/scenarios-bench.json'),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  await app.close();
  await store.close();
}

await main();
