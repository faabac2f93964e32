/**
 * The embedded database's cluster: the settings PGlite runs with, and the
 * creation of a new cluster in a child process.
 *
 * Settings: PGlite serves this one process (single-user mode, one backend),
 * on a database of accounts, keys and plans, so PostgreSQL's server defaults
 * (128 MB of shared buffers, 100 connections) only cost resident memory:
 * the shared buffers are touched when PGlite starts. 16 MB of buffers hold
 * the working set here.
 *
 * Creating a cluster (initdb, then the migrations) takes a few seconds of
 * CPU and leaves the creating process several hundred MB larger (a second
 * PostgreSQL instance runs initdb, and its WebAssembly memory is not given
 * back). A child process does it instead and exits, so the server opens a
 * ready cluster at its normal size.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

/** `-c name=value` settings of every embedded database (see above). */
export const PGLITE_SETTINGS: readonly string[] = [
  'shared_buffers=16MB',
  'max_connections=10',
  // Migrations and pg-boss lock many objects in one transaction; the lock table is sized from connections x this.
  'max_locks_per_transaction=256',
  'wal_buffers=1MB',
  'temp_buffers=2MB',
];

export function pgliteOptions(extra: PGliteOptions = {}): PGliteOptions {
  return {
    ...extra,
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])],
  };
}

/** Whether `dir` holds a PostgreSQL cluster already. */
export function hasCluster(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'));
}

const SELF = fileURLToPath(import.meta.url);

/**
 * Creates a cluster in the empty directory `dir` in a child process (the same
 * Node as this one) and, with `migrate`, runs the migrations there too.
 */
export function createClusterInChild(dir: string, migrate: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, dir, migrate ? 'migrate' : 'no-migrate'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      if (err.length < 20_000) err += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`Creating the embedded database in ${dir} failed (${signal ?? code}):\n${err}`));
    });
  });
}

async function main(dir: string, migrate: boolean): Promise<void> {
  const client = new PGlite(dir, pgliteOptions());
  await client.waitReady;
  try {
    if (migrate) {
      const [{ drizzle }, { migrate: run }, { MIGRATIONS_DIR }, { schema }] = await Promise.all([
        import('drizzle-orm/pglite'),
        import('drizzle-orm/pglite/migrator'),
        import('./migrations-dir.ts'),
        import('./schema.ts'),
      ]);
      await run(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
    }
  } finally {
    await client.close();
  }
}

if (process.argv[1] === SELF) {
  const [dir, mode] = process.argv.slice(2);
  main(dir, mode === 'migrate').catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
