/**
 * Files users upload to a company (spec 4.4 "User files"):
 *   POST   /api/companies/{companyId}/user-files/file-upload   upload (multipart/form-data or the raw body)
 *   GET    /api/companies/{companyId}/user-files               list (hidden ones with ?includeHidden=true)
 *   GET    /api/user-files/{userFileId}                        download the bytes
 *   GET    /api/user-files/{userFileId}/metadata               what is stored about it
 *   POST   /api/user-files/{userFileId}/hide                   hide (or show again) in lists
 *   DELETE /api/user-files/{userFileId}                        delete
 * Files of up to 20 MB; the kind is told from the content, not the name:
 * zip (zipped shapefile, ISOXML task data, other), XML (KML, GPX, ISOXML
 * TASKDATA, other), JSON (GeoJSON, other) or WKT text. Anything else is 415.
 */
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { FILE_KINDS, MEDIA_TYPES, sniffFileKind } from '../../formats/file-kind.ts';
import type { Store } from '../../store/db.ts';
import { createUserFilesRepository, type UserFileRecord } from '../../store/repositories/user-files.ts';
import { ApiError, validationError } from '../errors.ts';
import {
  answers,
  idParams,
  iso,
  notFound,
  optionalBody,
  principalOf,
  requireCompany,
  Timestamp,
} from './common.ts';

/** Largest file accepted [bytes]. */
export const USER_FILE_MAX_BYTES = 20 * 1024 * 1024;

export const UserFile = Type.Object(
  {
    userFileId: Type.String({ format: 'uuid' }),
    companyId: Type.String({ format: 'uuid' }),
    fileName: Type.String(),
    kind: Type.Union(
      FILE_KINDS.map((k) => Type.Literal(k)),
      { description: 'What the content is (told from the content, not the name).' },
    ),
    mediaType: Type.String({ description: 'The media type the file is served with.' }),
    size: Type.Integer({ description: 'Bytes.' }),
    sha256: Type.String({ description: 'Lower-case hex SHA-256 of the content.' }),
    hidden: Type.Boolean(),
    uploadedBy: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    createdAt: Timestamp,
  },
  { $id: 'UserFile', title: 'UserFile' },
);

export const userFileBody = (f: UserFileRecord) => ({
  userFileId: f.id,
  companyId: f.companyId,
  fileName: f.fileName,
  kind: f.kind,
  mediaType: f.mediaType,
  size: f.size,
  sha256: f.sha256,
  hidden: f.hidden,
  uploadedBy: f.uploadedBy,
  createdAt: iso(f.createdAt),
});

const tooLarge = () =>
  new ApiError(
    413,
    'PAYLOAD_TOO_LARGE',
    `The file is larger than ${USER_FILE_MAX_BYTES / 1024 / 1024} MB, the most accepted.`,
  );

/** A file name safe to store and send back: no folders, no control characters, at most 255 characters. */
function cleanName(name: string | undefined): string | null {
  if (!name) return null;
  const base = name
    .replace(/^.*[\\/]/, '')
    .split('')
    .filter((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f && c !== '"')
    .join('')
    .trim();
  return base ? base.slice(0, 255) : null;
}

async function readUpload(req: FastifyRequest): Promise<{ data: Buffer; fileName: string | null }> {
  if (req.isMultipart()) {
    let file: Awaited<ReturnType<FastifyRequest['file']>>;
    try {
      file = await req.file({ limits: { fileSize: USER_FILE_MAX_BYTES, files: 1, fields: 10 } });
    } catch (e) {
      throw validationError([
        { path: '', message: `is not readable multipart/form-data (${(e as Error).message})` },
      ]);
    }
    if (!file)
      throw validationError([{ path: '/file', message: 'is required: send the file as a form part' }]);
    let data: Buffer;
    try {
      data = await file.toBuffer();
    } catch (e) {
      if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
      throw e;
    }
    if (file.file.truncated) throw tooLarge();
    return { data, fileName: cleanName(file.filename) };
  }
  const body = req.body;
  if (!Buffer.isBuffer(body) || body.length === 0) {
    throw validationError([
      { path: '', message: 'is empty; send the file as the request body or as multipart/form-data' },
    ]);
  }
  const q = (req.query as { fileName?: string }).fileName;
  const disposition = String(req.headers['content-disposition'] ?? '');
  const fromHeader = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1];
  let name = q;
  if (name === undefined && fromHeader) {
    try {
      name = decodeURIComponent(fromHeader);
    } catch {
      name = fromHeader;
    }
  }
  return { data: body, fileName: cleanName(name) };
}

const DEFAULT_NAMES: Record<string, string> = {
  'shapefile-zip': 'shapefile.zip',
  'isoxml-zip': 'taskdata.zip',
  zip: 'upload.zip',
  kml: 'boundary.kml',
  gpx: 'track.gpx',
  isoxml: 'TASKDATA.XML',
  xml: 'upload.xml',
  geojson: 'boundary.geojson',
  json: 'upload.json',
  wkt: 'boundary.wkt',
};

export async function userFileRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const { store } = opts;
  const files = createUserFilesRepository(store.db);
  const tags = ['User files'];

  // This plugin's routes take the raw bytes of any content type (and multipart forms).
  await app.register(multipart, { limits: { fileSize: USER_FILE_MAX_BYTES } });
  app.removeContentTypeParser(['application/json', 'application/geo+json']);
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: USER_FILE_MAX_BYTES }, (_req, body, done) =>
    done(null, body),
  );
  app.addContentTypeParser(
    ['application/json', 'application/geo+json'],
    { parseAs: 'buffer', bodyLimit: USER_FILE_MAX_BYTES },
    (_req, body, done) => done(null, body),
  );
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/api/companies/:companyId/user-files/file-upload',
    {
      bodyLimit: USER_FILE_MAX_BYTES,
      // Refuse a declared oversize body before reading it, with this endpoint's limit in the message.
      onRequest: async (req) => {
        const n = Number(req.headers['content-length']);
        if (Number.isFinite(n) && n > USER_FILE_MAX_BYTES + 64 * 1024) throw tooLarge();
      },
      schema: {
        tags,
        summary: 'Upload a file',
        description: `The file as multipart/form-data (one file part; its file name is kept) or as the raw request body of any content type (name it with ?fileName= or Content-Disposition). At most ${USER_FILE_MAX_BYTES / 1024 / 1024} MB (413 beyond). The kind is told from the content: a zip (shapefile-zip when it holds a .shp, isoxml-zip when it holds a TASKDATA.XML), KML, GPX, ISOXML TASKDATA.XML or other XML, GeoJSON or other JSON, or WKT text; anything else is 415 UNSUPPORTED_FILE_TYPE.`,
        params: idParams('companyId'),
        querystring: Type.Object(
          {
            fileName: Type.Optional(
              Type.String({ minLength: 1, maxLength: 255, description: 'Name of a raw-body upload.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: answers({ 201: { schema: UserFile, description: 'Stored.' } }, 400, 404, 413, 415),
      },
    },
    async (req, reply) => {
      await requireCompany(store, req, req.params.companyId);
      const { data, fileName } = await readUpload(req);
      const sniffed = sniffFileKind(data);
      if (sniffed.kind === null) {
        throw new ApiError(
          415,
          'UNSUPPORTED_FILE_TYPE',
          `The file is not accepted: ${sniffed.reason}. Accepted: zip (zipped shapefile, ISOXML task data), KML, GPX, ISOXML, XML, GeoJSON, JSON, WKT.`,
        );
      }
      const made = await files.create({
        companyId: req.params.companyId,
        userId: principalOf(req).userId,
        fileName: fileName ?? DEFAULT_NAMES[sniffed.kind],
        kind: sniffed.kind,
        mediaType: MEDIA_TYPES[sniffed.kind],
        content: data,
      });
      return reply.code(201).header('location', `/api/user-files/${made.id}`).send(userFileBody(made));
    },
  );

  r.get(
    '/api/companies/:companyId/user-files',
    {
      schema: {
        tags,
        summary: "A company's files",
        description: 'Newest first; hidden files only with includeHidden=true.',
        params: idParams('companyId'),
        querystring: Type.Object(
          { includeHidden: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) },
          { additionalProperties: false },
        ),
        response: answers({ 200: { schema: Type.Array(UserFile), description: 'The files.' } }, 400, 404),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      const list = await files.list(
        principalOf(req).userId,
        req.params.companyId,
        req.query.includeHidden === 'true',
      );
      return list.map(userFileBody);
    },
  );

  r.get(
    '/api/user-files/:userFileId',
    {
      schema: {
        tags,
        summary: 'Download a file',
        description:
          'The stored bytes with the media type of their kind, as an attachment under the file name; ETag is the SHA-256.',
        params: idParams('userFileId'),
        response: answers(
          {
            200: {
              schema: Type.String({ format: 'binary' }),
              description: 'The file.',
              mediaType: 'application/octet-stream',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const f = await files.content(principalOf(req).userId, req.params.userFileId);
      if (!f) throw notFound('user file', req.params.userFileId);
      const ascii = f.fileName.replace(/[^\x20-\x7e]/g, '_').replace(/\\/g, '_');
      return reply
        .header('content-type', f.mediaType)
        .header(
          'content-disposition',
          `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(f.fileName)}`,
        )
        .header('etag', `"${f.sha256}"`)
        .header('x-file-kind', f.kind)
        .send(f.content);
    },
  );

  r.get(
    '/api/user-files/:userFileId/metadata',
    {
      schema: {
        tags,
        summary: 'What is stored about a file',
        params: idParams('userFileId'),
        response: answers({ 200: { schema: UserFile, description: 'The file.' } }, 400, 404),
      },
    },
    async (req) => {
      const f = await files.get(principalOf(req).userId, req.params.userFileId);
      if (!f) throw notFound('user file', req.params.userFileId);
      return userFileBody(f);
    },
  );

  r.post(
    '/api/user-files/:userFileId/hide',
    {
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'Hide a file from lists (or show it again)',
        description:
          'Body optional: { "hidden": false } shows it again. A hidden file can still be read and imported by id.',
        params: idParams('userFileId'),
        response: answers({ 200: { schema: UserFile, description: 'The file.' } }, 400, 404),
      },
    },
    async (req) => {
      let hidden = true;
      const b = req.body as unknown;
      if (Buffer.isBuffer(b) && b.length > 0) {
        let v: unknown;
        try {
          v = JSON.parse(b.toString('utf8'));
        } catch {
          throw validationError([
            { path: '', message: 'is not valid JSON; send { "hidden": true | false } or no body' },
          ]);
        }
        const keys = v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : null;
        const h = (v as { hidden?: unknown })?.hidden;
        if (!keys || keys.some((k) => k !== 'hidden') || (h !== undefined && typeof h !== 'boolean'))
          throw validationError([{ path: '/hidden', message: 'must be a boolean (the only property)' }]);
        if (typeof h === 'boolean') hidden = h;
      }
      const f = await files.setHidden(principalOf(req).userId, req.params.userFileId, hidden);
      if (!f) throw notFound('user file', req.params.userFileId);
      return userFileBody(f);
    },
  );

  r.delete(
    '/api/user-files/:userFileId',
    {
      schema: {
        tags,
        summary: 'Delete a file',
        params: idParams('userFileId'),
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      if (!(await files.delete(principalOf(req).userId, req.params.userFileId)))
        throw notFound('user file', req.params.userFileId);
      return reply.code(204).send();
    },
  );
}
