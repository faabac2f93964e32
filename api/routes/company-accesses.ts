/**
 * Who may act in a company, and as what (admin, editor, viewer):
 *   POST   /api/company-accesses                   give a user a role in a company, or change it (admin)
 *   GET    /api/company-accesses/{id}              one access
 *   DELETE /api/company-accesses/{id}              take an access away (admin)
 *   GET    /api/users/{userId}/company-accesses    a user's accesses (in companies the caller shares)
 *   GET    /api/company-accesses/{userId}/user     a user with their accesses
 *
 * The roles themselves are enforced for every route by api/auth/company-roles.ts.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { CompanyAccessRecord } from '../../store/repositories/company-access.ts';
import { ApiError, validationError } from '../errors.ts';
import {
  answers,
  CompanyRoleSchema,
  idParams,
  iso,
  notFound,
  principalOf,
  Timestamp,
  Uuid,
} from './common.ts';

const tags = ['Company access'];

export const CompanyAccess = Type.Object(
  {
    id: Uuid('The access id.'),
    userId: Uuid('The user.'),
    companyId: Uuid('The company.'),
    companyName: Type.String(),
    role: CompanyRoleSchema,
    email: Type.Union([Type.String(), Type.Null()]),
    firstName: Type.Union([Type.String(), Type.Null()]),
    lastName: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
  },
  { $id: 'CompanyAccess', title: 'CompanyAccess' },
);

const GrantRequest = Type.Object(
  {
    companyId: Uuid('The company (you must be its admin).'),
    userId: Type.Optional(Uuid('The user to give access; or name them by email.')),
    email: Type.Optional(
      Type.String({ format: 'email', maxLength: 320, description: 'The e-mail of an existing user.' }),
    ),
    role: CompanyRoleSchema,
  },
  { additionalProperties: false, $id: 'CompanyAccessRequest', title: 'CompanyAccessRequest' },
);

const GrantAnswer = Type.Object(
  {
    ...CompanyAccess.properties,
    created: Type.Boolean({
      description: 'false when the user had access already (the role is now the one asked).',
    }),
  },
  { $id: 'CompanyAccessGranted', title: 'CompanyAccessGranted' },
);

const AccessList = Type.Object(
  { userId: Uuid('The user.'), items: Type.Array(CompanyAccess) },
  { $id: 'CompanyAccessList', title: 'CompanyAccessList' },
);

const UserWithAccesses = Type.Object(
  {
    userId: Uuid('The user.'),
    email: Type.Union([Type.String(), Type.Null()]),
    firstName: Type.Union([Type.String(), Type.Null()]),
    lastName: Type.Union([Type.String(), Type.Null()]),
    companyAccesses: Type.Array(CompanyAccess, {
      description: 'Their accesses in companies you can access too (all of them for yourself).',
    }),
  },
  { $id: 'CompanyAccessUser', title: 'CompanyAccessUser' },
);

export const accessBody = (a: CompanyAccessRecord) => ({
  id: a.id,
  userId: a.userId,
  companyId: a.companyId,
  companyName: a.companyName,
  role: a.role,
  email: a.email,
  firstName: a.firstName,
  lastName: a.lastName,
  createdAt: iso(a.createdAt),
});

const lastAdmin = (companyId: string) =>
  new ApiError(
    409,
    'LAST_ADMIN',
    `Company ${companyId} needs at least one admin; make another user admin first.`,
  );

export async function companyAccessRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;

  r.post(
    '/api/company-accesses',
    {
      schema: {
        tags,
        summary: 'Give a user a role in a company',
        description:
          'Admins of the company only (403 NotAuthorized for editors and viewers). Name the user by userId or email (an existing user; 404 otherwise). Asking again with another role changes it (200); the last admin cannot be demoted (409 LAST_ADMIN).',
        body: GrantRequest,
        response: answers(
          {
            201: { schema: GrantAnswer, description: 'Access given.' },
            200: { schema: GrantAnswer, description: 'The user had access; the role is now the one asked.' },
          },
          400,
          403,
          404,
          409,
        ),
      },
    },
    async (req, reply) => {
      const b = req.body;
      if ((b.userId === undefined) === (b.email === undefined)) {
        throw validationError([
          { path: '/body', message: 'must name the user by exactly one of userId and email' },
        ]);
      }
      const user = b.userId
        ? await store.accounts.findUserById(b.userId)
        : await store.accounts.findUserByEmail(b.email!);
      if (!user) {
        throw new ApiError(
          404,
          'NOT_FOUND',
          `No user ${b.userId ?? b.email}; they need an account before they can be given access.`,
        );
      }
      const out = await store.transaction((tx) => tx.companyAccess.grant(b.companyId, user.id, b.role));
      if (!out.ok) throw lastAdmin(b.companyId);
      return reply.code(out.created ? 201 : 200).send({ ...accessBody(out.access), created: out.created });
    },
  );

  r.get(
    '/api/company-accesses/:id',
    {
      schema: {
        tags,
        summary: 'One company access',
        params: idParams('id'),
        response: answers({ 200: { schema: CompanyAccess, description: 'The access.' } }, 400, 404),
      },
    },
    async (req) => {
      const a = await store.companyAccess.get(req.params.id);
      // The role check answered 404 already for a company the caller cannot access.
      if (!a) throw notFound('company access', req.params.id);
      return accessBody(a);
    },
  );

  r.delete(
    '/api/company-accesses/:id',
    {
      schema: {
        tags,
        summary: 'Take a company access away',
        description:
          "Admins of the company only. The user's keys and sessions stay, but reach nothing of the company any more (404). The last admin cannot be removed (409 LAST_ADMIN).",
        params: idParams('id'),
        response: answers({ 204: { schema: null, description: 'Removed.' } }, 400, 403, 404, 409),
      },
    },
    async (req, reply) => {
      const id = req.params.id;
      const before = await store.companyAccess.get(id);
      if (!before) throw notFound('company access', id);
      const out = await store.transaction((tx) => tx.companyAccess.revoke(id));
      if (!out.ok) {
        if (out.reason === 'last-admin') throw lastAdmin(before.companyId);
        throw notFound('company access', id);
      }
      return reply.code(204).send();
    },
  );

  r.get(
    '/api/users/:userId/company-accesses',
    {
      schema: {
        tags,
        summary: "A user's company accesses",
        description:
          'Only accesses to companies the caller can access too (all of them for the caller); 404 for a user who shares no company with the caller.',
        params: idParams('userId'),
        response: answers({ 200: { schema: AccessList, description: 'The accesses.' } }, 400, 404),
      },
    },
    async (req) => {
      const me = principalOf(req).userId;
      const items = await store.companyAccess.ofUser(req.params.userId, me);
      if (items.length === 0 && req.params.userId !== me) throw notFound('user', req.params.userId);
      return { userId: req.params.userId, items: items.map(accessBody) };
    },
  );

  r.get(
    '/api/company-accesses/:userId/user',
    {
      schema: {
        tags,
        summary: 'A user with their company accesses',
        description: '404 unless the user shares a company with the caller (or is the caller).',
        params: idParams('userId'),
        response: answers({ 200: { schema: UserWithAccesses, description: 'The user.' } }, 400, 404),
      },
    },
    async (req) => {
      const me = principalOf(req).userId;
      const items = await store.companyAccess.ofUser(req.params.userId, me);
      const user = await store.accounts.findUserById(req.params.userId);
      if (!user || (items.length === 0 && user.id !== me)) throw notFound('user', req.params.userId);
      return {
        userId: user.id,
        email: user.email,
        firstName: user.firstName,
        lastName: user.lastName,
        companyAccesses: items.map(accessBody),
      };
    },
  );
}
