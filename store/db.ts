/**
 * Opens the store: PostgreSQL (through `pg`) when a database URL is given,
 * otherwise the embedded PGlite (PostgreSQL compiled to WebAssembly, in this
 * process) under the data directory. Both run the same committed migrations
 * (`store/migrations/`) with Drizzle's migrator.
 *
 * PGlite serves one process: run several server processes against PostgreSQL.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import type { Database } from './database.ts';
import { createAccountsRepository } from './repositories/accounts.ts';
import { createApiKeysRepository } from './repositories/api-keys.ts';
import { createCompaniesRepository } from './repositories/companies.ts';
import { createCreditsRepository } from './repositories/credits.ts';
import { createHierarchyRepository } from './repositories/hierarchy.ts';
import { createPartnerRepository } from './repositories/partner.ts';
import { createRateLimitsRepository } from './repositories/rate-limits.ts';
import { createSecretsRepository } from './repositories/secrets.ts';
import { createSessionsRepository } from './repositories/sessions.ts';
import { schema } from './schema.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

/** Any number; only used to serialise migrations of concurrent processes. */
const MIGRATION_LOCK_ID = 7_390_215_001;

export interface StoreOptions {
  /** PostgreSQL connection string; when set, PGlite is not used. */
  databaseUrl?: string;
  /** Directory for the embedded database (default `./data`); `memory://` keeps it in memory. */
  dataDir?: string;
  /** Connections in the PostgreSQL pool (default 10). */
  poolSize?: number;
  /** Run migrations on open (default true). */
  migrate?: boolean;
  /** With `memory://`: start from this PGlite data directory dump (`dumpDataDir`) instead of an empty cluster. */
  pgliteSnapshot?: Blob;
}

export interface Repositories {
  accounts: ReturnType<typeof createAccountsRepository>;
  apiKeys: ReturnType<typeof createApiKeysRepository>;
  credits: ReturnType<typeof createCreditsRepository>;
  rateLimits: ReturnType<typeof createRateLimitsRepository>;
  companies: ReturnType<typeof createCompaniesRepository>;
  sessions: ReturnType<typeof createSessionsRepository>;
  secrets: ReturnType<typeof createSecretsRepository>;
  partner: ReturnType<typeof createPartnerRepository>;
  /** Growers, farms, fields and boundaries. */
  hierarchy: ReturnType<typeof createHierarchyRepository>;
  /**
   * Stored boundaries for code that plans or shows them: `forUser` (within
   * the user's companies) and `forCompany` (within one company).
   */
  boundaries: Pick<ReturnType<typeof createHierarchyRepository>, 'forUser' | 'forCompany'>;
}

export interface Store extends Repositories {
  kind: 'pglite' | 'postgres';
  /** The embedded PGlite instance (kind 'pglite'), e.g. to dump it. */
  pglite?: PGlite;
  db: Database;
  /** Runs `fn` in one transaction with repositories bound to it. */
  transaction<T>(fn: (repos: Repositories) => Promise<T>): Promise<T>;
  /** Whether the database answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export function repositories(db: Database): Repositories {
  const hierarchy = createHierarchyRepository(db);
  return {
    accounts: createAccountsRepository(db),
    apiKeys: createApiKeysRepository(db),
    credits: createCreditsRepository(db),
    rateLimits: createRateLimitsRepository(db),
    companies: createCompaniesRepository(db),
    sessions: createSessionsRepository(db),
    secrets: createSecretsRepository(db),
    partner: createPartnerRepository(db),
    hierarchy,
    boundaries: { forUser: hierarchy.forUser, forCompany: hierarchy.forCompany },
  };
}

export async function openStore(opts: StoreOptions = {}): Promise<Store> {
  const runMigrations = opts.migrate ?? true;
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    try {
      if (runMigrations) {
        const client = await pool.connect();
        try {
          await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
          try {
            await migrateNodePg(drizzleNodePg(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
          } finally {
            await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
          }
        } finally {
          client.release();
        }
      }
    } catch (e) {
      await pool.end();
      throw e;
    }
    const db = drizzleNodePg(pool, { schema }) as unknown as Database;
    return makeStore('postgres', db, () => pool.end());
  }
  const dataDir = opts.dataDir ?? './data';
  let client: PGlite;
  if (dataDir === 'memory://') {
    client = opts.pgliteSnapshot ? new PGlite({ loadDataDir: opts.pgliteSnapshot }) : new PGlite();
  } else {
    const dir = join(resolve(dataDir), 'pglite');
    mkdirSync(dir, { recursive: true });
    client = new PGlite(dir);
  }
  await client.waitReady;
  const pdb = drizzlePglite(client, { schema });
  if (runMigrations) await migratePglite(pdb, { migrationsFolder: MIGRATIONS_DIR });
  return makeStore('pglite', pdb as unknown as Database, () => client.close(), client);
}

function makeStore(kind: Store['kind'], db: Database, close: () => Promise<void>, pglite?: PGlite): Store {
  let closed = false;
  return {
    kind,
    pglite,
    db,
    ...repositories(db),
    transaction: (fn) => db.transaction((tx) => fn(repositories(tx as unknown as Database))),
    async ping() {
      try {
        await db.execute('select 1');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await close();
    },
  };
}
