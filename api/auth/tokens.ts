/**
 * Session access tokens: HS256 JWTs (jose) naming the user (`sub`) and the
 * session (`sid`), issuer `tramline`, audience `tramline-api`, 15 minutes.
 * The signing key is shared by every server process: TRAMLINE_JWT_SECRET
 * when set, otherwise a random key made once and kept in the database.
 * A token is honoured only while its session is live (checked per request),
 * so revoking a session ends its tokens at once.
 */
import { randomBytes } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { Store } from '../../store/db.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 900;
export const SESSION_TTL_SECONDS = 30 * 24 * 3600;
const ISSUER = 'tramline';
const AUDIENCE = 'tramline-api';

export interface TokenService {
  /** A token of the session; `ttlSeconds` defaults to 900 (the session cookie asks for the session's lifetime). */
  issue(
    sessionId: string,
    userId: string,
    ttlSeconds?: number,
  ): Promise<{ accessToken: string; expiresIn: number }>;
  /** The session and user of a valid, unexpired token; null otherwise. */
  verify(token: string): Promise<{ sessionId: string; userId: string } | null>;
}

export async function createTokenService(store: Store, secret?: string): Promise<TokenService> {
  const keyText =
    secret ?? (await store.secrets.ensure('jwt-hs256', () => randomBytes(32).toString('base64url')));
  const key = new TextEncoder().encode(keyText);
  return {
    async issue(sessionId, userId, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS) {
      const accessToken = await new SignJWT({ sid: sessionId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(key);
      return { accessToken, expiresIn: ttlSeconds };
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
        });
        if (typeof payload.sid !== 'string' || typeof payload.sub !== 'string') return null;
        return { sessionId: payload.sid, userId: payload.sub };
      } catch (e) {
        if (e instanceof errors.JOSEError) return null;
        throw e;
      }
    },
  };
}
