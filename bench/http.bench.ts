/**
 * HTTP load benchmark: `npm run bench:http`.
 *
 * Starts the real server (`node server.ts`, embedded database in a fresh
 * temporary directory, one bootstrap key, rate limit out of the way) on
 * 127.0.0.1, then for a ~10 ha and a ~100 ha real field posts scenario S1
 * (swath 6 m, turning radius 6 m, 2 exterior headland passes) to
 * /api/path-plans/direct/geojson with autocannon for a bounded time, while
 * probing /api/healthz every 100 ms. Prints requests/s, p50/p99 latency,
 * the server's peak RSS and health-check latency under load; writes the
 * same to bench/results/http-bench.json.
 *
 * Fields: the benchmark selection of ../shared/fields when present (single
 * part, no holes, area nearest 10 and 100 ha), else the fixture fields.
 * Settings: BENCH_DURATION [s] (default 10), BENCH_CONNECTIONS (default
 * 2 x planning threads), TRAMLINE_PLAN_THREADS (default CPUs).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Feature,
  hasCorpus,
  loadBenchmarkSelection,
  loadFixtureFields,
} from '../test/helpers/corpus.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
  statusCodeStats?: Record<string, { count: number }>;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const root = fileURLToPath(new URL('..', import.meta.url));
const duration = Number(process.env.BENCH_DURATION ?? 10);
const threads = Number(process.env.TRAMLINE_PLAN_THREADS ?? availableParallelism());
const connections = Number(process.env.BENCH_CONNECTIONS ?? 2 * threads);
const KEY = `tl_${'b'.repeat(43)}`;

function areaHa(f: Feature): number {
  return Number(f.properties.area_ha ?? Number.NaN);
}

function pickFields(): { label: string; feature: Feature }[] {
  let pool: Feature[];
  if (hasCorpus()) {
    pool = loadBenchmarkSelection()
      .map((s) => s.feature)
      .filter((f) => Number(f.properties.holes ?? 0) === 0 && Number(f.properties.parts ?? 1) === 1);
  } else {
    pool = loadFixtureFields().filter((f) => Number(f.properties.holes ?? 0) === 0);
  }
  if (pool.length === 0)
    throw new Error('no fields found (../shared/fields or test/fixtures/fields/fixtures.geojson)');
  const nearest = (ha: number) =>
    [...pool].sort((a, b) => Math.abs(Math.log(areaHa(a) / ha)) - Math.abs(Math.log(areaHa(b) / ha)))[0];
  return [
    { label: '~10 ha', feature: nearest(10) },
    { label: '~100 ha', feature: nearest(100) },
  ];
}

function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(join(root, 'node_modules/.bin/node'), ['server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      TRAMLINE_DATA_DIR: dataDir,
      TRAMLINE_BOOTSTRAP_API_KEY: KEY,
      TRAMLINE_RATE_LIMIT_PER_MIN: '10000000',
      TRAMLINE_PLAN_THREADS: String(threads),
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`server not listening after 30 s:\n${buf}`)), 30_000);
    const probe = setInterval(async () => {
      // LOG_LEVEL=warn hides the listening line: find the port from the OS instead.
      const port = listeningPort(child.pid!);
      if (!port) return;
      try {
        const r = await fetch(`http://127.0.0.1:${port}/api/healthz`);
        if (r.ok) {
          clearInterval(probe);
          clearTimeout(timer);
          resolve({ child, url: `http://127.0.0.1:${port}` });
        }
      } catch {}
    }, 200);
    const onData = (d: Buffer) => {
      buf += d.toString();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearInterval(probe);
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${buf}`));
    });
  });
}

/** The TCP port a process listens on (Linux /proc). */
function listeningPort(pid: number): number | null {
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const l = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const m = /^socket:\[(\d+)\]$/.exec(l);
        if (m) inodes.add(m[1]);
      } catch {}
    }
    for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length > 9 && c[3] === '0A' && inodes.has(c[9])) return Number.parseInt(c[1].split(':')[1], 16);
    }
  } catch {}
  return null;
}

/** Resident set size of a process [MB] (Linux VmRSS; VmHWM = the peak since start), or null. */
function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | null {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function probeHealth(
  url: string,
  stop: { done: boolean },
  rss?: { pid: number; peak: number },
): Promise<number[]> {
  const out: number[] = [];
  while (!stop.done) {
    if (rss) rss.peak = Math.max(rss.peak, rssMb(rss.pid) ?? 0);
    const t0 = performance.now();
    const r = await fetch(`${url}/api/healthz`);
    await r.arrayBuffer();
    out.push(performance.now() - t0);
    await new Promise((res) => setTimeout(res, 100));
  }
  return out.sort((a, b) => a - b);
}

const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

async function main() {
  const fields = pickFields();
  const dataDir = mkdtempSync(join(tmpdir(), 'tramline-bench-'));
  const { child, url } = await startServer(dataDir);
  const rows: Record<string, unknown>[] = [];
  try {
    const idle = await (async () => {
      const stop = { done: false };
      const p = probeHealth(url, stop);
      await new Promise((r) => setTimeout(r, 2000));
      stop.done = true;
      return p;
    })();
    for (const { label, feature } of fields) {
      const body = JSON.stringify({
        boundary: feature,
        equipment: { swathWidth: 6, minTurningRadius: 6 },
        exteriorHeadlandPasses: 2,
      });
      // Warm-up: one plan, and check it succeeds.
      const warm = await fetch(`${url}/api/path-plans/direct/geojson`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body,
      });
      const warmText = await warm.text();
      if (!warm.ok)
        throw new Error(
          `warm-up plan of ${feature.properties.id} failed: ${warm.status} ${warmText.slice(0, 300)}`,
        );
      const stop = { done: false };
      const rss = { pid: child.pid!, peak: 0 };
      const health = probeHealth(url, stop, rss);
      const r = await autocannon({
        url: `${url}/api/path-plans/direct/geojson`,
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body,
        connections,
        duration,
        timeout: 60,
      });
      stop.done = true;
      const h = await health;
      rows.push({
        field: label,
        id: feature.properties.id,
        areaHa: round(areaHa(feature), 2),
        vertices: feature.properties.vertices,
        responseBytes: warmText.length,
        requests: r.requests.total,
        requestsPerSec: round(r.requests.average, 2),
        latencyP50Ms: r.latency.p50,
        latencyP99Ms: r.latency.p99,
        latencyMaxMs: r.latency.max,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        healthzP50Ms: round(percentile(h, 50)),
        healthzP99Ms: round(percentile(h, 99)),
        healthzMaxMs: round(h[h.length - 1] ?? Number.NaN),
        healthzSamples: h.length,
        peakRssUnderLoadMb: rss.peak,
      });
    }
    const peak = Math.max(...rows.map((r) => Number(r.peakRssUnderLoadMb)));
    const peakSinceStart = rssMb(child.pid!, 'VmHWM');
    const result = {
      when: new Date().toISOString(),
      node: process.version,
      cpus: availableParallelism(),
      planThreads: threads,
      connections,
      durationSeconds: duration,
      scenario: { name: 'S1', swathWidth: 6, minTurningRadius: 6, exteriorHeadlandPasses: 2 },
      endpoint: 'POST /api/path-plans/direct/geojson',
      fieldsFrom: hasCorpus()
        ? '../shared/fields benchmark selection'
        : 'test/fixtures/fields/fixtures.geojson',
      healthzIdle: { p50Ms: round(percentile(idle, 50)), p99Ms: round(percentile(idle, 99)) },
      /** Highest RSS sampled (every ~100 ms) while planning load ran [MB]. */
      peakRssUnderLoadMb: peak,
      /** Peak RSS since the server started (VmHWM) [MB]: includes creating the embedded database on first start. */
      peakRssSinceStartMb: peakSinceStart,
      rows,
    };
    console.log(
      `HTTP benchmark: S1 to ${result.endpoint}, ${connections} connections x ${duration} s, ${threads} planning threads, Node ${process.version}`,
    );
    console.table(
      rows.map((r) => ({
        field: r.field,
        id: r.id,
        ha: r.areaHa,
        'req/s': r.requestsPerSec,
        'p50 ms': r.latencyP50Ms,
        'p99 ms': r.latencyP99Ms,
        non2xx: r.non2xx,
        errors: r.errors,
        'healthz p50 ms': r.healthzP50Ms,
        'healthz p99 ms': r.healthzP99Ms,
        'peak RSS MB': r.peakRssUnderLoadMb,
      })),
    );
    console.log(
      `healthz idle: p50 ${result.healthzIdle.p50Ms} ms, p99 ${result.healthzIdle.p99Ms} ms; server peak RSS under load ${peak} MB, since start ${peakSinceStart ?? '?'} MB (includes creating the embedded database)`,
    );
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/http-bench.json'), `${JSON.stringify(result, null, 1)}\n`);
    console.log('written: bench/results/http-bench.json');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
