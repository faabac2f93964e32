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
 * back). So a child process does it and exits, and does it once per
 * installation: the cleanly shut down result is kept as a template
 * (node_modules/.cache/tramline/pglite-<PGlite version>-<migrations hash>,
 * or TRAMLINE_CACHE_DIR), and a new data directory starts as a copy of it
 * (a copy of a stopped cluster is a valid cluster), about 40 MB of files
 * instead of seconds of initdb. The server then opens a ready cluster at
 * its normal size.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { MIGRATIONS_DIR } from './migrations-dir.ts';

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

/** Where cluster templates are kept: TRAMLINE_CACHE_DIR, else the package's node_modules/.cache/tramline. */
function cacheRoot(): string {
  if (process.env.TRAMLINE_CACHE_DIR) return process.env.TRAMLINE_CACHE_DIR;
  const packageRoot = fileURLToPath(new URL('..', import.meta.url));
  const modules = join(packageRoot, 'node_modules');
  return existsSync(modules) ? join(modules, '.cache', 'tramline') : join(tmpdir(), 'tramline-cache');
}

/** The template's name: PGlite's version and a hash of the migrations it holds. */
function templateName(): string {
  // The package does not export its package.json: walk up from its entry.
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  let version: string | undefined;
  for (let i = 0; i < 5 && !version; i++, dir = dirname(dir)) {
    const p = join(dir, 'package.json');
    if (!existsSync(p)) continue;
    const pkg = JSON.parse(readFileSync(p, 'utf8'));
    if (pkg.name === '@electric-sql/pglite') version = String(pkg.version);
  }
  if (!version) throw new Error('PGlite version not found');
  const h = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR, { recursive: true }).map(String).sort()) {
    const p = join(MIGRATIONS_DIR, f);
    if (statSync(p).isFile()) h.update(f).update('\0').update(readFileSync(p));
  }
  return `pglite-${version}-${h.digest('hex').slice(0, 16)}`;
}

/** The migrated template cluster, made (in a child process) when missing; null when it cannot be kept. */
async function ensureTemplate(): Promise<string | null> {
  let root: string;
  let name: string;
  try {
    root = cacheRoot();
    name = templateName();
  } catch {
    return null;
  }
  const template = join(root, name);
  if (hasCluster(template)) return template;
  const building = join(root, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(building, { recursive: true });
    await createClusterInChild(building, true);
    try {
      renameSync(building, template);
    } catch (e) {
      // Another process kept its template first: use that one.
      if (!hasCluster(template)) throw e;
    }
    for (const old of readdirSync(root)) {
      if (old.startsWith('pglite-') && old !== name)
        rmSync(join(root, old), { recursive: true, force: true });
    }
    return template;
  } catch {
    return hasCluster(template) ? template : null;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/**
 * Makes `dir` hold a cluster: nothing when it has one; else a copy of the
 * migrated template (made once); else, when no template can be kept (or
 * without `migrate`), a cluster created in a child process.
 */
export async function prepareCluster(dir: string, migrate: boolean): Promise<void> {
  if (hasCluster(dir)) return;
  const template = migrate ? await ensureTemplate() : null;
  if (template) {
    cpSync(template, dir, { recursive: true });
    return;
  }
  await createClusterInChild(dir, migrate);
}

async function main(dir: string, migrate: boolean): Promise<void> {
  const client = new PGlite(dir, pgliteOptions());
  await client.waitReady;
  try {
    if (migrate) {
      const [{ drizzle }, { migrate: run }, { schema }] = await Promise.all([
        import('drizzle-orm/pglite'),
        import('drizzle-orm/pglite/migrator'),
        import('./schema.ts'),
      ]);
      await run(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
    }
  } finally {
    await client.close();
  }
}

if (process.argv[1] === SELF) {
  if (process.argv[2] === '--template') {
    // `npm ci` (postinstall) prepares the template, so the first `npm start` copies it. Never fails an install.
    ensureTemplate().then(
      (t) =>
        console.log(t ? `tramline: embedded database template ready (${t})` : 'tramline: no template kept'),
      () => console.log('tramline: no template kept; the first start creates its database'),
    );
  } else {
    const [dir, mode] = process.argv.slice(2);
    main(dir, mode === 'migrate').catch((e) => {
      console.error(e);
      process.exit(1);
    });
  }
}
