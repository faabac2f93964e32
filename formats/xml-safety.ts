/**
 * XML from uploads is read without document type declarations: a DOCTYPE
 * can declare entities that expand to gigabytes ("billion laughs") or name
 * external files and URLs, and no format read here (KML, GPX, ISOXML)
 * needs one. A DOCTYPE in the prolog is refused with 400
 * XML_DOCTYPE_NOT_ALLOWED before any parser sees the text.
 */
import { FileRefusal } from './file-limits.ts';

/** The DOCTYPE declaration in the prolog of `text` (before the root element), or null. */
export function prologDoctype(text: string): string | null {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return null;
    if (text.startsWith('<?', lt)) {
      const end = text.indexOf('?>', lt);
      if (end < 0) return null;
      i = end + 2;
    } else if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt + 4);
      if (end < 0) return null;
      i = end + 3;
    } else if (/^<!DOCTYPE/i.test(text.slice(lt, lt + 9)) || /^<!ENTITY/i.test(text.slice(lt, lt + 8))) {
      return text.slice(lt, Math.min(text.length, lt + 80)).replace(/\s+/g, ' ');
    } else return null; // the root element (or not XML at all)
  }
}

/** Throws 400 XML_DOCTYPE_NOT_ALLOWED when `text` declares a document type. */
export function assertNoDoctype(text: string, file: string): void {
  const d = prologDoctype(text);
  if (d !== null) {
    throw new FileRefusal(
      'XML_DOCTYPE_NOT_ALLOWED',
      400,
      `${file}: XML with a document type declaration (${d.length >= 80 ? `${d}...` : d}) is not accepted; entities and external references are not read. Remove the <!DOCTYPE ...> (KML, GPX and ISOXML need none).`,
      { path: file },
    );
  }
}

/**
 * XML bytes as text: by their byte order mark, else the encoding their XML
 * declaration names (when known), else UTF-8; then checked for a DOCTYPE.
 */
export function decodeXml(bytes: Uint8Array, file: string): string {
  let label = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be';
  else if (!(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)) {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
    const named = /^<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1];
    if (named && !/^utf-?16/i.test(named)) {
      try {
        new TextDecoder(named);
        label = named;
      } catch {
        // An encoding no decoder knows: read as UTF-8.
      }
    }
  }
  let text = new TextDecoder(label).decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  assertNoDoctype(text, file);
  return text;
}
