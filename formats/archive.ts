/**
 * Reading zip archives with limits, so an upload cannot make the server
 * unpack more than it allows (a "zip bomb"):
 *
 * - `listZip` reads the central directory only (no unpacking) and refuses
 *   an archive with too many entries, entries whose data ranges overlap (the
 *   trick of pointing many entries at one highly compressed stream), entries
 *   that declare more unpacked bytes than allowed (each, or together) or a
 *   compression ratio beyond the limit, and encrypted entries. Cheap enough
 *   for the request thread (it reads a few dozen bytes per entry).
 * - `unzipEntries` unpacks the entries asked for, each with an output cap
 *   (the smallest of the entry limit, what the total limit leaves, the ratio
 *   limit and the declared size), stopping as soon as a cap is passed, so
 *   an archive whose headers lie costs no more than the limits either; and
 *   checks each entry's CRC-32. Meant for a worker thread.
 *
 * Refusals are `FileRefusal`s naming the limit and its value; archives that
 * are not readable zips are `FIELD_PARSE_ERROR`s (as every reader's parse
 * errors).
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { importError } from './boundary-import.ts';
import { type ArchiveLimits, bytesText, FileRefusal, RATIO_FLOOR_BYTES } from './file-limits.ts';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated (others are listed but cannot be unpacked). */
  method: number;
  compressedSize: number;
  /** Unpacked size as the central directory declares it. */
  size: number;
  crc: number;
  /** Where the entry's local header starts. */
  localOffset: number;
  /** Where its packed data starts (after the local header). */
  dataStart: number;
}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Whether the bytes start like a zip archive. */
export function looksLikeZip(data: Uint8Array): boolean {
  return (
    data.length >= 4 &&
    data[0] === 0x50 &&
    data[1] === 0x4b &&
    (data[2] === 3 || data[2] === 5) &&
    (data[3] === 4 || data[3] === 6)
  );
}

/** Folders and the resource forks macOS adds to zips: listed, never read as files. */
export function isNoiseEntry(name: string): boolean {
  return name.endsWith('/') || name.startsWith('__MACOSX/') || /(^|\/)\._/.test(name);
}

/**
 * The entries of a zip from its central directory, after the structural
 * checks (entry count, overlap, declared sizes and ratio, encryption).
 */
export function listZip(data: Uint8Array, limits: ArchiveLimits, what = 'The file'): ZipEntry[] {
  const bad = (why: string) => importError(`${what} is not a readable zip archive (${why}).`, 'zip');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u16 = (at: number) => view.getUint16(at, true);
  const u32 = (at: number) => view.getUint32(at, true);
  const u64 = (at: number) => {
    const v = view.getBigUint64(at, true);
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
  };
  const n = data.length;
  // End of central directory: the last signature within the final 64 KB + 22 bytes.
  let eocd = -1;
  for (let i = n - 22; i >= Math.max(0, n - 22 - 0xffff); i--) {
    if (u32(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw bad('no end of central directory');
  let count = u16(eocd + 10);
  let cdSize = u32(eocd + 12);
  let cdOffset = u32(eocd + 16);
  if ((count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) && eocd >= 20) {
    if (u32(eocd - 20) === EOCD64_LOCATOR) {
      const at = u64(eocd - 12);
      if (at + 56 > n || u32(at) !== EOCD64) throw bad('a damaged zip64 end of central directory');
      count = u64(at + 32);
      cdSize = u64(at + 40);
      cdOffset = u64(at + 48);
    }
  }
  if (count > limits.maxEntries) {
    throw new FileRefusal(
      'ARCHIVE_TOO_MANY_ENTRIES',
      413,
      `${what} holds ${count} entries; at most ${limits.maxEntries} are accepted.`,
      { limit: 'maxEntries', limitValue: limits.maxEntries, entries: count },
    );
  }
  if (cdOffset + cdSize > n) throw bad('the central directory lies beyond the end of the file');

  const entries: ZipEntry[] = [];
  let p = cdOffset;
  for (let k = 0; k < count; k++) {
    if (p + 46 > n || u32(p) !== CENTRAL) throw bad(`central directory entry ${k + 1} is damaged`);
    const flags = u16(p + 8);
    const method = u16(p + 10);
    const crc = u32(p + 16);
    let compressedSize = u32(p + 20);
    let size = u32(p + 24);
    const nameLen = u16(p + 28);
    const extraLen = u16(p + 30);
    const commentLen = u16(p + 32);
    let localOffset = u32(p + 42);
    const nameEnd = p + 46 + nameLen;
    if (nameEnd + extraLen + commentLen > n) throw bad(`central directory entry ${k + 1} is cut short`);
    const nameBytes = data.subarray(p + 46, nameEnd);
    const name = new TextDecoder(flags & 0x800 ? 'utf-8' : 'latin1').decode(nameBytes);
    // Zip64 sizes and offset, present for the fields that hold 0xFFFFFFFF.
    for (let e = nameEnd; e + 4 <= nameEnd + extraLen; ) {
      const id = u16(e);
      const len = u16(e + 2);
      if (id === 1) {
        let f = e + 4;
        const end = f + len;
        if (size === 0xffffffff && f + 8 <= end) {
          size = u64(f);
          f += 8;
        }
        if (compressedSize === 0xffffffff && f + 8 <= end) {
          compressedSize = u64(f);
          f += 8;
        }
        if (localOffset === 0xffffffff && f + 8 <= end) localOffset = u64(f);
      }
      e += 4 + len;
    }
    p = nameEnd + extraLen + commentLen;
    if (flags & 1) {
      throw new FileRefusal(
        'ARCHIVE_ENCRYPTED',
        422,
        `${what}: ${name} is encrypted; upload the zip without a password.`,
        { entry: name },
      );
    }
    if (localOffset + 30 > n || u32(localOffset) !== LOCAL)
      throw bad(`the local header of ${name} is missing or damaged`);
    const dataStart = localOffset + 30 + u16(localOffset + 26) + u16(localOffset + 28);
    if (dataStart + compressedSize > n) throw bad(`the data of ${name} lies beyond the end of the file`);
    if (method === 0 && size !== compressedSize)
      throw bad(`${name} is stored unpacked but declares ${size} bytes in ${compressedSize}`);
    entries.push({ name, method, compressedSize, size, crc, localOffset, dataStart });
  }

  // No two entries may share bytes: sorted by where they start, each must end before the next begins.
  const byStart = [...entries].sort((a, b) => a.localOffset - b.localOffset);
  for (let i = 1; i < byStart.length; i++) {
    const prev = byStart[i - 1];
    const cur = byStart[i];
    if (cur.localOffset < prev.dataStart + prev.compressedSize) {
      throw new FileRefusal(
        'ARCHIVE_ENTRY_OVERLAP',
        422,
        `${what}: the entries ${prev.name} and ${cur.name} share data (their byte ranges in the zip overlap), a trick of zip bombs; no two entries of an accepted zip overlap.`,
        { limit: 'overlappingEntries', limitValue: 0, entries: [prev.name, cur.name] },
      );
    }
  }
  // Then what the entries declare they unpack to (unzipEntries holds them to it).
  let total = 0;
  for (const e of entries) {
    if (e.size > limits.maxEntryBytes) throw entryTooLarge(what, e.name, limits, e.size);
    total += e.size;
    if (total > limits.maxTotalBytes) throw totalTooLarge(what, limits, total);
    if (e.size > RATIO_FLOOR_BYTES && e.size > e.compressedSize * limits.maxRatio)
      throw ratioTooHigh(what, e.name, limits, e.size, e.compressedSize);
  }
  return entries;
}

function entryTooLarge(what: string, name: string, limits: ArchiveLimits, size: number): FileRefusal {
  return new FileRefusal(
    'ARCHIVE_ENTRY_TOO_LARGE',
    413,
    `${what}: ${name} unpacks to ${size > limits.maxEntryBytes + 1 ? bytesText(size) : 'more than the limit'}; one entry may unpack to at most ${bytesText(limits.maxEntryBytes)}.`,
    { limit: 'maxEntryBytes', limitValue: limits.maxEntryBytes, entry: name },
  );
}

function totalTooLarge(what: string, limits: ArchiveLimits, total: number): FileRefusal {
  return new FileRefusal(
    'ARCHIVE_TOO_LARGE',
    413,
    `${what} unpacks to ${total > limits.maxTotalBytes + 1 ? bytesText(total) : 'more than the limit'}; an archive may unpack to at most ${bytesText(limits.maxTotalBytes)} in all.`,
    { limit: 'maxTotalBytes', limitValue: limits.maxTotalBytes },
  );
}

function ratioTooHigh(
  what: string,
  name: string,
  limits: ArchiveLimits,
  size: number,
  packed: number,
): FileRefusal {
  return new FileRefusal(
    'ARCHIVE_RATIO_TOO_HIGH',
    422,
    `${what}: ${name} unpacks ${bytesText(packed)} to ${bytesText(size)} (more than ${limits.maxRatio} times); entries over ${bytesText(RATIO_FLOOR_BYTES)} may be compressed at most ${limits.maxRatio}:1.`,
    { limit: 'maxRatio', limitValue: limits.maxRatio, entry: name },
  );
}

/**
 * Unpacks the entries `want` accepts (default: every one but folders and
 * macOS resource forks), each stopped as soon as it passes a cap.
 */
export function unzipEntries(
  data: Uint8Array,
  limits: ArchiveLimits,
  opts: { what?: string; want?: (name: string) => boolean } = {},
): Map<string, Uint8Array> {
  const what = opts.what ?? 'The file';
  const out = new Map<string, Uint8Array>();
  let total = 0;
  for (const e of listZip(data, limits, what)) {
    if (isNoiseEntry(e.name) || (opts.want && !opts.want(e.name))) continue;
    const bytes = unpackEntry(data, e, limits, total, what);
    total += bytes.length;
    out.set(e.name, bytes);
  }
  return out;
}

/**
 * Unpacks every entry of a zip within the limits, keeping none (one entry
 * in memory at a time): whether the whole archive keeps to them, whatever
 * its headers say. Answers the entries.
 */
export function verifyZip(data: Uint8Array, limits: ArchiveLimits, what = 'The file'): ZipEntry[] {
  const entries = listZip(data, limits, what);
  let total = 0;
  for (const e of entries) total += unpackEntry(data, e, limits, total, what).length;
  return entries;
}

/** One entry's bytes; `total` is what the entries before it unpacked to. */
function unpackEntry(
  data: Uint8Array,
  e: ZipEntry,
  limits: ArchiveLimits,
  total: number,
  what: string,
): Uint8Array {
  const packed = data.subarray(e.dataStart, e.dataStart + e.compressedSize);
  let bytes: Uint8Array;
  if (e.method === 0) {
    if (total + e.size > limits.maxTotalBytes) throw totalTooLarge(what, limits, total + e.size);
    bytes = packed;
  } else if (e.method === 8) {
    // The output may pass none of: the entry limit, what the total leaves, the ratio, the declared size.
    const room = limits.maxTotalBytes - total;
    const ratioCap = Math.max(RATIO_FLOOR_BYTES, e.compressedSize * limits.maxRatio);
    const cap = Math.max(0, Math.min(limits.maxEntryBytes, room, ratioCap, e.size));
    try {
      // zlib inflates chunk by chunk and stops as soon as the output passes maxOutputLength.
      const b = inflateRawSync(packed, { maxOutputLength: cap + 1 });
      bytes = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE')
        throw importError(`${what}: ${e.name} cannot be unpacked (${(err as Error).message}).`, e.name);
      throw overCap(what, e, limits, cap, room, ratioCap);
    }
    if (bytes.length > cap) throw overCap(what, e, limits, cap, room, ratioCap);
  } else {
    throw importError(
      `${what}: ${e.name} is packed with method ${e.method}; accepted are stored (0) and deflate (8).`,
      e.name,
    );
  }
  if (bytes.length !== e.size)
    throw importError(
      `${what}: ${e.name} unpacks to ${bytes.length} bytes, not the ${e.size} its header declares; the zip is damaged.`,
      e.name,
    );
  if (crc32(bytes) >>> 0 !== e.crc)
    throw importError(`${what}: ${e.name} is damaged (its CRC-32 does not match).`, e.name);
  return bytes;
}

/** The refusal of an entry that unpacked past `cap`: the limit that set the cap. */
function overCap(
  what: string,
  e: ZipEntry,
  limits: ArchiveLimits,
  cap: number,
  room: number,
  ratioCap: number,
): Error {
  if (cap === limits.maxEntryBytes) return entryTooLarge(what, e.name, limits, cap + 1);
  if (cap === room) return totalTooLarge(what, limits, limits.maxTotalBytes + 1);
  if (cap === ratioCap) return ratioTooHigh(what, e.name, limits, cap + 1, e.compressedSize);
  return new FileRefusal(
    'ARCHIVE_SIZE_MISMATCH',
    422,
    `${what}: ${e.name} unpacks to more than the ${e.size} bytes its header declares (unpacking stopped there); the zip is damaged or forged.`,
    { limit: 'declaredSize', limitValue: e.size, entry: e.name },
  );
}
