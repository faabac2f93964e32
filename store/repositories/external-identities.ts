/** Identities of users at external OpenID Connect providers (external sign-in). */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { externalIdentities } from '../schema.ts';

export interface ExternalIdentity {
  provider: string;
  subject: string;
  userId: string;
  email: string | null;
}

export function createExternalIdentitiesRepository(db: Database) {
  return {
    async find(provider: string, subject: string): Promise<ExternalIdentity | null> {
      const [row] = await db
        .select({
          provider: externalIdentities.provider,
          subject: externalIdentities.subject,
          userId: externalIdentities.userId,
          email: externalIdentities.email,
        })
        .from(externalIdentities)
        .where(and(eq(externalIdentities.provider, provider), eq(externalIdentities.subject, subject)));
      return row ?? null;
    },

    /** Links the provider's subject to the user (idempotent; a subject stays with its first user). */
    async link(i: ExternalIdentity): Promise<ExternalIdentity> {
      await db
        .insert(externalIdentities)
        .values({ ...i, email: i.email?.toLowerCase() ?? null, lastSignInAt: sql`now()` })
        .onConflictDoUpdate({
          target: [externalIdentities.provider, externalIdentities.subject],
          set: { email: i.email?.toLowerCase() ?? null, lastSignInAt: sql`now()` },
        });
      return (await this.find(i.provider, i.subject))!;
    },

    /** The provider the user first signed in through; null when none. */
    async providerOf(userId: string): Promise<string | null> {
      const [row] = await db
        .select({ provider: externalIdentities.provider })
        .from(externalIdentities)
        .where(eq(externalIdentities.userId, userId))
        .orderBy(asc(externalIdentities.createdAt))
        .limit(1);
      return row?.provider ?? null;
    },
  };
}

export type ExternalIdentitiesRepository = ReturnType<typeof createExternalIdentitiesRepository>;
