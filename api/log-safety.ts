/**
 * What the log must never hold: credentials in headers (API keys, bearer
 * tokens, cookies) and secret body members, redacted by pino wherever they
 * are logged; and the values of a failed database statement (a failed
 * insert would otherwise log e-mail addresses, password hashes and key
 * hashes). Errors are logged through `errorSerializer`: a database error
 * keeps only its SQL state, the kind and table of its statement, and the
 * stack frames.
 */
import { stdSerializers } from 'pino';
import { databaseError } from '../store/database-errors.ts';

const SECRET_MEMBERS = [
  'password',
  'newPassword',
  'currentPassword',
  'passwordHash',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'apiKey',
  'keyHash',
  'secret',
  'clientSecret',
  'email',
  // OAuth 2.0 with vendors: token answers and PKCE verifiers.
  'access_token',
  'refresh_token',
  'client_secret',
  'codeVerifier',
  'code_verifier',
];

/** pino `redact` paths: credential headers of requests and answers, secret members up to three levels into a logged object. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  ...SECRET_MEMBERS.flatMap((m) => [m, `*.${m}`, `*.*.${m}`]),
  // Short names that are secrets only in a request: launch, share and authorization codes, keys, OAuth state.
  ...['code', 'key', 'state'].flatMap((m) => [`body.${m}`, `req.body.${m}`, `query.${m}`, `req.query.${m}`]),
];

const SECRET_QUERY = /([?&](?:code|key|token|apiKey|access_token|refresh_token|password)=)[^&#]*/gi;

/** Share codes are credentials wherever they stand in a path (`/api/shares/tls_.../...`). */
const SHARE_CODE = /\btls_[A-Za-z0-9_-]+/g;

/** A request URL without share codes and the values of secret query parameters (`/launch?code=...`). */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[Redacted]').replace(SHARE_CODE, 'tls_[Redacted]');
}

/** Fastify's request serializer with `redactUrl` applied. */
export function requestSerializer(req: {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}): unknown {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

const framesOf = (stack: unknown): string =>
  typeof stack === 'string'
    ? stack
        .split('\n')
        .filter((l) => /^\s+at /.test(l))
        .join('\n')
    : '';

/** pino's error serializer, except that database errors lose their values. */
export function errorSerializer(err: unknown): unknown {
  const db = databaseError(err);
  if (!db) return stdSerializers.err(err as Error);
  return {
    type: 'DatabaseError',
    message: `Database statement failed${db.sqlState ? ` (SQL state ${db.sqlState})` : ''}`,
    sqlState: db.sqlState,
    statement: db.statement,
    stack: framesOf((err as { stack?: unknown }).stack),
  };
}

/** The SQL state of a database error in `err`'s cause chain. */
export function sqlStateOf(err: unknown): string | undefined {
  return databaseError(err)?.sqlState;
}
