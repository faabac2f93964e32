/**
 * External boundaries (spec 4.4, "External boundaries and location search"):
 * public field boundaries of the providers in TRAMLINE_BOUNDARY_SOURCES
 * (integrations/external-boundaries.ts), and fields made from them.
 *
 *   GET  /api/external-boundaries/providers            the providers, with licence and attribution
 *   GET  /api/external-boundaries/boundaries?bbox=minLon,minLat,maxLon,maxLat[&providers=a,b][&offset][&limit]
 *        a GeoJSON FeatureCollection of the boundaries in the box, paged (limit 1 to 1000, default 100)
 *   GET  /api/external-boundaries/coverage?bbox=...    which providers have boundaries in the box
 *   POST /api/external-boundaries/fields               a field of a farm from one external boundary,
 *        keeping its provider, id, licence and attribution
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Bbox, BoundaryCatalog, BoundaryProviderInfo } from '../../integrations/external-boundaries.ts';
import type { Store } from '../../store/db.ts';
import type { BoundaryOrigin } from '../../store/repositories/boundary-origins.ts';
import { ApiError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { checkRings } from './boundary-geometry.ts';
import { answers, notFound, principalOf, setEtag, Uuid } from './common.ts';
import { Field, fieldBody, VBoundary, vBoundaryBody } from './fields.ts';

const TAGS = ['External boundaries'];
/** Most boundaries one page answers. */
export const MAX_BOUNDARIES_PAGE = 1000;

const BboxParam = Type.String({
  pattern: '^[^,]+,[^,]+,[^,]+,[^,]+$',
  description: 'minLon,minLat,maxLon,maxLat in WGS84 degrees.',
  examples: ['9.85,56.43,9.98,56.52'],
});

const ProviderSchema = named(
  'ExternalBoundaryProvider',
  Type.Object({
    providerId: Type.String({
      description: 'The provider (its file name without extension); what providers= names.',
    }),
    title: Type.String(),
    format: Type.Union([Type.Literal('geojson'), Type.Literal('geoparquet')]),
    licence: Type.Union([Type.String(), Type.Null()], {
      description: 'Licence the boundaries are published under.',
    }),
    attribution: Type.Union([Type.String(), Type.Null()], { description: 'Who to credit.' }),
    boundaryCount: Type.Integer(),
    bbox: Type.Array(Type.Number(), {
      minItems: 4,
      maxItems: 4,
      description: 'minLon, minLat, maxLon, maxLat.',
    }),
  }),
);

const ProviderList = named(
  'ExternalBoundaryProviderList',
  Type.Object({ providers: Type.Array(ProviderSchema) }),
);

const BoundariesQuery = Type.Object(
  {
    bbox: BboxParam,
    providers: Type.Optional(
      Type.String({ maxLength: 2000, description: 'Comma-separated provider ids; default all.' }),
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

const ExternalBoundaryFeature = named(
  'ExternalBoundaryFeature',
  Type.Object({
    type: Type.Literal('Feature'),
    id: Type.String({ description: '<providerId>/<boundaryId>.' }),
    bbox: Type.Array(Type.Number(), { minItems: 4, maxItems: 4 }),
    geometry: Type.Object(
      {
        type: Type.Union([Type.Literal('Polygon'), Type.Literal('MultiPolygon')]),
        coordinates: Type.Array(Type.Unknown()),
      },
      { description: 'WGS84 [lon, lat].' },
    ),
    properties: Type.Object({
      provider: Type.String(),
      boundaryId: Type.String({ description: 'The boundary id in the provider.' }),
      licence: Type.Union([Type.String(), Type.Null()]),
      attribution: Type.Union([Type.String(), Type.Null()]),
      attributes: Type.Record(Type.String(), Type.Unknown(), {
        description: 'The properties the provider published with the boundary.',
      }),
    }),
  }),
);

const ExternalBoundaryCollection = named(
  'ExternalBoundaryCollection',
  Type.Object({
    type: Type.Literal('FeatureCollection'),
    features: Type.Array(ExternalBoundaryFeature),
    total: Type.Integer({ description: 'Boundaries in the box over all pages.' }),
    offset: Type.Integer(),
    limit: Type.Integer(),
    nextOffset: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The offset of the next page; null on the last.',
    }),
  }),
);

const CoverageQuery = Type.Object({ bbox: BboxParam }, { additionalProperties: false });

const Coverage = named(
  'ExternalBoundaryCoverage',
  Type.Object({
    bbox: Type.Array(Type.Number(), { minItems: 4, maxItems: 4 }),
    covered: Type.Boolean({ description: 'Whether any provider has boundaries in the box.' }),
    providers: Type.Array(
      Type.Object({
        providerId: Type.String(),
        title: Type.String(),
        licence: Type.Union([Type.String(), Type.Null()]),
        attribution: Type.Union([Type.String(), Type.Null()]),
        boundaryCount: Type.Integer({ description: 'Its boundaries in the box.' }),
      }),
    ),
  }),
);

const CreateFieldRequest = named(
  'ExternalBoundaryFieldRequest',
  Type.Object(
    {
      farmId: Uuid('The farm the field belongs to.'),
      provider: Type.String({ minLength: 1, maxLength: 200, description: 'The provider id.' }),
      boundaryId: Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'The boundary id in the provider.',
      }),
      name: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: "The field's name; default the boundary id.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const Origin = named(
  'BoundaryOrigin',
  Type.Object({
    provider: Type.String(),
    externalId: Type.String({ description: 'The boundary id in the provider.' }),
    licence: Type.Union([Type.String(), Type.Null()]),
    attribution: Type.Union([Type.String(), Type.Null()]),
  }),
);

const CreateFieldResponse = named(
  'ExternalBoundaryFieldResponse',
  Type.Object({ field: Field, vBoundary: VBoundary, origin: Origin }),
);

/** Parses `minLon,minLat,maxLon,maxLat`; 400 naming the query member otherwise. */
export function parseBbox(text: string, member = 'bbox'): Bbox {
  const parts = text.split(',').map((s) => (s.trim() === '' ? Number.NaN : Number(s)));
  const bad = (message: string) =>
    validationError(
      [{ path: `/querystring/${member}`, message }],
      `Invalid request: ${member} ${message}; found "${text.slice(0, 100)}".`,
    );
  if (parts.length !== 4 || !parts.every(Number.isFinite)) {
    throw bad('must be four numbers minLon,minLat,maxLon,maxLat');
  }
  const [minLon, minLat, maxLon, maxLat] = parts as Bbox;
  if (minLon < -180 || maxLon > 180 || minLat < -90 || maxLat > 90) {
    throw bad('must lie within longitudes -180 to 180 and latitudes -90 to 90');
  }
  if (minLon > maxLon || minLat > maxLat) throw bad('must have minLon <= maxLon and minLat <= maxLat');
  return [minLon, minLat, maxLon, maxLat];
}

const providerBody = (p: BoundaryProviderInfo): Static<typeof ProviderSchema> => ({
  ...p,
  bbox: [...p.bbox],
});

const originBody = (o: BoundaryOrigin): Static<typeof Origin> => ({
  provider: o.provider,
  externalId: o.externalId,
  licence: o.licence,
  attribution: o.attribution,
});

export async function externalBoundaryRoutes(
  app: FastifyInstance,
  opts: { store: Store; catalog: BoundaryCatalog },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store, catalog } = opts;

  const providersOf = (text: string | undefined): string[] | undefined => {
    if (text === undefined) return undefined;
    const list = [
      ...new Set(
        text
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
      ),
    ];
    const unknown = list.filter((p) => !catalog.provider(p));
    if (unknown.length > 0) {
      const known = catalog.providers().map((p) => p.providerId);
      throw validationError(
        [{ path: '/querystring/providers', message: `names unknown provider ${unknown[0]}` }],
        `Invalid request: providers names unknown provider "${unknown[0].slice(0, 100)}"; known: ${known.length ? known.join(', ') : 'none'}.`,
        'UNKNOWN_PROVIDER',
      );
    }
    return list;
  };

  r.get(
    '/api/external-boundaries/providers',
    {
      schema: {
        tags: TAGS,
        summary: 'Providers of public field boundaries',
        description:
          'One provider per file of the boundary sources directory (TRAMLINE_BOUNDARY_SOURCES), with its licence and attribution.',
        response: answers({ 200: { schema: ProviderList, description: 'By provider id.' } }),
      },
    },
    async () => ({ providers: catalog.providers().map(providerBody) }),
  );

  r.get(
    '/api/external-boundaries/boundaries',
    {
      schema: {
        tags: TAGS,
        summary: 'Boundaries in a bounding box',
        description:
          'Boundaries whose bounding box meets the box, from the providers named (default all), as a GeoJSON FeatureCollection; paged with offset and limit (at most 1000 a page), `nextOffset` null on the last page.',
        querystring: BoundariesQuery,
        response: answers({ 200: { schema: ExternalBoundaryCollection, description: 'One page.' } }, 400),
      },
    },
    async (req) => {
      const bbox = parseBbox(req.query.bbox);
      const providers = providersOf(req.query.providers);
      const offset = Number(req.query.offset ?? 0);
      const limit = Number(req.query.limit ?? 100);
      const found = catalog.search(bbox, { providers, offset, limit });
      return {
        type: 'FeatureCollection' as const,
        features: found.boundaries.map((b) => ({
          type: 'Feature' as const,
          id: `${b.provider.providerId}/${b.id}`,
          bbox: [...b.bbox],
          geometry: b.geometry,
          properties: {
            provider: b.provider.providerId,
            boundaryId: b.id,
            licence: b.provider.licence,
            attribution: b.provider.attribution,
            attributes: b.properties,
          },
        })),
        total: found.total,
        offset,
        limit,
        nextOffset: offset + limit < found.total ? offset + limit : null,
      };
    },
  );

  r.get(
    '/api/external-boundaries/coverage',
    {
      schema: {
        tags: TAGS,
        summary: 'Which providers cover a bounding box',
        querystring: CoverageQuery,
        response: answers(
          { 200: { schema: Coverage, description: 'Providers with boundaries in the box.' } },
          400,
        ),
      },
    },
    async (req) => {
      const bbox = parseBbox(req.query.bbox);
      const list = catalog.coverage(bbox);
      return {
        bbox: [...bbox],
        covered: list.length > 0,
        providers: list.map(({ provider: p, boundaryCount }) => ({
          providerId: p.providerId,
          title: p.title,
          licence: p.licence,
          attribution: p.attribution,
          boundaryCount,
        })),
      };
    },
  );

  r.post(
    '/api/external-boundaries/fields',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a field from an external boundary',
        description:
          'Copies one provider boundary into a new field of the farm (its active boundary) in one call and keeps its provider, id, licence and attribution (`origin`). A boundary of several parts is refused (422 EXTERNAL_BOUNDARY_MULTIPART): save its parts as fields of their own.',
        body: CreateFieldRequest,
        response: answers(
          { 201: { schema: CreateFieldResponse, description: 'Created.' } },
          400,
          404,
          413,
          422,
        ),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const { farmId, provider, boundaryId } = req.body;
      const farm = await store.hierarchy.getFarm(userId, farmId);
      if (!farm) throw notFound('farm', farmId);
      if (!catalog.provider(provider)) {
        throw new ApiError(404, 'NOT_FOUND', `No external boundary provider "${provider.slice(0, 100)}".`);
      }
      const ext = catalog.get(provider, boundaryId);
      if (!ext) {
        throw new ApiError(
          404,
          'NOT_FOUND',
          `Provider ${provider} has no boundary "${boundaryId.slice(0, 100)}".`,
        );
      }
      let rings: number[][][];
      if (ext.geometry.type === 'Polygon') rings = ext.geometry.coordinates;
      else if (ext.geometry.coordinates.length === 1) rings = ext.geometry.coordinates[0]!;
      else {
        throw new ApiError(
          422,
          'EXTERNAL_BOUNDARY_MULTIPART',
          `Boundary ${boundaryId} of ${provider} has ${ext.geometry.coordinates.length} parts; a field boundary is one polygon.`,
        );
      }
      const checked = checkRings(rings, '/boundaryId');
      const origin = {
        companyId: farm.companyId,
        provider,
        externalId: ext.id,
        licence: ext.provider.licence,
        attribution: ext.provider.attribution,
      };
      const out = await store.transaction(async (tx) => {
        const made = await tx.hierarchy.createField(farm, {
          name: req.body.name ?? ext.id,
          boundary: { name: `${provider} ${ext.id}`.slice(0, 200), ...checked },
        });
        await tx.boundaryOrigins.record({ boundaryId: made.boundary.boundaryId, ...origin });
        return made;
      });
      setEtag(reply, out.field.version);
      return reply
        .code(201)
        .header('location', `/api/fields/${out.field.fieldId}`)
        .send({
          field: fieldBody(out.field),
          vBoundary: vBoundaryBody(out.boundary),
          origin: originBody({ boundaryId: out.boundary.boundaryId, ...origin }),
        });
    },
  );
}
