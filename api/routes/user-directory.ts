/**
 * Users as a company admin sees them (themself, the users of the companies
 * they administer, and for Partner Admins the users they created):
 *   POST   /api/users/list                          id, e-mail and name, for autocomplete
 *   POST   /api/users/table                         a page of users; sort, search, company and role filter
 *   POST   /api/users/list-summary                  totals over the users that match
 *   GET    /api/users/{userId}/summary              one user: accesses by role, keys, changes made
 *   GET    /api/users/{userId}/last-engaged-company the company they changed something in last
 *   GET    /api/users/{userId}/admin-countries      the countries of the fields of the companies they administer
 *   DELETE /api/users/{userId}                      delete (anonymise) a user; their companies' data stays
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { iso1A2Code } from '@rapideditor/country-coder';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { countryList } from '../../formats/lookups.ts';
import type { Store } from '../../store/db.ts';
import { USER_SORTS, type UserFilter, type UserRow } from '../../store/repositories/user-records.ts';
import { noteCompanyWrite } from '../auth/company-roles.ts';
import { ApiError } from '../errors.ts';
import {
  answers,
  CompanyRoleSchema,
  idParams,
  iso,
  notFound,
  optionalBody,
  principalOf,
  Timestamp,
  Uuid,
} from './common.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const Filter = {
  search: Type.Optional(
    Type.String({ maxLength: 200, description: 'Case-insensitive fragment of the e-mail or name.' }),
  ),
  companyId: Type.Optional(Uuid('Only users with access to this company.')),
  roles: Type.Optional(
    Type.Array(CompanyRoleSchema, {
      maxItems: 3,
      uniqueItems: true,
      description: 'Only users with one of these roles (in companyId when given).',
    }),
  ),
};

const UserListRequest = Type.Object(
  {
    ...Filter,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 20.' })),
  },
  { additionalProperties: false, $id: 'UserListRequest', title: 'UserListRequest' },
);

const UserListItem = Type.Object(
  {
    userId: Uuid('The user.'),
    email: Nullable(Type.String()),
    firstName: Nullable(Type.String()),
    lastName: Nullable(Type.String()),
  },
  { $id: 'UserListItem', title: 'UserListItem' },
);

const UserList = Type.Object({ items: Type.Array(UserListItem) }, { $id: 'UserList', title: 'UserList' });

const UserTableRequest = Type.Object(
  {
    ...Filter,
    sort: Type.Optional(
      Type.Object(
        {
          field: Type.Union(
            USER_SORTS.map((s) => Type.Literal(s)),
            { description: 'Column to sort by.' },
          ),
          direction: Type.Optional(
            Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: "Default 'asc'." }),
          ),
        },
        { additionalProperties: false, description: 'Default: email ascending.' },
      ),
    ),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Default 0.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 50.' })),
  },
  { additionalProperties: false, $id: 'UserTableRequest', title: 'UserTableRequest' },
);

const UserTableRow = Type.Object(
  {
    ...UserListItem.properties,
    createdAt: Timestamp,
    companies: Type.Integer({ description: 'Companies they can access.' }),
    termsVersion: Nullable(Type.String()),
    lastEngagedAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When they last changed company data.',
    }),
  },
  { $id: 'UserTableRow', title: 'UserTableRow' },
);

const UserTable = Type.Object(
  { items: Type.Array(UserTableRow), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() },
  { $id: 'UserTable', title: 'UserTable' },
);

const UserListSummaryRequest = Type.Object(Filter, {
  additionalProperties: false,
  $id: 'UserListSummaryRequest',
  title: 'UserListSummaryRequest',
});

const ByRole = Type.Object({ admin: Type.Integer(), editor: Type.Integer(), viewer: Type.Integer() });

const UserListSummary = Type.Object(
  {
    users: Type.Integer(),
    acceptedTerms: Type.Integer({ description: 'Users who accepted a version of the terms.' }),
    engagedLast30Days: Type.Integer({ description: 'Users who changed company data in the last 30 days.' }),
    byRole: {
      ...ByRole,
      description: 'Their accesses by role (in companyId, else in the companies you administer).',
    },
  },
  { $id: 'UserListSummary', title: 'UserListSummary' },
);

const UserSummary = Type.Object(
  {
    ...UserListItem.properties,
    createdAt: Timestamp,
    companies: { ...ByRole, description: 'Their company accesses by role.' },
    activeApiKeys: Type.Integer(),
    termsVersion: Nullable(Type.String()),
    changes: Type.Integer({ description: 'Company events they caused.' }),
    lastChangeAt: Type.Union([Timestamp, Type.Null()]),
    lastEngagedCompanyId: Type.Union([Uuid('The company changed last.'), Type.Null()]),
  },
  { $id: 'UserSummary', title: 'UserSummary' },
);

const LastEngaged = Type.Object(
  {
    userId: Uuid('The user.'),
    companyId: Type.Union([Uuid('The company.'), Type.Null()], {
      description: 'null before any change, or without access now.',
    }),
    companyName: Nullable(Type.String()),
    engagedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'LastEngagedCompany', title: 'LastEngagedCompany' },
);

const AdminCountries = Type.Object(
  {
    userId: Uuid('The user.'),
    items: Type.Array(
      Type.Object({
        code: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code.' }),
        name: Type.String({ description: 'English short name.' }),
        companies: Type.Integer({ description: 'Companies they administer with fields there.' }),
        fields: Type.Integer({ description: 'Fields (active boundaries) there.' }),
      }),
      { description: 'Most fields first.' },
    ),
    unlocated: Type.Integer({ description: 'Fields in no country (at sea, or on disputed ground).' }),
  },
  { $id: 'AdminCountries', title: 'AdminCountries' },
);

const filterOf = (b: {
  search?: string;
  companyId?: string;
  roles?: Static<typeof CompanyRoleSchema>[];
}): UserFilter => ({
  search: b.search || undefined,
  companyId: b.companyId,
  roles: b.roles,
});

const rowBody = (u: UserRow) => ({
  userId: u.userId,
  email: u.email,
  firstName: u.firstName,
  lastName: u.lastName,
  createdAt: iso(u.createdAt),
  companies: u.companies,
  termsVersion: u.termsVersion,
  lastEngagedAt: u.lastEngagedAt ? iso(u.lastEngagedAt) : null,
});

export async function userDirectoryRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const tags = ['Users'];
  const visible = async (viewerId: string, userId: string) => {
    if (!(await store.userRecords.canSee(viewerId, userId))) throw notFound('user', userId);
  };

  r.post(
    '/api/users/list',
    {
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'Users for autocomplete',
        description:
          'Id, e-mail and name of the users you administer (users of your admin companies, yourself, users you created as Partner Admin), by e-mail.',
        body: UserListRequest,
        response: answers({ 200: { schema: UserList, description: 'The users.' } }, 400, 404),
      },
    },
    async (req) => {
      const page = await store.userRecords.table(principalOf(req).userId, filterOf(req.body), {
        sort: 'email',
        descending: false,
        offset: 0,
        limit: req.body.limit ?? 20,
      });
      return {
        items: page.items.map((u) => ({
          userId: u.userId,
          email: u.email,
          firstName: u.firstName,
          lastName: u.lastName,
        })),
      };
    },
  );

  r.post(
    '/api/users/table',
    {
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'The users you administer, as a table',
        description:
          'Paged; sorted by any column; filtered by a fragment of e-mail or name, a company and roles.',
        body: UserTableRequest,
        response: answers({ 200: { schema: UserTable, description: 'A page.' } }, 400, 404),
      },
    },
    async (req) => {
      const b = req.body;
      const offset = b.offset ?? 0;
      const limit = b.limit ?? 50;
      const page = await store.userRecords.table(principalOf(req).userId, filterOf(b), {
        sort: b.sort?.field ?? 'email',
        descending: b.sort?.direction === 'desc',
        offset,
        limit,
      });
      return { items: page.items.map(rowBody), total: page.total, offset, limit };
    },
  );

  r.post(
    '/api/users/list-summary',
    {
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'Totals over the users you administer',
        body: UserListSummaryRequest,
        response: answers({ 200: { schema: UserListSummary, description: 'The totals.' } }, 400, 404),
      },
    },
    async (req) => store.userRecords.summary(principalOf(req).userId, filterOf(req.body)),
  );

  r.get(
    '/api/users/:userId/summary',
    {
      schema: {
        tags,
        summary: 'One user in numbers',
        description: 'Yourself, or a user of a company you administer; 404 otherwise.',
        params: idParams('userId'),
        response: answers({ 200: { schema: UserSummary, description: 'The user.' } }, 400, 404),
      },
    },
    async (req) => {
      const { userId } = req.params;
      await visible(principalOf(req).userId, userId);
      const [user, profile, activity, last] = await Promise.all([
        store.accounts.findUserById(userId),
        store.userRecords.profile(userId),
        store.userRecords.activity(userId),
        store.userRecords.lastCompany(userId),
      ]);
      if (!user) throw notFound('user', userId);
      return {
        userId,
        email: user.email,
        firstName: user.firstName,
        lastName: user.lastName,
        createdAt: iso(user.createdAt),
        companies: activity.byRole,
        activeApiKeys: activity.activeApiKeys,
        termsVersion: profile.termsVersion,
        changes: activity.changes,
        lastChangeAt: activity.lastChangeAt ? iso(activity.lastChangeAt) : null,
        lastEngagedCompanyId: last?.companyId ?? null,
      };
    },
  );

  r.get(
    '/api/users/:userId/last-engaged-company',
    {
      schema: {
        tags,
        summary: 'The company a user changed something in last',
        description:
          'Among the companies they can still access. Yourself, or a user of a company you administer; 404 otherwise.',
        params: idParams('userId'),
        response: answers({ 200: { schema: LastEngaged, description: 'The company.' } }, 400, 404),
      },
    },
    async (req) => {
      const { userId } = req.params;
      await visible(principalOf(req).userId, userId);
      const last = await store.userRecords.lastCompany(userId);
      return {
        userId,
        companyId: last?.companyId ?? null,
        companyName: last?.name ?? null,
        engagedAt: last ? iso(last.engagedAt) : null,
      };
    },
  );

  r.get(
    '/api/users/:userId/admin-countries',
    {
      schema: {
        tags,
        summary: 'The countries a user administers fields in',
        description:
          'The countries (ISO 3166-1, found offline from the location of each active boundary) of the fields of the companies where the user is an admin. Yourself, or a user of a company you administer; 404 otherwise.',
        params: idParams('userId'),
        response: answers({ 200: { schema: AdminCountries, description: 'The countries.' } }, 400, 404),
      },
    },
    async (req) => {
      const { userId } = req.params;
      await visible(principalOf(req).userId, userId);
      const names = new Map(countryList().map((c) => [c.code, c.name]));
      const by = new Map<string, { companies: Set<string>; fields: number }>();
      let unlocated = 0;
      for (const p of await store.userRecords.adminFieldPoints(userId)) {
        const code = iso1A2Code([p.lon, p.lat]);
        if (!code || !names.has(code)) {
          unlocated++;
          continue;
        }
        const c = by.get(code) ?? { companies: new Set<string>(), fields: 0 };
        c.companies.add(p.companyId);
        c.fields++;
        by.set(code, c);
      }
      const items = [...by]
        .map(([code, c]) => ({ code, name: names.get(code)!, companies: c.companies.size, fields: c.fields }))
        .sort((a, b) => b.fields - a.fields || a.code.localeCompare(b.code));
      return { userId, items, unlocated };
    },
  );

  r.delete(
    '/api/users/:userId',
    {
      schema: {
        tags,
        summary: 'Delete a user',
        description:
          'Yourself, or (Partner Admins) a user you created; 404 otherwise. Anonymises: e-mail, name, password, partner id and logs are erased, API keys revoked, sessions ended, company accesses removed. The companies and all their data stay, and their event logs keep the anonymous user id. 409 SOLE_ADMIN while the user is the only admin of a company others use: make someone else admin first.',
        params: idParams('userId'),
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404, 409),
      },
    },
    async (req, reply) => {
      const { userId } = req.params;
      const me = principalOf(req).userId;
      const user = await store.accounts.findUserById(userId);
      const profile = await store.userRecords.profile(userId);
      const allowed = userId === me || (await store.userRecords.partnerOwner(userId)) === me;
      if (!user || profile.deletedAt || !allowed) throw notFound('user', userId);
      // Every company the user could access loses them: an event in each.
      for (const a of await store.accounts.listAccesses(userId)) {
        noteCompanyWrite(req, { companyId: a.companyId, objectId: userId, engaged: false });
      }
      await store.transaction(async (tx) => {
        const sole = await tx.userRecords.soleAdminOf(userId);
        if (sole.length) {
          throw new ApiError(
            409,
            'SOLE_ADMIN',
            `The user is the only admin of ${sole.length === 1 ? `company ${sole[0]}` : `companies ${sole.join(', ')}`}, which others use; make another user admin there first.`,
          );
        }
        for (const k of await tx.apiKeys.list(userId)) if (!k.revokedAt) await tx.apiKeys.revoke(k.id);
        await tx.userRecords.anonymise(userId);
      });
      return reply.code(204).send();
    },
  );
}
