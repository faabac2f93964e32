/**
 * The first hooks of every request (onRequest, so before the body is read,
 * parsed or validated):
 *   1. correlation id: accept a sane incoming `X-Correlation-Id`, else the
 *      generated one; echoed on every response;
 *   2. API key: resolve `X-API-KEY` to its principal (one indexed lookup);
 *   3. rate limit: one atomic upsert on the shared window row of the key
 *      (or, without a valid key, of the client address); `X-RateLimit-*`
 *      headers on every response;
 *   4. a key-protected endpoint without a valid key: 401 with no body
 *      (429 instead once the address has used up its window, which stops
 *      key guessing).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../../store/db.ts';
import { type KeyPrincipal, plausibleApiKey } from '../../store/repositories/api-keys.ts';
import { uuidv7 } from '../../store/uuidv7.ts';
import { requiresApiKey } from './public-routes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the API key speaks for; null without a valid key. */
    principal: KeyPrincipal | null;
  }
}

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

export function registerAccessControl(app: FastifyInstance, store: Store, rate: RateLimitOptions): void {
  app.decorateRequest('principal', null);

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-correlation-id', req.id);

    const key = req.headers['x-api-key'];
    const principal = plausibleApiKey(key) ? await store.apiKeys.authenticate(key) : null;
    req.principal = principal;

    const hit = await store.rateLimits.hit(
      principal ? `key:${principal.keyId}` : `ip:${req.ip}`,
      rate.windowSeconds,
    );
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
