/** OAuth 2.0 clients registered with the service, the users who let them in, and the client of a session. */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { oauthClients, oauthGrants, sessionClients } from '../schema.ts';

export interface OAuthClient {
  clientId: string;
  name: string;
  /** scrypt hash; null for a public client (PKCE only). */
  secretHash: string | null;
  redirectUris: string[];
  serviceUserId: string | null;
}

export function createOAuthRepository(db: Database) {
  return {
    async createClient(c: OAuthClient): Promise<void> {
      await db.insert(oauthClients).values({
        id: c.clientId,
        name: c.name,
        secretHash: c.secretHash,
        redirectUris: c.redirectUris,
        serviceUserId: c.serviceUserId,
      });
    },

    /** A client that is not revoked; null otherwise. */
    async getClient(clientId: string): Promise<OAuthClient | null> {
      const [row] = await db
        .select()
        .from(oauthClients)
        .where(and(eq(oauthClients.id, clientId), isNull(oauthClients.revokedAt)));
      if (!row) return null;
      return {
        clientId: row.id,
        name: row.name,
        secretHash: row.secretHash,
        redirectUris: row.redirectUris,
        serviceUserId: row.serviceUserId,
      };
    },

    async revokeClient(clientId: string): Promise<boolean> {
      const rows = await db
        .update(oauthClients)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(oauthClients.id, clientId), isNull(oauthClients.revokedAt)))
        .returning({ id: oauthClients.id });
      return rows.length > 0;
    },

    /** Records that the user let the client act for them (idempotent). */
    async grant(clientId: string, userId: string, scope: string): Promise<void> {
      await db
        .insert(oauthGrants)
        .values({ clientId, userId, scope })
        .onConflictDoUpdate({
          target: [oauthGrants.clientId, oauthGrants.userId],
          set: { scope, updatedAt: sql`now()` },
        });
    },

    async hasGrant(clientId: string, userId: string): Promise<boolean> {
      const [row] = await db
        .select({ userId: oauthGrants.userId })
        .from(oauthGrants)
        .where(and(eq(oauthGrants.clientId, clientId), eq(oauthGrants.userId, userId)));
      return Boolean(row);
    },

    /** Users who let the client in, oldest first. */
    async grantedUsers(clientId: string): Promise<string[]> {
      const rows = await db
        .select({ userId: oauthGrants.userId })
        .from(oauthGrants)
        .where(eq(oauthGrants.clientId, clientId))
        .orderBy(asc(oauthGrants.createdAt), asc(oauthGrants.userId));
      return rows.map((r) => r.userId);
    },

    async bindSession(sessionId: string, clientId: string): Promise<void> {
      await db.insert(sessionClients).values({ sessionId, clientId }).onConflictDoNothing();
    },

    /** The OAuth client a session was issued to; null for a session of the user's own sign-in. */
    async clientOfSession(sessionId: string): Promise<string | null> {
      const [row] = await db
        .select({ clientId: sessionClients.clientId })
        .from(sessionClients)
        .where(eq(sessionClients.sessionId, sessionId));
      return row?.clientId ?? null;
    },
  };
}

export type OAuthRepository = ReturnType<typeof createOAuthRepository>;
