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
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import type { Database } from './database.ts';
import { MIGRATIONS_DIR } from './migrations-dir.ts';
import { pgliteOptions, prepareCluster } from './pglite-cluster.ts';
import { createAccountsRepository } from './repositories/accounts.ts';
import {
  createApiKeysRepository,
  createKeyCache,
  DEFAULT_KEY_CACHE_TTL_MS,
  type KeyCache,
} from './repositories/api-keys.ts';
import { createBoundaryOriginsRepository } from './repositories/boundary-origins.ts';
import { createCompaniesRepository } from './repositories/companies.ts';
import { createCompanyAccessRepository } from './repositories/company-access.ts';
import { createCompanyEventsRepository } from './repositories/company-events.ts';
import { createCompanyStatsRepository } from './repositories/company-stats.ts';
import { createCreditsRepository } from './repositories/credits.ts';
import { createExternalIdentitiesRepository } from './repositories/external-identities.ts';
import { createHierarchyRepository } from './repositories/hierarchy.ts';
import { createMailOutboxRepository } from './repositories/mail-outbox.ts';
import { createOAuthRepository } from './repositories/oauth.ts';
import { createPartnerRepository } from './repositories/partner.ts';
import { createPlatformAdminsRepository } from './repositories/platform-admins.ts';
import {
  createEmbeddedRateLimitsRepository,
  createRateLimitsRepository,
  type RateLimitsRepository,
} from './repositories/rate-limits.ts';
import { createSecretsRepository } from './repositories/secrets.ts';
import { createSessionsRepository } from './repositories/sessions.ts';
import { createUserAccountsRepository } from './repositories/user-accounts.ts';
import { createUserRecordsRepository } from './repositories/user-records.ts';
import { schema } from './schema.ts';

export { MIGRATIONS_DIR } from './migrations-dir.ts';

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
  /**
   * How long a looked-up API key is trusted without asking the database again
   * [s] (default 5; 0 = never). Changes made through this store apply at once.
   */
  keyCacheSeconds?: number;
}

export interface Repositories {
  accounts: ReturnType<typeof createAccountsRepository>;
  apiKeys: ReturnType<typeof createApiKeysRepository>;
  credits: ReturnType<typeof createCreditsRepository>;
  rateLimits: RateLimitsRepository;
  companies: ReturnType<typeof createCompaniesRepository>;
  /** Company accesses with roles, and the companies of named ids. */
  companyAccess: ReturnType<typeof createCompanyAccessRepository>;
  /** The audit log of companies. */
  companyEvents: ReturnType<typeof createCompanyEventsRepository>;
  /** Company tables, summaries and dashboards. */
  companyStats: ReturnType<typeof createCompanyStatsRepository>;
  /** Terms, last company, the user directory, process logs, contact messages, deletion. */
  userRecords: ReturnType<typeof createUserRecordsRepository>;
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
  /** Where boundaries copied from external providers came from, with their licence. */
  boundaryOrigins: ReturnType<typeof createBoundaryOriginsRepository>;
  /** Who administers the platform (the admin endpoints). */
  platformAdmins: ReturnType<typeof createPlatformAdminsRepository>;
  /** Account state (confirmation, invitation, profile) and one-time account tokens. */
  userAccounts: ReturnType<typeof createUserAccountsRepository>;
  /** Mail no SMTP server took. */
  mailOutbox: ReturnType<typeof createMailOutboxRepository>;
  /** OAuth clients, grants and the client of a session. */
  oauth: ReturnType<typeof createOAuthRepository>;
  /** Users' identities at external OpenID Connect providers. */
  externalIdentities: ReturnType<typeof createExternalIdentitiesRepository>;
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

export function repositories(db: Database, keyCache?: KeyCache): Repositories {
  const hierarchy = createHierarchyRepository(db);
  const accounts = createAccountsRepository(db);
  return {
    accounts: keyCache
      ? {
          ...accounts,
          // Keys carry their user's partner admin flag.
          async setPartnerAdmin(userId, partnerAdmin) {
            await accounts.setPartnerAdmin(userId, partnerAdmin);
            keyCache.clear();
          },
        }
      : accounts,
    apiKeys: createApiKeysRepository(db, keyCache),
    credits: createCreditsRepository(db, keyCache),
    rateLimits: createRateLimitsRepository(db),
    companies: createCompaniesRepository(db),
    companyAccess: createCompanyAccessRepository(db),
    companyEvents: createCompanyEventsRepository(db),
    companyStats: createCompanyStatsRepository(db),
    userRecords: createUserRecordsRepository(db),
    sessions: createSessionsRepository(db),
    secrets: createSecretsRepository(db),
    partner: createPartnerRepository(db),
    hierarchy,
    boundaries: { forUser: hierarchy.forUser, forCompany: hierarchy.forCompany },
    boundaryOrigins: createBoundaryOriginsRepository(db),
    platformAdmins: createPlatformAdminsRepository(db),
    userAccounts: createUserAccountsRepository(db),
    mailOutbox: createMailOutboxRepository(db),
    oauth: createOAuthRepository(db),
    externalIdentities: createExternalIdentitiesRepository(db),
  };
}

export async function openStore(opts: StoreOptions = {}): Promise<Store> {
  const runMigrations = opts.migrate ?? true;
  const keyCache = createKeyCache(1000 * (opts.keyCacheSeconds ?? DEFAULT_KEY_CACHE_TTL_MS / 1000));
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
    return makeStore('postgres', db, () => pool.end(), keyCache);
  }
  const dataDir = opts.dataDir ?? './data';
  let client: PGlite;
  if (dataDir === 'memory://') {
    client = new PGlite(pgliteOptions(opts.pgliteSnapshot ? { loadDataDir: opts.pgliteSnapshot } : {}));
  } else {
    const dir = join(resolve(dataDir), 'pglite');
    mkdirSync(dir, { recursive: true });
    await prepareCluster(dir, runMigrations);
    client = new PGlite(dir, pgliteOptions());
  }
  await client.waitReady;
  const pdb = drizzlePglite(client, { schema });
  if (runMigrations) await migratePglite(pdb, { migrationsFolder: MIGRATIONS_DIR });
  return makeStore('pglite', pdb as unknown as Database, () => client.close(), keyCache, client);
}

function makeStore(
  kind: Store['kind'],
  db: Database,
  close: () => Promise<void>,
  keyCache: KeyCache,
  pglite?: PGlite,
): Store {
  let closed = false;
  // Only this process can open the embedded database: its rate limit counters live in memory (see the repository).
  const rateLimits: RateLimitsRepository =
    kind === 'pglite' ? createEmbeddedRateLimitsRepository(db) : createRateLimitsRepository(db);
  return {
    kind,
    pglite,
    db,
    ...repositories(db, keyCache),
    rateLimits,
    async transaction(fn) {
      const generation = keyCache.generation;
      const out = await db.transaction((tx) => fn(repositories(tx as unknown as Database, keyCache)));
      // A key revoked (or a flag changed) inside the transaction: forget again now that it is committed.
      if (keyCache.generation !== generation) keyCache.clear();
      return out;
    },
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
      await rateLimits.flush?.().catch(() => {});
      await close();
    },
  };
}
