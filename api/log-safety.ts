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
  // Short names that are secrets only in a request: launch and share codes, keys.
  ...['code', 'key'].flatMap((m) => [`body.${m}`, `req.body.${m}`, `query.${m}`, `req.query.${m}`]),
];

const SECRET_QUERY = /([?&](?:code|key|token|apiKey|access_token|refresh_token|password)=)[^&#]*/gi;

/** A request URL without the values of secret query parameters (`/launch?code=...`). */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[Redacted]');
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

const SQL_STATE = /^[0-9A-Z]{5}$/;

/** `insert into "users"` of a statement: its kind and first table, no values. */
export function statementName(query: unknown): string | undefined {
  if (typeof query !== 'string') return undefined;
  const m =
    /^\s*(with|select|insert\s+into|update|delete\s+from)\b(?:[\s\S]*?\b(?:from|into|update)\s+)?\s*("?[\w.]+"?)?/i.exec(
      query,
    );
  if (!m) return 'statement';
  return `${m[1].toLowerCase().replace(/\s+/g, ' ')}${m[2] ? ` ${m[2]}` : ''}`;
}

interface DbErrorLike {
  query?: unknown;
  params?: unknown;
  code?: unknown;
  severity?: unknown;
  cause?: unknown;
  stack?: unknown;
}

/** A database error (Drizzle's failed query, pg's or PGlite's error), anywhere in the cause chain. */
function databaseError(err: unknown): { sqlState?: string; statement?: string } | undefined {
  let e = err as DbErrorLike | undefined;
  let found: { sqlState?: string; statement?: string } | undefined;
  for (let i = 0; e && typeof e === 'object' && i < 5; i++) {
    const isQuery = 'query' in e && 'params' in e;
    const isServer = typeof e.code === 'string' && SQL_STATE.test(e.code) && 'severity' in e;
    if (isQuery || isServer) {
      found ??= {};
      if (isServer) found.sqlState ??= e.code as string;
      if (isQuery) found.statement ??= statementName(e.query);
    }
    e = e.cause as DbErrorLike | undefined;
  }
  return found;
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
    stack: framesOf((err as DbErrorLike).stack),
  };
}

/** The SQL state of a database error in `err`'s cause chain. */
export function sqlStateOf(err: unknown): string | undefined {
  return databaseError(err)?.sqlState;
}
