/**
 * Boundary import from uploaded user files:
 *   GET  /api/user-files/{userFileId}/polygons          the polygons a file holds (to choose one)
 *   POST /api/user-files/{userFileId}/import-boundary   one of them as a new boundary of a field
 * Reads zipped shapefiles (any CRS with a .prj), ISOXML task data (zip or
 * TASKDATA.XML), GeoJSON, KML and WKT. A bad file answers 400 saying what
 * is wrong and where (the file in the zip, the record, the coordinate).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { BOUNDARY_FILE_KINDS } from '../../formats/boundary-file.ts';
import type { BoundaryImport, ImportedPolygon } from '../../formats/boundary-import.ts';
import type { Store } from '../../store/db.ts';
import { createUserFilesRepository } from '../../store/repositories/user-files.ts';
import { ApiError, validationError } from '../errors.ts';
import { ErrorResponse, withHeaders } from '../openapi/responses.ts';
import { checkRings } from './boundary-geometry.ts';
import { answers, idParams, notFound, principalOf, Uuid } from './common.ts';
import { VBoundary, vBoundaryBody } from './fields.ts';
import { ARCHIVE_LIMIT_CODES, readerAnswer, type UploadSettings, uploadSettings } from './user-files.ts';

/** What reading a stored file may answer besides its polygons. */
export const readAnswers = {
  422: withHeaders(
    ErrorResponse,
    `The file passes a limit of the server and is not read: ${ARCHIVE_LIMIT_CODES}; XML_DOCTYPE_NOT_ALLOWED is 400. FILE_TOO_COMPLEX when reading takes more time or memory than a file reader has. \`details\` names the limit and its value (limit, limitValue).`,
  ),
  503: withHeaders(ErrorResponse, 'SERVICE_BUSY: every file reader is busy; retry after Retry-After.'),
};

const PolygonItem = Type.Object(
  {
    index: Type.Integer({ description: 'Pass as `polygon` to import this one.' }),
    name: Type.Union([Type.String(), Type.Null()]),
    source: Type.String({ description: 'Where in the file it is (file, record, partfield).' }),
    parts: Type.Integer({ description: 'Polygons in it (a boundary takes one).' }),
    holes: Type.Integer(),
    vertices: Type.Integer(),
    bbox: Type.Array(Type.Number(), { description: '[minLon, minLat, maxLon, maxLat]' }),
    properties: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'ImportablePolygon', title: 'ImportablePolygon' },
);

const describe = (p: ImportedPolygon, index: number) => {
  const polys = p.geometry.type === 'Polygon' ? [p.geometry.coordinates] : p.geometry.coordinates;
  let minLon = Infinity;
  let minLat = Infinity;
  let maxLon = -Infinity;
  let maxLat = -Infinity;
  let vertices = 0;
  for (const poly of polys)
    for (const ring of poly)
      for (const [lon, lat] of ring) {
        vertices++;
        minLon = Math.min(minLon, lon);
        maxLon = Math.max(maxLon, lon);
        minLat = Math.min(minLat, lat);
        maxLat = Math.max(maxLat, lat);
      }
  return {
    index,
    name: p.name,
    source: p.source,
    parts: polys.length,
    holes: polys.reduce((n, q) => n + q.length - 1, 0),
    vertices,
    bbox: [minLon, minLat, maxLon, maxLat],
    properties: p.properties,
  };
};

export async function boundaryImportRoutes(
  app: FastifyInstance,
  opts: { store: Store; uploads?: UploadSettings },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const uploads = opts.uploads ?? uploadSettings();
  if (!opts.uploads) app.addHook('onClose', () => uploads.readers.close());
  const files = createUserFilesRepository(store.db);
  const tags = ['User files'];

  /** The polygons of a stored file, read on a file reader thread within the archive limits. */
  const polygonsOf = async (kind: string, content: Buffer, fileName: string): Promise<BoundaryImport> => {
    if (!BOUNDARY_FILE_KINDS.has(kind))
      throw new ApiError(
        400,
        'UNSUPPORTED_BOUNDARY_FILE',
        `The file ${fileName} is ${kind === 'gpx' ? 'a GPX track' : `of kind '${kind}'`}, which holds no field boundary; import a zipped shapefile, ISOXML task data, GeoJSON, KML, KMZ or WKT.`,
      );
    try {
      return await uploads.readers.read(kind, content, uploads.archiveLimits);
    } catch (e) {
      throw readerAnswer(e, fileName, true);
    }
  };

  const load = async (userId: string, id: string) => {
    const f = await files.content(userId, id);
    if (!f) throw notFound('user file', id);
    return { file: f, found: await polygonsOf(f.kind, f.content, f.fileName) };
  };

  r.get(
    '/api/user-files/:userFileId/polygons',
    {
      schema: {
        tags,
        summary: 'The polygons a file holds',
        description:
          'Reads the file (zipped shapefile in any CRS with a .prj, ISOXML partfields, GeoJSON, KML or KMZ, WKT) and lists its polygons in WGS84, to choose one for import. 400 when the file cannot be read, saying what is wrong and where; 422 when it passes a limit of the server (zips unpack within the archive limits; reading runs on a file reader thread with a time and memory cap).',
        params: idParams('userFileId'),
        response: {
          ...answers(
            {
              200: {
                schema: Type.Object({
                  userFileId: Type.String({ format: 'uuid' }),
                  format: Type.String(),
                  crs: Type.String({ description: 'The coordinate reference system the file named.' }),
                  polygons: Type.Array(PolygonItem),
                }),
                description: 'The polygons.',
              },
            },
            400,
            404,
          ),
          ...readAnswers,
        } as Record<number, unknown>,
      },
    },
    async (req) => {
      const { found } = await load(principalOf(req).userId, req.params.userFileId);
      return {
        userFileId: req.params.userFileId,
        format: found.format,
        crs: found.crs,
        polygons: found.polygons.map(describe),
      };
    },
  );

  r.post(
    '/api/user-files/:userFileId/import-boundary',
    {
      schema: {
        tags,
        summary: 'Import a polygon of a file as a boundary of a field',
        description:
          'Adds the polygon (`polygon`: its index in GET /api/user-files/{userFileId}/polygons; may be left out when the file holds one) as a new boundary of the field, active unless `activate` is false. The field and the file must be of the same company. The rings are checked like any saved boundary (400 FIELD_* naming ring and point).',
        params: idParams('userFileId'),
        body: Type.Object(
          {
            fieldId: Uuid('The field that gets the boundary.'),
            polygon: Type.Optional(
              Type.Integer({ minimum: 0, description: 'Which polygon of the file (default: the only one).' }),
            ),
            name: Type.Optional(
              Type.String({
                maxLength: 200,
                description: "Boundary name (default: the polygon's name in the file).",
              }),
            ),
            activate: Type.Optional(
              Type.Boolean({ description: 'Make it the active boundary (default true).' }),
            ),
          },
          { additionalProperties: false, $id: 'ImportBoundaryRequest', title: 'ImportBoundaryRequest' },
        ),
        response: {
          ...answers(
            {
              201: {
                schema: Type.Object({
                  vBoundary: VBoundary,
                  source: Type.String({ description: 'Where in the file the polygon came from.' }),
                  crs: Type.String(),
                }),
                description: 'The new boundary.',
              },
            },
            400,
            404,
            413,
          ),
          ...readAnswers,
        } as Record<number, unknown>,
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const b = req.body;
      const field = await store.hierarchy.getField(userId, b.fieldId);
      if (!field) throw notFound('field', b.fieldId);
      const { file, found } = await load(userId, req.params.userFileId);
      if (file.companyId !== field.companyId)
        throw notFound('user file', `${req.params.userFileId} in the company of field ${b.fieldId}`);
      const list = found.polygons;
      let index = b.polygon;
      if (index === undefined) {
        if (list.length > 1)
          throw validationError([
            {
              path: '/polygon',
              message: `is required: the file holds ${list.length} polygons (${list
                .slice(0, 5)
                .map((p, i) => `${i}: ${p.name ?? p.source}`)
                .join('; ')}${list.length > 5 ? '; ...' : ''}); see GET /api/user-files/${file.id}/polygons`,
            },
          ]);
        index = 0;
      }
      if (index >= list.length)
        throw validationError([
          { path: '/polygon', message: `must be below ${list.length}, the number of polygons in the file` },
        ]);
      const chosen = list[index];
      if (chosen.geometry.type === 'MultiPolygon' && chosen.geometry.coordinates.length > 1)
        throw validationError([
          {
            path: '/polygon',
            message: `names ${chosen.source}, which has ${chosen.geometry.coordinates.length} separate parts; a boundary is one polygon (with holes): save each part as a field of its own`,
          },
        ]);
      const rings =
        chosen.geometry.type === 'Polygon' ? chosen.geometry.coordinates : chosen.geometry.coordinates[0];
      const checked = checkRings(rings, '/file');
      const made = await store.transaction(async (tx) => {
        const f = await tx.hierarchy.getField(userId, b.fieldId);
        if (!f) throw notFound('field', b.fieldId);
        return tx.hierarchy.addBoundary(f, {
          name: b.name ?? chosen.name ?? file.fileName,
          ...checked,
          active: b.activate ?? true,
        });
      });
      reply.code(201).header('location', `/api/vboundary/${made.boundaryId}`);
      reply.header('etag', `"${made.version}"`);
      return { vBoundary: vBoundaryBody(made), source: chosen.source, crs: found.crs };
    },
  );
}
