/**
 * Sign-in sessions. A session has one live refresh token (opaque, stored as
 * its SHA-256); refreshing replaces it in one atomic UPDATE, so a refresh
 * token works once and of two concurrent refreshes exactly one wins.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { companyAccesses, sessions, users } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';

export const REFRESH_TOKEN_PREFIX = 'tlr_';

export type SessionOrigin = 'login' | 'register' | 'launch';

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
    ): Promise<{ sessionId: string; refreshToken: string }> {
      const refreshToken = newRefreshToken();
      const id = uuidv7();
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
    ): Promise<{ sessionId: string; userId: string; refreshToken: string } | null> {
      const next = newRefreshToken();
      const [row] = await db
        .update(sessions)
        .set({ refreshHash: hashToken(next), refreshedAt: sql`now()` })
        .where(
          and(
            eq(sessions.refreshHash, hashToken(refreshToken)),
            isNull(sessions.revokedAt),
            gt(sessions.expiresAt, sql`now()`),
          ),
        )
        .returning({ sessionId: sessions.id, userId: sessions.userId });
      return row ? { ...row, refreshToken: next } : null;
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
