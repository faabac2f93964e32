/**
 * Imported guidance lines (spec 4.4, "Reference lines"): lines a company
 * brings from farm software, kept in groups, to plan along.
 *   POST   /api/companies/{companyId}/imported-lines   import a group: from a user file
 *          (ISOXML guidance patterns, polyline shapefile, KML/KMZ, GeoJSON) or GeoJSON LineStrings in the body
 *   GET    /api/boundaries/{boundaryId}/imported-lines the company's imported lines meeting the boundary
 *   DELETE /api/companies/{companyId}/imported-lines   delete all groups, or one (?importedLineGroup=id)
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PlanningError } from '../../core/types/index.ts';
import {
  bboxOf,
  LINE_FILE_KINDS,
  type LineImport,
  limitLines,
  lineMeetsPolygon,
  readGeojsonLines,
} from '../../formats/imported-lines.ts';
import type { Database } from '../../store/database.ts';
import type { Store } from '../../store/db.ts';
import { createImportedLinesRepository } from '../../store/repositories/imported-lines.ts';
import { createUserFilesRepository } from '../../store/repositories/user-files.ts';
import { ApiError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { readAnswers } from './boundary-import.ts';
import { answers, idParams, iso, notFound, principalOf, requireCompany, Uuid } from './common.ts';
import { readerAnswer, type UploadSettings, uploadSettings } from './user-files.ts';

const GeoJsonInput = Type.Object(
  {
    type: Type.Union(
      ['FeatureCollection', 'Feature', 'LineString', 'MultiLineString', 'GeometryCollection'].map((t) =>
        Type.Literal(t),
      ),
    ),
  },
  {
    additionalProperties: true,
    description:
      "GeoJSON in WGS84 [lon, lat]: a FeatureCollection, Feature or geometry; its LineString and MultiLineString geometries are the lines (a feature's `properties.name` names its line).",
  },
);

const ImportLinesRequest = named(
  'ImportLinesRequest',
  Type.Object(
    {
      userFileId: Type.Optional(
        Uuid(
          'A file uploaded to the company (POST /api/companies/{companyId}/user-files/file-upload): ISOXML task data (zip or TASKDATA.XML; its guidance patterns), a zipped polyline shapefile (any CRS with a .prj), KML or KMZ (LineString placemarks) or GeoJSON.',
        ),
      ),
      lines: Type.Optional(GeoJsonInput),
      name: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description:
            "The group's name (default: the file's name, or 'Imported lines' for lines in the request).",
        }),
      ),
    },
    {
      additionalProperties: false,
      description: 'Exactly one of `userFileId` and `lines`.',
    },
  ),
);

const ImportedLineGroup = named(
  'ImportedLineGroup',
  Type.Object(
    {
      importedLineGroupId: Uuid('The group.'),
      companyId: Uuid('Its company.'),
      name: Type.String(),
      source: Type.Union(
        [Type.Literal('isoxml'), Type.Literal('kml'), Type.Literal('geojson'), Type.Literal('shapefile')],
        {
          description: 'The format the lines came in.',
        },
      ),
      userFileId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
        description: 'The file they were read from; null for lines given in the request.',
      }),
      lineCount: Type.Integer({ description: 'Lines imported.' }),
      skipped: Type.Integer({
        description:
          'Guidance patterns left out because they have fewer than two points (a pivot by its centre).',
      }),
      createdAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
);

const ImportedLinesFeatureCollection = named(
  'ImportedLinesFeatureCollection',
  Type.Object(
    {
      type: Type.Literal('FeatureCollection'),
      features: Type.Array(
        Type.Object(
          {
            type: Type.Literal('Feature'),
            id: Type.String({ format: 'uuid' }),
            geometry: Type.Object(
              {
                type: Type.Literal('LineString'),
                coordinates: Type.Array(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }), {
                  minItems: 2,
                }),
              },
              { additionalProperties: false },
            ),
            properties: Type.Object(
              {
                importedLineId: Uuid('The line.'),
                importedLineGroupId: Uuid('Its group.'),
                groupName: Type.String(),
                source: Type.String({
                  description: "The group's format: isoxml, shapefile, kml or geojson.",
                }),
                name: Type.Union([Type.String(), Type.Null()], { description: 'The name in the file.' }),
                origin: Type.String({ description: 'Where in the file the line came from.' }),
                patternType: Type.Union([Type.String(), Type.Null()], {
                  description: 'ISOXML guidance pattern type: ab, aPlus, curve, pivot, spiral; else null.',
                }),
              },
              { additionalProperties: false },
            ),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

const DeleteImportedLinesResponse = named(
  'DeleteImportedLinesResponse',
  Type.Object(
    {
      deletedGroups: Type.Integer(),
      deletedLines: Type.Integer(),
    },
    { additionalProperties: false },
  ),
);

export async function importedLineRoutes(
  app: FastifyInstance,
  opts: { store: Store; uploads?: UploadSettings },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const uploads = opts.uploads ?? uploadSettings();
  if (!opts.uploads) app.addHook('onClose', () => uploads.readers.close());
  const files = createUserFilesRepository(store.db);
  const repo = createImportedLinesRepository(store.db);
  const tags = ['Reference lines'];

  /** The lines of a stored file of the company, read on a file reader thread. */
  const fromFile = async (userId: string, companyId: string, userFileId: string) => {
    const f = await files.content(userId, userFileId);
    if (!f || f.companyId !== companyId) throw notFound('user file', userFileId);
    if (!LINE_FILE_KINDS.has(f.kind))
      throw new ApiError(
        400,
        'UNSUPPORTED_LINE_FILE',
        `The file ${f.fileName} is of kind '${f.kind}', which holds no guidance lines this service reads; import ISOXML task data (zip or TASKDATA.XML, guidance patterns), a zipped polyline shapefile, KML, KMZ or GeoJSON with LineStrings.`,
        { errors: [{ path: '/userFileId', message: `is a file of kind '${f.kind}'` }] },
      );
    try {
      return { file: f, found: await uploads.readers.readLines(f.kind, f.content, uploads.archiveLimits) };
    } catch (e) {
      throw readerAnswer(e, f.fileName, true);
    }
  };

  /** The lines given in the request. */
  const fromBody = (lines: unknown): LineImport => {
    try {
      const found = readGeojsonLines(lines, 'lines');
      limitLines(found.lines, 'lines');
      return found;
    } catch (e) {
      if (e instanceof PlanningError)
        throw new ApiError(400, e.code, `lines: ${e.message}`, {
          details: e.details,
          errors: [{ path: '/lines', message: e.message }],
        });
      throw e;
    }
  };

  r.post(
    '/api/companies/:companyId/imported-lines',
    {
      schema: {
        tags,
        summary: 'Import guidance lines',
        description:
          'Stores the lines of a user file of the company (`userFileId`: ISOXML guidance patterns, GGP/GPN with a line string of type 5, in a TASKDATA zip or TASKDATA.XML; zipped polyline shapefiles in any CRS with a .prj, each part of a record a line; KML/KMZ LineString placemarks; GeoJSON LineStrings) or of GeoJSON in the request (`lines`) as a new imported line group. Coordinates are WGS84. 400 FIELD_PARSE_ERROR says what is wrong and where (file, partfield, pattern, point); 400 UNSUPPORTED_LINE_FILE for a file of another kind. GET /api/boundaries/{boundaryId}/imported-lines then answers the lines meeting a boundary.',
        params: idParams('companyId'),
        body: ImportLinesRequest,
        response: {
          ...answers({ 201: { schema: ImportedLineGroup, description: 'The new group.' } }, 400, 404, 413),
          ...readAnswers,
        } as Record<number, unknown>,
      },
    },
    async (req, reply) => {
      const { companyId } = req.params;
      const userId = principalOf(req).userId;
      await requireCompany(store, req, companyId);
      const b = req.body;
      if ((b.userFileId === undefined) === (b.lines === undefined))
        throw validationError([
          {
            path: b.userFileId === undefined ? '/userFileId' : '/lines',
            message: 'give exactly one of userFileId (an uploaded file) and lines (GeoJSON LineStrings)',
          },
        ]);
      const { found, file } =
        b.userFileId !== undefined
          ? await fromFile(userId, companyId, b.userFileId)
          : { found: fromBody(b.lines), file: null };
      const made = await store.db.transaction((tx) =>
        createImportedLinesRepository(tx as unknown as Database).createGroup(
          companyId,
          {
            name: b.name ?? file?.fileName ?? 'Imported lines',
            source: found.format,
            userFileId: file?.id ?? null,
          },
          found.lines.map((l) => ({
            name: l.name,
            origin: l.groupName ? `${l.source} ('${l.groupName}')` : l.source,
            patternType: l.patternType,
            coordinates: l.coordinates,
            bbox: bboxOf(l.coordinates),
          })),
        ),
      );
      reply.code(201);
      return {
        importedLineGroupId: made.id,
        companyId: made.companyId,
        name: made.name,
        source: found.format,
        userFileId: made.userFileId,
        lineCount: found.lines.length,
        skipped: found.skipped,
        createdAt: iso(made.createdAt),
      };
    },
  );

  r.get(
    '/api/boundaries/:boundaryId/imported-lines',
    {
      schema: {
        tags,
        summary: 'Imported lines meeting a boundary',
        description:
          "The imported guidance lines of the boundary's company that meet the boundary (a point inside it or a crossing of one of its rings), as a GeoJSON FeatureCollection of LineStrings with their group's id, name and source. Oldest group first.",
        params: idParams('boundaryId'),
        response: {
          ...answers({}, 400, 404),
          200: {
            description: 'The lines (application/geo+json).',
            content: { 'application/geo+json': { schema: ImportedLinesFeatureCollection } },
          },
        },
      },
    },
    async (req, reply) => {
      const b = await store.hierarchy.getBoundary(principalOf(req).userId, req.params.boundaryId);
      if (!b) throw notFound('boundary', req.params.boundaryId);
      const rows = await repo.inBox(b.companyId, bboxOf(b.rings[0] ?? []));
      reply.header('content-type', 'application/geo+json; charset=utf-8');
      return {
        type: 'FeatureCollection' as const,
        features: rows
          .filter((l) => lineMeetsPolygon(l.coordinates, b.rings))
          .map((l) => ({
            type: 'Feature' as const,
            id: l.id,
            geometry: { type: 'LineString' as const, coordinates: l.coordinates },
            properties: {
              importedLineId: l.id,
              importedLineGroupId: l.groupId,
              groupName: l.groupName,
              source: l.source,
              name: l.name,
              origin: l.origin,
              patternType: l.patternType,
            },
          })),
      };
    },
  );

  r.delete(
    '/api/companies/:companyId/imported-lines',
    {
      schema: {
        tags,
        summary: 'Delete imported lines',
        description:
          'Deletes the imported line groups of the company and their lines; with `importedLineGroup` (or `importedLineGroupId`), that group alone (404 when it is not a group of the company).',
        params: idParams('companyId'),
        querystring: Type.Object(
          {
            importedLineGroup: Type.Optional(Uuid('Delete only this group (the name the contract gives).')),
            importedLineGroupId: Type.Optional(Uuid('The same as importedLineGroup.')),
          },
          { additionalProperties: false },
        ),
        response: answers(
          { 200: { schema: DeleteImportedLinesResponse, description: 'What was deleted.' } },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const { companyId } = req.params;
      await requireCompany(store, req, companyId);
      const { importedLineGroup, importedLineGroupId } = req.query;
      if (importedLineGroup && importedLineGroupId && importedLineGroup !== importedLineGroupId)
        throw validationError([
          {
            path: '/importedLineGroupId',
            message: 'names another group than importedLineGroup; give one of them',
          },
        ]);
      const groupId = importedLineGroup ?? importedLineGroupId;
      const out = await store.db.transaction(async (tx) => {
        const t = createImportedLinesRepository(tx as unknown as Database);
        if (groupId !== undefined && !(await t.groupOf(companyId, groupId)))
          throw notFound('imported line group', groupId);
        return t.deleteGroups(companyId, groupId);
      });
      return { deletedGroups: out.groups, deletedLines: out.lines };
    },
  );
}
