/** Secrets shared by every server process (the JWT signing key): made once, read by all. */
import { eq } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { serverSecrets } from '../schema.ts';

export function createSecretsRepository(db: Database) {
  return {
    /** The secret called `name`; the first caller's `make()` wins under concurrency. */
    async ensure(name: string, make: () => string): Promise<string> {
      await db.insert(serverSecrets).values({ name, value: make() }).onConflictDoNothing();
      const [row] = await db.select().from(serverSecrets).where(eq(serverSecrets.name, name));
      return row.value;
    },
  };
}

export type SecretsRepository = ReturnType<typeof createSecretsRepository>;
