/**
 * Growers and farms (Company > Grower > Farm > Field > Boundary, spec 2.1, 4.2, 4.4):
 *   POST   /api/companies/{companyId}/growers            create a grower { name, source, archived }
 *   GET    /api/companies/{companyId}/growers            list (?archived=true|false)
 *   GET    /api/companies/{companyId}/growers/detailed   list with farms and counts
 *   GET    /api/growers/{growerId}                       one grower (ETag)
 *   PUT    /api/growers/{growerId}                       change name, source, archived (If-Match)
 *   DELETE /api/growers/{growerId}                       delete (409 with farms unless ?cascade=true; If-Match)
 *   GET    /api/growers/{growerId}/can-delete            whether DELETE would succeed without cascade
 *   POST   /api/growers/{growerId}/farms                 create a farm (same body)
 *   GET    /api/growers/{growerId}/farms                 list
 *   GET    /api/growers/{growerId}/farms/detailed        list with fields
 *   GET    /api/companies/{companyId}/farms              all farms of a company
 *   GET    /api/farms/{farmId}                           one farm (ETag)
 *   PUT    /api/farms/{farmId}                           change (If-Match)
 *   DELETE /api/farms/{farmId}                           delete (409 with fields unless ?cascade=true; If-Match)
 *   GET    /api/growers/{growerId}/farms/{farmId}/can-delete
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { Contents, FarmRecord, FieldRecord, GrowerRecord } from '../../store/repositories/hierarchy.ts';
import { ApiError } from '../errors.ts';
import {
  answers,
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

const NamedBody = (what: string) =>
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 200, description: `The ${what}'s name.` }),
      source: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 100,
          description: "Where the record comes from; default 'api' for records made through the API.",
        }),
      ),
      archived: Type.Optional(Type.Boolean({ description: 'Default false.' })),
    },
    {
      additionalProperties: false,
      $id: `Create${what[0].toUpperCase()}${what.slice(1)}Request`,
      title: `Create${what[0].toUpperCase()}${what.slice(1)}Request`,
    },
  );

const PatchBody = (what: string) =>
  Type.Partial(NamedBody(what), {
    additionalProperties: false,
    minProperties: 1,
    $id: `Update${what[0].toUpperCase()}${what.slice(1)}Request`,
    title: `Update${what[0].toUpperCase()}${what.slice(1)}Request`,
    description: 'The members to change; the others keep their value.',
  });

export const Grower = Type.Object(
  {
    growerId: Uuid('The grower id.'),
    companyId: Uuid('Its company.'),
    name: Type.String(),
    source: Type.String(),
    archived: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    etag: Etag,
  },
  { $id: 'Grower', title: 'Grower' },
);

export const Farm = Type.Object(
  {
    farmId: Uuid('The farm id.'),
    growerId: Uuid('Its grower.'),
    companyId: Uuid('Its company.'),
    name: Type.String(),
    source: Type.String(),
    archived: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    etag: Etag,
  },
  { $id: 'Farm', title: 'Farm' },
);

const ContentsSchema = Type.Object(
  { farms: Type.Integer(), fields: Type.Integer(), boundaries: Type.Integer() },
  {
    $id: 'HierarchyContents',
    title: 'HierarchyContents',
    description: 'What lies below (farms counts only for growers).',
  },
);

const FieldBrief = Type.Object(
  {
    fieldId: Uuid('The field id.'),
    name: Type.String(),
    activeBoundaryId: Type.Union([Uuid('Its active boundary.'), Type.Null()]),
    area: Type.Number({ description: 'Area of the active boundary [m²]; 0 without one.' }),
  },
  { $id: 'FieldBrief', title: 'FieldBrief' },
);

const GrowerDetailed = Type.Object(
  { ...Grower.properties, farms: Type.Array(Farm), contents: ContentsSchema },
  { $id: 'GrowerDetailed', title: 'GrowerDetailed' },
);

const FarmDetailed = Type.Object(
  { ...Farm.properties, fields: Type.Array(FieldBrief) },
  { $id: 'FarmDetailed', title: 'FarmDetailed' },
);

const CanDelete = Type.Object(
  {
    canDelete: Type.Boolean({
      description: 'true when DELETE without cascade would succeed (nothing below it).',
    }),
    contents: ContentsSchema,
    reason: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'CanDelete', title: 'CanDelete' },
);

const DeleteQuery = Type.Object(
  {
    cascade: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description:
          'Also delete everything below (farms, fields, boundaries). Default false: 409 when not empty.',
      }),
    ),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    archived: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: 'Only archived (true) or only current (false); default both.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const growerBody = (g: GrowerRecord): Static<typeof Grower> => ({
  growerId: g.growerId,
  companyId: g.companyId,
  name: g.name,
  source: g.source,
  archived: g.archived,
  createdAt: iso(g.createdAt),
  updatedAt: iso(g.updatedAt),
  etag: etagOf(g.version),
});

export const farmBody = (f: FarmRecord): Static<typeof Farm> => ({
  farmId: f.farmId,
  growerId: f.growerId,
  companyId: f.companyId,
  name: f.name,
  source: f.source,
  archived: f.archived,
  createdAt: iso(f.createdAt),
  updatedAt: iso(f.updatedAt),
  etag: etagOf(f.version),
});

const fieldBrief = (f: FieldRecord) => ({
  fieldId: f.fieldId,
  name: f.name,
  activeBoundaryId: f.activeBoundaryId,
  area: f.area,
});

const archivedFilter = (q: { archived?: 'true' | 'false' }) =>
  q.archived === undefined ? {} : { archived: q.archived === 'true' };

function notEmpty(what: 'grower' | 'farm', id: string, c: Contents): ApiError {
  const below =
    what === 'grower'
      ? `${c.farms} farm(s), ${c.fields} field(s) and ${c.boundaries} boundary(ies)`
      : `${c.fields} field(s) and ${c.boundaries} boundary(ies)`;
  return new ApiError(
    409,
    what === 'grower' ? 'GROWER_NOT_EMPTY' : 'FARM_NOT_EMPTY',
    `The ${what} ${id} holds ${below}; delete them first or send ?cascade=true to delete everything below it.`,
    { details: { contents: c } },
  );
}

export async function growerFarmRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const h = store.hierarchy;

  const grower = async (userId: string, id: string) => {
    const g = await h.getGrower(userId, id);
    if (!g) throw notFound('grower', id);
    return g;
  };
  const farm = async (userId: string, id: string) => {
    const f = await h.getFarm(userId, id);
    if (!f) throw notFound('farm', id);
    return f;
  };

  // ---- growers -------------------------------------------------------------

  r.post(
    '/api/companies/:companyId/growers',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Create a grower',
        params: idParams('companyId'),
        body: NamedBody('grower'),
        response: answers({ 201: { schema: Grower, description: 'The new grower.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      await requireCompany(store, req, req.params.companyId);
      const g = await h.createGrower(req.params.companyId, req.body);
      setEtag(reply, g.version);
      return reply.code(201).header('location', `/api/growers/${g.growerId}`).send(growerBody(g));
    },
  );

  r.get(
    '/api/companies/:companyId/growers',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Growers of a company',
        params: idParams('companyId'),
        querystring: ListQuery,
        response: answers({ 200: { schema: Type.Array(Grower), description: 'By name.' } }, 400, 404),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      return (await h.listGrowers(req.params.companyId, archivedFilter(req.query))).map(growerBody);
    },
  );

  r.get(
    '/api/companies/:companyId/growers/detailed',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Growers of a company with their farms and what they hold',
        params: idParams('companyId'),
        querystring: ListQuery,
        response: answers({ 200: { schema: Type.Array(GrowerDetailed), description: 'By name.' } }, 400, 404),
      },
    },
    async (req) => {
      const companyId = req.params.companyId;
      await requireCompany(store, req, companyId);
      const [list, farmsOf] = await Promise.all([
        h.listGrowers(companyId, archivedFilter(req.query)),
        h.listFarms({ companyId }),
      ]);
      const out = [];
      for (const g of list) {
        out.push({
          ...growerBody(g),
          farms: farmsOf.filter((f) => f.growerId === g.growerId).map(farmBody),
          contents: await h.contentsOfGrower(g.growerId),
        });
      }
      return out;
    },
  );

  r.get(
    '/api/growers/:growerId',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'A grower',
        params: idParams('growerId'),
        response: answers({ 200: { schema: Grower, description: 'The grower.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const g = await grower(principalOf(req).userId, req.params.growerId);
      setEtag(reply, g.version);
      return growerBody(g);
    },
  );

  r.put(
    '/api/growers/:growerId',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Change a grower',
        params: idParams('growerId'),
        headers: ifMatchHeaders,
        body: PatchBody('grower'),
        response: answers({ 200: { schema: Grower, description: 'The grower now.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.growerId;
      const userId = principalOf(req).userId;
      const out = await h.updateGrower(userId, id, req.body, ifMatchVersion(req));
      if (!out.ok) {
        if (out.reason === 'not-found') throw notFound('grower', id);
        throw preconditionFailed('grower', id, (await h.getGrower(userId, id))?.version);
      }
      setEtag(reply, out.value.version);
      return growerBody(out.value);
    },
  );

  r.delete(
    '/api/growers/:growerId',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Delete a grower',
        description:
          '409 GROWER_NOT_EMPTY while it has farms, unless ?cascade=true, which deletes its farms, fields and boundaries with it.',
        params: idParams('growerId'),
        querystring: DeleteQuery,
        headers: ifMatchHeaders,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404, 409, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.growerId;
      const userId = principalOf(req).userId;
      const out = await h.deleteGrower(userId, id, {
        expectedVersion: ifMatchVersion(req),
        cascade: req.query.cascade === 'true',
      });
      if (!out.ok) {
        if (out.reason === 'not-empty') throw notEmpty('grower', id, out.contents);
        if (out.reason === 'not-found') throw notFound('grower', id);
        throw preconditionFailed('grower', id, (await h.getGrower(userId, id))?.version);
      }
      return reply.code(204).send();
    },
  );

  r.get(
    '/api/growers/:growerId/can-delete',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Whether a grower can be deleted without cascade',
        params: idParams('growerId'),
        response: answers({ 200: { schema: CanDelete, description: 'Answer.' } }, 400, 404),
      },
    },
    async (req) => {
      const g = await grower(principalOf(req).userId, req.params.growerId);
      const contents = await h.contentsOfGrower(g.growerId);
      const canDelete = contents.farms === 0;
      return {
        canDelete,
        contents,
        reason: canDelete ? null : `The grower has ${contents.farms} farm(s).`,
      };
    },
  );

  // ---- farms ---------------------------------------------------------------

  r.post(
    '/api/growers/:growerId/farms',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Create a farm',
        params: idParams('growerId'),
        body: NamedBody('farm'),
        response: answers({ 201: { schema: Farm, description: 'The new farm.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const g = await grower(principalOf(req).userId, req.params.growerId);
      const f = await h.createFarm(g, req.body);
      setEtag(reply, f.version);
      return reply.code(201).header('location', `/api/farms/${f.farmId}`).send(farmBody(f));
    },
  );

  r.get(
    '/api/growers/:growerId/farms',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Farms of a grower',
        params: idParams('growerId'),
        response: answers({ 200: { schema: Type.Array(Farm), description: 'By name.' } }, 400, 404),
      },
    },
    async (req) => {
      const g = await grower(principalOf(req).userId, req.params.growerId);
      return (await h.listFarms({ growerId: g.growerId })).map(farmBody);
    },
  );

  r.get(
    '/api/growers/:growerId/farms/detailed',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Farms of a grower with their fields',
        params: idParams('growerId'),
        response: answers({ 200: { schema: Type.Array(FarmDetailed), description: 'By name.' } }, 400, 404),
      },
    },
    async (req) => {
      const g = await grower(principalOf(req).userId, req.params.growerId);
      const [list, fieldsOf] = await Promise.all([
        h.listFarms({ growerId: g.growerId }),
        h.listFields({ growerId: g.growerId }),
      ]);
      return list.map((f) => ({
        ...farmBody(f),
        fields: fieldsOf.filter((x) => x.farmId === f.farmId).map(fieldBrief),
      }));
    },
  );

  r.get(
    '/api/companies/:companyId/farms',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'All farms of a company',
        params: idParams('companyId'),
        response: answers({ 200: { schema: Type.Array(Farm), description: 'By name.' } }, 400, 404),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      return (await h.listFarms({ companyId: req.params.companyId })).map(farmBody);
    },
  );

  r.get(
    '/api/farms/:farmId',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'A farm',
        params: idParams('farmId'),
        response: answers({ 200: { schema: Farm, description: 'The farm.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const f = await farm(principalOf(req).userId, req.params.farmId);
      setEtag(reply, f.version);
      return farmBody(f);
    },
  );

  r.put(
    '/api/farms/:farmId',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Change a farm',
        params: idParams('farmId'),
        headers: ifMatchHeaders,
        body: PatchBody('farm'),
        response: answers({ 200: { schema: Farm, description: 'The farm now.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.farmId;
      const userId = principalOf(req).userId;
      const out = await h.updateFarm(userId, id, req.body, ifMatchVersion(req));
      if (!out.ok) {
        if (out.reason === 'not-found') throw notFound('farm', id);
        throw preconditionFailed('farm', id, (await h.getFarm(userId, id))?.version);
      }
      setEtag(reply, out.value.version);
      return farmBody(out.value);
    },
  );

  r.delete(
    '/api/farms/:farmId',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Delete a farm',
        description:
          '409 FARM_NOT_EMPTY while it has fields, unless ?cascade=true, which deletes its fields and boundaries with it.',
        params: idParams('farmId'),
        querystring: DeleteQuery,
        headers: ifMatchHeaders,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404, 409, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.farmId;
      const userId = principalOf(req).userId;
      const out = await h.deleteFarm(userId, id, {
        expectedVersion: ifMatchVersion(req),
        cascade: req.query.cascade === 'true',
      });
      if (!out.ok) {
        if (out.reason === 'not-empty') throw notEmpty('farm', id, out.contents);
        if (out.reason === 'not-found') throw notFound('farm', id);
        throw preconditionFailed('farm', id, (await h.getFarm(userId, id))?.version);
      }
      return reply.code(204).send();
    },
  );

  r.get(
    '/api/growers/:growerId/farms/:farmId/can-delete',
    {
      schema: {
        tags: ['Growers and farms'],
        summary: 'Whether a farm can be deleted without cascade',
        params: idParams('growerId', 'farmId'),
        response: answers({ 200: { schema: CanDelete, description: 'Answer.' } }, 400, 404),
      },
    },
    async (req) => {
      const f = await farm(principalOf(req).userId, req.params.farmId);
      if (f.growerId !== req.params.growerId)
        throw notFound('farm', `${req.params.farmId} of grower ${req.params.growerId}`);
      const contents = await h.contentsOfFarm(f.farmId);
      const canDelete = contents.fields === 0;
      return { canDelete, contents, reason: canDelete ? null : `The farm has ${contents.fields} field(s).` };
    },
  );
}
