/**
 * THE company role check, for every route (present and future), before its
 * body is validated or its handler runs:
 *
 *   1. which companies the request acts in: the companies of the ids it
 *      names (path parameters and body members named `companyId`,
 *      `growerId`, `fieldIds`, ...; see ID_NAMES), else, for a write, the
 *      company the credentials act for (an API key's or a session's);
 *   2. the caller's role there: no access at all is 404 NOT_FOUND (the same
 *      answer as an unknown id); a write (POST, PUT, PATCH, DELETE, except
 *      the read-only POSTs of READ_POSTS) by a viewer is 403 NotAuthorized;
 *      access management and company deletion (ADMIN_ROUTES) by anyone but
 *      an admin is 403 NotAuthorized;
 *   3. the handler then runs in a write scope (store/repositories/scope.ts)
 *      in which the viewer's companies are out of reach, so a write whose
 *      company step 1 could not name still cannot change them;
 *   4. after a successful write, one company event per company (the audit
 *      log: user, company, method, route, object id, time, batch =
 *      correlation id).
 *
 * Routes that act on the caller's own user rather than on a company
 * (USER_ROUTES: account, own keys and settings, partner endpoints, creating
 * a company) are left to their own checks. A new route is covered without
 * naming it anywhere: it is a company write unless it is listed here. Those
 * of them that still change a company or who may access it (creating one,
 * partner grants, invitations, deleting a user) tell the hook so with
 * noteCompanyWrite, and get their events the same way; USER_COMPANY_WRITES
 * lists them, and api/platform/company-event-writes.test.ts classifies
 * every write route of the OpenAPI document.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../../store/db.ts';
import type { CompanyRole } from '../../store/repositories/accounts.ts';
import type { IdKind, IdRef } from '../../store/repositories/company-access.ts';
import { writeScope } from '../../store/repositories/scope.ts';
import { ApiError } from '../errors.ts';
import { NO_COMPANY } from './access-control.ts';

/** Parameter and body member names that name an object of a company, and its kind. */
export const ID_NAMES: Readonly<Record<string, IdKind>> = {
  companyId: 'company',
  companyIds: 'company',
  growerId: 'grower',
  growerIds: 'grower',
  farmId: 'farm',
  farmIds: 'farm',
  fieldId: 'field',
  fieldIds: 'field',
  boundaryId: 'boundary',
  boundaryIds: 'boundary',
  pathPlanId: 'pathPlan',
  pathPlanIds: 'pathPlan',
  pathPlanGroupId: 'pathPlanGroup',
  pathPlanGroupIds: 'pathPlanGroup',
  equipmentId: 'equipment',
  equipmentIds: 'equipment',
  operatorId: 'operator',
  operatorIds: 'operator',
  settingId: 'setting',
  userFileId: 'userFile',
  userLabelId: 'userLabel',
  jobId: 'job',
  fieldOpId: 'fieldOperation',
  equipmentScenarioId: 'equipmentScenario',
  equipmentScenarioDetailsId: 'equipmentScenarioDetails',
};

/** Parameters whose name alone does not tell their kind, per route. */
const ROUTE_PARAM_KINDS: Readonly<Record<string, Readonly<Record<string, IdKind>>>> = {
  '/api/company-accesses/:id': { id: 'companyAccess' },
  '/api/shares/:shareIdOrCode': { shareIdOrCode: 'share' },
  '/api/path-plans-export/:batchId/file': { batchId: 'exportBatch' },
  '/api/path-plans-export/:batchId/transmit': { batchId: 'exportBatch' },
  '/api/descriptors/:id': { id: 'descriptor' },
};

/** Routes (METHOD and pattern, or a pattern prefix ending in `*`) that act on the caller's own user, not a company. */
export const USER_ROUTES: readonly string[] = [
  '* /api/account/*',
  '* /api/partner/*',
  '* /api/oauth/*',
  '* /api/tokens/*',
  '* /api/user/*',
  'POST /api/externallogin',
  'POST /api/create-demo-company',
  'POST /api/create-api-key',
  'DELETE /api/api-keys/:id',
  'POST /api/user-settings',
  'DELETE /api/settings/users/:userId',
  'POST /api/companies',
  'POST /api/contact',
  'DELETE /api/users/:userId',
  'POST /api/analytics-events',
  'DELETE /api/notifications/:id',
];

/** Routes under the paths of USER_ROUTES that name and change a company: company writes like any other. */
export const COMPANY_WRITES_ON_USER_PATHS: readonly string[] = ['POST /api/account/copy-demo-company-fields'];

/** Routes outside the role check whose handlers change a company or its accesses and note it (noteCompanyWrite). */
export const USER_COMPANY_WRITES: readonly string[] = [
  'POST /api/companies',
  'POST /api/create-demo-company',
  'POST /api/partner/companies',
  'POST /api/partner/company-accesses',
  'POST /api/account/register',
  'POST /api/account/accept-invite',
  'GET /api/externallogin/callback',
  'POST /api/account/register-external',
  'POST /api/account/assert-user-external-companies',
  'POST /api/account/assert-new-external-companies',
  'DELETE /api/users/:userId',
];

/** POSTs that only read or compute (nothing of a company changes, no credits spent): viewers may call them. */
export const READ_POSTS: readonly string[] = [
  'POST /api/user/current/company-list',
  'POST /api/companies/table',
  'POST /api/companies/list-summary',
  'POST /api/users/list',
  'POST /api/users/table',
  'POST /api/users/list-summary',
  'POST /api/settings/table',
  'POST /api/settings/validate',
  'POST /api/path-plans/csv',
  'POST /api/companies/:companyId/path-plans/tiles',
  'POST /api/companies/:companyId/field-tiles',
  'POST /api/companies/:companyId/path-plan-groups/summary',
  'POST /api/companies/:companyId/dashboard-path-plan-summary',
  'POST /api/geometry-operations/*',
  'POST /api/reference-lines/*',
  'POST /api/routes/debug',
];

/** Access management and company deletion: admins only. */
export const ADMIN_ROUTES: readonly string[] = [
  'POST /api/company-accesses',
  'DELETE /api/company-accesses/:id',
  'DELETE /api/companies/:companyId',
  'DELETE /api/companies/:companyId/purge',
  'POST /api/account/register-invite',
];

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function listed(list: readonly string[], method: string, url: string): boolean {
  return list.some((entry) => {
    const [m, pattern] = entry.split(' ', 2);
    if (m !== '*' && m !== method) return false;
    return pattern.endsWith('*') ? url.startsWith(pattern.slice(0, -1)) : url === pattern;
  });
}

/** How the role check treats a route: 'user' (not a company's), 'read' or 'write' (of a company), 'admin'. */
export function routeAccess(method: string, url: string): 'user' | 'read' | 'write' | 'admin' {
  if (listed(ADMIN_ROUTES, method, url)) return 'admin';
  if (listed(COMPANY_WRITES_ON_USER_PATHS, method, url)) return 'write';
  if (listed(USER_ROUTES, method, url)) return 'user';
  if (!WRITE_METHODS.has(method) || listed(READ_POSTS, method, url)) return 'read';
  return 'write';
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_IDS = 5000;

/** The ids a request names: path parameters, and body members at the top and one level down. */
export function namedIds(url: string, params: unknown, body: unknown): IdRef[] {
  const out: IdRef[] = [];
  const add = (name: string, v: unknown, kinds: Readonly<Record<string, IdKind>>) => {
    const kind = kinds[name];
    if (!kind) return;
    for (const id of Array.isArray(v) ? v : [v]) {
      if (out.length < MAX_IDS && typeof id === 'string' && UUID_RE.test(id)) {
        out.push({ kind, id: id.toLowerCase() });
      }
    }
  };
  const pathKinds = { ...ID_NAMES, ...ROUTE_PARAM_KINDS[url] };
  if (params && typeof params === 'object') {
    for (const [k, v] of Object.entries(params)) add(k, v, pathKinds);
  }
  const scan = (o: unknown, depth: number) => {
    if (Array.isArray(o)) {
      if (depth < 2) for (const x of o.slice(0, MAX_IDS)) scan(x, depth + 1);
      return;
    }
    // Only parsed JSON names ids: a raw body (a file as a Buffer, a stream) is not walked byte by byte.
    if (!o || typeof o !== 'object' || Object.getPrototypeOf(o) !== Object.prototype) return;
    for (const [k, v] of Object.entries(o)) {
      if (ID_NAMES[k]) add(k, v, ID_NAMES);
      else if (depth < 1 && v && typeof v === 'object') scan(v, depth + 1);
    }
  };
  scan(body, 0);
  return out;
}

export interface CompanyScope {
  access: 'read' | 'write' | 'admin';
  /** The companies the request acts in, with the caller's role there. */
  companies: Map<string, CompanyRole>;
}

/** A change of a company that a handler tells the hook of (routes the role check leaves alone, or a better object id). */
export interface CompanyWrite {
  companyId: string;
  /** The object acted on (the new company, the user given or losing access, ...). */
  objectId: string | null;
  /** Who acted, when not the caller (e.g. the invitee accepting an invitation, who has no credentials yet). */
  userId?: string;
  /** false: the write does not make this the user's last worked-in company (e.g. a user deleting themself). */
  engaged?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** What the role check found (null: not checked, e.g. no credentials or a user route). */
    companyScope: CompanyScope | null;
    /** Company changes the handler noted (noteCompanyWrite). */
    companyWrites: CompanyWrite[] | null;
  }
}

/** Records, once the answer succeeds, a company event for a change the handler made (one per company). */
export function noteCompanyWrite(req: FastifyRequest, write: CompanyWrite): void {
  req.companyWrites ??= [];
  if (!req.companyWrites.some((w) => w.companyId === write.companyId)) req.companyWrites.push(write);
}

const notAuthorized = (message: string) => new ApiError(403, 'NotAuthorized', message);

async function checkRoles(store: Store, req: FastifyRequest): Promise<void> {
  const principal = req.principal;
  const url = req.routeOptions.url;
  // Pages (sign-in and out, the planning view) act on no company themselves; their API calls are checked.
  if (!principal || url === undefined || !url.startsWith('/api/')) return;
  const access = routeAccess(req.method, url);
  if (access === 'user') return;

  const body = /^multipart\//i.test(String(req.headers['content-type'] ?? '')) ? undefined : req.body;
  const refs = namedIds(url, req.params, body);
  const { companies: named, userOwned } = await store.companyAccess.companiesOf(principal.userId, refs);
  const companies = new Map<string, { ref: IdRef | null; role: CompanyRole | null }>(named);
  // A write that names no company's id acts in the company of its credentials.
  if (companies.size === 0 && access !== 'read' && !userOwned && principal.companyId !== NO_COMPANY) {
    const roles = await store.companyAccess.rolesIn(principal.userId, [principal.companyId]);
    companies.set(principal.companyId, { ref: null, role: roles.get(principal.companyId) ?? null });
  }
  const roles = new Map<string, CompanyRole>();
  for (const [companyId, { ref, role }] of companies) {
    if (!role) {
      if (ref) throw new ApiError(404, 'NOT_FOUND', `No ${ref.kind} ${ref.id} in a company you can access.`);
      throw notAuthorized(
        'Your credentials act for a company you can no longer access; ask for access to a company (or use a key of one) first.',
      );
    }
    if (access === 'admin' && role !== 'admin') {
      throw notAuthorized(`Only an admin of company ${companyId} may do this; you are a ${role}.`);
    }
    if (access === 'write' && role === 'viewer') {
      throw notAuthorized(
        `You are a viewer of company ${companyId}: you may read its data but not change it; ask one of its admins for the editor role.`,
      );
    }
    roles.set(companyId, role);
  }
  req.companyScope = { access, companies: roles };
}

/** The audit event of a successful write: the acted-on object's id from the path or the answer. */
function objectIdOf(req: FastifyRequest, status: number, payload: unknown): string | null {
  const params = (req.params ?? {}) as Record<string, unknown>;
  const fromPath = Object.values(params).filter((v): v is string => typeof v === 'string' && UUID_RE.test(v));
  let answer: Record<string, unknown> | null = null;
  if (typeof payload === 'string' && payload.length < 1_000_000 && payload.startsWith('{')) {
    try {
      answer = JSON.parse(payload);
    } catch {
      answer = null;
    }
  }
  const fromAnswer = (o: Record<string, unknown> | null, depth: number): string | null => {
    if (!o || typeof o !== 'object') return null;
    const ids = Object.entries(o).filter(
      ([k, v]) => /Id$/.test(k) && typeof v === 'string' && UUID_RE.test(v) && k !== 'userId',
    );
    const own = ids.find(([k]) => k !== 'companyId') ?? ids[0];
    if (own) return own[1] as string;
    if (depth > 0) return null;
    for (const v of Object.values(o)) {
      const inner = fromAnswer(v as Record<string, unknown>, depth + 1);
      if (inner) return inner;
    }
    return null;
  };
  if (status === 201 || fromPath.length === 0) return fromAnswer(answer, 0) ?? fromPath.at(-1) ?? null;
  return fromPath.at(-1) ?? null;
}

const ACTIONS: Record<string, string> = { PUT: 'update', PATCH: 'update', DELETE: 'delete' };

export function registerCompanyRoles(app: FastifyInstance, store: Store): void {
  app.decorateRequest('companyScope', null);
  app.decorateRequest('companyWrites', null);

  app.addHook('preValidation', async (req) => {
    await checkRoles(store, req);
  });

  // The handler (and the route's own preHandlers) run in the request's write scope.
  app.addHook('preHandler', (req, _reply, done) => {
    const scope = req.companyScope;
    writeScope.run({ write: scope !== null && scope.access !== 'read' }, done);
  });

  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const scope = req.companyScope;
    const noted = req.companyWrites ?? [];
    const scoped = scope && scope.access !== 'read' ? [...scope.companies.keys()] : [];
    if (reply.statusCode >= 400 || (noted.length === 0 && scoped.length === 0)) return payload;
    // A deleted company takes its events with it.
    if (req.method === 'DELETE' && req.routeOptions.url === '/api/companies/:companyId') return payload;
    // Client-written events are their own record.
    if (req.routeOptions.url === '/api/company-events') return payload;
    const status = reply.statusCode;
    const actor = req.principal?.userId;
    const route = (req.routeOptions.url ?? '').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const writes: CompanyWrite[] = [
      ...noted,
      ...scoped
        .filter((companyId) => !noted.some((w) => w.companyId === companyId))
        .map((companyId) => ({ companyId, objectId: objectIdOf(req, status, payload) })),
    ];
    const events = writes.flatMap((w) => {
      const userId = w.userId ?? actor;
      if (!userId) return [];
      return [
        {
          companyId: w.companyId,
          userId,
          batchId: req.id,
          action: ACTIONS[req.method] ?? (status === 201 ? 'create' : 'action'),
          method: req.method,
          route,
          objectId: w.objectId,
          status,
        },
      ];
    });
    const engaged = writes.find((w) => w.engaged !== false && (w.userId ?? actor));
    try {
      if (engaged) {
        // The engaged company's event first: it becomes the user's last company.
        const first = events.findIndex((e) => e.companyId === engaged.companyId);
        const ordered = [events[first], ...events.filter((_, i) => i !== first)];
        await store.companyEvents.recordWrite(ordered, ordered[0].userId);
      } else {
        await store.companyEvents.record(events);
      }
    } catch (err) {
      req.log.error({ err }, 'company event not recorded');
    }
    return payload;
  });
}
