/**
 * Zip bombs against the server as users start it (`node server.ts`, which
 * restarts itself with the server's V8 options), on PGlite, and on
 * PostgreSQL for bombs stored before uploads were checked: each is refused
 * within 2 s with the limit it passes, `/api/healthz` (polled all the
 * while) answers within 100 ms, and the server's peak resident memory
 * (VmHWM) stays far below 1 GB. Where the machine lets the test make a
 * memory cgroup (Linux, as root: cgroup v2 `memory.max` or v1
 * `memory.limit_in_bytes`), the server runs under a hard 1 GB memory limit
 * and must still be alive afterwards. (An address-space limit, `prlimit
 * --as`, cannot be used: V8 and PGlite's WebAssembly reserve gigabytes of
 * virtual memory they never touch.) Before these checks the first bomb ended
 * the process and the second held the request thread for a second.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { overlapBomb, plainBomb, understatedBomb } from '../formats/archive-testing.ts';
import { openStore } from '../store/db.ts';
import { createUserFilesRepository } from '../store/repositories/user-files.ts';
import { createTempDatabase, skipPostgres } from '../store/testing.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const nodeBin = join(root, 'node_modules/.bin/node');
const MB = 1024 * 1024;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A memory cgroup limited to `bytes`, when this process may make one: the
 * file a process joins it through, its peak use, and its removal. Null
 * where cgroups cannot be written (not Linux, not root, read-only).
 */
function memoryCgroup(bytes: number): { procs: string; peak(): number; remove(): void } | null {
  const name = `tramline-bombs-${process.pid}-${Date.now()}`;
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const dir = v2 ? `/sys/fs/cgroup/${name}` : `/sys/fs/cgroup/memory/${name}`;
  try {
    mkdirSync(dir);
  } catch {
    return null;
  }
  try {
    writeFileSync(join(dir, v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(bytes));
  } catch {
    rmdirSync(dir);
    return null;
  }
  // Swap counted too where v1 accounts for it (without swap accounting the file is missing).
  const memsw = join(dir, 'memory.memsw.limit_in_bytes');
  if (!v2 && existsSync(memsw)) writeFileSync(memsw, String(bytes));
  const peakFile = join(dir, v2 ? 'memory.peak' : 'memory.max_usage_in_bytes');
  return {
    procs: join(dir, 'cgroup.procs'),
    peak: () => (existsSync(peakFile) ? Number(readFileSync(peakFile, 'utf8').trim()) : 0),
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        // A cgroup still holding an exiting process is removed by the system later.
      }
    },
  };
}
const GB = 1024 * 1024 * 1024;

interface Spawned {
  url: string;
  child: ChildProcess;
  /** Peak memory of the server's 1 GB cgroup [bytes], or null when it runs without one. */
  cgroupPeak(): number | null;
  /** Peak resident memory of the server process so far [bytes]. */
  peakRss(): number;
  stop(): Promise<void>;
}

async function spawnServer(env: Record<string, string>): Promise<Spawned> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tramline-bombs-'));
  dirs.push(dataDir);
  // The server joins the cgroup before it starts (its restart with the V8 options keeps the pid).
  const cgroup = memoryCgroup(GB);
  const command = cgroup
    ? ['/bin/sh', ['-c', `echo $$ > '${cgroup.procs}' && exec "$0" server.ts`, nodeBin]]
    : [nodeBin, ['server.ts']];
  const child = spawn(command[0] as string, command[1] as string[], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      TRAMLINE_DATA_DIR: dataDir,
      TRAMLINE_PLAN_THREADS: '1',
      DATABASE_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`not listening after 30 s:\n${buf}`)), 30_000);
    const onData = (d: Buffer) => {
      buf += d.toString();
      const m = /Tramline listening on (http:\/\/[^\s]+) /.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${buf}`)));
  });
  return {
    url,
    child,
    cgroupPeak: () => (cgroup ? cgroup.peak() : null),
    // Linux reports it in /proc; elsewhere memory is not checked.
    peakRss: () =>
      process.platform === 'linux'
        ? Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024
        : 0,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      cgroup?.remove();
    },
  };
}

/** A self-registered account (no credits), as anyone may make one. */
async function register(url: string): Promise<{ auth: string; companyId: string; userId: string }> {
  const r = await fetch(`${url}/api/account/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `attacker-${Date.now()}@example.org`, password: 'correct horse battery' }),
  });
  expect(r.status).toBe(201);
  const b = await r.json();
  return { auth: `Bearer ${b.accessToken}`, companyId: b.companyId, userId: b.userId };
}

/**
 * Runs `work` while polling /api/healthz one request after another: the
 * slowest health answer [ms] during the work, and during as long a quiet
 * spell just before (what the machine's load alone costs a health answer;
 * on a quiet machine both are a few ms, and a request thread held for a
 * second shows as a health answer of a second).
 */
async function whilePollingHealth<T>(
  url: string,
  work: () => Promise<T>,
): Promise<{ out: T; ms: number; worstHealthMs: number; quietWorstMs: number }> {
  const state: { phase: 'quiet' | 'work' | 'stop' } = { phase: 'quiet' };
  const worst = { quiet: 0, work: 0 };
  const poller = (async () => {
    while (state.phase !== 'stop') {
      const at: 'quiet' | 'work' = state.phase;
      const t = performance.now();
      const h = await fetch(`${url}/api/healthz`);
      await h.arrayBuffer();
      expect(h.status).toBe(200);
      if (at === state.phase) worst[at] = Math.max(worst[at], performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await new Promise((r) => setTimeout(r, 600));
  state.phase = 'work';
  const t0 = performance.now();
  const out = await work();
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 200)); // and just after
  state.phase = 'stop';
  await poller;
  if (process.env.DEBUG_HEALTH) console.log({ ms, worst });
  return { out, ms, worstHealthMs: worst.work, quietWorstMs: worst.quiet };
}

/**
 * Of up to three runs of `measure`, the first whose health answers keep
 * within the bound, else the one that comes nearest: a machine busy with
 * other work (other test files in parallel) can hold one health answer for
 * hundreds of milliseconds now and then; a server the bomb blocks holds them
 * on every run. (A refused bomb leaves nothing behind, so it is sent again.)
 */
async function steadiest<T extends { worstHealthMs: number; quietWorstMs: number }>(
  measure: () => Promise<T>,
): Promise<T> {
  const excess = (r: T) => r.worstHealthMs - r.quietWorstMs;
  let best = await measure();
  for (let i = 1; i < 3 && excess(best) >= 100; i++) {
    const r = await measure();
    if (excess(r) < excess(best)) best = r;
  }
  return best;
}

/** The health answers while a bomb is refused: within 100 ms (beyond what the machine's load costs them when quiet). */
function expectHealthy(r: { worstHealthMs: number; quietWorstMs: number }, what: string): void {
  expect(
    r.worstHealthMs,
    `${what}: slowest health answer (quiet: ${r.quietWorstMs.toFixed(0)} ms)`,
  ).toBeLessThan(100 + r.quietWorstMs);
}

const bombs = async () =>
  [
    ['8 entries naming one 512 MB stream', await overlapBomb(8, 512 * MB), 'ARCHIVE_ENTRY_OVERLAP'],
    ['one 256 MB file of zeros', await plainBomb(256 * MB), 'ARCHIVE_ENTRY_TOO_LARGE'],
    [
      '256 MB of zeros declared as 4000 bytes',
      await understatedBomb(256 * MB, 4000),
      'ARCHIVE_SIZE_MISMATCH',
    ],
  ] as const;

describe('zip bombs against npm start', () => {
  it('are refused on upload within 2 s, health answering within 100 ms, memory far below 1 GB (PGlite)', async () => {
    const srv = await spawnServer({});
    try {
      const { auth, companyId } = await register(srv.url);
      const base = srv.peakRss();
      for (const [what, bomb, code] of await bombs()) {
        const r = await steadiest(() =>
          whilePollingHealth(srv.url, async () => {
            const res = await fetch(
              `${srv.url}/api/companies/${companyId}/user-files/file-upload?fileName=fields.zip`,
              {
                method: 'POST',
                headers: { authorization: auth, 'content-type': 'application/zip' },
                body: new Blob([bomb as Uint8Array<ArrayBuffer>]),
              },
            );
            return { status: res.status, body: await res.json() };
          }),
        );
        expect([413, 422], what).toContain(r.out.status);
        expect(r.out.body.errorCode, what).toBe(code);
        expect(r.out.body.details.limit, what).toBeTruthy();
        expect(r.ms, what).toBeLessThan(2000);
        expectHealthy(r, what);
      }
      expect(srv.child.exitCode).toBeNull();
      if (process.env.DEBUG_HEALTH)
        console.log({
          baseRss: base / MB,
          peakRss: srv.peakRss() / MB,
          cgroupPeak: (srv.cgroupPeak() ?? 0) / MB,
        });
      // Under a hard 1 GB limit the server is alive and its cgroup never reached the limit.
      const cgroupPeak = srv.cgroupPeak();
      if (cgroupPeak !== null) expect(cgroupPeak).toBeLessThan(GB);
      expect(srv.peakRss()).toBeLessThan(Math.max(600 * MB, base + 300 * MB));
    } finally {
      await srv.stop();
    }
  }, 120_000);
});

const skipPg = await skipPostgres();

describe.skipIf(skipPg)('zip bombs stored before uploads were checked', () => {
  it('are refused when read within 2 s, health answering within 100 ms (PostgreSQL)', async () => {
    const db = await createTempDatabase();
    const srv = await spawnServer({ DATABASE_URL: db.url });
    const store = await openStore({ databaseUrl: db.url, poolSize: 1 });
    try {
      const { auth, companyId, userId } = await register(srv.url);
      const files = createUserFilesRepository(store.db);
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${srv.url}${path}`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status, path).toBe(201);
        return res.json();
      };
      const grower = await post(`/api/companies/${companyId}/growers`, { name: 'G' });
      const farm = await post(`/api/growers/${grower.growerId}/farms`, { name: 'F' });
      const field = await post('/api/fields/save', {
        farmId: farm.farmId,
        name: 'Field',
        boundary: [
          [
            [10.1, 56.1],
            [10.104, 56.1],
            [10.104, 56.102],
            [10.1, 56.102],
            [10.1, 56.1],
          ],
        ],
      });
      const fieldId = field.field.fieldId;
      const base = srv.peakRss();
      for (const [what, bomb, code] of await bombs()) {
        const f = await files.create({
          companyId,
          userId,
          fileName: 'fields.zip',
          kind: 'shapefile-zip',
          mediaType: 'application/zip',
          content: bomb,
        });
        for (const [method, path, body] of [
          ['GET', `/api/user-files/${f.id}/polygons`, undefined],
          ['POST', `/api/user-files/${f.id}/import-boundary`, JSON.stringify({ fieldId })],
        ] as const) {
          const r = await steadiest(() =>
            whilePollingHealth(srv.url, async () => {
              const res = await fetch(`${srv.url}${path}`, {
                method,
                headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
                body,
              });
              return { status: res.status, body: await res.json() };
            }),
          );
          expect(r.out.status, `${method} ${what}`).toBe(422);
          expect(r.out.body.errorCode, what).toBe(code);
          expect(r.ms, what).toBeLessThan(2000);
          expectHealthy(r, what);
        }
      }
      expect(srv.child.exitCode).toBeNull();
      if (process.env.DEBUG_HEALTH)
        console.log({
          baseRss: base / MB,
          peakRss: srv.peakRss() / MB,
          cgroupPeak: (srv.cgroupPeak() ?? 0) / MB,
        });
      // Under a hard 1 GB limit the server is alive and its cgroup never reached the limit.
      const cgroupPeak = srv.cgroupPeak();
      if (cgroupPeak !== null) expect(cgroupPeak).toBeLessThan(GB);
      expect(srv.peakRss()).toBeLessThan(Math.max(600 * MB, base + 300 * MB));
    } finally {
      await store.close();
      await srv.stop();
      await db.drop();
    }
  }, 120_000);
});
