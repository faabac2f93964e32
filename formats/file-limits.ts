/**
 * Limits on what an uploaded file may unpack to, and the refusal a reader
 * throws when a file passes one: an error code naming the limit, the HTTP
 * status it answers with, and the limit's value (so a client can say what
 * was too much). Readers never answer a refusal by running out of memory.
 */

export interface ArchiveLimits {
  /** Entries in one zip (files and folders), counted from its central directory. */
  maxEntries: number;
  /** Unpacked bytes of one entry. */
  maxEntryBytes: number;
  /** Unpacked bytes of all entries together. */
  maxTotalBytes: number;
  /** Unpacked bytes per packed byte of an entry (checked for entries over `ratioFloorBytes`). */
  maxRatio: number;
}

/** Below this many unpacked bytes an entry's compression ratio is not checked (a 1 KB file of spaces packs 1:50). */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: 1000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 128 * 1024 * 1024,
  maxRatio: 200,
};

export type RefusalCode =
  | 'ARCHIVE_TOO_MANY_ENTRIES'
  | 'ARCHIVE_ENTRY_TOO_LARGE'
  | 'ARCHIVE_TOO_LARGE'
  | 'ARCHIVE_RATIO_TOO_HIGH'
  | 'ARCHIVE_ENTRY_OVERLAP'
  | 'ARCHIVE_SIZE_MISMATCH'
  | 'ARCHIVE_ENCRYPTED'
  | 'XML_DOCTYPE_NOT_ALLOWED'
  | 'UNSUPPORTED_CHARSET'
  | 'INVALID_TEXT_ENCODING'
  | 'FILE_TOO_COMPLEX';

/**
 * A file refused for what it is (not for a mistake in a request): thrown by
 * the readers, answered by the routes with `status` and `errorCode`, and
 * `details` (the limit, its value, the entry).
 */
export class FileRefusal extends Error {
  readonly code: RefusalCode;
  /** 413 for the size caps, 422 for the shape of an archive, 400 and 415 for text. */
  readonly status: 400 | 413 | 415 | 422;
  readonly details: Record<string, unknown>;
  constructor(
    code: RefusalCode,
    status: 400 | 413 | 415 | 422,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'FileRefusal';
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** `n` bytes for a message: 67108864 -> "64 MB", 1536 -> "1.5 KB". */
export function bytesText(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} bytes` : `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[u]}`;
}
