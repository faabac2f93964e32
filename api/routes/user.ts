/**
 * The current user (of an API key or a session):
 *   GET      /api/user/current                validates the credentials; the user and company access
 *   GET      /api/user/current/companies      [{ companyId, name, role }]
 *   GET|POST /api/user/current/company-list   a page of the user's companies, with a name filter
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { CompanyView } from '../../store/repositories/companies.ts';
import { answers, CompanyRoleSchema, etagOf, iso, optionalBody, principalOf, Timestamp } from './common.ts';

const Role = CompanyRoleSchema;

const CurrentUser = Type.Object(
  {
    userId: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    firstName: Type.Union([Type.String(), Type.Null()]),
    lastName: Type.Union([Type.String(), Type.Null()]),
    partnerUserId: Type.Union([Type.String(), Type.Null()], {
      description: "The partner's own id for this user, when a partner created it.",
    }),
    partnerAdmin: Type.Boolean({ description: 'Partner Admin: may call the /api/partner endpoints.' }),
    authentication: Type.Union([Type.Literal('apiKey'), Type.Literal('session')], {
      description: 'How this request authenticated.',
    }),
    companyAccess: Type.Array(
      Type.Object({
        companyId: Type.String(),
        companyName: Type.String(),
        role: Role,
      }),
    ),
    apiKey: Type.Union(
      [
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          masked: Type.String({ description: 'The key, masked: tl_ and the first and last 4 characters.' }),
          companyId: Type.String({ description: 'The company whose credits this key spends.' }),
        }),
        Type.Null(),
      ],
      { description: 'The key of this request; null for a session.' },
    ),
    session: Type.Union(
      [
        Type.Object({
          id: Type.String(),
          companyId: Type.Union([Type.String(), Type.Null()], {
            description:
              'The company the session bills: the first where the user is an admin, else the first they can access; null when none.',
          }),
        }),
        Type.Null(),
      ],
      { description: 'The session of this request; null for an API key.' },
    ),
    credits: Type.Object({
      available: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Credits left; null when unlimited.',
      }),
      unlimited: Type.Boolean(),
    }),
  },
  { $id: 'CurrentUser', title: 'CurrentUser' },
);

const CompanyAccessItem = Type.Object(
  { companyId: Type.String({ format: 'uuid' }), name: Type.String(), role: Role },
  { $id: 'UserCompany', title: 'UserCompany' },
);

const CompanyListItem = Type.Object(
  {
    companyId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    role: Role,
    partnerCompanyId: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    etag: Type.String(),
  },
  { $id: 'CompanyListItem', title: 'CompanyListItem' },
);

const CompanyListRequest = Type.Object(
  {
    search: Type.Optional(
      Type.String({ maxLength: 200, description: 'Case-insensitive fragment of the name.' }),
    ),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Default 0.' })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 100, at most 1000.' }),
    ),
  },
  { additionalProperties: false, $id: 'CompanyListRequest', title: 'CompanyListRequest' },
);

const CompanyListQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({ maxLength: 200, description: 'Case-insensitive fragment of the name.' }),
    ),
    offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,7}$', description: 'Whole number, default 0.' })),
    limit: Type.Optional(
      Type.String({
        pattern: '^([1-9][0-9]{0,2}|1000)$',
        description: 'Whole number 1 to 1000, default 100.',
      }),
    ),
  },
  { additionalProperties: false },
);

const CompanyListResponse = Type.Object(
  {
    items: Type.Array(CompanyListItem),
    total: Type.Integer({ description: 'Companies matching, over all pages.' }),
    offset: Type.Integer(),
    limit: Type.Integer(),
  },
  { $id: 'CompanyListResponse', title: 'CompanyListResponse' },
);

const listItem = (c: CompanyView) => ({
  companyId: c.companyId,
  name: c.name,
  role: c.role,
  partnerCompanyId: c.partnerCompanyId,
  createdAt: iso(c.createdAt),
  etag: etagOf(c.version),
});

export async function userRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;

  r.get(
    '/api/user/current',
    {
      schema: {
        tags: ['Users'],
        summary: 'The user of the API key or session',
        description:
          'Validates the credentials (401 without a body if they are missing, unknown, expired or revoked) and answers the user, the companies the user can access, the key (masked) or session, and the credits of the company it bills.',
        response: answers({ 200: { schema: CurrentUser, description: 'The current user.' } }),
      },
    },
    async (req) => {
      const p = principalOf(req);
      const [user, access, credits] = await Promise.all([
        store.accounts.findUserById(p.userId),
        store.accounts.listAccesses(p.userId),
        store.credits.get(p.companyId),
      ]);
      const session = p.kind === 'session';
      return {
        userId: p.userId,
        email: user?.email ?? null,
        firstName: user?.firstName ?? null,
        lastName: user?.lastName ?? null,
        partnerUserId: user?.partnerUserId ?? null,
        partnerAdmin: p.partnerAdmin,
        authentication: session ? ('session' as const) : ('apiKey' as const),
        companyAccess: access,
        apiKey: session
          ? null
          : { id: p.keyId, name: p.keyName, masked: p.keyMasked, companyId: p.companyId },
        session: session
          ? { id: p.keyId, companyId: access.some((a) => a.companyId === p.companyId) ? p.companyId : null }
          : null,
        credits: { available: credits.unlimited ? null : credits.credits, unlimited: credits.unlimited },
      };
    },
  );

  r.get(
    '/api/user/current/companies',
    {
      schema: {
        tags: ['Users'],
        summary: 'Companies the current user can access',
        response: answers({
          200: { schema: Type.Array(CompanyAccessItem), description: 'Oldest access first.' },
        }),
      },
    },
    async (req) => {
      const { items } = await store.companies.list(principalOf(req).userId);
      return items.map((c) => ({ companyId: c.companyId, name: c.name, role: c.role }));
    },
  );

  const companyList = async (userId: string, q: Static<typeof CompanyListRequest>) => {
    const offset = q.offset ?? 0;
    const limit = q.limit ?? 100;
    const page = await store.companies.list(userId, { search: q.search, offset, limit });
    return { items: page.items.map(listItem), total: page.total, offset, limit };
  };

  r.get(
    '/api/user/current/company-list',
    {
      schema: {
        tags: ['Users'],
        summary: "A page of the current user's companies",
        description: 'Filter and page with the query parameters search, offset and limit (default 100).',
        querystring: CompanyListQuery,
        response: answers({ 200: { schema: CompanyListResponse, description: 'One page.' } }, 400),
      },
    },
    async (req) =>
      companyList(principalOf(req).userId, {
        search: req.query.search,
        offset: req.query.offset === undefined ? undefined : Number(req.query.offset),
        limit: req.query.limit === undefined ? undefined : Number(req.query.limit),
      }),
  );

  r.post(
    '/api/user/current/company-list',
    {
      preValidation: optionalBody,
      schema: {
        tags: ['Users'],
        summary: "A page of the current user's companies (filter in the body)",
        description:
          'Same as the GET form, with search, offset and limit in a JSON body (which may be empty).',
        body: CompanyListRequest,
        response: answers({ 200: { schema: CompanyListResponse, description: 'One page.' } }, 400),
      },
    },
    async (req) => companyList(principalOf(req).userId, req.body),
  );
}
