/**
 * pg-boss on the store's database: on the embedded PGlite through pg-boss's
 * PGlite adapter (one process: workers run in-process), on PostgreSQL
 * through its own pool (any number of server and worker processes).
 */
import { fromPglite, PgBoss } from 'pg-boss';
import type { Store } from '../store/db.ts';
import { QUEUE_OPTIONS } from './queues.ts';

export interface BossOptions {
  /** The PostgreSQL URL the store was opened with (required for a PostgreSQL store). */
  databaseUrl?: string;
  /** Connections of pg-boss's own pool on PostgreSQL (default 4). */
  poolSize?: number;
  /**
   * How often pg-boss looks for dead workers and expired items [s] (default
   * 5 on PostgreSQL, where another process may die holding items; 60 on the
   * embedded database, whose one process is this one: each look stops its
   * request thread for some 50 ms, there being no other to run the SQL).
   */
  monitorIntervalSeconds?: number;
  onError?: (err: unknown) => void;
}

export async function startBoss(store: Store, opts: BossOptions = {}): Promise<PgBoss> {
  const monitorSeconds = opts.monitorIntervalSeconds ?? (store.kind === 'pglite' ? 60 : 5);
  const common = {
    schedule: false,
    monitorIntervalSeconds: monitorSeconds,
    superviseIntervalSeconds: monitorSeconds,
    // Job dependencies (flows) are not used: their resolver need not look every 5 s.
    flowIntervalSeconds: 60,
    maintenanceIntervalSeconds: 300,
    // The ready counts workers read to keep fetching without a pause while a queue has work.
    queueCacheIntervalSeconds: 2,
    reindex: false,
    monitorVacuum: false,
  };
  let boss: PgBoss;
  if (store.kind === 'pglite') {
    if (!store.pglite) throw new Error('The embedded store has no PGlite instance.');
    boss = new PgBoss({ db: fromPglite(store.pglite), backend: 'pglite', ...common });
  } else {
    const connectionString = opts.databaseUrl ?? connectionStringOf(store);
    if (!connectionString) throw new Error('A PostgreSQL store needs its databaseUrl for the job system.');
    boss = new PgBoss({
      connectionString,
      max: opts.poolSize ?? 4,
      application_name: 'tramline-jobs',
      ...common,
    });
  }
  boss.on('error', (err) => opts.onError?.(err));
  await boss.start();
  for (const [name, options] of Object.entries(QUEUE_OPTIONS)) {
    const existing = await boss.getQueue(name);
    if (existing) {
      if (existing.expireInSeconds !== options.expireInSeconds) await boss.updateQueue(name, options);
    } else {
      try {
        await boss.createQueue(name, options);
      } catch (e) {
        // Another process made it at the same moment.
        if (!(await boss.getQueue(name))) throw e;
      }
    }
  }
  return boss;
}

/** The URL the store's PostgreSQL pool was opened with (drizzle keeps the pg.Pool as `$client`). */
function connectionStringOf(store: Store): string | undefined {
  const client = (store.db as unknown as { $client?: { options?: { connectionString?: string } } }).$client;
  return client?.options?.connectionString;
}
