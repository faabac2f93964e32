/**
 * Vitest global setup of the `postgres` project: makes one PostgreSQL
 * database for the run, migrates it once, hands its URL to the test
 * processes of that project (api/testing.ts opens it when
 * TRAMLINE_TEST_PROJECT is `postgres`) and drops it at the end.
 */
import { openStore } from './db.ts';
import { createTempDatabase } from './testing.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const db = await createTempDatabase();
  const store = await openStore({ databaseUrl: db.url, poolSize: 1 });
  await store.close();
  process.env.TRAMLINE_TEST_RUN_DATABASE_URL = db.url;
  return async () => {
    await db.drop();
  };
}
