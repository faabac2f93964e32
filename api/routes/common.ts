/**
 * Shared pieces of the platform routes: id parameters, the not-found and
 * precondition answers, ETags, and error response schemas for OpenAPI.
 *
 * ETags are strong and name the stored version of a resource (`"3"`); a
 * write with `If-Match` that names another version gets 412, so no update
 * is lost silently. `If-Match: *` matches any existing resource; a list
 * of ETags matches when any of them does. Without
 * `If-Match` writes are unconditional (last writer wins).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { CompanyRole } from '../../store/repositories/accounts.ts';
import type { KeyPrincipal } from '../../store/repositories/api-keys.ts';
import type { ExpectedVersion } from '../../store/repositories/versions.ts';
import { ApiError } from '../errors.ts';
import { commonErrors, ErrorResponse, ValidationErrorResponse, withHeaders } from '../openapi/responses.ts';

export const Uuid = (description: string) => Type.String({ format: 'uuid', description });

export const Timestamp = Type.String({ format: 'date-time' });

/** A user's role in a company (api/auth/company-roles.ts enforces it on every route). */
export const CompanyRoleSchema = Type.Union(
  [Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer')],
  {
    $id: 'CompanyRole',
    title: 'CompanyRole',
    description:
      'admin: reads and writes the data, manages access, deletes and purges the company; editor: reads and writes its data; viewer: reads only (writes answer 403 NotAuthorized).',
  },
);

export const Etag = Type.String({
  description: 'The ETag of this version; send it as If-Match to update or delete only this version.',
});

/** `{ name: uuid }` path parameters. */
export function idParams<K extends string>(...names: K[]) {
  return Type.Object(
    Object.fromEntries(names.map((n) => [n, Uuid(`The ${n.replace(/Id$/, '')} id (UUID).`)])) as Record<
      K,
      ReturnType<typeof Uuid>
    >,
    { additionalProperties: false },
  );
}

export const ifMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'Only act when the resource is still at this ETag (412 PRECONDITION_FAILED otherwise); `*` for any version.',
    }),
  ),
});

/** preValidation hook for endpoints whose JSON body may be left out: no body reads as `{}`. */
export async function optionalBody(req: FastifyRequest): Promise<void> {
  if (req.body === undefined || req.body === null) req.body = {};
}

export function principalOf(req: FastifyRequest): KeyPrincipal {
  // Routes outside the public list run only with a principal (the onRequest hook answered 401 otherwise).
  return req.principal!;
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `No ${what} ${id} in a company you can access.`);
}

export function etagOf(version: number): string {
  return `"${version}"`;
}

export function setEtag(reply: FastifyReply, version: number): void {
  reply.header('etag', etagOf(version));
}

/**
 * The versions `If-Match` accepts: undefined without the header or with
 * `*` (any current version); one version, or several when it lists several
 * ETags (the write goes ahead when any matches, RFC 9110 13.1.1); -1 when
 * it names no version this server makes (never matches; weak tags never
 * match If-Match).
 */
export function ifMatchVersion(req: FastifyRequest): ExpectedVersion | undefined {
  const h = req.headers['if-match'];
  if (h === undefined) return undefined;
  const tags = String(h)
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  if (tags.includes('*')) return undefined;
  const versions = [
    ...new Set(
      tags.flatMap((t) => {
        const m = /^"(\d{1,9})"$/.exec(t);
        return m ? [Number(m[1])] : [];
      }),
    ),
  ];
  if (versions.length === 0) return -1;
  return versions.length === 1 ? versions[0] : versions;
}

export function preconditionFailed(what: string, id: string, currentVersion?: number): ApiError {
  return new ApiError(
    412,
    'PRECONDITION_FAILED',
    `The ${what} ${id} changed since the ETag in If-Match${currentVersion === undefined ? '' : `; it is now at ${etagOf(currentVersion)}`}. Read it again and retry.`,
    currentVersion === undefined ? {} : { details: { currentEtag: etagOf(currentVersion) } },
  );
}

/** The role of the user in the company; 404 without access, 403 without the needed role. */
export async function requireCompany(
  store: Store,
  req: FastifyRequest,
  companyId: string,
  need: CompanyRole | 'any' = 'any',
): Promise<CompanyRole> {
  const role = await store.companies.role(principalOf(req).userId, companyId);
  if (!role) throw notFound('company', companyId);
  if (need === 'admin' && role !== 'admin') {
    throw new ApiError(
      403,
      'NotAuthorized',
      `Only an admin of company ${companyId} may do this; you are a ${role}.`,
    );
  }
  return role;
}

/**
 * The company the caller's credentials act for (an API key's company, a
 * session's company), when the user can still access it: what a new record
 * without a named company belongs to. 403 otherwise (a partner user whose
 * session names no company, or whose access was taken away).
 */
export async function callerCompany(store: Store, req: FastifyRequest): Promise<string> {
  const p = principalOf(req);
  if (await store.companies.role(p.userId, p.companyId)) return p.companyId;
  throw new ApiError(
    403,
    'NotAuthorized',
    'Your credentials act for no company you can access; ask for access to a company (or use a key of one) first.',
  );
}

export const iso = (d: Date | string): string =>
  d instanceof Date ? d.toISOString() : new Date(d).toISOString();

const responses: Record<number, unknown> = {
  400: withHeaders(
    ValidationErrorResponse,
    'VALIDATION_ERROR (or a more specific code): the request does not match its schema; `errors` names each problem with a JSON pointer (/params/..., /querystring/... or into the body).',
  ),
  401: commonErrors[401],
  403: withHeaders(ErrorResponse, 'NotAuthorized: the credentials are valid but not allowed to do this.'),
  404: withHeaders(
    ErrorResponse,
    'NOT_FOUND: no such resource in a company the caller can access (another company’s ids answer the same).',
  ),
  409: withHeaders(
    ErrorResponse,
    'CONFLICT: the request clashes with the stored state (the message says how).',
  ),
  412: withHeaders(
    ErrorResponse,
    'PRECONDITION_FAILED: If-Match names an older version; read again and retry.',
  ),
  413: commonErrors[413],
  415: commonErrors[415],
  422: withHeaders(
    ErrorResponse,
    'The request is valid but asks for what the planner will not do (OPTION_NOT_SUPPORTED, PLAN_TOO_COMPLEX, ...); the message says why.',
  ),
  429: commonErrors[429],
  502: withHeaders(
    ErrorResponse,
    'An outside service this call depends on (a vendor) did not answer or failed; try again later.',
  ),
};

/** Response schemas: `ok` for the success status plus the named error statuses (401 and 429 always). */
export function answers(
  ok: Record<number, { schema: TSchema | null; description: string; mediaType?: string }>,
  ...errors: number[]
): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const [status, a] of Object.entries(ok)) {
    out[Number(status)] = withHeaders(
      a.schema ?? Type.Null(),
      a.description,
      { ETag: { type: 'string', description: 'Version of the resource (where it is a stored resource).' } },
      a.mediaType,
    );
  }
  for (const s of new Set([...errors, 401, 429])) out[s] = responses[s];
  return out;
}
