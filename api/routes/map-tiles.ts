/**
 * Map tiles of a company's fields and path plans (spec 4.4, "Fields and
 * boundaries" and "Path plans"), as Mapbox Vector Tiles:
 *   POST /api/companies/{companyId}/field-tiles             { z, x, y, filters }: layer `fields`
 *   GET  /api/companies/{companyId}/field-tiles/{fieldId}   one field's tile (?z&x&y, else the tile that holds it)
 *   POST /api/companies/{companyId}/path-plans/tiles        { z, x, y, filters }: layer `pathPlans`
 *   PUT  /api/companies/{companyId}/fields/toggle-enabled   { fieldIds, enabled }
 *
 * The spec shows no payloads; the tile address goes in the body because the
 * filters (lists of ids) can be longer than a URL should be. Each company's
 * tile index is made once per layer and kept until the company's fields
 * (or plans) change: a cheap fingerprint query tells that, so several
 * server processes stay right without telling each other.
 */
import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Feature, Geometry } from 'geojson';
import { type Static, Type } from 'typebox';
import type { PathPlanNormalizedModel } from '../../formats/plan-model.ts';
import {
  encodeTile,
  MAX_TILE_ZOOM,
  MVT_MEDIA_TYPE,
  ringsBbox,
  type TileAddress,
  TileBytesCache,
  TileIndexCache,
  type TileProperties,
  tileCovering,
  tileExists,
  tileLayerIndex,
} from '../../formats/vector-tiles.ts';
import type { Store } from '../../store/db.ts';
import {
  createMapTilesRepository,
  type TileField,
  type TilePlan,
} from '../../store/repositories/map-tiles.ts';
import { ApiError, validationError } from '../errors.ts';
import { answers, idParams, notFound, requireCompany, Uuid } from './common.ts';
import { noneMatch } from './lookups.ts';

const MAX_IDS = 10_000;

const Zoom = Type.Integer({
  minimum: 0,
  maximum: MAX_TILE_ZOOM,
  description: `Zoom level, 0 to ${MAX_TILE_ZOOM}.`,
});
const TileX = Type.Integer({ minimum: 0, description: 'Column, 0 to 2^z - 1 (XYZ scheme, west to east).' });
const TileY = Type.Integer({ minimum: 0, description: 'Row, 0 to 2^z - 1 (XYZ scheme, north to south).' });
const Ids = (what: string) =>
  Type.Optional(
    Type.Array(Uuid(`A ${what} id.`), {
      maxItems: MAX_IDS,
      description: `Only features of these ${what}s (all when left out).`,
    }),
  );

const FieldTilesRequest = Type.Object(
  {
    z: Zoom,
    x: TileX,
    y: TileY,
    fieldIds: Ids('field'),
    farmIds: Ids('farm'),
    growerIds: Ids('grower'),
    includeDisabled: Type.Optional(
      Type.Boolean({ description: 'Also disabled fields (default false: enabled fields only).' }),
    ),
  },
  {
    additionalProperties: false,
    $id: 'FieldTilesRequest',
    title: 'FieldTilesRequest',
    description: 'A tile address (XYZ) and filters; filters given together must all hold.',
  },
);

const PLAN_KINDS = ['outline', 'track', 'headland'] as const;

const PathPlanTilesRequest = Type.Object(
  {
    z: Zoom,
    x: TileX,
    y: TileY,
    pathPlanIds: Ids('path plan'),
    fieldIds: Ids('field'),
    kinds: Type.Optional(
      Type.Array(Type.Union(PLAN_KINDS.map((k) => Type.Literal(k))), {
        minItems: 1,
        uniqueItems: true,
        description:
          'Which features: `outline` (zone boundaries, polygons), `track` (working tracks of the active geometry group), `headland` (headland passes of the active group). Default all.',
      }),
    ),
    includeArchived: Type.Optional(Type.Boolean({ description: 'Also archived plans (default false).' })),
  },
  {
    additionalProperties: false,
    $id: 'PathPlanTilesRequest',
    title: 'PathPlanTilesRequest',
    description: 'A tile address (XYZ) and filters; filters given together must all hold.',
  },
);

const FieldTileQuery = Type.Object(
  {
    z: Type.Optional(Type.String({ pattern: '^[0-9]{1,2}$', description: 'Zoom (with x and y).' })),
    x: Type.Optional(Type.String({ pattern: '^[0-9]{1,8}$', description: 'Column (with z and y).' })),
    y: Type.Optional(Type.String({ pattern: '^[0-9]{1,8}$', description: 'Row (with z and x).' })),
  },
  { additionalProperties: false },
);

const ToggleEnabledRequest = Type.Object(
  {
    fieldIds: Type.Array(Uuid('A field id of the company.'), { minItems: 1, maxItems: MAX_IDS }),
    enabled: Type.Boolean({
      description: 'true: enable; false: disable (left out of field tiles by default).',
    }),
  },
  { additionalProperties: false, $id: 'ToggleFieldsEnabledRequest', title: 'ToggleFieldsEnabledRequest' },
);

const ToggleEnabledResponse = Type.Object(
  {
    fieldIds: Type.Array(Uuid('A field id.'), {
      description: 'All the fields asked for, now in the state asked for.',
    }),
    changed: Type.Array(Uuid('A field id.'), {
      description: 'Those that were in the other state (each got a new version, so a new ETag).',
    }),
    enabled: Type.Boolean(),
  },
  { $id: 'ToggleFieldsEnabledResponse', title: 'ToggleFieldsEnabledResponse' },
);

const Tile = Type.String({
  format: 'binary',
  description: 'Mapbox Vector Tile 2.1 (protobuf), extent 4096.',
});

const tileAnswer = (layer: string) =>
  answers(
    {
      200: {
        schema: Tile,
        mediaType: MVT_MEDIA_TYPE,
        description: `The tile: layer \`${layer}\` (left out when no feature is in the tile; a tile without features has no bytes). ETag with Cache-Control: private, no-cache; If-None-Match gets 304 while the data is unchanged.`,
      },
      304: { schema: null, description: 'Not Modified: If-None-Match named the current ETag.' },
    },
    400,
    403,
    404,
  );

const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;

function fieldFeature(f: TileField): Feature<Geometry, TileProperties> {
  return {
    type: 'Feature',
    geometry: { type: 'Polygon', coordinates: f.rings },
    properties: {
      fieldId: f.fieldId,
      name: f.name,
      growerId: f.growerId,
      farmId: f.farmId,
      areaHa: round(f.area / 10_000, 4),
      enabled: f.enabled,
    },
  };
}

const KIND_OF_PART: Record<string, (typeof PLAN_KINDS)[number] | undefined> = {
  GuidanceTrack: 'track',
  RouteTrack: 'track',
  ExteriorHeadlandPass: 'headland',
  InteriorHeadlandPass: 'headland',
};

/** Zone outlines and the working passes of each zone's active geometry group. */
function planFeatures(p: TilePlan): Feature<Geometry, TileProperties>[] {
  const out: Feature<Geometry, TileProperties>[] = [];
  const base = { pathPlanId: p.pathPlanId, name: p.name, fieldId: p.fieldId, archived: p.archived };
  const model = p.model as PathPlanNormalizedModel;
  for (const zone of model.zones ?? []) {
    out.push({
      type: 'Feature',
      geometry: zone.zoneBoundary,
      properties: { ...base, zoneId: zone.zoneId, kind: 'outline', partType: null },
    });
    const group =
      zone.geometryGroups.find((g) => g.geometryGroupId === zone.activeGeometryGroupId) ??
      zone.geometryGroups.find((g) => g.isActive);
    for (const part of group?.geometryParts ?? []) {
      const kind = KIND_OF_PART[part.geometryPartType];
      if (!kind) continue;
      out.push({
        type: 'Feature',
        geometry: part.geometry,
        properties: { ...base, zoneId: zone.zoneId, kind, partType: part.geometryPartType },
      });
    }
  }
  return out;
}

function checkAddress(a: TileAddress, where: string): void {
  if (!tileExists(a)) {
    const max = 2 ** a.z - 1;
    const bad = a.x > max ? 'x' : 'y';
    throw validationError([
      { path: `${where}/${bad}`, message: `must be at most ${max} at zoom ${a.z} (0 to 2^z - 1)` },
    ]);
  }
}

const inSet = (ids: readonly string[] | undefined) => (ids ? new Set(ids) : undefined);

/**
 * Answers a tile named by `source` (the data's fingerprint, the address and
 * the filters): 304 when If-None-Match names it, else its bytes, made once.
 */
function sendTile(
  req: FastifyRequest,
  reply: FastifyReply,
  tiles: TileBytesCache,
  source: string,
  bytes: () => Uint8Array,
) {
  const etag = `"${createHash('sha256').update(source).digest('base64url').slice(0, 27)}"`;
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (noneMatch(req.headers['if-none-match'], etag)) return reply.code(304).send();
  const out = tiles.get(etag, bytes);
  return reply.type(MVT_MEDIA_TYPE).send(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
}

export interface MapTileOptions {
  store: Store;
  /** Indexes kept (two per company: fields and plans; default 64). */
  cacheSize?: number;
  /** Bytes of encoded tiles kept (default 64 MiB). */
  tileCacheBytes?: number;
}

export async function mapTileRoutes(appBase: FastifyInstance, opts: MapTileOptions): Promise<void> {
  const app = appBase.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const repo = createMapTilesRepository(store.db);
  const cache = new TileIndexCache(opts.cacheSize ?? 64);
  const tiles = new TileBytesCache(opts.tileCacheBytes);

  const fieldIndex = async (companyId: string) => {
    const fp = await repo.fingerprint(companyId, 'fields');
    const index = await cache.get(`${companyId}:fields`, fp, async () =>
      tileLayerIndex((await repo.fields(companyId)).map(fieldFeature)),
    );
    return { fp, index };
  };
  const planIndex = async (companyId: string) => {
    const fp = await repo.fingerprint(companyId, 'plans');
    const index = await cache.get(`${companyId}:plans`, fp, async () =>
      tileLayerIndex((await repo.plans(companyId)).flatMap(planFeatures)),
    );
    return { fp, index };
  };

  /** Filters name only the company's records: an id of another company (or none) is 404, as everywhere. */
  const knownIds = async (companyId: string, filters: Parameters<typeof repo.foreignIds>[1]) => {
    const foreign = await repo.foreignIds(companyId, filters);
    if (foreign.length > 0) {
      throw new ApiError(
        404,
        'NOT_FOUND',
        `No ${foreign.length === 1 ? 'record' : 'records'} ${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ` (and ${foreign.length - 5} more)` : ''} in company ${companyId}; filters take the company's own ids.`,
        { details: { ids: foreign.slice(0, 100) } },
      );
    }
  };

  const tags = ['Fields and boundaries'];
  const params = idParams('companyId');

  app.post(
    '/api/companies/:companyId/field-tiles',
    {
      schema: {
        tags,
        summary: 'A vector tile of the company’s fields',
        description:
          'Answers the Mapbox Vector Tile (`application/vnd.mapbox-vector-tile`) at the XYZ address `{ z, x, y }` of the body, with one layer `fields`: the active boundary of each field as a polygon, properties fieldId, name, growerId, farmId, areaHa (hectares) and enabled. Disabled fields are left out unless `includeDisabled`; `fieldIds`, `farmIds` and `growerIds` narrow it further. The address is in the body (not the path) so that filters of many ids fit; an id in a filter that is not the company’s answers 404. The company’s tile index is made once and kept until its fields change.',
        params,
        body: FieldTilesRequest,
        response: tileAnswer('fields'),
      },
    },
    async (req, reply) => {
      const { companyId } = req.params;
      const b = req.body;
      checkAddress(b, '');
      await requireCompany(store, req, companyId);
      await knownIds(companyId, b);
      const { fp, index } = await fieldIndex(companyId);
      const fieldIds = inSet(b.fieldIds);
      const farmIds = inSet(b.farmIds);
      const growerIds = inSet(b.growerIds);
      const keep = (p: TileProperties) =>
        (b.includeDisabled === true || p.enabled === true) &&
        (!fieldIds || fieldIds.has(p.fieldId as string)) &&
        (!farmIds || farmIds.has(p.farmId as string)) &&
        (!growerIds || growerIds.has(p.growerId as string));
      return sendTile(req, reply, tiles, `fields:${companyId}:${fp}:${JSON.stringify(b)}`, () =>
        encodeTile({ fields: index.features(b, keep) }),
      );
    },
  );

  app.get(
    '/api/companies/:companyId/field-tiles/:fieldId',
    {
      schema: {
        tags,
        summary: 'A vector tile of one field',
        description:
          'The Mapbox Vector Tile (layer `fields`, properties as in POST .../field-tiles) holding only this field, enabled or not. With `?z=&x=&y=` the tile at that address (without bytes when the field is not in it); without them the tile at the deepest zoom up to 18 that holds the whole field, whose address is answered in the `X-Tile-Address` header as `z/x/y`. 404 when the field is not the company’s; 409 NO_ACTIVE_BOUNDARY when it has no active boundary.',
        params: idParams('companyId', 'fieldId'),
        querystring: FieldTileQuery,
        response: tileAnswer('fields'),
      },
    },
    async (req, reply) => {
      const { companyId, fieldId } = req.params;
      const q = req.query as Static<typeof FieldTileQuery>;
      const given = [q.z, q.x, q.y].filter((v) => v !== undefined).length;
      if (given !== 0 && given !== 3) {
        const missing = (['z', 'x', 'y'] as const).find((k) => q[k] === undefined)!;
        throw validationError([
          { path: `/querystring/${missing}`, message: 'is needed with the other two of z, x, y' },
        ]);
      }
      let address: TileAddress | undefined;
      if (given === 3) {
        address = { z: Number(q.z), x: Number(q.x), y: Number(q.y) };
        if (address.z > MAX_TILE_ZOOM) {
          throw validationError([{ path: '/querystring/z', message: `must be at most ${MAX_TILE_ZOOM}` }]);
        }
        checkAddress(address, '/querystring');
      }
      await requireCompany(store, req, companyId);
      const field = await repo.field(companyId, fieldId);
      if (field === null) throw notFound('field', fieldId);
      if (field === 'no-boundary') {
        throw new ApiError(409, 'NO_ACTIVE_BOUNDARY', `Field ${fieldId} has no active boundary to show.`);
      }
      address ??= tileCovering(ringsBbox(field.rings));
      reply.header('x-tile-address', `${address.z}/${address.x}/${address.y}`);
      const { fp, index } = await fieldIndex(companyId);
      const at = address;
      return sendTile(req, reply, tiles, `field:${companyId}:${fp}:${fieldId}:${at.z}/${at.x}/${at.y}`, () =>
        encodeTile({ fields: index.features(at, (p) => p.fieldId === fieldId) }),
      );
    },
  );

  app.post(
    '/api/companies/:companyId/path-plans/tiles',
    {
      schema: {
        tags: ['Path plans'],
        summary: 'A vector tile of the company’s path plans',
        description:
          'Answers the Mapbox Vector Tile (`application/vnd.mapbox-vector-tile`) at the XYZ address `{ z, x, y }` of the body, with one layer `pathPlans`: for each plan, its zone outlines (polygons, kind `outline`) and the working passes of each zone’s active geometry group (lines, kind `track` or `headland`, partType as in the plan model); properties pathPlanId, name, fieldId, zoneId, kind, partType, archived. Turns and connectors are left out. Archived plans are left out unless `includeArchived`; `pathPlanIds`, `fieldIds` and `kinds` narrow it further (an id that is not the company’s answers 404). The company’s tile index is made once and kept until its plans change.',
        params,
        body: PathPlanTilesRequest,
        response: tileAnswer('pathPlans'),
      },
    },
    async (req, reply) => {
      const { companyId } = req.params;
      const b = req.body;
      checkAddress(b, '');
      await requireCompany(store, req, companyId);
      await knownIds(companyId, b);
      const { fp, index } = await planIndex(companyId);
      const planIds = inSet(b.pathPlanIds);
      const fieldIds = inSet(b.fieldIds);
      const kinds = inSet(b.kinds);
      const keep = (p: TileProperties) =>
        (b.includeArchived === true || p.archived !== true) &&
        (!planIds || planIds.has(p.pathPlanId as string)) &&
        (!fieldIds || fieldIds.has(p.fieldId as string)) &&
        (!kinds || kinds.has(p.kind as string));
      return sendTile(req, reply, tiles, `plans:${companyId}:${fp}:${JSON.stringify(b)}`, () =>
        encodeTile({ pathPlans: index.features(b, keep) }),
      );
    },
  );

  app.put(
    '/api/companies/:companyId/fields/toggle-enabled',
    {
      schema: {
        tags,
        summary: 'Enable or disable fields',
        description:
          'Sets `enabled` of the listed fields of the company. Disabled fields stay stored and readable but are left out of field tiles unless asked for. All or nothing: when an id is not a field of the company, 404 names it and nothing changes.',
        params,
        body: ToggleEnabledRequest,
        response: answers(
          { 200: { schema: ToggleEnabledResponse, description: 'The fields are in the state asked for.' } },
          400,
          403,
          404,
        ),
      },
    },
    async (req) => {
      const { companyId } = req.params;
      await requireCompany(store, req, companyId);
      const { fieldIds, enabled } = req.body;
      const out = await repo.setEnabled(companyId, fieldIds, enabled);
      if (!out.ok) throw notFound('field', out.unknown.join(', '));
      return { fieldIds: [...new Set(fieldIds)], changed: out.changed, enabled };
    },
  );
}
