/**
 * The planning view in the browser and its session (no API key ever reaches
 * the browser, spec 5.7):
 *   GET  /path-planning/boundary/:boundaryId  the planning view (spec 4.2); without a session 302 to /login
 *   GET  /path-planning/shared/:code/:planId  a shared plan, read only (the share code is the credential)
 *   GET  /login                               the sign-in page
 *   POST /login                               e-mail + password -> the session cookie
 *   POST /logout                              ends the session of the cookie
 *   GET  /launch?code=&userId=&returnUrl=     partner hand-over (spec 4.3): exchanges the launch code
 *                                             on the server, sets the session cookie, 302 to returnUrl
 *   GET  /web/*                               the built bundle (web/dist, see web/build.ts)
 *
 * The session cookie `tramline_session` is HttpOnly and holds a signed
 * session token that lives as long as the session (revoking the session ends
 * it at once); the access control accepts it for API calls of the page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as coreTypes from '../../core/types/index.ts';
import { EXPORT_FORMAT_LABELS, EXPORT_FORMATS } from '../../formats/export/types.ts';
import type { Store } from '../../store/db.ts';
import { WEB_DIST } from '../../web/build.ts';
import { SESSION_COOKIE } from '../auth/access-control.ts';
import { SESSION_TTL_SECONDS, type TokenService } from '../auth/tokens.ts';
import { ConfigError } from '../config.ts';
import { ApiError, validationError } from '../errors.ts';
import { SUPPORTED_ROUTE_ALGORITHMS } from '../planning/supported-options.ts';

export interface WebOptions {
  /** Raster tile URL template of a basemap ({z}/{x}/{y}); none = the map draws the field on a plain background. */
  basemapUrl?: string;
  basemapAttribution?: string;
  /** Origins (scheme://host[:port]) that may embed the view and be launch return targets, besides this server's own. */
  allowedOrigins?: string[];
  /** The origin browsers reach this server at (TRAMLINE_PUBLIC_URL); see `ownOrigins`. */
  publicUrl?: string;
}

/**
 * Web settings from the environment: TRAMLINE_BASEMAP_URL,
 * TRAMLINE_BASEMAP_ATTRIBUTION, TRAMLINE_ALLOWED_ORIGINS, TRAMLINE_PUBLIC_URL.
 */
export function webOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): WebOptions {
  const origins = (env.TRAMLINE_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((o) => {
      let u: URL;
      try {
        u = new URL(o);
      } catch {
        throw new ConfigError(
          `TRAMLINE_ALLOWED_ORIGINS holds "${o}", which is not an origin; expected a comma-separated list like https://farm.example.com,https://app.example.org.`,
        );
      }
      if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.origin !== o.replace(/\/$/, '')) {
        throw new ConfigError(
          `TRAMLINE_ALLOWED_ORIGINS holds "${o}"; each entry must be a bare http(s) origin (scheme://host[:port], no path).`,
        );
      }
      return u.origin;
    });
  const basemapUrl = env.TRAMLINE_BASEMAP_URL || undefined;
  if (basemapUrl && !/^https?:\/\/.+\{z\}.*\{x\}.*\{y\}/.test(basemapUrl)) {
    throw new ConfigError(
      `TRAMLINE_BASEMAP_URL must be an http(s) raster tile template with {z}, {x} and {y}; found "${basemapUrl}".`,
    );
  }
  const publicRaw = env.TRAMLINE_PUBLIC_URL || undefined;
  let publicUrl: string | undefined;
  if (publicRaw !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(publicRaw);
    } catch {
      u = undefined;
    }
    if (
      !u ||
      (u.protocol !== 'https:' && u.protocol !== 'http:') ||
      u.origin !== publicRaw.replace(/\/$/, '')
    ) {
      throw new ConfigError(
        `TRAMLINE_PUBLIC_URL must be the bare http(s) origin browsers reach this server at (scheme://host[:port], no path), like https://plan.example.com; found "${publicRaw}".`,
      );
    }
    publicUrl = u.origin;
  }
  return {
    basemapUrl,
    basemapAttribution: env.TRAMLINE_BASEMAP_ATTRIBUTION || undefined,
    allowedOrigins: origins,
    ...(publicUrl ? { publicUrl } : {}),
  };
}

const BOUNDARY_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** The route orders the browser planner offers: the planner's own list when it names one. */
function routeAlgorithms(): string[] {
  const list = (coreTypes as { ROUTE_ALGORITHMS?: readonly string[] }).ROUTE_ALGORITHMS;
  return [...(list ?? SUPPORTED_ROUTE_ALGORITHMS)];
}

/** How this server learns its own origin: never from the Host header of a request. */
export interface OriginSettings {
  /** TRAMLINE_PUBLIC_URL: the origin browsers reach this server at. */
  publicUrl?: string;
  /** Proxies are trusted (TRAMLINE_TRUST_PROXY): their X-Forwarded-Proto and X-Forwarded-Host name the origin. */
  trustProxy?: boolean;
}

const LOOPBACK_RE = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * This server's own origins for a request, most preferred first: the
 * configured public URL; else, behind a trusted proxy, the forwarded scheme
 * and host; else the address and port the connection came in on (with
 * `localhost` when that is a loopback address). The Host header alone
 * decides nothing, so a proxy passing it on cannot make another site ours.
 */
export function ownOrigins(req: FastifyRequest, settings: OriginSettings = {}): string[] {
  if (settings.publicUrl) return [settings.publicUrl];
  const forwardedHost = req.headers['x-forwarded-host'];
  if (settings.trustProxy && typeof forwardedHost === 'string' && forwardedHost !== '') {
    try {
      return [new URL(`${req.protocol}://${forwardedHost.split(',', 1)[0].trim()}`).origin];
    } catch {
      // An unusable forwarded host: fall back to the connection.
    }
  }
  const scheme = req.protocol === 'https' ? 'https' : 'http';
  const address = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const port = req.socket.localPort;
  const at = (host: string) => new URL(`${scheme}://${host}:${port}`).origin;
  if (LOOPBACK_RE.test(address))
    return [at(address.includes(':') ? `[${address}]` : address), at('localhost')];
  return [at(address.includes(':') ? `[${address}]` : address)];
}

/**
 * Whether the browser sees this server in a secure context: the public URL
 * is https; or a trusted proxy forwarded https; or, without either, the
 * connection is TLS or came in on a loopback address (browsers treat
 * http://localhost as secure).
 */
function secureContext(req: FastifyRequest, settings: OriginSettings): boolean {
  if (settings.publicUrl) return settings.publicUrl.startsWith('https:');
  if (req.protocol === 'https') return true;
  if (settings.trustProxy && req.headers['x-forwarded-proto'] !== undefined) return false;
  return LOOPBACK_RE.test(req.socket.localAddress ?? '');
}

/**
 * Cookie attributes: in a secure context SameSite=None; Secure; Partitioned,
 * so the view also works embedded in another origin's iframe (browsers that
 * block third-party cookies keep partitioned ones, per embedding site); on
 * plain http elsewhere SameSite=Lax (embedding then needs https). Setting
 * and clearing use the same attributes, or browsers keep the cookie.
 */
function cookieOptions(secure: boolean) {
  return {
    httpOnly: true,
    path: '/',
    secure,
    sameSite: secure ? ('none' as const) : ('lax' as const),
    partitioned: secure,
  };
}

/**
 * A return URL on this server's origin (answered as a path, so the browser
 * stays on the origin it uses) or on an allowed origin (absolute); null otherwise.
 */
export function safeReturnUrl(
  raw: string,
  own: string | readonly string[],
  allowed: readonly string[],
): string | null {
  const owns = typeof own === 'string' ? [own] : own;
  if (raw.length > 2048 || raw.includes('\\') || [...raw].some((c) => c.charCodeAt(0) < 0x20)) return null;
  let u: URL;
  try {
    u = new URL(raw, `${owns[0]}/`);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (u.username || u.password) return null;
  if (owns.includes(u.origin)) {
    // "//host" would leave the origin again.
    return u.pathname.startsWith('//') ? null : `${u.pathname}${u.search}${u.hash}`;
  }
  return allowed.includes(u.origin) ? u.href : null;
}

/**
 * The page with its settings, and a preload of the field (or shared plan) it
 * fetches first, so the browser loads it while the scripts load.
 */
function withConfig(html: string, config: object, dataUrl: string): string {
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return html.replace(
    '<!--tramline-config-->',
    `<script id="tramline-config" type="application/json">${json}</script>\n    <link rel="preload" as="fetch" crossorigin="anonymous" href="${dataUrl.replace(/"/g, '&quot;')}" />`,
  );
}

export async function webRoutes(
  app: FastifyInstance,
  opts: { store: Store; tokens: TokenService; web?: WebOptions; trustProxy?: boolean },
): Promise<void> {
  const { store, tokens } = opts;
  const web = opts.web ?? webOptionsFromEnv();
  const allowed = web.allowedOrigins ?? [];
  const origin: OriginSettings = { publicUrl: web.publicUrl, trustProxy: opts.trustProxy };
  const frameAncestors = ["'self'", ...allowed].join(' ');

  const page = (name: string): string => {
    const file = join(WEB_DIST, name);
    if (!existsSync(file)) {
      throw new ApiError(
        503,
        'WEB_NOT_BUILT',
        'The planning view is not built; `npm start` builds it (or run `node web/build.ts`).',
      );
    }
    return readFileSync(file, 'utf8');
  };

  const html = (reply: FastifyReply, body: string) =>
    reply
      .header('cache-control', 'no-store')
      .header('content-security-policy', `frame-ancestors ${frameAncestors}`)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .type('text/html; charset=utf-8')
      .send(body);

  const setSession = async (req: FastifyRequest, reply: FastifyReply, accessToken: string) => {
    const claims = await tokens.verify(accessToken);
    if (!claims) throw new ApiError(500, 'INTERNAL_ERROR', 'The new session token did not verify.');
    const { accessToken: long } = await tokens.issue(claims.sessionId, claims.userId, SESSION_TTL_SECONDS);
    reply.setCookie(SESSION_COOKIE, long, {
      ...cookieOptions(secureContext(req, origin)),
      maxAge: SESSION_TTL_SECONDS,
    });
  };

  await app.register(fastifyCookie);
  await app.register(fastifyStatic, {
    root: WEB_DIST,
    prefix: '/web/',
    index: false,
    wildcard: true,
    schemaHide: true,
    setHeaders: (res, path) => {
      if (path.includes('/assets/')) res.header('cache-control', 'public, max-age=31536000, immutable');
    },
  });

  app.get<{ Params: { boundaryId: string } }>(
    '/path-planning/boundary/:boundaryId',
    { schema: { hide: true } },
    async (req, reply) => {
      const { boundaryId } = req.params;
      if (!BOUNDARY_ID_RE.test(boundaryId)) {
        throw validationError([
          {
            path: '/params/boundaryId',
            message: 'must be a boundary id (letters, digits, - and _; up to 64)',
          },
        ]);
      }
      if (req.principal?.kind !== 'session') {
        return reply.redirect(`/login?returnUrl=${encodeURIComponent(req.url)}`, 302);
      }
      const config = {
        mode: 'field',
        share: null,
        boundaryId,
        basemapUrl: web.basemapUrl ?? null,
        basemapAttribution: web.basemapAttribution ?? null,
        allowedOrigins: allowed,
        routeAlgorithms: routeAlgorithms(),
        exportFormats: EXPORT_FORMATS.map((f) => ({ value: f, label: EXPORT_FORMAT_LABELS[f] ?? f })),
        user: { userId: req.principal.userId },
      };
      return html(
        reply,
        withConfig(page('index.html'), config, `/api/boundaries/${encodeURIComponent(boundaryId)}/geojson`),
      );
    },
  );

  app.get<{ Params: { code: string; pathPlanId: string } }>(
    '/path-planning/shared/:code/:pathPlanId',
    { schema: { hide: true } },
    async (req, reply) => {
      const { code, pathPlanId } = req.params;
      if (!/^[A-Za-z0-9_-]{10,100}$/.test(code) || !BOUNDARY_ID_RE.test(pathPlanId)) {
        throw validationError([
          { path: '/params', message: 'must name a share code and the id of the plan it shares' },
        ]);
      }
      // No session needed: the share code is the credential (GET /api/shares/{code}/path-plans-normalized/{id}).
      const config = {
        mode: 'shared',
        share: { code, pathPlanId },
        boundaryId: '',
        basemapUrl: web.basemapUrl ?? null,
        basemapAttribution: web.basemapAttribution ?? null,
        allowedOrigins: allowed,
        routeAlgorithms: routeAlgorithms(),
        exportFormats: [],
        user: null,
      };
      return html(
        reply,
        withConfig(
          page('index.html'),
          config,
          `/api/shares/${encodeURIComponent(code)}/path-plans-normalized/${encodeURIComponent(pathPlanId)}`,
        ),
      );
    },
  );

  app.get('/login', { schema: { hide: true } }, async (_req, reply) => html(reply, page('login.html')));

  app.post<{ Body: { email?: unknown; password?: unknown; returnUrl?: unknown } }>(
    '/login',
    { schema: { hide: true } },
    async (req, reply) => {
      const b = (req.body ?? {}) as { email?: unknown; password?: unknown; returnUrl?: unknown };
      // The inner call counts in this client's rate limit bucket, not in one of the loopback address.
      const res = await app.inject({
        method: 'POST',
        url: '/api/account/login',
        payload: { email: b.email, password: b.password },
        headers: app.innerCallHeaders(req),
      });
      if (res.statusCode !== 200) {
        return reply.code(res.statusCode).type('application/json; charset=utf-8').send(res.body);
      }
      const returnUrl =
        (typeof b.returnUrl === 'string' && safeReturnUrl(b.returnUrl, ownOrigins(req, origin), [])) || '/';
      await setSession(req, reply, (res.json() as { accessToken: string }).accessToken);
      return { returnUrl };
    },
  );

  app.post('/logout', { schema: { hide: true } }, async (req, reply) => {
    if (req.principal?.kind === 'session')
      await store.sessions.revoke(req.principal.keyId, req.principal.userId);
    reply.clearCookie(SESSION_COOKIE, cookieOptions(secureContext(req, origin)));
    return reply.code(204).send();
  });

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/launch',
    { schema: { hide: true } },
    async (req, reply) => {
      const { code, userId, returnUrl } = req.query;
      const missing = (['code', 'userId', 'returnUrl'] as const).filter(
        (k) => typeof req.query[k] !== 'string' || req.query[k] === '',
      );
      if (missing.length) {
        throw validationError(missing.map((k) => ({ path: `/querystring/${k}`, message: 'is required' })));
      }
      const own = ownOrigins(req, origin);
      const target = safeReturnUrl(returnUrl!, own, allowed);
      if (!target) {
        throw new ApiError(
          400,
          'INVALID_RETURN_URL',
          `returnUrl must be on this server (${own[0]}) or on an allowed origin${allowed.length ? ` (${allowed.join(', ')})` : ''}; found "${returnUrl!.slice(0, 200)}".`,
        );
      }
      const res = await app.inject({
        method: 'POST',
        url: '/api/partner/launch/exchange',
        payload: { code, userId },
        headers: app.innerCallHeaders(req),
      });
      if (res.statusCode !== 200 && res.statusCode !== 201) {
        return reply.code(res.statusCode).type('application/json; charset=utf-8').send(res.body);
      }
      await setSession(req, reply, (res.json() as { accessToken: string }).accessToken);
      return reply.header('cache-control', 'no-store').redirect(target, 302);
    },
  );
}
