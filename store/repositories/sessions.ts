/**
 * Sign-in sessions. A session has one live refresh token (opaque, stored as
 * its SHA-256); refreshing replaces it with a compare-and-swap UPDATE, so a
 * refresh token works once and of two concurrent refreshes exactly one wins.
 * The caller may make the tokens (`makeToken`, given the session id), so a
 * used token can still be told to belong to its session.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { companyAccesses, sessions, users } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';

export const REFRESH_TOKEN_PREFIX = 'tlr_';

export type SessionOrigin =
  | 'login'
  | 'register'
  | 'launch'
  | 'invite'
  | 'recover'
  | 'token'
  | 'oauth'
  | 'client'
  | 'external';

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function newRefreshToken(): string {
  return REFRESH_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Who a live session speaks for. `companyId` is the company it bills (null: the user has none). */
export interface SessionPrincipal {
  sessionId: string;
  userId: string;
  partnerAdmin: boolean;
  companyId: string | null;
}

export function createSessionsRepository(db: Database) {
  return {
    /** Starts a session lasting `ttlSeconds`; the refresh token is returned once. */
    async create(
      userId: string,
      origin: SessionOrigin,
      ttlSeconds: number,
      makeToken?: (sessionId: string) => string,
    ): Promise<{ sessionId: string; refreshToken: string }> {
      const id = uuidv7();
      const refreshToken = makeToken?.(id) ?? newRefreshToken();
      await db.insert(sessions).values({
        id,
        userId,
        origin,
        refreshHash: hashToken(refreshToken),
        expiresAt: sql`now() + make_interval(secs => ${Math.floor(ttlSeconds)})`,
      });
      return { sessionId: id, refreshToken };
    },

    /** Swaps a live refresh token for a new one; null when unknown, used, expired or revoked. */
    async rotate(
      refreshToken: string,
      makeToken?: (sessionId: string) => string,
    ): Promise<{ sessionId: string; userId: string; refreshToken: string } | null> {
      const live = and(
        eq(sessions.refreshHash, hashToken(refreshToken)),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, sql`now()`),
      );
      const [found] = await db.select({ id: sessions.id }).from(sessions).where(live);
      if (!found) return null;
      const next = makeToken?.(found.id) ?? newRefreshToken();
      const [row] = await db
        .update(sessions)
        .set({ refreshHash: hashToken(next), refreshedAt: sql`now()` })
        .where(and(eq(sessions.id, found.id), live))
        .returning({ sessionId: sessions.id, userId: sessions.userId });
      return row ? { ...row, refreshToken: next } : null;
    },

    /** Ends a session whoever's it is (a used refresh token came back); true when it was live. */
    async end(sessionId: string): Promise<boolean> {
      const rows = await db
        .update(sessions)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      return rows.length > 0;
    },

    /** Ends a session of this user; true when it was live. */
    async revoke(sessionId: string, userId: string): Promise<boolean> {
      const rows = await db
        .update(sessions)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      return rows.length > 0;
    },

    /**
     * Ends every live session of the user (sign out everywhere), except
     * `keep` when given; the number ended.
     */
    async revokeAll(userId: string, keep?: string): Promise<number> {
      const rows = await db
        .update(sessions)
        .set({ revokedAt: sql`now()` })
        .where(
          and(
            eq(sessions.userId, userId),
            isNull(sessions.revokedAt),
            keep ? ne(sessions.id, keep) : undefined,
          ),
        )
        .returning({ id: sessions.id });
      return rows.length;
    },

    /** The principal of a live session (one query), or null. */
    async principal(sessionId: string): Promise<SessionPrincipal | null> {
      const billed = db
        .select({ id: companyAccesses.companyId })
        .from(companyAccesses)
        .where(eq(companyAccesses.userId, sessions.userId))
        .orderBy(sql`(${companyAccesses.role} = 'admin') desc`, asc(companyAccesses.createdAt))
        .limit(1);
      const [row] = await db
        .select({
          sessionId: sessions.id,
          userId: sessions.userId,
          partnerAdmin: users.partnerAdmin,
          companyId: sql<string | null>`(${billed})`,
        })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(
          and(eq(sessions.id, sessionId), isNull(sessions.revokedAt), gt(sessions.expiresAt, sql`now()`)),
        );
      return row ?? null;
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
