/**
 * Files users upload to a company (spec 4.4 "User files"):
 *   POST   /api/companies/{companyId}/user-files/file-upload   upload (multipart/form-data or the raw body)
 *   GET    /api/companies/{companyId}/user-files               list (hidden ones with ?includeHidden=true)
 *   GET    /api/user-files/{userFileId}                        download the bytes
 *   GET    /api/user-files/{userFileId}/metadata               what is stored about it
 *   POST   /api/user-files/{userFileId}/hide                   hide (or show again) in lists
 *   DELETE /api/user-files/{userFileId}                        delete
 * Files of up to 20 MB; the kind is told from the content, not the name:
 * zip (zipped shapefile, ISOXML task data, KMZ, other), XML (KML, GPX,
 * ISOXML TASKDATA, other), JSON (GeoJSON, other) or WKT text. Anything else
 * is 415. Text is stored as UTF-8 (read in the charset the upload declares,
 * formats/upload-text.ts); XML with a DOCTYPE is refused; a zip must unpack
 * within the archive limits (checked on a file reader thread,
 * formats/archive.ts); a company keeps at most `fileQuota` files and bytes
 * (403 QUOTA_EXCEEDED); names keep no folders, `..` or control and bidi
 * characters (formats/file-name.ts).
 */
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { PlanningError } from '../../core/types/index.ts';
import { looksLikeZip } from '../../formats/archive.ts';
import {
  type BoundaryFilePool,
  createBoundaryFilePool,
  ReaderBusyError,
} from '../../formats/boundary-file-pool.ts';
import { FILE_KINDS, MEDIA_TYPES, sniffFileKind } from '../../formats/file-kind.ts';
import {
  type ArchiveLimits,
  bytesText,
  DEFAULT_ARCHIVE_LIMITS,
  FileRefusal,
} from '../../formats/file-limits.ts';
import { safeFileName } from '../../formats/file-name.ts';
import { ACCEPTED_CHARSETS, declaredCharset, uploadAsUtf8 } from '../../formats/upload-text.ts';
import { assertNoDoctype } from '../../formats/xml-safety.ts';
import type { Store } from '../../store/db.ts';
import { createUserFilesRepository, type UserFileRecord } from '../../store/repositories/user-files.ts';
import { DEFAULT_FILE_QUOTA, type FileQuota } from '../config.ts';
import { ApiError, validationError } from '../errors.ts';
import { ErrorResponse, withHeaders } from '../openapi/responses.ts';
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

export interface UploadOptions {
  /** What a company may keep (default 500 files, 1 GB). */
  fileQuota?: FileQuota;
  /** What an uploaded zip may unpack to (default formats/file-limits.ts). */
  archiveLimits?: ArchiveLimits;
  /** The file reader threads (default: one made here). */
  readers?: BoundaryFilePool;
}

export interface UploadSettings {
  fileQuota: FileQuota;
  archiveLimits: ArchiveLimits;
  readers: BoundaryFilePool;
}

export function uploadSettings(o: UploadOptions = {}): UploadSettings {
  return {
    fileQuota: o.fileQuota ?? DEFAULT_FILE_QUOTA,
    archiveLimits: o.archiveLimits ?? DEFAULT_ARCHIVE_LIMITS,
    readers: o.readers ?? createBoundaryFilePool(),
  };
}

/** A file refusal as the HTTP answer; `stored`: of a file already kept (size limits are then 422, not 413). */
export function refusalAnswer(e: FileRefusal, fileName?: string, stored = false): ApiError {
  const status = stored && e.status === 413 ? 422 : e.status;
  return new ApiError(status, e.code, fileName ? `${fileName}: ${e.message}` : e.message, {
    details: e.details,
  });
}

/** The file readers' errors as HTTP answers (parse errors 400 naming the file). */
export function readerAnswer(e: unknown, fileName: string, stored: boolean): unknown {
  if (e instanceof FileRefusal) return refusalAnswer(e, fileName, stored);
  if (e instanceof PlanningError)
    return new ApiError(400, e.code, `${fileName}: ${e.message}`, {
      details: e.details,
      errors: [{ path: '/file', message: e.message }],
    });
  if (e instanceof ReaderBusyError)
    return new ApiError(
      503,
      'SERVICE_BUSY',
      'Every file reader is busy; retry shortly.',
      {},
      { 'retry-after': '2' },
    );
  return e;
}

/** The OpenAPI answers of the archive limits (shared by the upload and the import routes). */
export const ARCHIVE_LIMIT_CODES =
  'ARCHIVE_TOO_MANY_ENTRIES, ARCHIVE_ENTRY_TOO_LARGE, ARCHIVE_TOO_LARGE (the entry count and unpacked size limits), ARCHIVE_RATIO_TOO_HIGH, ARCHIVE_ENTRY_OVERLAP (entries sharing data), ARCHIVE_SIZE_MISMATCH (an entry unpacking to more than its header declares), ARCHIVE_ENCRYPTED';

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

const badMultipart = (why: string) =>
  new ApiError(
    400,
    'INVALID_MULTIPART',
    `The body is not complete multipart/form-data (${why}); send one file part and the closing boundary, or send the file as the raw body.`,
    { errors: [{ path: '', message: `is not complete multipart/form-data (${why})` }] },
  );

/** The uploaded bytes, the name given and the charset declared (raw body: its Content-Type; a form part's is not passed on). */
async function readUpload(
  req: FastifyRequest,
): Promise<{ data: Buffer; fileName: string | null; charset: string | null }> {
  if (req.isMultipart()) {
    let file: Awaited<ReturnType<FastifyRequest['file']>>;
    try {
      file = await req.file({ limits: { fileSize: USER_FILE_MAX_BYTES, files: 1, fields: 10 } });
    } catch (e) {
      throw badMultipart((e as Error).message);
    }
    if (!file)
      throw validationError([{ path: '/file', message: 'is required: send the file as a form part' }]);
    let data: Buffer;
    try {
      data = await file.toBuffer();
    } catch (e) {
      if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
      throw badMultipart((e as Error).message);
    }
    if (file.file.truncated) throw tooLarge();
    return { data, fileName: safeFileName(file.filename), charset: null };
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
  return {
    data: body,
    fileName: safeFileName(name),
    charset: declaredCharset(req.headers['content-type']),
  };
}

const DEFAULT_NAMES: Record<string, string> = {
  'shapefile-zip': 'shapefile.zip',
  'isoxml-zip': 'taskdata.zip',
  zip: 'upload.zip',
  kml: 'boundary.kml',
  gpx: 'track.gpx',
  isoxml: 'TASKDATA.XML',
  kmz: 'boundary.kmz',
  xml: 'upload.xml',
  geojson: 'boundary.geojson',
  json: 'upload.json',
  wkt: 'boundary.wkt',
};

/** Files up to this size are told apart on the request thread (a JSON file of 12 MB takes it some 150 ms to parse). */
const SNIFF_HERE_BYTES = 256 * 1024;
const XML_KINDS = new Set(['kml', 'gpx', 'isoxml', 'xml']);
const ZIP_KINDS = new Set(['shapefile-zip', 'isoxml-zip', 'kmz', 'zip']);

function quotaExceeded(
  q: { quota: 'files' | 'bytes'; limit: number; used: { files: number; bytes: number } },
  size: number,
): ApiError {
  const use = `it keeps ${q.used.files} file(s), ${bytesText(q.used.bytes)}`;
  return new ApiError(
    403,
    'QUOTA_EXCEEDED',
    q.quota === 'files'
      ? `The company may keep at most ${q.limit} files and ${use}; delete files to upload more.`
      : `The company may keep at most ${bytesText(q.limit)} of files and ${use}; this file (${bytesText(size)}) would pass that. Delete files to upload more.`,
    {
      details: {
        quota: q.quota === 'files' ? 'maxFiles' : 'maxBytes',
        limit: q.limit,
        used: q.used,
        fileSize: size,
      },
    },
  );
}

export async function userFileRoutes(
  app: FastifyInstance,
  opts: { store: Store; uploads?: UploadSettings },
): Promise<void> {
  const { store } = opts;
  const uploads = opts.uploads ?? uploadSettings();
  if (!opts.uploads) app.addHook('onClose', () => uploads.readers.close());
  const { fileQuota, archiveLimits, readers } = uploads;
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
        description: `The file as multipart/form-data (one file part; its file name is kept) or as the raw request body of any content type (name it with ?fileName= or Content-Disposition). At most ${USER_FILE_MAX_BYTES / 1024 / 1024} MB (413 beyond). The kind is told from the content: a zip (shapefile-zip when it holds a .shp, isoxml-zip when it holds a TASKDATA.XML, kmz when it holds a .kml), KML, GPX, ISOXML TASKDATA.XML or other XML, GeoJSON or other JSON, or WKT text; anything else is 415 UNSUPPORTED_FILE_TYPE.

Names keep their last path component only, without \`..\`, control or bidirectional control characters. Text is stored as UTF-8, read in the charset the Content-Type declares (${ACCEPTED_CHARSETS.join(', ')}; UTF-16 needs a byte order mark unless declared LE or BE); undeclared, by its byte order mark, XML declaration, else UTF-8 or windows-1252. XML with a DOCTYPE is refused (400 XML_DOCTYPE_NOT_ALLOWED). A zip must unpack within the server's archive limits (entries, unpacked bytes per entry and in all, compression ratio; no two entries sharing data); every entry is unpacked once to check (limits in \`details\`).

A company keeps at most a number of files and of bytes (the operator sets both; by default 500 files and 1 GB): beyond, 403 QUOTA_EXCEEDED with \`details: { quota, limit, used: { files, bytes }, fileSize }\`.`,
        params: idParams('companyId'),
        querystring: Type.Object(
          {
            fileName: Type.Optional(
              Type.String({ minLength: 1, maxLength: 255, description: 'Name of a raw-body upload.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          ...answers({ 201: { schema: UserFile, description: 'Stored.' } }, 400, 404),
          400: withHeaders(
            ErrorResponse,
            'VALIDATION_ERROR (no file), INVALID_MULTIPART (a form without its closing boundary or cut short), INVALID_TEXT_ENCODING (bytes not valid in the declared charset), XML_DOCTYPE_NOT_ALLOWED, FIELD_PARSE_ERROR (a zip that cannot be read or whose entry is damaged).',
          ),
          403: withHeaders(
            ErrorResponse,
            'QUOTA_EXCEEDED: the company keeps as many files or bytes as it may; `details` names the quota (maxFiles or maxBytes), its limit, the use (files, bytes) and the file size. (NotAuthorized: not allowed to upload to this company.)',
          ),
          413: withHeaders(
            ErrorResponse,
            `PAYLOAD_TOO_LARGE: the file is over ${USER_FILE_MAX_BYTES / 1024 / 1024} MB. ARCHIVE_TOO_MANY_ENTRIES, ARCHIVE_ENTRY_TOO_LARGE, ARCHIVE_TOO_LARGE: a zip past the entry count or unpacked size limits; \`details\` names the limit and its value (limit, limitValue).`,
          ),
          415: withHeaders(
            ErrorResponse,
            'UNSUPPORTED_FILE_TYPE: the content is none of the accepted kinds. UNSUPPORTED_CHARSET: the declared charset is not one accepted (the message lists them).',
          ),
          422: withHeaders(
            ErrorResponse,
            'ARCHIVE_ENTRY_OVERLAP (entries of the zip share data), ARCHIVE_RATIO_TOO_HIGH (an entry compressed past the ratio limit), ARCHIVE_SIZE_MISMATCH (an entry unpacking to more than its header declares), ARCHIVE_ENCRYPTED; FILE_TOO_COMPLEX when checking the zip takes more time or memory than a file reader has. `details` names the limit and its value.',
          ),
          503: withHeaders(
            ErrorResponse,
            'SERVICE_BUSY: every file reader is busy; retry after Retry-After.',
          ),
        } as Record<number, unknown>,
      },
    },
    async (req, reply) => {
      const companyId = req.params.companyId;
      await requireCompany(store, req, companyId);
      // A company at its quota is told before its body is read.
      const before = await files.usage(companyId);
      const declared = Number(req.headers['content-length']);
      if (before.files >= fileQuota.maxFiles)
        throw quotaExceeded({ quota: 'files', limit: fileQuota.maxFiles, used: before }, declared || 0);
      const { data: sent, fileName, charset } = await readUpload(req);
      if (before.bytes + sent.length > fileQuota.maxBytes)
        throw quotaExceeded({ quota: 'bytes', limit: fileQuota.maxBytes, used: before }, sent.length);
      let data: Buffer;
      let sniffed: ReturnType<typeof sniffFileKind>;
      const what = fileName ?? 'The file';
      try {
        const text = uploadAsUtf8(sent, charset);
        data = text.transcoded ? Buffer.from(text.data) : sent;
        // A zip's directory is read here (cheap, bounded by the entry limit); large text is parsed on a reader thread.
        sniffed =
          looksLikeZip(data) || data.length <= SNIFF_HERE_BYTES
            ? sniffFileKind(data, archiveLimits, what)
            : await readers.sniff(data, archiveLimits, what);
        if (sniffed.kind !== null && XML_KINDS.has(sniffed.kind))
          assertNoDoctype(data.subarray(0, 1 << 20).toString('utf8'), what);
      } catch (e) {
        throw readerAnswer(e, fileName ?? 'The file', false);
      }
      if (sniffed.kind === null) {
        throw new ApiError(
          415,
          'UNSUPPORTED_FILE_TYPE',
          `The file is not accepted: ${sniffed.reason}. Accepted: zip (zipped shapefile, ISOXML task data, KMZ), KML, GPX, ISOXML, XML, GeoJSON, JSON, WKT.`,
        );
      }
      // Every entry of a zip is unpacked once, on a reader thread, within the limits (headers can lie).
      if (ZIP_KINDS.has(sniffed.kind)) {
        try {
          await readers.verifyZip(data, archiveLimits, fileName ?? 'The zip');
        } catch (e) {
          throw readerAnswer(e, fileName ?? DEFAULT_NAMES[sniffed.kind], false);
        }
      }
      const stored = await files.createWithinQuota(
        {
          companyId,
          userId: principalOf(req).userId,
          fileName: fileName ?? DEFAULT_NAMES[sniffed.kind],
          kind: sniffed.kind,
          mediaType: MEDIA_TYPES[sniffed.kind],
          content: data,
        },
        fileQuota,
      );
      if ('refused' in stored) throw quotaExceeded(stored.refused, data.length);
      const made = stored.file;
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
