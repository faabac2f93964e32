/**
 * HTTP load benchmark: `npm run bench:http`.
 *
 * Starts the real server (`node server.ts`, embedded database in a fresh
 * temporary directory, one bootstrap key, rate limit out of the way) on
 * 127.0.0.1 and posts scenario S1 (swath 6 m, turning radius 6 m, 2
 * exterior headland passes) to /api/path-plans/direct/geojson:
 *   1. one request at a time over the fields of the benchmark selection:
 *      the median (and p90) round trip, client side, body received, over
 *      one kept-alive connection (node:http, as a lean client sends);
 *   2. for a ~10 ha and a ~100 ha real field, autocannon for a bounded
 *      time while /api/healthz is probed every 100 ms (from a thread of its own,
 *      as a load balancer probes from its own process): plans/s (200
 *      answers only), p50/p99 latency, health-check latency under load.
 *      Any other answer (a 503 + Retry-After tells a client to back off) is
 *      counted, flagged and not a plan; the run exits 1 when there are any.
 * Peak RSS is the server process's VmHWM (/proc/PID/status), reset after
 * start-up (clear_refs), so it covers the benchmark, not creating the
 * embedded database; RSS is also sampled every 100 ms under load, and the
 * one-at-a-time phase reads VmHWM after every request and lists the
 * requests that raised it most.
 * Prints a summary and writes bench/results/http-bench.json.
 *
 * Fields: the benchmark selection of ../shared/fields when present (for the
 * load: single part, no holes, area nearest 10 and 100 ha), else the
 * fixture fields.
 * Settings: BENCH_DURATION [s] per loaded field (default 10; 0 skips the
 * load), BENCH_SINGLE (how many selection fields, spread over every reason
 * for selection, go one at a time; default all; 0 skips), BENCH_CONNECTIONS
 * (default 4 x planning threads), BENCH_FIELDS ("10", "100" or "10,100"),
 * TRAMLINE_PLAN_THREADS (default: the server's own default), BENCH_NODE_ARGS
 * (more Node options for the server, e.g. "--cpu-prof --cpu-prof-dir=DIR"
 * or "--trace-gc"), BENCH_SERVER_LOG (a file the server's output is
 * appended to).
 * Quick run: BENCH_SINGLE=60 BENCH_DURATION=5 BENCH_FIELDS=10 npm run bench:http
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  type Feature,
  hasCorpus,
  loadBenchmarkSelection,
  loadFixtureFields,
  sampleSelection,
} from '../test/helpers/corpus.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  '2xx': number;
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
const threadsEnv = process.env.TRAMLINE_PLAN_THREADS;
const connections = Number(process.env.BENCH_CONNECTIONS ?? 4 * availableParallelism());
const singleCount =
  process.env.BENCH_SINGLE === undefined ? Number.POSITIVE_INFINITY : Number(process.env.BENCH_SINGLE);
const loadSizes = (process.env.BENCH_FIELDS ?? '10,100')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
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
  return loadSizes.map((ha) => ({ label: `~${ha} ha`, feature: nearest(ha) }));
}

/** The fields of the one-at-a-time phase. */
function singleFields(): Feature[] {
  if (singleCount <= 0) return [];
  if (!hasCorpus()) return loadFixtureFields();
  const all = loadBenchmarkSelection();
  return (singleCount >= all.length ? all : sampleSelection(singleCount)).map((s) => s.feature);
}

const s1 = (boundary: unknown) =>
  JSON.stringify({ boundary, equipment: { swathWidth: 6, minTurningRadius: 6 }, exteriorHeadlandPasses: 2 });

function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  // The Node options of `npm start` (e.g. the young generation size), so the figures are those of the service as run.
  const start = String(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start);
  const nodeArgs = start.split(/\s+/).filter((a) => a.startsWith('--'));
  // Extra Node options for the server alone (e.g. --cpu-prof), which NODE_OPTIONS may not carry.
  nodeArgs.push(...(process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean));
  const child = spawn(join(root, 'node_modules/.bin/node'), [...nodeArgs, 'server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      TRAMLINE_DATA_DIR: dataDir,
      TRAMLINE_BOOTSTRAP_API_KEY: KEY,
      TRAMLINE_RATE_LIMIT_PER_MIN: '10000000',
      ...(threadsEnv ? { TRAMLINE_PLAN_THREADS: threadsEnv } : {}),
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    // Creating the embedded database takes a while on a busy machine.
    const timer = setTimeout(() => reject(new Error(`server not listening after 120 s:\n${buf}`)), 120_000);
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
    // The server's output: kept for an error message, and written to BENCH_SERVER_LOG when set.
    const log = process.env.BENCH_SERVER_LOG;
    const onData = (d: Buffer) => {
      if (log) appendFileSync(log, d);
      if (buf.length < 1_000_000) buf += d.toString();
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

interface PeakRaiser {
  id: string;
  areaHa: number;
  vertices: number;
  status: number;
  ms: number;
  /** Peak RSS after the request, and by how much the request raised it [MB]. */
  peakMb: number;
  byMb: number;
}

/** Resets the peak RSS (VmHWM) of a process (Linux clear_refs 5); false when not allowed. */
function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Resident set size of a process [MB] (Linux VmRSS; VmHWM = the peak since start or reset), or null. */
function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | null {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

const CLOCK_TICKS_PER_S = 100;

/**
 * CPU time of a process [ms] (user + system, all threads: /proc/PID/stat)
 * and of its main thread alone (/proc/PID/task/PID/stat, the event loop);
 * steadier than wall time on a shared machine.
 */
function cpuMs(pid: number): { total: number; main: number } | null {
  const read = (path: string) => {
    const f = readFileSync(path, 'utf8');
    const c = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return ((Number(c[11]) + Number(c[12])) * 1000) / CLOCK_TICKS_PER_S;
  };
  try {
    return { total: read(`/proc/${pid}/stat`), main: read(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return null;
  }
}

/** CPU time of each thread of a process [ms] by thread id, with its name (comm: MainThread, WorkerThread, V8Worker, ...). */
function threadCpuMs(pid: number): Map<string, { name: string; ms: number }> {
  const out = new Map<string, { name: string; ms: number }>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = f.slice(f.indexOf('(') + 1, f.lastIndexOf(')'));
        const c = f.slice(f.lastIndexOf(')') + 2).split(' ');
        out.set(tid, { name, ms: ((Number(c[11]) + Number(c[12])) * 1000) / CLOCK_TICKS_PER_S });
      } catch {}
    }
  } catch {}
  return out;
}

/**
 * Server CPU per plan by kind of thread [ms]: the request thread
 * (MainThread), planning threads (WorkerThread), V8's helper threads
 * (V8Worker: concurrent GC and compiling, for every thread's heap), libuv's
 * pool, and the threads that ended in between.
 */
function cpuByThread(
  before: Map<string, { name: string; ms: number }>,
  after: Map<string, { name: string; ms: number }>,
  totalMs: number,
  n: number,
): Record<string, number> {
  const sums: Record<string, number> = {};
  let seen = 0;
  for (const [tid, t] of after) {
    const d = t.ms - (before.get(tid)?.ms ?? 0);
    sums[t.name] = (sums[t.name] ?? 0) + d;
    seen += d;
  }
  sums['ended threads'] = Math.max(0, totalMs - seen);
  return Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, round(v / Math.max(1, n), 2)]));
}

function cpuPer(before: ReturnType<typeof cpuMs>, after: ReturnType<typeof cpuMs>, n: number) {
  if (!before || !after || n <= 0) return { totalMs: Number.NaN, mainMs: Number.NaN };
  return {
    totalMs: round((after.total - before.total) / n, 2),
    mainMs: round((after.main - before.main) / n, 2),
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * The health checker: GET /api/healthz every 100 ms on its own thread, as a
 * load balancer probes from its own process, so what it measures is the
 * server's answer, not this process's event loop, busy with the load
 * generator's sockets.
 */
const PROBE_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let stopped = false;
parentPort.on('message', () => { stopped = true; });
(async () => {
  // The thread's first request sets up its HTTP client: not a health check.
  await (await fetch(workerData.url + '/api/healthz')).arrayBuffer();
  const out = [];
  while (!stopped) {
    const t0 = performance.now();
    const r = await fetch(workerData.url + '/api/healthz');
    await r.arrayBuffer();
    out.push(performance.now() - t0);
    await new Promise((res) => setTimeout(res, 100));
  }
  parentPort.postMessage(out);
})();
`;

/** Health-check latencies [ms], sorted, until stop.done; samples the server's RSS meanwhile. */
function probeHealth(
  url: string,
  stop: { done: boolean },
  rss?: { pid: number; peak: number },
): Promise<number[]> {
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: { url } });
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (rss) rss.peak = Math.max(rss.peak, rssMb(rss.pid) ?? 0);
      if (stop.done) {
        clearInterval(timer);
        worker.postMessage('stop');
      }
    }, 100);
    worker.once('message', (out: number[]) => {
      void worker.terminate();
      resolve(out.sort((a, b) => a - b));
    });
    worker.once('error', (e) => {
      clearInterval(timer);
      reject(e);
    });
  });
}

const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

/** The durations of a Server-Timing header by name [ms] (plan, pool, total). */
function serverTimings(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of (header ?? '').matchAll(/([a-z]+);dur=([0-9.]+)/g)) out[m[1]] = Number(m[2]);
  return out;
}

/** One kept-alive connection for the requests sent one at a time. */
const AGENT = new Agent({ keepAlive: true, maxSockets: 1 });

function post(
  url: string,
  body: string,
): Promise<{ status: number; text: string; ms: number; timing: Record<string, number> }> {
  const target = new URL(`${url}/api/path-plans/direct/geojson`);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: AGENT,
        headers: {
          'x-api-key': KEY,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const ms = performance.now() - t0;
          const header = res.headers['server-timing'];
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ms,
            timing: serverTimings(Array.isArray(header) ? header.join(',') : (header ?? null)),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Phase 1: one request at a time over the selection. */
async function singleRoundTrips(url: string, features: Feature[], pid: number) {
  const ok: number[] = [];
  const all: number[] = [];
  // Server-Timing of the planned answers: planning thread, pool hand-over, arrival to answer [ms].
  const timing: Record<string, number[]> = { plan: [], pool: [], total: [] };
  const statuses: Record<string, number> = {};
  const bodies = features.map((f) => s1(f));
  // Warm both planning threads and the request path first.
  for (let i = 0; i < Math.min(4, bodies.length); i++) await post(url, bodies[i]);
  const cpu0 = cpuMs(pid);
  // Which requests raise the peak RSS: VmHWM before and after each one (the peak is reset after start-up).
  const raisers: PeakRaiser[] = [];
  let hwm = rssMb(pid, 'VmHWM') ?? 0;
  let rssMax = 0;
  for (const [i, body] of bodies.entries()) {
    const r = await post(url, body);
    const peak = rssMb(pid, 'VmHWM') ?? 0;
    rssMax = Math.max(rssMax, rssMb(pid) ?? 0);
    if (peak > hwm) {
      const p = features[i].properties;
      raisers.push({
        id: String(p.id),
        areaHa: round(areaHa(features[i])),
        vertices: Number(p.vertices),
        status: r.status,
        ms: round(r.ms),
        peakMb: peak,
        byMb: peak - hwm,
      });
      hwm = peak;
    }
    all.push(r.ms);
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    if (r.status === 200) {
      ok.push(r.ms);
      for (const k of Object.keys(timing)) if (r.timing[k] !== undefined) timing[k].push(r.timing[k]);
    } else if (r.status >= 500) throw new Error(`${r.status} for a selection field: ${r.text.slice(0, 300)}`);
  }
  const serverCpu = cpuPer(cpu0, cpuMs(pid), bodies.length);
  ok.sort((a, b) => a - b);
  all.sort((a, b) => a - b);
  return {
    fields: features.length,
    /** Server CPU per request [ms]: all threads, and the main thread (event loop) alone. */
    serverCpuPerRequest: serverCpu,
    statuses,
    /** Peak RSS at the end of this phase, and the most RSS read after a request [MB]. */
    peakRssMb: hwm,
    rssAfterRequestMaxMb: rssMax,
    /** The requests that raised the peak RSS the most. */
    peakRaisers: raisers.sort((a, b) => b.byMb - a.byMb).slice(0, 10),
    planned: { medianMs: round(percentile(ok, 50)), p90Ms: round(percentile(ok, 90)) },
    /** Medians of the planned answers' Server-Timing [ms]: where the round trip goes. */
    serverTimingMedianMs: Object.fromEntries(
      Object.entries(timing).map(([k, v]) => [
        k,
        round(
          percentile(
            v.sort((a, b) => a - b),
            50,
          ),
          2,
        ),
      ]),
    ),
    allAnswers: { medianMs: round(percentile(all, 50)), p90Ms: round(percentile(all, 90)) },
  };
}

async function main() {
  const fields = duration > 0 ? pickFields() : [];
  const selection = singleFields();
  const dataDir = mkdtempSync(join(tmpdir(), 'tramline-bench-'));
  const t0 = performance.now();
  const { child, url } = await startServer(dataDir);
  const startSeconds = round((performance.now() - t0) / 1000);
  const pid = child.pid!;
  const rows: Record<string, unknown>[] = [];
  try {
    const rssAtStart = rssMb(pid);
    const peakReset = resetPeakRss(pid);
    const idle = await (async () => {
      const stop = { done: false };
      const p = probeHealth(url, stop);
      await new Promise((r) => setTimeout(r, 2000));
      stop.done = true;
      return p;
    })();
    const single = selection.length ? await singleRoundTrips(url, selection, pid) : null;
    for (const { label, feature } of fields) {
      const body = s1(feature);
      // Warm-up: check the plan succeeds.
      const warm = await post(url, body);
      if (warm.status !== 200)
        throw new Error(
          `warm-up plan of ${feature.properties.id} failed: ${warm.status} ${warm.text.slice(0, 300)}`,
        );
      const stop = { done: false };
      const rss = { pid, peak: 0 };
      const health = probeHealth(url, stop, rss);
      const cpu0 = cpuMs(pid);
      const threads0 = threadCpuMs(pid);
      const r = await autocannon({
        url: `${url}/api/path-plans/direct/geojson`,
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body,
        connections,
        duration,
        timeout: 60,
      });
      const cpu1 = cpuMs(pid);
      const threads1 = threadCpuMs(pid);
      stop.done = true;
      const h = await health;
      const perPlan = cpuPer(cpu0, cpu1, r['2xx']);
      rows.push({
        field: label,
        id: feature.properties.id,
        areaHa: round(areaHa(feature), 2),
        vertices: feature.properties.vertices,
        responseBytes: warm.text.length,
        singleRoundTripMs: round(warm.ms),
        requests: r.requests.total,
        requestsPerSec: round(r.requests.average, 2),
        plans: r['2xx'],
        plansPerSec: round(r['2xx'] / r.duration, 1),
        /** Server CPU per plan under load [ms]: all threads, and the main thread alone. */
        serverCpuPerPlanMs: perPlan.totalMs,
        mainThreadCpuPerPlanMs: perPlan.mainMs,
        cpuPerPlanByThreadMs: cpuByThread(
          threads0,
          threads1,
          cpu0 && cpu1 ? cpu1.total - cpu0.total : 0,
          r['2xx'],
        ),
        latencyP50Ms: r.latency.p50,
        latencyP99Ms: r.latency.p99,
        latencyMaxMs: r.latency.max,
        non2xx: r.non2xx,
        statusCodes: Object.fromEntries(
          Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]),
        ),
        errors: r.errors,
        timeouts: r.timeouts,
        healthzP50Ms: round(percentile(h, 50)),
        healthzP99Ms: round(percentile(h, 99)),
        healthzMaxMs: round(h[h.length - 1] ?? Number.NaN),
        healthzSamples: h.length,
        peakRssSampledMb: rss.peak,
      });
    }
    const peakRssMb = peakReset
      ? rssMb(pid, 'VmHWM')
      : Math.max(0, ...rows.map((r) => Number(r.peakRssSampledMb)));
    const result = {
      when: new Date().toISOString(),
      command: 'npm run bench:http',
      settings: {
        BENCH_DURATION: duration,
        BENCH_SINGLE: Number.isFinite(singleCount) ? singleCount : 'all',
        BENCH_CONNECTIONS: connections,
        BENCH_FIELDS: loadSizes.join(','),
        TRAMLINE_PLAN_THREADS: threadsEnv ?? 'server default',
      },
      node: process.version,
      cpus: availableParallelism(),
      loadAverage: loadavg().map((v) => round(v, 2)),
      scenario: { name: 'S1', swathWidth: 6, minTurningRadius: 6, exteriorHeadlandPasses: 2 },
      endpoint: 'POST /api/path-plans/direct/geojson',
      fieldsFrom: hasCorpus()
        ? '../shared/fields benchmark selection'
        : 'test/fixtures/fields/fixtures.geojson',
      serverStartSeconds: startSeconds,
      rssAtStartMb: rssAtStart,
      healthzIdle: { p50Ms: round(percentile(idle, 50)), p99Ms: round(percentile(idle, 99)) },
      singleRequest: single,
      /** Peak RSS of the server process over the benchmark (VmHWM after a reset at start) [MB]. */
      peakRssMb,
      peakRssFrom: peakReset ? 'VmHWM, reset after start-up' : 'VmRSS sampled every 100 ms under load',
      rows,
    };
    console.log(
      `HTTP benchmark: S1 to ${result.endpoint}, Node ${process.version}, ${result.cpus} CPUs, load average ${result.loadAverage.join(' ')}`,
    );
    console.log(
      `server healthy ${startSeconds} s after spawn (fresh embedded database), RSS ${rssAtStart} MB`,
    );
    if (single) {
      console.log(
        `one at a time over ${single.fields} selection fields: planned (200) median ${single.planned.medianMs} ms, p90 ${single.planned.p90Ms} ms; all answers median ${single.allAnswers.medianMs} ms; statuses ${JSON.stringify(single.statuses)}; server CPU per request ${single.serverCpuPerRequest.totalMs} ms (main thread ${single.serverCpuPerRequest.mainMs} ms); Server-Timing medians ${JSON.stringify(single.serverTimingMedianMs)}`,
      );
      console.log(
        `peak RSS after one at a time ${single.peakRssMb} MB (at most ${single.rssAfterRequestMaxMb} MB read after a request); requests that raised it most:`,
      );
      console.table(single.peakRaisers);
    }
    if (rows.length) {
      console.log(`under load: ${connections} connections x ${duration} s per field`);
      console.table(
        rows.map((r) => ({
          field: r.field,
          id: r.id,
          ha: r.areaHa,
          KB: Math.round(Number(r.responseBytes) / 1024),
          'plans/s': r.plansPerSec,
          'p50 ms': r.latencyP50Ms,
          'p99 ms': r.latencyP99Ms,
          'CPU ms/plan': r.serverCpuPerPlanMs,
          'main CPU ms/plan': r.mainThreadCpuPerPlanMs,
          non2xx: r.non2xx,
          'healthz p50 ms': r.healthzP50Ms,
          'healthz p99 ms': r.healthzP99Ms,
          'RSS sampled MB': r.peakRssSampledMb,
        })),
      );
    }
    for (const r of rows)
      console.log(`${r.field}: server CPU per plan by thread [ms] ${JSON.stringify(r.cpuPerPlanByThreadMs)}`);
    console.log(
      `healthz idle: p50 ${result.healthzIdle.p50Ms} ms, p99 ${result.healthzIdle.p99Ms} ms; server peak RSS ${peakRssMb ?? '?'} MB (${result.peakRssFrom})`,
    );
    const refused = rows.filter((r) => Number(r.non2xx) > 0 || Number(r.errors) > 0);
    for (const r of refused) {
      console.log(
        `NOT ALL PLANNED: ${r.field}: ${r.non2xx} answers other than 2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors; plans/s counts 200s only`,
      );
    }
    if (refused.length) process.exitCode = 1;
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/http-bench.json'), `${JSON.stringify(result, null, 1)}\n`);
    console.log('written: bench/results/http-bench.json');
  } finally {
    AGENT.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
