/**
 * Companies (the top of Company > Grower > Farm > Field > Boundary):
 *   POST   /api/companies                        create; the caller becomes its admin
 *   GET    /api/companies/{companyId}            one company (ETag)
 *   DELETE /api/companies/{companyId}            delete an empty company (admin; If-Match honoured)
 *   DELETE /api/companies/{companyId}/purge      delete all its data, keep the company (admin)
 *   GET    /api/companies/{companyId}/summary    what it holds
 *   GET    /api/companies/{companyId}/empty      whether it holds any boundary
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { CompanyView } from '../../store/repositories/companies.ts';
import { versionMatches } from '../../store/repositories/versions.ts';
import { noteCompanyWrite } from '../auth/company-roles.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import {
  answers,
  CompanyRoleSchema,
  Etag,
  etagOf,
  idParams,
  ifMatchHeaders,
  ifMatchVersion,
  iso,
  notFound,
  preconditionFailed,
  principalOf,
  requireCompany,
  setEtag,
  Timestamp,
} from './common.ts';

export const Company = Type.Object(
  {
    companyId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    partnerCompanyId: Type.Union([Type.String(), Type.Null()], {
      description: "The partner's own id for the company, when a partner created it.",
    }),
    role: CompanyRoleSchema,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    etag: Etag,
  },
  { $id: 'Company', title: 'Company' },
);

const CreateCompanyRequest = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, description: 'Company name.' }) },
  { additionalProperties: false, $id: 'CreateCompanyRequest', title: 'CreateCompanyRequest' },
);

const Counts = Type.Object(
  {
    growers: Type.Integer(),
    farms: Type.Integer(),
    fields: Type.Integer(),
    boundaries: Type.Integer(),
    equipment: Type.Integer(),
    operators: Type.Integer(),
    settings: Type.Integer(),
  },
  { additionalProperties: Type.Integer(), $id: 'CompanyCounts', title: 'CompanyCounts' },
);

const Summary = Type.Object(
  {
    companyId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    counts: Counts,
    credits: Type.Object({
      available: Type.Union([Type.Integer(), Type.Null()], { description: 'null when unlimited.' }),
      unlimited: Type.Boolean(),
    }),
    users: Type.Integer({ description: 'Users with access.' }),
  },
  { $id: 'CompanySummary', title: 'CompanySummary' },
);

const ZERO_COUNTS = {
  growers: 0,
  farms: 0,
  fields: 0,
  boundaries: 0,
  equipment: 0,
  operators: 0,
  settings: 0,
};

export const companyBody = (c: CompanyView) => ({
  companyId: c.companyId,
  name: c.name,
  partnerCompanyId: c.partnerCompanyId,
  role: c.role,
  createdAt: iso(c.createdAt),
  updatedAt: iso(c.updatedAt),
  etag: etagOf(c.version),
});

const params = idParams('companyId');

export async function companyRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;

  r.post(
    '/api/companies',
    {
      schema: {
        tags: ['Companies'],
        summary: 'Create a company',
        description: 'The caller becomes its admin. It starts with no credits.',
        body: CreateCompanyRequest,
        response: answers({ 201: { schema: Company, description: 'The new company.' } }, 400),
      },
    },
    async (req, reply) => {
      const c = await store.transaction(async (tx) => {
        const made = await tx.companies.create(principalOf(req).userId, req.body.name);
        await tx.credits.set(made.companyId, 0, false);
        return made;
      });
      noteCompanyWrite(req, { companyId: c.companyId, objectId: c.companyId });
      setEtag(reply, c.version);
      return reply.code(201).header('location', `/api/companies/${c.companyId}`).send(companyBody(c));
    },
  );

  r.get(
    '/api/companies/:companyId',
    {
      schema: {
        tags: ['Companies'],
        summary: 'A company',
        params,
        response: answers({ 200: { schema: Company, description: 'The company.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const c = await store.companies.get(principalOf(req).userId, req.params.companyId);
      if (!c) throw notFound('company', req.params.companyId);
      setEtag(reply, c.version);
      return companyBody(c);
    },
  );

  r.delete(
    '/api/companies/:companyId',
    {
      schema: {
        tags: ['Companies'],
        summary: 'Delete an empty company',
        description:
          'Admins only (403 NotAuthorized for members). Deletes the company with its accesses and revoked keys. 409 COMPANY_NOT_EMPTY while it holds data (purge it first) and 409 COMPANY_IN_USE while an active API key bills it (revoke those first).',
        params,
        headers: ifMatchHeaders,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 403, 404, 409, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.companyId;
      await requireCompany(store, req, id, 'admin');
      const expected = ifMatchVersion(req);
      const out = await store.companies.delete(principalOf(req).userId, id, expected);
      if (!out.ok) {
        if (out.reason === 'not-found') throw notFound('company', id);
        if (out.reason === 'stale') {
          const now = await store.companies.get(principalOf(req).userId, id);
          throw preconditionFailed('company', id, now?.version);
        }
        if (out.reason === 'in-use') {
          throw new ApiError(
            409,
            'COMPANY_IN_USE',
            `Company ${id} is billed by active API keys; revoke them (DELETE /api/api-keys/{id}) before deleting it.`,
          );
        }
        throw new ApiError(
          409,
          'COMPANY_NOT_EMPTY',
          `Company ${id} still holds data; purge it (DELETE /api/companies/${id}/purge) before deleting it.`,
        );
      }
      return reply.code(204).send();
    },
  );

  r.delete(
    '/api/companies/:companyId/purge',
    {
      schema: {
        tags: ['Companies'],
        summary: "Delete all of a company's data",
        description:
          'Admins only. Deletes every grower, farm, field, boundary, equipment, operator, setting and uploaded file of the company; keeps the company, its users and keys. Answers how many of each went.',
        params,
        headers: ifMatchHeaders,
        response: answers(
          {
            200: {
              schema: named('CompanyPurgeResult', Type.Object({ companyId: Type.String(), deleted: Counts })),
              description: 'Purged.',
            },
          },
          400,
          403,
          404,
          412,
        ),
      },
    },
    async (req) => {
      const id = req.params.companyId;
      await requireCompany(store, req, id, 'admin');
      const expected = ifMatchVersion(req);
      const deleted = await store.transaction(async (tx) => {
        const c = await tx.companies.get(principalOf(req).userId, id);
        if (!c) throw notFound('company', id);
        if (!versionMatches(expected, c.version)) throw preconditionFailed('company', id, c.version);
        return tx.companies.purge(id);
      });
      return { companyId: id, deleted: { ...ZERO_COUNTS, ...deleted } };
    },
  );

  r.get(
    '/api/companies/:companyId/summary',
    {
      schema: {
        tags: ['Companies'],
        summary: 'What a company holds',
        params,
        response: answers({ 200: { schema: Summary, description: 'Counts, credits and users.' } }, 400, 404),
      },
    },
    async (req) => {
      const c = await store.companies.get(principalOf(req).userId, req.params.companyId);
      if (!c) throw notFound('company', req.params.companyId);
      const [counts, credits, users] = await Promise.all([
        store.companies.counts(c.companyId),
        store.credits.get(c.companyId),
        store.companies.userCount(c.companyId),
      ]);
      return {
        companyId: c.companyId,
        name: c.name,
        counts: { ...ZERO_COUNTS, ...counts },
        credits: { available: credits.unlimited ? null : credits.credits, unlimited: credits.unlimited },
        users,
      };
    },
  );

  r.get(
    '/api/companies/:companyId/empty',
    {
      schema: {
        tags: ['Companies'],
        summary: 'Whether a company holds any boundary',
        params,
        response: answers(
          {
            200: {
              schema: named(
                'CompanyEmpty',
                Type.Object({
                  companyId: Type.String(),
                  empty: Type.Boolean({ description: 'true when the company has no boundary.' }),
                  boundaries: Type.Integer(),
                }),
              ),
              description: 'Answer.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const c = await store.companies.get(principalOf(req).userId, req.params.companyId);
      if (!c) throw notFound('company', req.params.companyId);
      const counts = await store.companies.counts(c.companyId);
      const boundaries = counts.boundaries ?? 0;
      return { companyId: c.companyId, empty: boundaries === 0, boundaries };
    },
  );
}
