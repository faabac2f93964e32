/**
 * User labels of a company (spec 4.4, "Analytics, notifications, lookup"):
 *   GET    /api/user-labels                  the company's labels (?companyId=, default the caller's company)
 *   GET    /api/user-labels/active           only the active ones
 *   POST   /api/user-labels                  create { companyId?, name, color?, active? }
 *   GET    /api/user-labels/{userLabelId}    one label (ETag)
 *   PUT    /api/user-labels/{userLabelId}    change name, color, active (If-Match)
 *   DELETE /api/user-labels/{userLabelId}    delete (If-Match)
 * Names are distinct per company (case-insensitive; 409 otherwise).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import {
  createUserLabelsRepository,
  type LabelOutcome,
  type UserLabelRecord,
} from '../../store/repositories/user-labels.ts';
import { ApiError } from '../errors.ts';
import {
  answers,
  callerCompany,
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
  Uuid,
} from './common.ts';

const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Distinct per company (case-insensitive).',
});
const Color = Type.Union([Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }), Type.Null()], {
  description: 'Display colour as #rrggbb, or null.',
});

const UserLabel = Type.Object(
  {
    userLabelId: Uuid('The label id.'),
    companyId: Uuid('Its company.'),
    name: Type.String(),
    color: Type.Union([Type.String(), Type.Null()]),
    active: Type.Boolean({ description: 'Inactive labels are not offered for new use.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    etag: Etag,
  },
  { $id: 'UserLabel', title: 'UserLabel' },
);

const CreateUserLabelRequest = Type.Object(
  {
    companyId: Type.Optional(Uuid('The company (default: the one the credentials act for).')),
    name: Name,
    color: Type.Optional(Color),
    active: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  },
  { additionalProperties: false, $id: 'CreateUserLabelRequest', title: 'CreateUserLabelRequest' },
);

const UpdateUserLabelRequest = Type.Object(
  { name: Type.Optional(Name), color: Type.Optional(Color), active: Type.Optional(Type.Boolean()) },
  {
    additionalProperties: false,
    minProperties: 1,
    $id: 'UpdateUserLabelRequest',
    title: 'UpdateUserLabelRequest',
    description: 'The members to change; the others keep their value.',
  },
);

const ListQuery = Type.Object(
  { companyId: Type.Optional(Uuid('The company (default: the one the credentials act for).')) },
  { additionalProperties: false },
);

const view = (l: UserLabelRecord) => ({
  userLabelId: l.id,
  companyId: l.companyId,
  name: l.name,
  color: l.color,
  active: l.active,
  createdAt: iso(l.createdAt),
  updatedAt: iso(l.updatedAt),
  etag: etagOf(l.version),
});

function unwrap(out: LabelOutcome, id: string, name?: string): UserLabelRecord {
  if (out.ok) return out.value;
  if (out.reason === 'duplicate') {
    throw new ApiError(409, 'CONFLICT', `The company already has a label named ${JSON.stringify(name)}.`);
  }
  if (out.reason === 'stale') throw preconditionFailed('user label', id, out.currentVersion);
  throw notFound('user label', id);
}

export async function userLabelRoutes(appBase: FastifyInstance, opts: { store: Store }): Promise<void> {
  const app = appBase.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const labels = createUserLabelsRepository(store.db);
  const tags = ['Lookups'];

  const companyOf = async (req: FastifyRequest, companyId: string | undefined) => {
    if (companyId === undefined) return callerCompany(store, req);
    await requireCompany(store, req, companyId);
    return companyId;
  };

  for (const active of [false, true]) {
    app.get(
      active ? '/api/user-labels/active' : '/api/user-labels',
      {
        schema: {
          tags,
          summary: active ? 'Active user labels' : 'User labels',
          description: `${active ? 'The active labels' : 'All labels'} of a company, by name. \`companyId\` defaults to the company the credentials act for; another company's id answers 404.`,
          querystring: ListQuery,
          response: answers(
            { 200: { schema: Type.Array(UserLabel), description: 'The labels, by name.' } },
            400,
            403,
            404,
          ),
        },
      },
      async (req) => {
        const companyId = await companyOf(req, req.query.companyId);
        return (await labels.list(companyId, active ? { active: true } : {})).map(view);
      },
    );
  }

  app.post(
    '/api/user-labels',
    {
      schema: {
        tags,
        summary: 'Create a user label',
        body: CreateUserLabelRequest,
        response: answers({ 201: { schema: UserLabel, description: 'Created.' } }, 400, 403, 404, 409),
      },
    },
    async (req, reply) => {
      const { companyId: asked, ...input } = req.body;
      const companyId = await companyOf(req, asked);
      const made = unwrap(await labels.create(companyId, input), '', input.name);
      setEtag(reply, made.version);
      return reply.code(201).send(view(made));
    },
  );

  app.get(
    '/api/user-labels/:userLabelId',
    {
      schema: {
        tags,
        summary: 'A user label',
        params: idParams('userLabelId'),
        response: answers({ 200: { schema: UserLabel, description: 'The label.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const l = await labels.get(principalOf(req).userId, req.params.userLabelId);
      if (!l) throw notFound('user label', req.params.userLabelId);
      setEtag(reply, l.version);
      return view(l);
    },
  );

  app.put(
    '/api/user-labels/:userLabelId',
    {
      schema: {
        tags,
        summary: 'Change a user label',
        params: idParams('userLabelId'),
        headers: ifMatchHeaders,
        body: UpdateUserLabelRequest,
        response: answers({ 200: { schema: UserLabel, description: 'Changed.' } }, 400, 404, 409, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.userLabelId;
      const out = await labels.update(principalOf(req).userId, id, req.body, ifMatchVersion(req));
      const l = unwrap(out, id, req.body.name);
      setEtag(reply, l.version);
      return view(l);
    },
  );

  app.delete(
    '/api/user-labels/:userLabelId',
    {
      schema: {
        tags,
        summary: 'Delete a user label',
        params: idParams('userLabelId'),
        headers: ifMatchHeaders,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.userLabelId;
      unwrap(await labels.remove(principalOf(req).userId, id, ifMatchVersion(req)), id);
      return reply.code(204).send();
    },
  );
}
