/** Identities of users at external OpenID Connect providers (external sign-in), and the companies they asserted. */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { companies, externalCompanies, externalIdentities } from '../schema.ts';

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

    async hasIdentity(userId: string, provider: string): Promise<boolean> {
      const [row] = await db
        .select({ subject: externalIdentities.subject })
        .from(externalIdentities)
        .where(and(eq(externalIdentities.userId, userId), eq(externalIdentities.provider, provider)))
        .limit(1);
      return Boolean(row);
    },

    /** The companies the user asserted for external ids of the provider: external id -> company id and name. */
    async companiesOf(
      userId: string,
      provider: string,
      externalIds: string[],
    ): Promise<Map<string, { companyId: string; name: string }>> {
      if (externalIds.length === 0) return new Map();
      const rows = await db
        .select({ externalId: externalCompanies.externalId, companyId: companies.id, name: companies.name })
        .from(externalCompanies)
        .innerJoin(companies, eq(companies.id, externalCompanies.companyId))
        .where(
          and(
            eq(externalCompanies.userId, userId),
            eq(externalCompanies.provider, provider),
            inArray(externalCompanies.externalId, externalIds),
          ),
        );
      return new Map(rows.map((r) => [r.externalId, { companyId: r.companyId, name: r.name }]));
    },

    /** Records the company of an external id (run in the transaction that made it); false when one was there. */
    async addCompany(
      userId: string,
      provider: string,
      externalId: string,
      companyId: string,
    ): Promise<boolean> {
      const rows = await db
        .insert(externalCompanies)
        .values({ userId, provider, externalId, companyId })
        .onConflictDoNothing()
        .returning({ companyId: externalCompanies.companyId });
      return rows.length > 0;
    },
  };
}

export type ExternalIdentitiesRepository = ReturnType<typeof createExternalIdentitiesRepository>;
