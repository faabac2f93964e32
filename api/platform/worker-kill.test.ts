/**
 * Workers in other processes against PostgreSQL: `tramline worker` is
 * killed with SIGKILL in the middle of a bulk guidance job and started
 * again; the job completes, every boundary has a plan or an error, and no
 * boundary has two plans (nor was charged twice). Runs only against
 * PostgreSQL (the embedded store serves one process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBoundaries } from '../../bench/seed-boundaries.ts';
import { createKeyForNewAccount } from '../../store/bootstrap.ts';
import { openStore, type Store } from '../../store/db.ts';
import { createTempDatabase, skipPostgres, type TempDatabase } from '../../store/testing.ts';
import { repoRoot } from '../../test/helpers/corpus.ts';
import { buildApp } from '../app.ts';
import { rectangleField } from '../testing.ts';
import { client } from './client.ts';

const onPostgres = process.env.TRAMLINE_TEST_PROJECT === 'postgres';
const skip = !onPostgres || (await skipPostgres());

describe.skipIf(skip)('a killed worker process', () => {
  let db: TempDatabase;
  let store: Store;
  let close: () => Promise<void>;
  let url: string;
  const procs: ChildProcess[] = [];

  const startWorker = () => {
    const p = spawn(process.execPath, [resolve(repoRoot, 'cli/tramline.ts'), 'worker', '--threads', '1'], {
      env: { ...process.env, DATABASE_URL: db.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    procs.push(p);
    return p;
  };

  beforeAll(async () => {
    db = await createTempDatabase();
    store = await openStore({ databaseUrl: db.url, poolSize: 4 });
    const app = await buildApp({
      store,
      logger: false,
      purgeIntervalMs: 0,
      databaseUrl: db.url,
      jobWorkers: false,
    });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    close = () => app.close();
  });
  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
    await close?.();
    await store?.close();
    await db?.drop();
  });

  it('completes the job after kill -9 and a restart, with no duplicate plans', async () => {
    const key = await createKeyForNewAccount(store, {
      email: `kill-${Date.now()}@example.org`,
      credits: 10_000,
    });
    const fields = Array.from({ length: 40 }, (_, i) => ({
      name: `Field ${i}`,
      geometry: rectangleField(15 + (i % 5) * 5, 9 + i * 0.02, 54),
    }));
    const seeded = await seedBoundaries(store, key.companyId, fields);
    const c = client(url, { key: key.key });
    const post = await c.post('/api/bulk-guidance/normalized', {
      boundaryIds: seeded.map((b) => b.boundaryId),
      request: {
        equipment: { swathWidth: 6, minTurningRadius: 6 },
        exteriorHeadlandPasses: 2,
        interiorHeadlandPasses: 1,
      },
    });
    expect(post.status, post.text).toBe(202);
    const poll = async () => (await c.get(`/api/bulk-guidance/normalized/jobs/${post.json.jobId}`)).json;

    const first = startWorker();
    let before = await poll();
    for (let i = 0; i < 600 && before.progress < 0.2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      before = await poll();
    }
    expect(before.progress).toBeGreaterThan(0);
    expect(before.progress).toBeLessThan(1);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = await poll();

    startWorker();
    let done = atKill;
    for (let i = 0; i < 1200 && (done.status === 'queued' || done.status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 250));
      done = await poll();
    }
    expect(done.status).toBe('completed');
    expect(done.pathPlanIds.length + done.errors.length).toBe(fields.length);
    expect(new Set(done.pathPlanIds).size).toBe(done.pathPlanIds.length);
    expect(done.pathPlanIds.length).toBeGreaterThanOrEqual(atKill.pathPlanIds.length);
    const rows = await store.db.execute(
      `select boundary_id, count(*)::int as n from path_plans where job_id = '${post.json.jobId}' group by boundary_id`,
    );
    const list = (Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows) as { n: number }[];
    expect(list.length).toBe(done.pathPlanIds.length);
    expect(list.every((r) => r.n === 1)).toBe(true);
    const me = await c.get('/api/user/current');
    expect(me.json.credits.available).toBe(10_000 - done.pathPlanIds.length);
  });
});
