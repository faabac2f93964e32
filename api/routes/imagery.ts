/**
 * Satellite and drone imagery of boundaries (NDVI, formats/ndvi.ts):
 *   POST /api/admin/satellite-imagery-processing              a multi-band GeoTIFF of a boundary -> stored NDVI statistics and zones (company admin)
 *   GET  /api/admin/satellite-imagery-processing/{boundaryId}  what is stored (company admin)
 *   GET  /api/boundaries/{boundaryId}/ndvi-zones               the zones as GeoJSON, for every user of the boundary's company
 * Another company's boundary is 404.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { DemError } from '../../formats/dem-geotiff.ts';
import { safeFileName } from '../../formats/file-name.ts';
import { type NdviZones, ndviOfField } from '../../formats/ndvi.ts';
import type { Store } from '../../store/db.ts';
import {
  createBoundaryTerrainRepository,
  type NdviRecord,
} from '../../store/repositories/boundary-terrain.ts';
import { ApiError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers, idParams, notFound, principalOf } from './common.ts';
import { acceptTiffBodies, adminBoundaryOf, DEM_UPLOAD_MAX_BYTES, tiffBody } from './terrain.ts';

/** Cells of an image read at most (4 Mi: a Sentinel-2 tile of 10 m cells is 110 x 110 km; clip it to the farm first). */
const MAX_IMAGE_CELLS = 4 * 1024 * 1024;

const ndviNumber = (d: string) => Type.Optional(Type.Number({ minimum: -1, maximum: 1, description: d }));

const NdviStatisticsSchema = Type.Object(
  {
    redBand: Type.Integer({ description: 'The band taken as red (1-based).' }),
    nirBand: Type.Integer({ description: 'The band taken as near infrared (1-based).' }),
    cells: Type.Integer({ minimum: 0, description: 'Cells inside the boundary with an NDVI.' }),
    noDataCells: Type.Integer({
      minimum: 0,
      description: 'Cells inside the boundary without one (no data in a band, or NIR + red not positive).',
    }),
    cellSize: Type.Number({ description: 'Cell size [m on the ground, about].' }),
    mean: ndviNumber('Mean NDVI.'),
    stdDev: Type.Optional(Type.Number({ minimum: 0, description: 'Standard deviation.' })),
    min: ndviNumber('Lowest NDVI.'),
    max: ndviNumber('Highest NDVI.'),
    p10: ndviNumber('10th percentile (nearest rank).'),
    p25: ndviNumber('25th percentile.'),
    p50: ndviNumber('Median.'),
    p75: ndviNumber('75th percentile.'),
    p90: ndviNumber('90th percentile.'),
  },
  { additionalProperties: false },
);

const NdviZoneCollection = named(
  'NdviZones',
  Type.Object(
    {
      type: Type.Literal('FeatureCollection'),
      features: Type.Array(
        Type.Object(
          {
            type: Type.Literal('Feature'),
            properties: Type.Object(
              {
                zone: Type.Integer({ minimum: 1, description: '1 = lowest NDVI.' }),
                ndviMin: Type.Number(),
                ndviMax: Type.Number(),
                ndviMean: Type.Number(),
                cells: Type.Integer({ minimum: 1 }),
                areaHa: Type.Number({ description: '[ha]' }),
              },
              { additionalProperties: false },
            ),
            geometry: Type.Object({
              type: Type.Literal('MultiPolygon'),
              coordinates: Type.Array(Type.Array(Type.Array(Type.Array(Type.Number())))),
            }),
          },
          { additionalProperties: false },
        ),
      ),
    },
    {
      additionalProperties: false,
      description:
        'NDVI zones of a boundary for variable-rate work: its cells in classes of equal count (quantile breaks), each class one MultiPolygon (WGS84) with its NDVI range, mean, cells and area.',
    },
  ),
);

const BoundaryNdvi = named(
  'BoundaryNdvi',
  Type.Object(
    {
      boundaryId: Type.String({ format: 'uuid' }),
      fileName: Type.String(),
      statistics: NdviStatisticsSchema,
      zones: NdviZoneCollection,
      createdAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false, description: 'NDVI statistics and zones of a boundary from an image.' },
  ),
);

const answerOf = (rec: NdviRecord) => ({
  boundaryId: rec.boundaryId,
  fileName: rec.fileName,
  statistics: rec.statistics,
  zones: rec.zones,
  createdAt: rec.createdAt.toISOString(),
});

export async function imageryRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const { store } = opts;
  const terrain = createBoundaryTerrainRepository(store.db);
  const tags = ['Terrain'];
  acceptTiffBodies(app);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/api/admin/satellite-imagery-processing',
    {
      bodyLimit: DEM_UPLOAD_MAX_BYTES,
      schema: {
        tags,
        summary: 'NDVI statistics and zones of a boundary from a multi-band image',
        description: `Company admins. The body is a georeferenced multi-band GeoTIFF (Content-Type image/tiff or application/octet-stream; at most ${DEM_UPLOAD_MAX_BYTES / 1024 / 1024} MB and ${MAX_IMAGE_CELLS} cells; CRS as for DEMs: EPSG:4326, 3857, WGS 84 / UTM, ETRS89 / UTM) covering the boundary; redBand and nirBand name its red and near-infrared bands (1-based, e.g. 4 and 8 of a Sentinel-2 stack of all bands, 3 and 4 of a blue-green-red-NIR image). NDVI = (NIR - red) / (NIR + red) of every cell whose centre lies inside the boundary gives the statistics (mean, standard deviation, range, 10th to 90th percentiles) and \`zones\` classes of equal count as GeoJSON polygons; stored for the boundary (replacing an earlier image) and answered. 422 IMAGE_INVALID for a file that is no usable image or lacks a band, IMAGE_NOT_COVERING for one away from the boundary.`,
        querystring: Type.Object(
          {
            boundaryId: Type.String({ format: 'uuid', description: 'The boundary the image shows.' }),
            redBand: Type.String({ pattern: '^[1-9][0-9]?$', description: 'Band number of red, 1..99.' }),
            nirBand: Type.String({
              pattern: '^[1-9][0-9]?$',
              description: 'Band number of near infrared, 1..99.',
            }),
            zones: Type.Optional(
              Type.String({ pattern: '^[3-5]$', description: 'Number of NDVI zones, 3..5. Default 5.' }),
            ),
            fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          },
          { additionalProperties: false },
        ),
        response: answers(
          { 201: { schema: BoundaryNdvi, description: 'Stored.' } },
          400,
          403,
          404,
          413,
          415,
          422,
        ),
      },
    },
    async (req, reply) => {
      const q = { ...req.query, redBand: Number(req.query.redBand), nirBand: Number(req.query.nirBand) };
      const b = await adminBoundaryOf(store, req, q.boundaryId);
      const body = tiffBody(req);
      if (q.redBand === q.nirBand)
        throw validationError([
          { path: '/nirBand', message: `must name another band than redBand (both are ${q.redBand})` },
        ]);
      const fileName = safeFileName(q.fileName) ?? 'image.tif';
      let result: Awaited<ReturnType<typeof ndviOfField>>;
      try {
        result = await ndviOfField(body, fileName, b.rings, {
          redBand: q.redBand,
          nirBand: q.nirBand,
          zoneCount: Number(q.zones ?? 5),
          maxCells: MAX_IMAGE_CELLS,
        });
      } catch (e) {
        if (e instanceof DemError)
          throw new ApiError(422, 'IMAGE_INVALID', `The upload is no usable image: ${e.message}`);
        throw e;
      }
      if (!result || result.statistics.cells === 0)
        throw new ApiError(
          422,
          'IMAGE_NOT_COVERING',
          `The image has no cells with an NDVI inside boundary ${b.boundaryId}: it lies elsewhere or holds no data there.`,
        );
      const stored = await terrain.putNdvi({
        boundaryId: b.boundaryId,
        companyId: b.companyId,
        uploadedBy: principalOf(req).userId,
        fileName,
        statistics: { redBand: q.redBand, nirBand: q.nirBand, ...result.statistics },
        zones: result.zones as unknown as Record<string, unknown>,
      });
      return reply.code(201).send(answerOf(stored) as never);
    },
  );

  r.get(
    '/api/admin/satellite-imagery-processing/:boundaryId',
    {
      schema: {
        tags,
        summary: 'The NDVI statistics and zones stored for a boundary',
        description: 'Company admins. 404 NOT_FOUND when no image was processed for it.',
        params: idParams('boundaryId'),
        response: answers(
          { 200: { schema: BoundaryNdvi, description: 'Stored statistics.' } },
          400,
          403,
          404,
        ),
      },
    },
    async (req) => {
      const b = await adminBoundaryOf(store, req, req.params.boundaryId);
      const rec = await terrain.getNdvi(b.boundaryId);
      if (!rec) throw notFound('NDVI statistics of boundary', b.boundaryId);
      return answerOf(rec) as never;
    },
  );

  r.get(
    '/api/boundaries/:boundaryId/ndvi-zones',
    {
      schema: {
        tags,
        summary: "The boundary's NDVI zones as GeoJSON",
        description:
          'The zones of the last image processed for the boundary (POST /api/admin/satellite-imagery-processing), for variable-rate work: a FeatureCollection of one MultiPolygon per zone. 404 NOT_FOUND when none was.',
        params: idParams('boundaryId'),
        response: answers(
          {
            200: { schema: NdviZoneCollection, description: 'The zones.', mediaType: 'application/geo+json' },
          },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const b = await store.hierarchy.getBoundary(principalOf(req).userId, req.params.boundaryId);
      if (!b) throw notFound('boundary', req.params.boundaryId);
      const rec = await terrain.getNdvi(b.boundaryId);
      if (!rec) throw notFound('NDVI zones of boundary', b.boundaryId);
      reply.header('content-type', 'application/geo+json; charset=utf-8');
      return reply.send(JSON.stringify(rec.zones as unknown as NdviZones));
    },
  );
}
