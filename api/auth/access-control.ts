/**
 * The first hooks of every request (onRequest, so before the body is read,
 * parsed or validated):
 *   1. correlation id: accept a sane incoming `X-Correlation-Id`, else the
 *      generated one; echoed on every response;
 *   2. credentials: resolve `X-API-KEY` to its principal (one indexed
 *      lookup), or, without a key header, an `Authorization: Bearer` session
 *      token (signature checked locally, then one lookup that the session is
 *      live); without either, the browser session cookie `tramline_session`
 *      (the same token, set HttpOnly by /login and /launch), honoured for
 *      unsafe methods only from this server's own pages (same-origin
 *      Sec-Fetch-Site or Origin), so other sites cannot ride on it;
 *      a session acts for its user wherever a key does;
 *   3. rate limit: one atomic upsert on the shared window row of the key
 *      (or, without a valid key, of the client address); `X-RateLimit-*`
 *      headers on every response; health probes are not counted; calls the
 *      server makes to itself (`app.inject` from /login and /launch) carry
 *      the caller's bucket in a header signed with a secret of this process
 *      (`app.innerCallHeaders(req)`), so they are not counted again and
 *      never share one bucket of the loopback address;
 *   4. a key-protected endpoint without a valid key: 401 with no body
 *      (429 instead once the address has used up its window, which stops
 *      key guessing).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../../store/db.ts';
import { type KeyPrincipal, plausibleApiKey } from '../../store/repositories/api-keys.ts';
import { uuidv7 } from '../../store/uuidv7.ts';
import { requiresApiKey } from './public-routes.ts';
import type { TokenService } from './tokens.ts';

/** The company a session bills when its user has no company access (no balance, so 402). */
export const NO_COMPANY = '00000000-0000-0000-0000-000000000000';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the API key speaks for; null without a valid key. */
    principal: KeyPrincipal | null;
    /** The rate limit bucket this request counted in (null: not counted, e.g. a health probe). */
    rateBucket: string | null;
  }
  interface FastifyInstance {
    /** Headers for `app.inject` calls made on behalf of `req`: they count in `req`'s rate limit bucket. */
    innerCallHeaders(req: FastifyRequest): Record<string, string>;
  }
}

/** Header naming the rate limit bucket of the caller of an inner call, signed with the process secret. */
export const INNER_CALL_HEADER = 'x-tramline-inner-call';

/** Routes never rate limited: load balancer and orchestrator probes. */
const UNLIMITED_ROUTES: ReadonlySet<string> = new Set(['GET /api/healthz', 'HEAD /api/healthz']);

/** Name of the HttpOnly session cookie of the planning view. */
export const SESSION_COOKIE = 'tramline_session';

const CORRELATION_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify `genReqId`: the request id is the correlation id. */
export function correlationIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const v = req.headers['x-correlation-id'];
  return typeof v === 'string' && CORRELATION_ID_RE.test(v) ? v : uuidv7();
}

export interface RateLimitOptions {
  /** Requests per window and key (or address). */
  limit: number;
  /** Window length [s] (default 60). */
  windowSeconds: number;
}

/** `Authorization: Bearer <token>` → the token, else null. */
function bearerToken(v: string | undefined): string | null {
  if (typeof v !== 'string') return null;
  const m = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)$/i.exec(v.trim());
  return m && m[1].length <= 4096 ? m[1] : null;
}

/** The session cookie's token, for safe methods or requests from this server's own pages. */
function sessionCookie(req: FastifyRequest): string | null {
  if (req.headers.authorization !== undefined) return null;
  const raw = req.headers.cookie;
  if (typeof raw !== 'string' || !raw.includes(SESSION_COOKIE)) return null;
  const m = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([A-Za-z0-9._-]{1,4096})(?:;|$)`).exec(raw);
  if (!m) return null;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const site = req.headers['sec-fetch-site'];
    const origin = req.headers.origin;
    const own = `${req.protocol}://${req.host}`;
    if (site !== undefined ? site !== 'same-origin' : origin !== own) return null;
  }
  return m[1];
}

async function resolvePrincipal(
  req: FastifyRequest,
  store: Store,
  tokens: TokenService,
): Promise<KeyPrincipal | null> {
  const key = req.headers['x-api-key'];
  if (key !== undefined) {
    if (!plausibleApiKey(key)) return null;
    const p = await store.apiKeys.authenticate(key);
    return p ? { ...p, kind: 'apiKey' } : null;
  }
  const token = bearerToken(req.headers.authorization) ?? sessionCookie(req);
  if (!token) return null;
  const claims = await tokens.verify(token);
  if (!claims) return null;
  const s = await store.sessions.principal(claims.sessionId);
  if (!s || s.userId !== claims.userId) return null;
  return {
    kind: 'session',
    keyId: s.sessionId,
    keyName: 'session',
    keyMasked: '',
    userId: s.userId,
    companyId: s.companyId ?? NO_COMPANY,
    partnerAdmin: s.partnerAdmin,
  };
}

export function registerAccessControl(
  app: FastifyInstance,
  store: Store,
  rate: RateLimitOptions,
  tokens: TokenService,
): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('rateBucket', null);

  // Inner calls name their caller's bucket with a MAC of this process's secret; nobody outside knows it.
  const secret = randomBytes(32);
  const mac = (bucket: string) => createHmac('sha256', secret).update(bucket, 'utf8').digest('base64url');
  app.decorate('innerCallHeaders', (req: FastifyRequest) => {
    const bucket = req.rateBucket ?? `ip:${req.ip}`;
    return {
      'x-correlation-id': req.id,
      [INNER_CALL_HEADER]: `${mac(bucket)}.${Buffer.from(bucket, 'utf8').toString('base64url')}`,
    };
  });
  /** The caller's bucket of a genuine inner call; null for anything else. */
  const innerBucket = (req: FastifyRequest): string | null => {
    const v = req.headers[INNER_CALL_HEADER];
    if (typeof v !== 'string') return null;
    const [sig, enc] = v.split('.', 2);
    if (!sig || !enc) return null;
    const bucket = Buffer.from(enc, 'base64url').toString('utf8');
    const want = Buffer.from(mac(bucket));
    const got = Buffer.from(sig);
    return got.length === want.length && timingSafeEqual(got, want) ? bucket : null;
  };

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-correlation-id', req.id);

    const principal = await resolvePrincipal(req, store, tokens);
    req.principal = principal;

    if (UNLIMITED_ROUTES.has(`${req.method} ${req.routeOptions.url}`)) return;
    const inner = innerBucket(req);
    if (inner !== null) {
      // Counted already as the outer request of this caller.
      req.rateBucket = inner;
      if (!principal && requiresApiKey(req.method, req.url, req.routeOptions.url)) {
        reply.code(401).send();
        return reply;
      }
      return;
    }
    const bucket = principal
      ? `${principal.kind === 'session' ? 'session' : 'key'}:${principal.keyId}`
      : `ip:${req.ip}`;
    req.rateBucket = bucket;
    const hit = await store.rateLimits.hit(bucket, rate.windowSeconds);
    reply.header('x-ratelimit-limit', String(rate.limit));
    reply.header('x-ratelimit-remaining', String(Math.max(0, rate.limit - hit.count)));
    reply.header('x-ratelimit-reset', String(hit.resetSeconds));

    if (hit.count > rate.limit) {
      reply.header('retry-after', String(hit.resetSeconds));
      reply
        .code(429)
        .type('application/json; charset=utf-8')
        .send(
          JSON.stringify({
            error: {
              code: 'RATE_LIMIT_EXCEEDED',
              message: `Rate limit of ${rate.limit} requests per ${rate.windowSeconds} s exceeded; retry after ${hit.resetSeconds} s.`,
            },
            limit: rate.limit,
            windowSeconds: rate.windowSeconds,
            retryAfterSeconds: hit.resetSeconds,
            correlationId: req.id,
          }),
        );
      return reply;
    }

    if (!principal && requiresApiKey(req.method, req.url, req.routeOptions.url)) {
      reply.code(401).send();
      return reply;
    }
  });
}
