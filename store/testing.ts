/**
 * Test support: fresh databases for store tests. PostgreSQL tests create a
 * randomly named database through the `postgres` maintenance database and
 * drop it afterwards. They are skipped only when PostgreSQL is unreachable
 * and `CI` is not set; in CI an unreachable server fails the run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startBoss } from '../jobs/boss.ts';
import { QUEUE_OPTIONS } from '../jobs/queues.ts';
import { MIGRATIONS_DIR, openStore, type Store } from './db.ts';

const PG_BOSS_VERSION: string = createRequire(import.meta.url)('pg-boss/package.json').version;

/** Maintenance connection; override with TRAMLINE_TEST_POSTGRES_URL. */
export const TEST_POSTGRES_URL =
  process.env.TRAMLINE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function postgresReachable(url = TEST_POSTGRES_URL, timeoutMs = 1000): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = new Socket();
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('error', () => done(false));
    s.connect(Number(u.port || 5432), u.hostname, () => done(true));
  });
}

/** Whether PostgreSQL tests must be skipped here (never in CI). */
export async function skipPostgres(): Promise<boolean> {
  if (process.env.CI) return false;
  return !(await postgresReachable());
}

export interface TempDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, randomly named database; a copy of `template` when given (no one may be connected to it). */
export async function createTempDatabase(
  adminUrl = TEST_POSTGRES_URL,
  template?: string,
): Promise<TempDatabase> {
  const name = `tramline_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(
      `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template.replaceAll('"', '""')}"` : ''}`,
    );
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Lets the job system install its schema and queues in a test database made to be copied. */
export async function installJobSchema(store: Store): Promise<void> {
  const boss = await startBoss(store);
  await boss.stop({ graceful: false });
}

/**
 * An in-memory PGlite store for tests, started from a cached dump of a
 * freshly migrated database that the job system has already set up
 * (creating a PGlite cluster takes seconds, loading a dump about one, and
 * pg-boss installing its schema and queues on the embedded database another
 * one or two). The cache is keyed by the migrations, the pg-boss version and
 * the queue options, so a change to any of them makes a new dump.
 */
export async function openTestPgliteStore(): Promise<Store> {
  const h = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR, { recursive: true }).map(String).sort()) {
    const p = join(MIGRATIONS_DIR, f);
    if (statSync(p).isFile()) h.update(f).update(readFileSync(p));
  }
  h.update(PG_BOSS_VERSION).update(JSON.stringify(QUEUE_OPTIONS));
  const file = join(tmpdir(), `tramline-test-pglite-${h.digest('hex').slice(0, 16)}.tar`);
  if (existsSync(file)) {
    try {
      return await openStore({ dataDir: 'memory://', pgliteSnapshot: new Blob([readFileSync(file)]) });
    } catch {
      // A damaged cache file: make a new one below.
    }
  }
  const store = await openStore({ dataDir: 'memory://' });
  await installJobSchema(store);
  const dump = await store.pglite!.dumpDataDir('none');
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, file);
  return store;
}
