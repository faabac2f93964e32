/**
 * Fields and boundaries (spec 2.1, 4.2, 4.4). A field keeps several
 * boundaries, at most one active (the one plans use):
 *   POST   /api/fields/save                          field + its first boundary { farmId, name, boundary: rings }
 *   POST   /api/fields/field-with-boundaries         field + several boundaries
 *   GET    /api/fields/{fieldId}                     one field (ETag)
 *   PUT    /api/fields/{fieldId}                     rename or move to another farm of the company (If-Match)
 *   DELETE /api/fields/{fieldId}                     with its boundaries (If-Match)
 *   GET    /api/fields/{fieldId}/boundaries          its boundaries with geometry
 *   GET    /api/fields/{fieldId}/boundaries-basic    its boundaries without geometry
 *   GET    /api/{farms|growers|companies}/{id}/fields-with-boundaries
 *   GET    /api/{farms|growers|companies}/{id}/fields-boundaries-json   active boundaries as GeoJSON
 *   GET    /api/companies/{companyId}/fields (also /api/organizations/{companyId}/fields)
 *   GET    /api/organizations/{companyId}/boundaries  the active boundary of every field
 *   GET    /api/fields/{companyId}/fields-without-boundaries-count
 *   POST   /api/vBoundary/upsert                     new boundary of a field, or new geometry of one (If-Match)
 *   GET    /api/vboundary/{boundaryId}               one boundary with its rings (ETag)
 *   GET    /api/boundaries/{boundaryId}/simple       without geometry (bbox, counts)
 *   GET    /api/boundaries/{boundaryId}/detailed     with geometry, its field, farm and grower
 *   GET    /api/boundaries/{boundaryId}/geojson|wkt|kml
 *   POST   /api/boundaries/{boundaryId}/activate     make it the field's active boundary (If-Match)
 *   DELETE /api/boundaries/{boundaryId}              (If-Match); the newest other becomes active
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { BoundaryRecord, FieldRecord } from '../../store/repositories/hierarchy.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { bboxOf, boundaryKml, boundaryWkt, checkRings, Rings } from './boundary-geometry.ts';
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

const Name = (what: string) =>
  Type.String({ minLength: 1, maxLength: 200, description: `The ${what}'s name.` });

export const Field = Type.Object(
  {
    fieldId: Uuid('The field id.'),
    farmId: Uuid('Its farm.'),
    growerId: Uuid('Its grower.'),
    companyId: Uuid('Its company.'),
    name: Type.String(),
    activeBoundaryId: Type.Union([Uuid('The active boundary.'), Type.Null()]),
    area: Type.Number({ description: 'Area of the active boundary [m²]; 0 without one.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    etag: Etag,
  },
  { $id: 'Field', title: 'Field' },
);

const boundaryMeta = {
  boundaryId: Uuid('The boundary id.'),
  fieldId: Uuid('Its field.'),
  farmId: Uuid('Its farm.'),
  growerId: Uuid('Its grower.'),
  companyId: Uuid('Its company.'),
  name: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean({ description: "Whether it is the field's active boundary." }),
  area: Type.Number({ description: 'Area [m²] on the WGS84 ellipsoid, holes excluded.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  etag: Etag,
};

export const VBoundary = Type.Object(
  { ...boundaryMeta, boundary: Rings },
  {
    $id: 'VBoundary',
    title: 'VBoundary',
    description: 'A boundary with its rings (WGS84 [lon, lat], exterior first, closed).',
  },
);

// A plain array schema: a TypeBox tuple writes draft-07 `items: [...]`, which OpenAPI 3.1 does not read.
const BBox = Type.Unsafe<[number, number, number, number]>({
  type: 'array',
  items: { type: 'number' },
  minItems: 4,
  maxItems: 4,
  description: '[minLon, minLat, maxLon, maxLat] of the exterior ring.',
});

const BoundarySimple = Type.Object(
  {
    ...boundaryMeta,
    bbox: BBox,
    rings: Type.Integer({ description: 'Number of rings (1 + holes).' }),
    vertices: Type.Integer({ description: 'Number of distinct vertices of all rings.' }),
  },
  { $id: 'BoundarySimple', title: 'BoundarySimple' },
);

const BoundaryDetailed = Type.Object(
  {
    ...VBoundary.properties,
    bbox: BBox,
    fieldName: Type.String(),
    farmName: Type.String(),
    growerName: Type.String(),
  },
  { $id: 'BoundaryDetailed', title: 'BoundaryDetailed' },
);

const FieldWithBoundaries = Type.Object(
  { ...Field.properties, boundaries: Type.Array(VBoundary) },
  { $id: 'FieldWithBoundaries', title: 'FieldWithBoundaries' },
);

const SaveFieldRequest = Type.Object(
  {
    farmId: Uuid('The farm the field belongs to.'),
    name: Name('field'),
    boundary: Rings,
    boundaryName: Type.Optional(Name('boundary')),
  },
  { additionalProperties: false, $id: 'SaveFieldRequest', title: 'SaveFieldRequest' },
);

const SaveFieldResponse = Type.Object(
  { field: Field, vBoundary: VBoundary },
  {
    $id: 'SaveFieldResponse',
    title: 'SaveFieldResponse',
    description: 'The field and its boundary (active).',
  },
);

const FieldWithBoundariesRequest = Type.Object(
  {
    farmId: Uuid('The farm the field belongs to.'),
    name: Name('field'),
    boundaries: Type.Array(
      Type.Object(
        {
          name: Type.Optional(Name('boundary')),
          boundary: Rings,
          active: Type.Optional(Type.Boolean({ description: 'The active one; default: the first.' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
  },
  { additionalProperties: false, $id: 'FieldWithBoundariesRequest', title: 'FieldWithBoundariesRequest' },
);

const UpdateFieldRequest = Type.Object(
  {
    name: Type.Optional(Name('field')),
    farmId: Type.Optional(Uuid('Move the field to this farm (of the same company).')),
  },
  { additionalProperties: false, minProperties: 1, $id: 'UpdateFieldRequest', title: 'UpdateFieldRequest' },
);

const UpsertRequest = Type.Object(
  {
    fieldId: Uuid('The field.'),
    boundaryId: Type.Optional(
      Uuid(
        'A boundary of the field to replace the geometry of (If-Match honoured); without it a new boundary is added.',
      ),
    ),
    name: Type.Optional(Type.Union([Name('boundary'), Type.Null()])),
    boundary: Rings,
    active: Type.Optional(
      Type.Boolean({
        description:
          'Make it the active boundary. Default true for a new boundary, false (unchanged) for a replaced one.',
      }),
    ),
  },
  { additionalProperties: false, $id: 'UpsertBoundaryRequest', title: 'UpsertBoundaryRequest' },
);

const GeoJsonFeature = Type.Object(
  {
    type: Type.Literal('Feature'),
    id: Type.String(),
    geometry: Type.Object({ type: Type.Literal('Polygon'), coordinates: Rings }),
    properties: Type.Object({
      boundaryId: Type.String(),
      fieldId: Type.String(),
      farmId: Type.String(),
      growerId: Type.String(),
      fieldName: Type.String(),
      name: Type.Union([Type.String(), Type.Null()]),
      active: Type.Boolean(),
      area: Type.Number({ description: '[m²]' }),
    }),
  },
  { $id: 'BoundaryFeature', title: 'BoundaryFeature' },
);

const FeatureCollection = Type.Object(
  { type: Type.Literal('FeatureCollection'), features: Type.Array(GeoJsonFeature) },
  { $id: 'BoundaryFeatureCollection', title: 'BoundaryFeatureCollection' },
);

export const fieldBody = (f: FieldRecord): Static<typeof Field> => ({
  fieldId: f.fieldId,
  farmId: f.farmId,
  growerId: f.growerId,
  companyId: f.companyId,
  name: f.name,
  activeBoundaryId: f.activeBoundaryId,
  area: f.area,
  createdAt: iso(f.createdAt),
  updatedAt: iso(f.updatedAt),
  etag: etagOf(f.version),
});

const metaBody = (b: BoundaryRecord) => ({
  boundaryId: b.boundaryId,
  fieldId: b.fieldId,
  farmId: b.farmId,
  growerId: b.growerId,
  companyId: b.companyId,
  name: b.name,
  active: b.active,
  area: b.area,
  createdAt: iso(b.createdAt),
  updatedAt: iso(b.updatedAt),
  etag: etagOf(b.version),
});

export const vBoundaryBody = (b: BoundaryRecord): Static<typeof VBoundary> => ({
  ...metaBody(b),
  boundary: b.rings,
});

const featureOf = (b: BoundaryRecord): Static<typeof GeoJsonFeature> => ({
  type: 'Feature',
  id: b.boundaryId,
  geometry: { type: 'Polygon', coordinates: b.rings },
  properties: {
    boundaryId: b.boundaryId,
    fieldId: b.fieldId,
    farmId: b.farmId,
    growerId: b.growerId,
    fieldName: b.fieldName,
    name: b.name,
    active: b.active,
    area: b.area,
  },
});

/** A file name from a field name: letters, digits, '-', '_' and '.'. */
const fileName = (name: string, ext: string) =>
  `${name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'boundary'}.${ext}`;

type Scope = 'farms' | 'growers' | 'companies';
const scopeParam = { farms: 'farmId', growers: 'growerId', companies: 'companyId' } as const;

export async function fieldRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const h = store.hierarchy;

  const field = async (userId: string, id: string) => {
    const f = await h.getField(userId, id);
    if (!f) throw notFound('field', id);
    return f;
  };
  const boundary = async (userId: string, id: string) => {
    const b = await h.getBoundary(userId, id);
    if (!b) throw notFound('boundary', id);
    return b;
  };
  /** The farm, grower or company of a list request, checked; answers the repository's filter. */
  const scopeOf = async (
    req: Parameters<typeof principalOf>[0],
    scope: Scope,
    id: string,
  ): Promise<{ farmId: string } | { growerId: string } | { companyId: string }> => {
    const userId = principalOf(req).userId;
    if (scope === 'farms') {
      if (!(await h.getFarm(userId, id))) throw notFound('farm', id);
      return { farmId: id };
    }
    if (scope === 'growers') {
      if (!(await h.getGrower(userId, id))) throw notFound('grower', id);
      return { growerId: id };
    }
    await requireCompany(store, req, id);
    return { companyId: id };
  };
  const withBoundaries = async (list: FieldRecord[]) => {
    const all = await h.listBoundaries({ fieldIds: list.map((f) => f.fieldId) });
    return list.map((f) => ({
      ...fieldBody(f),
      boundaries: all.filter((b) => b.fieldId === f.fieldId).map(vBoundaryBody),
    }));
  };
  const sendBoundary = (reply: FastifyReply, b: BoundaryRecord) => {
    setEtag(reply, b.version);
    return vBoundaryBody(b);
  };

  r.post(
    '/api/fields/save',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'Create a field with its boundary',
        description:
          'The boundary is rings of [lon, lat] pairs, exterior first; it becomes the active boundary. Answers field.fieldId and vBoundary.boundaryId. Rings the planner cannot use get 400 with errorCode FIELD_* and errors[0].path /boundary/{ring}/{point}.',
        body: SaveFieldRequest,
        response: answers({ 201: { schema: SaveFieldResponse, description: 'Created.' } }, 400, 404, 413),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const checked = checkRings(req.body.boundary);
      const farm = await h.getFarm(userId, req.body.farmId);
      if (!farm) throw notFound('farm', req.body.farmId);
      const out = await store.transaction((tx) =>
        tx.hierarchy.createField(farm, {
          name: req.body.name,
          boundary: { name: req.body.boundaryName ?? null, ...checked },
        }),
      );
      setEtag(reply, out.field.version);
      return reply
        .code(201)
        .header('location', `/api/fields/${out.field.fieldId}`)
        .send({ field: fieldBody(out.field), vBoundary: vBoundaryBody(out.boundary) });
    },
  );

  r.post(
    '/api/fields/field-with-boundaries',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'Create a field with several boundaries',
        description:
          'One transaction: every boundary is checked first (400 names the one, /boundaries/{i}/boundary/{ring}/{point}). The boundary marked active (else the first) is the active one; at most one may be marked.',
        body: FieldWithBoundariesRequest,
        response: answers({ 201: { schema: FieldWithBoundaries, description: 'Created.' } }, 400, 404, 413),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const items = req.body.boundaries;
      const marked = items.map((b, i) => (b.active ? i : -1)).filter((i) => i >= 0);
      if (marked.length > 1) {
        throw new ApiError(
          400,
          'VALIDATION_ERROR',
          `Only one boundary can be active; ${marked.length} are marked.`,
          {
            errors: marked
              .slice(1)
              .map((i) => ({ path: `/boundaries/${i}/active`, message: 'a second active boundary' })),
          },
        );
      }
      const checked = items.map((b, i) => checkRings(b.boundary, `/boundaries/${i}/boundary`));
      const farm = await h.getFarm(userId, req.body.farmId);
      if (!farm) throw notFound('farm', req.body.farmId);
      const activeIndex = marked[0] ?? 0;
      const fieldId = await store.transaction(async (tx) => {
        const first = tx.hierarchy;
        const made = await first.createField(farm, {
          name: req.body.name,
          boundary: { name: items[activeIndex].name ?? null, ...checked[activeIndex] },
        });
        for (let i = 0; i < items.length; i++) {
          if (i === activeIndex) continue;
          await first.addBoundary(made.field, { name: items[i].name ?? null, ...checked[i], active: false });
        }
        return made.field.fieldId;
      });
      const f = await field(userId, fieldId);
      setEtag(reply, f.version);
      return reply
        .code(201)
        .header('location', `/api/fields/${fieldId}`)
        .send((await withBoundaries([f]))[0]);
    },
  );

  r.get(
    '/api/fields/:fieldId',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'A field',
        params: idParams('fieldId'),
        response: answers({ 200: { schema: Field, description: 'The field.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const f = await field(principalOf(req).userId, req.params.fieldId);
      setEtag(reply, f.version);
      return fieldBody(f);
    },
  );

  r.put(
    '/api/fields/:fieldId',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'Rename a field or move it to another farm',
        description: 'farmId must be a farm of the same company (404 otherwise).',
        params: idParams('fieldId'),
        headers: ifMatchHeaders,
        body: UpdateFieldRequest,
        response: answers({ 200: { schema: Field, description: 'The field now.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.fieldId;
      const userId = principalOf(req).userId;
      const current = await field(userId, id);
      if (req.body.farmId !== undefined) {
        const farm = await h.getFarm(userId, req.body.farmId);
        if (!farm || farm.companyId !== current.companyId) {
          throw new ApiError(
            404,
            'NOT_FOUND',
            `No farm ${req.body.farmId} in the field's company ${current.companyId}; a field moves only between farms of its company.`,
            { errors: [{ path: '/farmId', message: 'is not a farm of the field’s company' }] },
          );
        }
      }
      const out = await h.updateField(userId, id, req.body, ifMatchVersion(req));
      if (!out.ok) {
        if (out.reason === 'not-found') throw notFound('field', id);
        throw preconditionFailed('field', id, (await h.getField(userId, id))?.version);
      }
      setEtag(reply, out.value.version);
      return fieldBody(out.value);
    },
  );

  r.delete(
    '/api/fields/:fieldId',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'Delete a field with its boundaries',
        params: idParams('fieldId'),
        headers: ifMatchHeaders,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.fieldId;
      const userId = principalOf(req).userId;
      const out = await h.deleteField(userId, id, ifMatchVersion(req));
      if (!out.ok) {
        if (out.reason === 'not-found') throw notFound('field', id);
        throw preconditionFailed('field', id, (await h.getField(userId, id))?.version);
      }
      return reply.code(204).send();
    },
  );

  r.get(
    '/api/fields/:fieldId/boundaries',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: "A field's boundaries with their rings",
        description: 'The active one first, then newest first.',
        params: idParams('fieldId'),
        response: answers({ 200: { schema: Type.Array(VBoundary), description: 'Boundaries.' } }, 400, 404),
      },
    },
    async (req) => {
      const f = await field(principalOf(req).userId, req.params.fieldId);
      return (await h.listBoundaries({ fieldIds: [f.fieldId] })).map(vBoundaryBody);
    },
  );

  r.get(
    '/api/fields/:fieldId/boundaries-basic',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: "A field's boundaries without geometry",
        params: idParams('fieldId'),
        response: answers(
          {
            200: {
              schema: Type.Array(named('BoundaryMeta', Type.Object(boundaryMeta))),
              description: 'Boundaries.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const f = await field(principalOf(req).userId, req.params.fieldId);
      return (await h.listBoundaries({ fieldIds: [f.fieldId] })).map(metaBody);
    },
  );

  for (const scope of ['farms', 'growers', 'companies'] as const) {
    const param = scopeParam[scope];
    const what = scope.slice(0, -1).replace('companie', 'company');
    r.get(
      `/api/${scope}/:${param}/fields-with-boundaries`,
      {
        schema: {
          tags: ['Fields and boundaries'],
          summary: `Fields of a ${what} with their boundaries`,
          params: idParams(param),
          response: answers(
            { 200: { schema: Type.Array(FieldWithBoundaries), description: 'By field name.' } },
            400,
            404,
          ),
        },
      },
      async (req) => {
        const id = (req.params as Record<string, string>)[param];
        return withBoundaries(await h.listFields(await scopeOf(req, scope, id)));
      },
    );
    r.get(
      `/api/${scope}/:${param}/fields-boundaries-json`,
      {
        schema: {
          tags: ['Fields and boundaries'],
          summary: `Active boundaries of the fields of a ${what} as GeoJSON`,
          description: 'A FeatureCollection with one Polygon Feature per field that has an active boundary.',
          params: idParams(param),
          response: answers({ 200: { schema: FeatureCollection, description: 'GeoJSON.' } }, 400, 404),
        },
      },
      async (req, reply) => {
        const id = (req.params as Record<string, string>)[param];
        const list = await h.activeBoundaries(await scopeOf(req, scope, id));
        reply.type('application/geo+json');
        return { type: 'FeatureCollection', features: list.map(featureOf) };
      },
    );
  }

  for (const path of ['/api/companies/:companyId/fields', '/api/organizations/:companyId/fields']) {
    r.get(
      path,
      {
        schema: {
          tags: ['Fields and boundaries'],
          summary: 'All fields of a company',
          params: idParams('companyId'),
          response: answers({ 200: { schema: Type.Array(Field), description: 'By name.' } }, 400, 404),
        },
      },
      async (req) => {
        await requireCompany(store, req, req.params.companyId);
        return (await h.listFields({ companyId: req.params.companyId })).map(fieldBody);
      },
    );
  }

  r.get(
    '/api/organizations/:companyId/boundaries',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'The active boundary of every field of a company',
        params: idParams('companyId'),
        response: answers(
          { 200: { schema: Type.Array(VBoundary), description: 'By field name.' } },
          400,
          404,
        ),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      return (await h.activeBoundaries({ companyId: req.params.companyId })).map(vBoundaryBody);
    },
  );

  r.get(
    '/api/fields/:companyId/fields-without-boundaries-count',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'How many fields of a company have no boundary',
        params: idParams('companyId'),
        response: answers(
          {
            200: {
              schema: named(
                'FieldsWithoutBoundariesCount',
                Type.Object({
                  companyId: Type.String(),
                  fields: Type.Integer(),
                  withoutBoundaries: Type.Integer(),
                }),
              ),
              description: 'Counts.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      const list = await h.listFields({ companyId: req.params.companyId });
      return {
        companyId: req.params.companyId,
        fields: list.length,
        withoutBoundaries: list.filter((f) => f.activeBoundaryId === null).length,
      };
    },
  );

  r.post(
    '/api/vBoundary/upsert',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'Add a boundary to a field, or replace the geometry of one',
        description:
          'Without boundaryId: a new boundary of the field (201), active unless active is false. With boundaryId: new rings (and name) for that boundary of the field (200); If-Match applies to it.',
        headers: ifMatchHeaders,
        body: UpsertRequest,
        response: answers(
          {
            200: { schema: VBoundary, description: 'Replaced.' },
            201: { schema: VBoundary, description: 'Added.' },
          },
          400,
          404,
          412,
          413,
        ),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const b = req.body;
      const checked = checkRings(b.boundary);
      const f = await field(userId, b.fieldId);
      if (b.boundaryId === undefined) {
        const made = await store.transaction((tx) =>
          tx.hierarchy.addBoundary(f, { name: b.name ?? null, ...checked, active: b.active ?? true }),
        );
        reply.code(201).header('location', `/api/vboundary/${made.boundaryId}`);
        return sendBoundary(reply, made);
      }
      const boundaryId = b.boundaryId;
      const existing = await h.getBoundary(userId, boundaryId);
      if (!existing || existing.fieldId !== f.fieldId)
        throw notFound('boundary', `${boundaryId} of field ${f.fieldId}`);
      const out = await store.transaction((tx) =>
        tx.hierarchy.updateBoundary(
          userId,
          boundaryId,
          { ...checked, name: b.name, active: b.active },
          ifMatchVersion(req),
        ),
      );
      if (!out.ok) {
        if (out.reason === 'not-found') throw notFound('boundary', boundaryId);
        throw preconditionFailed('boundary', boundaryId, (await h.getBoundary(userId, boundaryId))?.version);
      }
      return sendBoundary(reply, out.value);
    },
  );

  const boundaryParams = idParams('boundaryId');

  r.get(
    '/api/vboundary/:boundaryId',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'A boundary with its rings',
        params: boundaryParams,
        response: answers({ 200: { schema: VBoundary, description: 'The boundary.' } }, 400, 404),
      },
    },
    async (req, reply) => sendBoundary(reply, await boundary(principalOf(req).userId, req.params.boundaryId)),
  );

  r.get(
    '/api/boundaries/:boundaryId/simple',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'A boundary without its geometry',
        params: boundaryParams,
        response: answers({ 200: { schema: BoundarySimple, description: 'The boundary.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const b = await boundary(principalOf(req).userId, req.params.boundaryId);
      setEtag(reply, b.version);
      return {
        ...metaBody(b),
        bbox: bboxOf(b.rings),
        rings: b.rings.length,
        vertices: b.rings.reduce((n, ring) => n + Math.max(0, ring.length - 1), 0),
      };
    },
  );

  r.get(
    '/api/boundaries/:boundaryId/detailed',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'A boundary with its geometry and where it belongs',
        params: boundaryParams,
        response: answers({ 200: { schema: BoundaryDetailed, description: 'The boundary.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const b = await boundary(userId, req.params.boundaryId);
      const [farm, grower] = await Promise.all([
        h.getFarm(userId, b.farmId),
        h.getGrower(userId, b.growerId),
      ]);
      setEtag(reply, b.version);
      return {
        ...vBoundaryBody(b),
        bbox: bboxOf(b.rings),
        fieldName: b.fieldName,
        farmName: farm?.name ?? '',
        growerName: grower?.name ?? '',
      };
    },
  );

  r.get(
    '/api/boundaries/:boundaryId/geojson',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'A boundary as GeoJSON',
        description: 'A Feature with the Polygon (the stored rings) and the boundary’s ids, names and area.',
        params: boundaryParams,
        response: answers({ 200: { schema: GeoJsonFeature, description: 'application/geo+json' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const b = await boundary(principalOf(req).userId, req.params.boundaryId);
      setEtag(reply, b.version);
      reply.type('application/geo+json');
      return featureOf(b);
    },
  );

  r.get(
    '/api/boundaries/:boundaryId/wkt',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'A boundary as WKT',
        description: 'text/plain: POLYGON ((lon lat, ...), (hole), ...) in WGS84.',
        params: boundaryParams,
        response: answers(
          { 200: { schema: Type.String(), description: 'text/plain WKT.', mediaType: 'text/plain' } },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const b = await boundary(principalOf(req).userId, req.params.boundaryId);
      setEtag(reply, b.version);
      return reply.type('text/plain; charset=utf-8').send(boundaryWkt(b.rings));
    },
  );

  r.get(
    '/api/boundaries/:boundaryId/kml',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'A boundary as KML',
        description: 'A KML 2.2 document with one Placemark (the field name) holding the Polygon.',
        params: boundaryParams,
        response: answers(
          {
            200: {
              schema: Type.String(),
              description: 'application/vnd.google-earth.kml+xml',
              mediaType: 'application/vnd.google-earth.kml+xml',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const b = await boundary(principalOf(req).userId, req.params.boundaryId);
      setEtag(reply, b.version);
      return reply
        .type('application/vnd.google-earth.kml+xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="${fileName(b.fieldName, 'kml')}"`)
        .send(boundaryKml(b.rings, b.name ?? b.fieldName));
    },
  );

  r.post(
    '/api/boundaries/:boundaryId/activate',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: "Make a boundary its field's active boundary",
        description: 'The field’s previously active boundary becomes inactive. Idempotent.',
        params: boundaryParams,
        headers: ifMatchHeaders,
        response: answers({ 200: { schema: VBoundary, description: 'The boundary now.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.boundaryId;
      const userId = principalOf(req).userId;
      const out = await store.transaction((tx) =>
        tx.hierarchy.activateBoundary(userId, id, ifMatchVersion(req)),
      );
      if (!out.ok) {
        if (out.reason === 'not-found') throw notFound('boundary', id);
        throw preconditionFailed('boundary', id, (await h.getBoundary(userId, id))?.version);
      }
      return sendBoundary(reply, out.value);
    },
  );

  r.delete(
    '/api/boundaries/:boundaryId',
    {
      schema: {
        tags: ['Fields and boundaries'],
        summary: 'Delete a boundary',
        description: 'When it was the active one, the field’s newest remaining boundary becomes active.',
        params: boundaryParams,
        headers: ifMatchHeaders,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.boundaryId;
      const userId = principalOf(req).userId;
      const out = await store.transaction((tx) =>
        tx.hierarchy.deleteBoundary(userId, id, ifMatchVersion(req)),
      );
      if (!out.ok) {
        if (out.reason === 'not-found') throw notFound('boundary', id);
        throw preconditionFailed('boundary', id, (await h.getBoundary(userId, id))?.version);
      }
      return reply.code(204).send();
    },
  );
}
