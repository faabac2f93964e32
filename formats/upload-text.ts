/**
 * Text uploads are stored as UTF-8. The charset a client declares (the
 * Content-Type parameter of the body or of the form part) decides how the
 * bytes are read: UTF-8 (and its subset US-ASCII), UTF-16 (with a byte
 * order mark; UTF-16LE and UTF-16BE with or without), ISO-8859-1 / Latin-1
 * and windows-1252. Another charset is refused (415 UNSUPPORTED_CHARSET,
 * naming these); bytes that are not valid in the declared charset are
 * refused too (400 INVALID_TEXT_ENCODING). Without a declaration a UTF-16
 * byte order mark, else an XML declaration's encoding, else valid UTF-8,
 * else windows-1252 decides. Zips and other binary content are kept as they
 * are.
 */
import { looksLikeZip } from './archive.ts';
import { FileRefusal } from './file-limits.ts';

/** What may be declared, as a client would write it. */
export const ACCEPTED_CHARSETS = [
  'utf-8',
  'us-ascii',
  'utf-16',
  'utf-16le',
  'utf-16be',
  'iso-8859-1',
  'latin1',
  'windows-1252',
];

const LABELS: Record<string, 'utf-8' | 'utf-16' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'us-ascii'> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'unicode-1-1-utf-8': 'utf-8',
  'us-ascii': 'us-ascii',
  ascii: 'us-ascii',
  'utf-16': 'utf-16',
  utf16: 'utf-16',
  'utf-16le': 'utf-16le',
  'utf-16be': 'utf-16be',
  'iso-8859-1': 'windows-1252',
  'iso8859-1': 'windows-1252',
  iso_8859_1: 'windows-1252',
  'iso_8859-1': 'windows-1252',
  latin1: 'windows-1252',
  'latin-1': 'windows-1252',
  l1: 'windows-1252',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
};

/** The charset parameter of a Content-Type, lower case, or null. */
export function declaredCharset(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const m = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType);
  return m ? m[2].toLowerCase() : null;
}

const utf8 = new TextEncoder();

const invalid = (charset: string) =>
  new FileRefusal(
    'INVALID_TEXT_ENCODING',
    400,
    `The file is not valid ${charset} text, the charset its Content-Type declares; declare the charset it is written in (accepted: ${ACCEPTED_CHARSETS.join(', ')}).`,
    { charset },
  );

function decode(label: string, bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(label, { fatal: true }).decode(bytes);
  } catch {
    throw invalid(charset);
  }
}

/** In an XML declaration, the encoding becomes UTF-8 (what the text now is). */
function relabelXml(text: string): string {
  return text.replace(
    /^(\uFEFF?<\?xml[^>]*?\bencoding\s*=\s*)(["'])[^"']*\2/,
    (_m, head: string, q: string) => `${head}${q}UTF-8${q}`,
  );
}

/**
 * The upload as UTF-8 bytes (`transcoded` when they differ from what was
 * sent). Throws 415 UNSUPPORTED_CHARSET and 400 INVALID_TEXT_ENCODING.
 */
export function uploadAsUtf8(
  data: Uint8Array,
  charset: string | null,
): { data: Uint8Array; transcoded: boolean; charset: string } {
  if (looksLikeZip(data)) return { data, transcoded: false, charset: 'binary' };
  const bomLe = data[0] === 0xff && data[1] === 0xfe;
  const bomBe = data[0] === 0xfe && data[1] === 0xff;
  if (charset !== null) {
    const label = LABELS[charset];
    if (!label) {
      throw new FileRefusal(
        'UNSUPPORTED_CHARSET',
        415,
        `The charset '${charset}' is not accepted; accepted: ${ACCEPTED_CHARSETS.join(', ')} (text is stored as UTF-8).`,
        { charset, accepted: ACCEPTED_CHARSETS },
      );
    }
    if (label === 'utf-8' || label === 'us-ascii') {
      if (label === 'us-ascii' && data.some((b) => b > 0x7f)) throw invalid(charset);
      decode('utf-8', data, charset);
      return { data, transcoded: false, charset: label };
    }
    let from: string = label;
    if (label === 'utf-16') {
      if (!bomLe && !bomBe) {
        throw new FileRefusal(
          'INVALID_TEXT_ENCODING',
          400,
          'The file is declared utf-16 but starts with no byte order mark, so its byte order is unknown; declare utf-16le or utf-16be, or add the mark.',
          { charset },
        );
      }
      from = bomLe ? 'utf-16le' : 'utf-16be';
    }
    if (from.startsWith('utf-16') && data.length % 2 !== 0) throw invalid(charset);
    const text = decode(from, data, charset);
    return { data: utf8.encode(relabelXml(text)), transcoded: true, charset: from };
  }
  if (bomLe || bomBe) {
    const text = decode(bomLe ? 'utf-16le' : 'utf-16be', data, bomLe ? 'utf-16le' : 'utf-16be');
    return {
      data: utf8.encode(relabelXml(text)),
      transcoded: true,
      charset: bomLe ? 'utf-16le' : 'utf-16be',
    };
  }
  // Other binary content (NUL bytes) is left for the kind check to refuse.
  if (data.includes(0)) return { data, transcoded: false, charset: 'binary' };
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return { data, transcoded: false, charset: 'utf-8' };
  } catch {
    // Not UTF-8: an XML declaration's encoding, else windows-1252 (which reads any byte).
  }
  const head = new TextDecoder('latin1').decode(data.subarray(0, 200));
  let label = 'windows-1252';
  const named = /^<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1];
  if (named) {
    try {
      new TextDecoder(named);
      label = named;
    } catch {
      // unknown: windows-1252
    }
  }
  const text = new TextDecoder(label).decode(data);
  return { data: utf8.encode(relabelXml(text)), transcoded: true, charset: label };
}
