/**
 * Test support: a really listening server on an ephemeral port over an
 * in-memory PGlite store, and keys with chosen credits.
 */
import type { FastifyInstance } from 'fastify';
import { createKeyForNewAccount } from '../store/bootstrap.ts';
import { openStore, type Store } from '../store/db.ts';
import {
  createTempDatabase,
  openTestPgliteStore,
  TEST_POSTGRES_URL,
  type TempDatabase,
} from '../store/testing.ts';
import { onFileEnd } from '../test/helpers/file-scope.ts';
import { type AppOptions, buildApp } from './app.ts';

export interface TestServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

let shared: Promise<Store> | undefined;
let fileDatabase: Promise<TempDatabase> | undefined;

/**
 * The PostgreSQL database of this test file in the `postgres` project: a
 * copy of the database the project migrated for the run (its template), so
 * files running at once share no rows and no job queue. Dropped when the
 * file ends. Undefined outside that project.
 */
export async function testPostgresUrl(): Promise<string | undefined> {
  const template =
    process.env.TRAMLINE_TEST_PROJECT === 'postgres' ? process.env.TRAMLINE_TEST_RUN_DATABASE_URL : undefined;
  if (!template) return undefined;
  fileDatabase ??= createTempDatabase(TEST_POSTGRES_URL, new URL(template).pathname.slice(1));
  return (await fileDatabase).url;
}

/**
 * One store per test file: in-memory PGlite (loaded from a cached dump), or
 * PostgreSQL: this file's database in the `postgres` Vitest project, or any
 * database named by TRAMLINE_TEST_DATABASE_URL.
 */
export function testStore(): Promise<Store> {
  shared ??= (async () => {
    const url = (await testPostgresUrl()) ?? process.env.TRAMLINE_TEST_DATABASE_URL;
    return url ? openStore({ databaseUrl: url, poolSize: 5 }) : openTestPgliteStore();
  })();
  return shared;
}

const open = new Set<TestServer>();

/**
 * Ends a test file's scope: closes the servers it left open, the store it
 * used and drops its database, so the next file run in the same process
 * (test files share their process) starts with no server, job worker or
 * store of another.
 */
async function closeTestScope(): Promise<void> {
  for (const s of [...open]) await s.close();
  const store = shared;
  shared = undefined;
  if (store) await (await store).close();
  const db = fileDatabase;
  fileDatabase = undefined;
  if (db) await (await db).drop();
}
onFileEnd(closeTestScope);

export async function startTestServer(
  opts: Partial<AppOptions> = {},
  extend?: (app: FastifyInstance) => void | Promise<void>,
): Promise<TestServer> {
  const store = opts.store ?? (await testStore());
  // Planning threads start when a test first plans: most tests of other routes never do.
  const poolOptions = { idleThreads: 0, ...opts.poolOptions };
  const app = await buildApp({ logger: false, purgeIntervalMs: 0, ...opts, poolOptions, store });
  if (extend) await extend(app);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const server: TestServer = {
    app,
    url,
    async close() {
      open.delete(server);
      await app.close();
    },
  };
  open.add(server);
  return server;
}

let n = 0;

/** A new key whose company has `credits` (or unlimited). */
export async function testKey(
  opts: { credits?: number; unlimited?: boolean; partnerAdmin?: boolean } = {},
): Promise<{ key: string; keyId: string; companyId: string; userId: string }> {
  const store = await testStore();
  n++;
  const made = await createKeyForNewAccount(store, {
    email: `user${n}-${Date.now()}@example.org`,
    credits: opts.unlimited ? 0 : (opts.credits ?? 100),
    unlimited: opts.unlimited,
    partnerAdmin: opts.partnerAdmin,
  });
  return made;
}

/** A rectangle of about `ha` hectares near (lon, lat) as a GeoJSON Polygon. */
export function rectangleField(
  ha: number,
  lon = 10,
  lat = 55,
  aspect = 2,
): { type: 'Polygon'; coordinates: number[][][] } {
  const area = ha * 10_000;
  const h = Math.sqrt(area / aspect);
  const w = h * aspect;
  const dLat = h / 111_195;
  const dLon = w / (111_195 * Math.cos((lat * Math.PI) / 180));
  return {
    type: 'Polygon',
    coordinates: [
      [
        [lon, lat],
        [lon + dLon, lat],
        [lon + dLon, lat + dLat],
        [lon, lat + dLat],
        [lon, lat],
      ],
    ],
  };
}
