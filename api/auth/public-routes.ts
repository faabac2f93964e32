/**
 * THE allow-list of endpoints that need no API key. Everything else under
 * `/api` needs `X-API-KEY` (401 without a body otherwise); paths outside
 * `/api` (the interactive docs at `/docs`) are public.
 *
 * Entries are `METHOD route-pattern` as registered with Fastify (parameters
 * as `:name`), so parameterised routes can be listed. Endpoints expected
 * here later: `POST /api/partner/launch/exchange` (the launch code is the
 * credential), `POST /api/account/register`, `POST /api/account/login`,
 * `POST /api/account/refresh`, and anonymous share reads such as
 * `GET /api/shares/:code/path-plans-normalized/:pathPlanId`.
 */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set([
  'GET /api/healthz',
  'HEAD /api/healthz',
  'GET /api/openapi.json',
  'HEAD /api/openapi.json',
  'POST /api/account/register',
  'POST /api/account/login',
  'POST /api/account/refresh',
  // One-time links of mail: the token is the credential.
  'POST /api/account/accept-invite',
  'GET /api/account/confirm-account',
  'GET /api/account/confirm-email',
  'POST /api/account/reset-password',
  // Answers the same whether or not the address has an account.
  'POST /api/account/recover',
  'POST /api/account/check-user-source',
  // The one-time token is the credential.
  'GET /api/tokens/:tokenId/exchange',
  // OAuth 2.0 token endpoint: the client authenticates itself (or proves PKCE).
  'POST /api/account/token',
  // Sign-in through the external identity provider: its tokens are the credentials.
  'POST /api/externallogin',
  'GET /api/externallogin/callback',
  'POST /api/account/register-external',
  'POST /api/partner/launch/exchange',
  // The share code is the credential; a share id (UUID) still needs a key (the route answers 401).
  'GET /api/shares/:shareIdOrCode',
  'GET /api/shares/:code/path-plans-normalized/:pathPlanId',
  'GET /api/shares/:code/equipment-scenario',
  'POST /api/shares/:code/plans',
]);

/** Whether a request needs a valid API key. `routeUrl` is the matched route pattern (undefined: no route). */
export function requiresApiKey(method: string, url: string, routeUrl: string | undefined): boolean {
  if (routeUrl !== undefined && PUBLIC_ROUTES.has(`${method} ${routeUrl}`)) return false;
  const path = url.split('?', 1)[0];
  return path === '/api' || path.startsWith('/api/');
}
