/**
 * Vitest global setup of the `postgres` project: makes one PostgreSQL
 * database for the run, migrates it and lets the job system install its
 * schema and queues once, then hands its name to the test processes of
 * that project: each test file works on a copy of it (api/testing.ts,
 * `testPostgresUrl`). Dropped at the end.
 */
import { openStore } from './db.ts';
import { createTempDatabase, installJobSchema } from './testing.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const db = await createTempDatabase();
  const store = await openStore({ databaseUrl: db.url, poolSize: 2 });
  await installJobSchema(store);
  await store.close();
  process.env.TRAMLINE_TEST_RUN_DATABASE_URL = db.url;
  return async () => {
    await db.drop();
  };
}
