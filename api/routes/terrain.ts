/**
 * Terrain of stored boundaries and plans:
 *   PUT  /api/admin/dem-raster/{boundaryId}            upload a DEM (GeoTIFF) for a boundary (company admin)
 *   GET  /api/admin/dem-raster/{boundaryId}            the boundary's DEM clipped to it, as GeoTIFF (company admin)
 *   GET  /api/admin/dem-execute/boundary/{boundaryId}  (re)compute and store the boundary's slope analysis (company admin)
 *   POST /api/pathplan/{pathPlanId}/slopes             add slopes to a stored plan
 *   GET  /api/boundaries/{boundaryId}/slope-classes    the boundary's ground in slope classes as GeoJSON (the planning view shades it)
 * The ground of a boundary is its uploaded DEM when it has one, else the
 * server's DEM files (TRAMLINE_DEM_DIR) covering it; neither: 422
 * DEM_NOT_AVAILABLE. Another company's boundary or plan is 404.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { DemError, type DemRaster, openDemWindow, readDemBytes } from '../../formats/dem-geotiff.ts';
import { type DemIndex, geoJsonBBox } from '../../formats/dem-index.ts';
import { boundarySlopeClasses, boundarySlopes, modelWithSlopes } from '../../formats/dem-slopes.ts';
import { clipDem, demGeoTiff } from '../../formats/dem-write.ts';
import { safeFileName } from '../../formats/file-name.ts';
import type { Store } from '../../store/db.ts';
import { createBoundaryTerrainRepository } from '../../store/repositories/boundary-terrain.ts';
import type { BoundaryRecord } from '../../store/repositories/hierarchy.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { versionMatches } from '../../store/repositories/versions.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { PathPlanNormalizedModel as ModelSchema } from '../openapi/responses.ts';
import {
  answers,
  idParams,
  ifMatchVersion,
  notFound,
  optionalBody,
  preconditionFailed,
  principalOf,
  requireCompany,
  setEtag,
} from './common.ts';

/** Largest DEM upload [bytes]: 16 Mi Float32 cells. */
export const DEM_UPLOAD_MAX_BYTES = 64 * 1024 * 1024;
/** Cells of an uploaded DEM kept round the boundary, for the slope at its edge. */
const UPLOAD_MARGIN_CELLS = 3;

export const BoundaryDem = named(
  'BoundaryDem',
  Type.Object(
    {
      boundaryId: Type.String({ format: 'uuid' }),
      fileName: Type.String(),
      epsg: Type.Integer({ description: 'EPSG code of the DEM grid.' }),
      width: Type.Integer({ description: 'Cells kept across (the boundary extent and 3 cells round it).' }),
      height: Type.Integer(),
      cellSize: Type.Number({ description: 'Cell size [m on the ground, about].' }),
      size: Type.Integer({ description: 'Bytes stored (the clipped GeoTIFF).' }),
      coversBoundary: Type.Boolean({
        description: 'Whether the DEM reaches over the whole extent of the boundary.',
      }),
      createdAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false, description: 'A DEM stored for a boundary.' },
  ),
);

const pct = (d: string) => Type.Optional(Type.Number({ description: `${d} [%]` }));

export const BoundarySlopeAnalysis = named(
  'BoundarySlopeAnalysis',
  Type.Object(
    {
      boundaryId: Type.String({ format: 'uuid' }),
      source: Type.Union([Type.Literal('upload'), Type.Literal('directory')], {
        description: "'upload': the boundary's own DEM; 'directory': the server's DEM files.",
      }),
      step: Type.Number({ description: 'Spacing of the sample grid over the boundary [m].' }),
      samples: Type.Integer({ minimum: 0, description: 'Grid points with ground data.' }),
      noDataSamples: Type.Integer({
        minimum: 0,
        description: 'Grid points without ground data (outside the DEM, no-data cells); not in the figures.',
      }),
      meanSlopePercent: pct('Mean steepest slope'),
      maxSlopePercent: pct('Steepest slope'),
      p90SlopePercent: pct('Slope exceeded on a tenth of the area'),
      minElevation: Type.Optional(Type.Number({ description: '[m]' })),
      maxElevation: Type.Optional(Type.Number({ description: '[m]' })),
      areaShareAbove2Percent: pct('Share of the area (with ground data) steeper than 2 %'),
      areaShareAbove5Percent: pct('The same over 5 %'),
      areaShareAbove10Percent: pct('The same over 10 %'),
      computedAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false, description: "A boundary's slope analysis from its DEM." },
  ),
);

/** This plugin's routes take GeoTIFF bodies (image/tiff, application/octet-stream) of up to DEM_UPLOAD_MAX_BYTES. */
export function acceptTiffBodies(app: FastifyInstance): void {
  app.addContentTypeParser(
    ['image/tiff', 'application/octet-stream'],
    { parseAs: 'buffer', bodyLimit: DEM_UPLOAD_MAX_BYTES },
    (_req, body, done) => done(null, body),
  );
}

/** The body of a GeoTIFF upload (415 when there is none). */
export function tiffBody(req: FastifyRequest): Buffer {
  const body = req.body as unknown;
  if (!Buffer.isBuffer(body) || body.length === 0) {
    throw new ApiError(
      415,
      'UNSUPPORTED_FILE_TYPE',
      'Send the GeoTIFF as the request body with Content-Type image/tiff or application/octet-stream.',
    );
  }
  return body;
}

/** The boundary, when the caller is an admin of its company (404 without access, 403 as a member). */
export async function adminBoundaryOf(
  store: Store,
  req: FastifyRequest,
  boundaryId: string,
): Promise<BoundaryRecord> {
  const b = await store.hierarchy.getBoundary(principalOf(req).userId, boundaryId);
  if (!b) throw notFound('boundary', boundaryId);
  await requireCompany(store, req, b.companyId, 'admin');
  return b;
}

const SlopeClasses = named(
  'SlopeClasses',
  Type.Object(
    {
      type: Type.Literal('FeatureCollection'),
      features: Type.Array(
        Type.Object({
          type: Type.Literal('Feature'),
          properties: Type.Object({
            slopeClass: Type.String({ description: "'0-2 %', '2-5 %', '5-10 %' or 'over 10 %'." }),
            classIndex: Type.Integer({ minimum: 0, maximum: 3 }),
            min: Type.Number({ description: 'Lowest slope of its cells [%].' }),
            max: Type.Number({ description: 'Steepest [%].' }),
            mean: Type.Number({ description: 'Mean [%].' }),
            cells: Type.Integer({ minimum: 1 }),
            areaHa: Type.Number({ description: '[ha]' }),
          }),
          geometry: Type.Object({
            type: Type.Literal('MultiPolygon'),
            coordinates: Type.Array(Type.Array(Type.Array(Type.Array(Type.Number())))),
          }),
        }),
      ),
    },
    { description: "A boundary's ground in slope classes (GeoJSON, WGS84)." },
  ),
);

interface Ground {
  source: 'upload' | 'directory';
  rasters: DemRaster[];
}

export async function terrainRoutes(
  app: FastifyInstance,
  opts: { store: Store; dems?: DemIndex },
): Promise<void> {
  const { store, dems } = opts;
  const terrain = createBoundaryTerrainRepository(store.db);
  const plans = createPathPlansRepository(store.db);
  const tags = ['Terrain'];
  acceptTiffBodies(app);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const adminBoundary = (req: FastifyRequest, boundaryId: string) => adminBoundaryOf(store, req, boundaryId);

  const unavailable = (what: string, bbox: number[], why: string) =>
    new ApiError(
      422,
      'DEM_NOT_AVAILABLE',
      `No elevation model covers ${what} (extent ${bbox.map((v) => Math.round(v * 1e6) / 1e6).join(', ')} as minLon, minLat, maxLon, maxLat) ${why}. Upload one with PUT /api/admin/dem-raster/{boundaryId}, or add a GeoTIFF DEM to the server's DEM directory.`,
      { details: { bbox } },
    );

  /** The ground over a WGS84 extent: the boundary's upload, else the server's DEM files. */
  const groundFor = async (
    what: string,
    boundaryId: string | null,
    bbox: [number, number, number, number],
  ): Promise<Ground> => {
    const stored = boundaryId ? await terrain.getDem(boundaryId) : null;
    if (stored) {
      try {
        return { source: 'upload', rasters: [(await readDemBytes(stored.content, stored.fileName)).raster] };
      } catch (e) {
        if (e instanceof DemError) throw unavailable(what, bbox, '(its stored DEM cannot be read)');
        throw e;
      }
    }
    try {
      const found = dems ? await dems.find(bbox) : [];
      if (!found.length)
        throw unavailable(what, bbox, dems ? 'on this server' : '(this server has no DEM directory)');
      return {
        source: 'directory',
        rasters: await Promise.all(found.map((d) => openDemWindow(d.path, bbox))),
      };
    } catch (e) {
      if (e instanceof DemError)
        throw unavailable(what, bbox, '(the DEM files of this server cannot be read)');
      throw e;
    }
  };

  const ringsBBox = (rings: number[][][]) => geoJsonBBox({ type: 'Polygon', coordinates: rings });

  r.put(
    '/api/admin/dem-raster/:boundaryId',
    {
      bodyLimit: DEM_UPLOAD_MAX_BYTES,
      schema: {
        tags,
        summary: 'Upload a DEM for a boundary',
        description: `Company admins. The body is a GeoTIFF or Cloud Optimized GeoTIFF elevation model (Content-Type image/tiff or application/octet-stream; at most ${DEM_UPLOAD_MAX_BYTES / 1024 / 1024} MB and 16 Mi cells): the first band in metres, the CRS an EPSG code of WGS 84 (4326), Web Mercator (3857), WGS 84 / UTM or ETRS89 / UTM in its GeoKeys, no-data cells as GDAL_NODATA. Its cells over the boundary's extent and 3 cells round it are stored (as a Float32 GeoTIFF in the DEM's CRS) and replace an earlier upload; from then on the boundary's slope analysis (GET /api/admin/dem-execute/boundary/{boundaryId}) and the slopes of its stored plans (POST /api/pathplan/{pathPlanId}/slopes) use it instead of the server's DEM files. 422 DEM_INVALID for a file that is no usable DEM, DEM_NOT_AVAILABLE for one that does not reach the boundary.`,
        params: idParams('boundaryId'),
        querystring: Type.Object(
          {
            fileName: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 255,
                description: 'Name of the upload (default dem.tif).',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: answers(
          { 201: { schema: BoundaryDem, description: 'Stored.' } },
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
      const b = await adminBoundary(req, req.params.boundaryId);
      const body = tiffBody(req);
      const fileName = safeFileName(req.query.fileName) ?? 'dem.tif';
      let raster: DemRaster;
      try {
        raster = (await readDemBytes(body, fileName, 16 * 1024 * 1024)).raster;
      } catch (e) {
        if (e instanceof DemError)
          throw new ApiError(422, 'DEM_INVALID', `The upload is no usable DEM: ${e.message}`);
        throw e;
      }
      const bbox = ringsBBox(b.rings);
      const grid = clipDem(raster, [b.rings], { marginCells: UPLOAD_MARGIN_CELLS });
      if (!grid) throw unavailable(`boundary ${b.boundaryId}`, bbox, '(the uploaded DEM lies elsewhere)');
      const corners = [
        [bbox[0], bbox[1]],
        [bbox[2], bbox[1]],
        [bbox[0], bbox[3]],
        [bbox[2], bbox[3]],
      ];
      const covers = corners.every(([lon, lat]) => inGrid(raster, lon, lat));
      const stored = await terrain.putDem({
        boundaryId: b.boundaryId,
        companyId: b.companyId,
        uploadedBy: principalOf(req).userId,
        fileName,
        epsg: grid.epsg,
        width: grid.width,
        height: grid.height,
        cellSize: raster.cellSize,
        content: Buffer.from(demGeoTiff(grid)),
      });
      return reply.code(201).send({
        boundaryId: stored.boundaryId,
        fileName: stored.fileName,
        epsg: stored.epsg,
        width: stored.width,
        height: stored.height,
        cellSize: stored.cellSize,
        size: stored.size,
        coversBoundary: covers,
        createdAt: stored.createdAt.toISOString(),
      });
    },
  );

  r.get(
    '/api/admin/dem-raster/:boundaryId',
    {
      schema: {
        tags,
        summary: "A boundary's DEM clipped to it, as GeoTIFF",
        description:
          "Company admins. The boundary's elevation model (its upload, else the server's DEM files covering it; X-DEM-Source says which) over the boundary's extent, cells whose centre lies outside the boundary or in its holes set to no data: a single-band Float32 GeoTIFF in the DEM's CRS, GDAL_NODATA -9999. 422 DEM_NOT_AVAILABLE without one.",
        params: idParams('boundaryId'),
        response: answers(
          {
            200: {
              schema: Type.String({ format: 'binary' }),
              description: 'The GeoTIFF.',
              mediaType: 'image/tiff',
            },
          },
          400,
          403,
          404,
          422,
        ),
      },
    },
    async (req, reply) => {
      const b = await adminBoundary(req, req.params.boundaryId);
      const bbox = ringsBBox(b.rings);
      const ground = await groundFor(`boundary ${b.boundaryId}`, b.boundaryId, bbox);
      // The finest DEM reaching the boundary (the index answers the finest first).
      const grid = ground.rasters
        .map((d) => clipDem(d, [b.rings], { marginCells: 0, mask: true }))
        .find((g) => g);
      if (!grid) throw unavailable(`boundary ${b.boundaryId}`, bbox, 'on this server');
      return reply
        .header('content-type', 'image/tiff')
        .header('content-disposition', `attachment; filename="${b.boundaryId}-dem.tif"`)
        .header('x-dem-source', ground.source)
        .send(Buffer.from(demGeoTiff(grid)));
    },
  );

  r.get(
    '/api/admin/dem-execute/boundary/:boundaryId',
    {
      schema: {
        tags,
        summary: "Compute a boundary's slope analysis",
        description:
          "Company admins. (Re)computes the slope analysis of the boundary from its elevation model (its upload, else the server's DEM files) and stores it: the steepest slope at grid points over the boundary (every DEM cell, at least 1 m apart, at most 250,000 points), its mean, maximum and 90th percentile, the elevation range and the share of the area steeper than 2, 5 and 10 %. Answers the analysis. 422 DEM_NOT_AVAILABLE without a DEM.",
        params: idParams('boundaryId'),
        response: answers(
          { 200: { schema: BoundarySlopeAnalysis, description: 'The analysis, stored.' } },
          400,
          403,
          404,
          422,
        ),
      },
    },
    async (req) => {
      const b = await adminBoundary(req, req.params.boundaryId);
      const ground = await groundFor(`boundary ${b.boundaryId}`, b.boundaryId, ringsBBox(b.rings));
      const analysis = boundarySlopes(b.rings, ground.rasters);
      const stored = await terrain.putSlopeAnalysis({
        boundaryId: b.boundaryId,
        companyId: b.companyId,
        source: ground.source,
        analysis: { ...analysis },
      });
      return {
        boundaryId: b.boundaryId,
        source: ground.source,
        ...analysis,
        computedAt: stored.computedAt.toISOString(),
      };
    },
  );

  r.get(
    '/api/boundaries/:boundaryId/slope-classes',
    {
      schema: {
        tags,
        summary: "The boundary's ground in slope classes, as GeoJSON",
        description:
          "For every user of the boundary's company (the planning view shades the field with it). The steepest slope of the ground at the cells of the boundary's elevation model (its upload, else the server's DEM files; every k-th cell each way on fine DEMs, at most 40,000 cells) in four classes, 0-2, 2-5, 5-10 and over 10 %: a FeatureCollection with one MultiPolygon per class present, its properties slopeClass, classIndex (0..3), min, max and mean slope [%], cells and areaHa. 422 DEM_NOT_AVAILABLE without a DEM.",
        params: idParams('boundaryId'),
        response: answers(
          { 200: { schema: SlopeClasses, description: 'The classes.', mediaType: 'application/geo+json' } },
          400,
          404,
          422,
        ),
      },
    },
    async (req, reply) => {
      const b = await store.hierarchy.getBoundary(principalOf(req).userId, req.params.boundaryId);
      if (!b) throw notFound('boundary', req.params.boundaryId);
      const bbox = ringsBBox(b.rings);
      const ground = await groundFor(`boundary ${b.boundaryId}`, b.boundaryId, bbox);
      const classes = boundarySlopeClasses(b.rings, ground.rasters);
      if (!classes) throw unavailable(`boundary ${b.boundaryId}`, bbox, 'on this server');
      reply.header('content-type', 'application/geo+json; charset=utf-8');
      return reply.send(JSON.stringify(classes));
    },
  );

  r.post(
    '/api/pathplan/:pathPlanId/slopes',
    {
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'Add slopes to a stored plan',
        description:
          "Samples the ground under every geometry part of the stored plan (the DEM uploaded for its boundary, else the server's DEM files covering it) and stores the plan with them: slopeDetails on every part, slopeSummary on every zone and on the plan, as includeSlopes gives a direct plan. With maxCrossSlopePercent, the parts steeper sideways are flagged (exceedsMaxCrossSlope) and the zone warnings name the driven ones (replacing those of an earlier analysis). If-Match honoured (412 when the plan changed). Answers the plan. 422 DEM_NOT_AVAILABLE without a DEM.",
        params: idParams('pathPlanId'),
        body: Type.Object(
          {
            maxCrossSlopePercent: Type.Optional(
              Type.Number({
                exclusiveMinimum: 0,
                maximum: 100,
                description: "The machine's limit of sideways slope [%] to flag parts against.",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: answers(
          { 200: { schema: ModelSchema, description: 'The plan with slopes.' } },
          400,
          404,
          412,
          422,
        ),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const id = req.params.pathPlanId;
      const plan = await plans.get(userId, id);
      if (!plan) throw notFound('path plan', id);
      const expected = ifMatchVersion(req);
      if (expected !== undefined && !versionMatches(expected, plan.version))
        throw preconditionFailed('path plan', id, plan.version);
      const bbox = geoJsonBBox(plan.model.boundary);
      const ground = await groundFor(`path plan ${id}`, plan.boundaryId, bbox);
      const limit = (req.body as { maxCrossSlopePercent?: number }).maxCrossSlopePercent;
      const model = modelWithSlopes(
        plan.model,
        ground.rasters,
        limit !== undefined ? { maxCrossSlopePercent: limit } : {},
      );
      if (!(await plans.replaceModelIfVersion(userId, id, model, plan.version)))
        throw preconditionFailed('path plan', id);
      setEtag(reply, plan.version + 1);
      reply.header('content-type', 'application/json; charset=utf-8');
      return reply.send(JSON.stringify(model));
    },
  );
}

/** Whether WGS84 lon/lat lies on the DEM's grid of cells (its outer edges). */
function inGrid(dem: DemRaster, lon: number, lat: number): boolean {
  const [x, y] = dem.fromLonLat(lon, lat);
  const c = (x - dem.x0) / dem.dx;
  const r = (y - dem.y0) / dem.dy;
  return c >= -0.5 && r >= -0.5 && c <= dem.width - 0.5 && r <= dem.height - 0.5;
}
