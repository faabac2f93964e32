/**
 * Test support: a really listening server on an ephemeral port over an
 * in-memory PGlite store, and keys with chosen credits.
 */
import type { FastifyInstance } from 'fastify';
import { createKeyForNewAccount } from '../store/bootstrap.ts';
import { openStore, type Store } from '../store/db.ts';
import { openTestPgliteStore } from '../store/testing.ts';
import { type AppOptions, buildApp } from './app.ts';

export interface TestServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

let shared: Promise<Store> | undefined;

/**
 * One store per test process: in-memory PGlite (PGlite takes seconds to
 * start), or PostgreSQL: the database the `postgres` Vitest project made
 * for the run, or any database named by TRAMLINE_TEST_DATABASE_URL.
 */
export function testStore(): Promise<Store> {
  const url =
    process.env.TRAMLINE_TEST_PROJECT === 'postgres'
      ? process.env.TRAMLINE_TEST_RUN_DATABASE_URL
      : process.env.TRAMLINE_TEST_DATABASE_URL;
  shared ??= url ? openStore({ databaseUrl: url, poolSize: 5 }) : openTestPgliteStore();
  return shared;
}

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
  return { app, url, close: () => app.close() };
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
