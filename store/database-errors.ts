/**
 * Database errors without their values: Drizzle's failed query carries the
 * statement and its parameters (e-mail addresses, password hashes, key
 * hashes) in its message; pg's and PGlite's errors carry values in
 * `detail`. What may be shown or logged of one is its SQL state and the kind
 * and table of its statement.
 */
const SQL_STATE = /^[0-9A-Z]{5}$/;

/** `insert into "users"` of a statement: its kind and first table, no values. */
export function statementName(query: unknown): string | undefined {
  if (typeof query !== 'string') return undefined;
  const kind = /^\s*(with|select|insert\s+into|update|delete\s+from)\b/i.exec(query)?.[1];
  if (!kind) return 'statement';
  const k = kind.toLowerCase().replace(/\s+/g, ' ');
  const after: Record<string, RegExp> = {
    'insert into': /^\s*insert\s+into\s+("?[\w.]+"?)/i,
    update: /^\s*update\s+("?[\w.]+"?)/i,
    'delete from': /^\s*delete\s+from\s+("?[\w.]+"?)/i,
  };
  const table = (after[k] ?? /\bfrom\s+("?[\w.]+"?)/i).exec(query)?.[1];
  return table ? `${k} ${table}` : k;
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
export function databaseError(err: unknown): { sqlState?: string; statement?: string } | undefined {
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

/** `String(err)`, except that a database error says only its SQL state and statement kind. */
export function safeErrorText(err: unknown): string {
  const db = databaseError(err);
  if (!db) return String(err);
  return `Database statement failed${db.sqlState ? ` (SQL state ${db.sqlState})` : ''}${db.statement ? `: ${db.statement}` : ''}`;
}
