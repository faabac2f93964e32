/**
 * Session access tokens: HS256 JWTs (jose) naming the user (`sub`) and the
 * session (`sid`), issuer `tramline`, audience `tramline-api`, 15 minutes.
 * The signing key is shared by every server process: TRAMLINE_JWT_SECRET
 * when set, otherwise a random key made once and kept in the database.
 * A token is honoured only while its session is live (checked per request),
 * so revoking a session ends its tokens at once.
 *
 * Refresh tokens name their session and carry a MAC under the same key
 * (`tlr_<sessionId>.<nonce>.<mac>`); the database keeps only the hash of the
 * live one. A refresh token that verifies but is not the live one was used
 * before (replayed, or stolen and raced): the account routes then end the
 * whole session, so neither the thief nor the victim keeps it.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EncryptJWT, errors, jwtDecrypt, jwtVerify, SignJWT } from 'jose';
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
  /** A new refresh token of the session (unguessable: a random nonce and a MAC). */
  newRefreshToken(sessionId: string): string;
  /** The session a refresh token was issued for, when its MAC verifies; null otherwise. */
  refreshTokenSession(token: string): string | null;
  /** `payload` sealed (encrypted and authenticated, A256GCM) for `ttlSeconds`: state that passes through a browser. */
  seal(purpose: string, payload: Record<string, unknown>, ttlSeconds: number): Promise<string>;
  /** The payload of a sealed value of this purpose, unexpired; null otherwise. */
  unseal(purpose: string, sealed: string): Promise<Record<string, unknown> | null>;
}

const REFRESH_RE = /^tlr_([0-9a-f-]{36})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export async function createTokenService(store: Store, secret?: string): Promise<TokenService> {
  const keyText =
    secret ?? (await store.secrets.ensure('jwt-hs256', () => randomBytes(32).toString('base64url')));
  const key = new TextEncoder().encode(keyText);
  const refreshMac = (sessionId: string, nonce: string) =>
    createHmac('sha256', key).update(`tramline-refresh-token|${sessionId}|${nonce}`).digest('base64url');
  const sealKey = createHash('sha256').update(`tramline-sealed-state|${keyText}`).digest();
  return {
    async seal(purpose, payload, ttlSeconds) {
      return new EncryptJWT({ ...payload, pur: purpose })
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
        .setIssuer(ISSUER)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .encrypt(sealKey);
    },
    async unseal(purpose, sealed) {
      try {
        const { payload } = await jwtDecrypt(sealed, sealKey, { issuer: ISSUER });
        return payload.pur === purpose ? (payload as Record<string, unknown>) : null;
      } catch (e) {
        if (e instanceof errors.JOSEError) return null;
        throw e;
      }
    },
    newRefreshToken(sessionId) {
      const nonce = randomBytes(16).toString('base64url');
      return `tlr_${sessionId}.${nonce}.${refreshMac(sessionId, nonce)}`;
    },
    refreshTokenSession(token) {
      const m = REFRESH_RE.exec(token);
      if (!m) return null;
      const want = Buffer.from(refreshMac(m[1], m[2]));
      const got = Buffer.from(m[3]);
      return got.length === want.length && timingSafeEqual(got, want) ? m[1] : null;
    },
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
