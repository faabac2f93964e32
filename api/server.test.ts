/**
 * The server as users start it: `node server.ts` (what `npm start` runs)
 * with no set-up, healthy within 20 s, finishing in-flight requests on
 * SIGTERM; and the key/credit commands of the CLI.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run as keys, runCredits } from '../cli/commands/keys.ts';
import { openStore } from '../store/db.ts';
import { createTempDatabase, skipPostgres } from '../store/testing.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const nodeBin = join(root, 'node_modules/.bin/node');
const fixture = JSON.parse(readFileSync(join(root, 'test/fixtures/fields/fixtures.geojson'), 'utf8'));

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function waitForListening(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(
      () => reject(new Error(`not listening after ${timeoutMs} ms:\n${buf}`)),
      timeoutMs,
    );
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
}

describe('npm start', () => {
  it('starts with zero set-up, is healthy within 20 s and stops gracefully on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tramline-serve-'));
    dirs.push(dataDir);
    const key = `tl_${'k'.repeat(43)}`;
    const t0 = performance.now();
    const child = spawn(nodeBin, ['server.ts'], {
      cwd: root,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        TRAMLINE_DATA_DIR: dataDir,
        TRAMLINE_BOOTSTRAP_API_KEY: key,
        TRAMLINE_PLAN_THREADS: '1',
        DATABASE_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const url = await waitForListening(child, 20_000);
      const h = await fetch(`${url}/api/healthz`);
      expect(h.status).toBe(200);
      if (process.platform === 'linux') {
        // Restarted in place with the server's V8 options and malloc settings.
        expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')).toEqual(
          expect.arrayContaining(['--max-semi-space-size=4', '--liftoff-only']),
        );
        expect(readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0')).toEqual(
          expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_MMAP_THRESHOLD_=131072']),
        );
      }
      expect(performance.now() - t0).toBeLessThan(20_000);
      const me = await fetch(`${url}/api/user/current`, { headers: { 'x-api-key': key } });
      expect(await me.json()).toMatchObject({ partnerAdmin: true, credits: { unlimited: true } });

      // A plan in flight when SIGTERM arrives still gets its answer.
      const inFlight = fetch(`${url}/api/path-plans/direct/geojson`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({
          boundary: fixture.features[0],
          equipment: { swathWidth: 6 },
          exteriorHeadlandPasses: 2,
        }),
      });
      await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGTERM');
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect((await res.json()).type).toBe('FeatureCollection');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 40_000);
});

const skipPg = await skipPostgres();

describe.skipIf(skipPg)('tramline keys / credits (on PostgreSQL)', () => {
  it('creates a key printed once, lists it masked, sets credits and revokes it', async () => {
    const db = await createTempDatabase();
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = db.url;
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s) };
    try {
      expect(await keys(['create', '--name', 'ci', '--email', 'ci@example.org', '--credits', '5'], io)).toBe(
        0,
      );
      const key = out.join('').trim();
      expect(key).toMatch(/^tl_[A-Za-z0-9_-]{43}$/);
      const keyId = /Created key ([0-9a-f-]{36})/.exec(err.join(''))![1];
      out.length = 0;
      expect(await keys(['list'], io)).toBe(0);
      expect(out.join('')).toContain(keyId);
      expect(out.join('')).not.toContain(key);
      out.length = 0;
      expect(await runCredits(['show', 'ci@example.org'], io)).toBe(0);
      expect(out.join('')).toMatch(/ 5\n$/);
      out.length = 0;
      expect(await runCredits(['set', keyId, '42'], io)).toBe(0);
      expect(await keys(['credits', 'add', keyId, '-2'], io)).toBe(0);
      expect(out.join('')).toMatch(/ 42\n.* 40\n$/s);
      expect(await keys(['credits', 'set', keyId, 'unlimited'], io)).toBe(0);
      expect(await keys(['revoke', keyId], io)).toBe(0);
      const store = await openStore({ databaseUrl: db.url });
      try {
        expect(await store.apiKeys.authenticate(key)).toBeNull();
        const rec = (await store.apiKeys.list())[0];
        expect((await store.credits.get(rec.companyId)).unlimited).toBe(true);
      } finally {
        await store.close();
      }
      expect(await keys(['create', '--credits', 'ten'], io)).toBe(2);
      expect(await keys(['frobnicate'], io)).toBe(2);
    } finally {
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
      await db.drop();
    }
  });
});
