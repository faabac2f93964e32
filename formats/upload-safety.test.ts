/**
 * What an upload is made into before it is stored or read: text in its
 * declared charset as UTF-8, a safe display name, XML without a DOCTYPE.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readIsoxmlFiles } from './boundary-isoxml.ts';
import { parseKml } from './boundary-kml.ts';
import { FileRefusal } from './file-limits.ts';
import { safeFileName } from './file-name.ts';
import { declaredCharset, uploadAsUtf8 } from './upload-text.ts';
import { assertNoDoctype, prologDoctype } from './xml-safety.ts';

const utf8 = (b: Uint8Array) => new TextDecoder('utf-8', { fatal: true }).decode(b);
const refusal = (f: () => unknown): FileRefusal => {
  try {
    f();
  } catch (e) {
    if (e instanceof FileRefusal) return e;
    throw e;
  }
  throw new Error('not refused');
};

const WKT = 'POLYGON ((10 55, 10.01 55, 10.01 55.01, 10 55)) -- Ærø Ødegård';

function utf16(text: string, order: 'le' | 'be', bom: boolean): Uint8Array {
  const out = new Uint8Array((text.length + (bom ? 1 : 0)) * 2);
  const s = bom ? `\uFEFF${text}` : text;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out[2 * i + (order === 'le' ? 0 : 1)] = c & 0xff;
    out[2 * i + (order === 'le' ? 1 : 0)] = c >> 8;
  }
  return out;
}

describe('text uploads in their declared charset', () => {
  it('reads the charset parameter of a Content-Type', () => {
    expect(declaredCharset('text/plain; charset=UTF-16')).toBe('utf-16');
    expect(declaredCharset('application/xml;charset="iso-8859-1"')).toBe('iso-8859-1');
    expect(declaredCharset('application/zip')).toBeNull();
    expect(declaredCharset(undefined)).toBeNull();
  });

  it('stores UTF-16 (LE and BE, with a byte order mark), Latin-1 and UTF-8 as UTF-8', () => {
    for (const order of ['le', 'be'] as const) {
      const r = uploadAsUtf8(utf16(WKT, order, true), 'utf-16');
      expect(r.transcoded).toBe(true);
      expect(utf8(r.data)).toBe(WKT);
      expect(utf8(uploadAsUtf8(utf16(WKT, order, false), `utf-16${order}`).data)).toBe(WKT);
      // Undeclared, the byte order mark tells.
      expect(utf8(uploadAsUtf8(utf16(WKT, order, true), null).data)).toBe(WKT);
    }
    const latin1 = Uint8Array.from([...WKT].map((c) => c.charCodeAt(0)));
    expect(utf8(uploadAsUtf8(latin1, 'iso-8859-1').data)).toBe(WKT);
    expect(utf8(uploadAsUtf8(latin1, 'latin1').data)).toBe(WKT);
    expect(utf8(uploadAsUtf8(latin1, null).data)).toBe(WKT);
    const asUtf8 = new TextEncoder().encode(WKT);
    expect(uploadAsUtf8(asUtf8, 'utf-8')).toMatchObject({ transcoded: false, data: asUtf8 });
  });

  it('relabels the XML declaration of transcoded XML, and honours it when nothing is declared', () => {
    const xml = '<?xml version="1.0" encoding="ISO-8859-1"?><kml><name>Mark Ø</name></kml>';
    const bytes = Uint8Array.from([...xml].map((c) => c.charCodeAt(0)));
    expect(utf8(uploadAsUtf8(bytes, null).data)).toBe(xml.replace('ISO-8859-1', 'UTF-8'));
    expect(utf8(uploadAsUtf8(utf16(xml.replace('ISO-8859-1', 'UTF-16'), 'le', true), 'utf-16').data)).toBe(
      xml.replace('ISO-8859-1', 'UTF-8'),
    );
  });

  it('refuses an unknown charset (415, naming those accepted) and bytes invalid in the declared one (400)', () => {
    const u = refusal(() => uploadAsUtf8(new TextEncoder().encode(WKT), 'shift_jis'));
    expect(u).toMatchObject({ code: 'UNSUPPORTED_CHARSET', status: 415 });
    expect(u.message).toMatch(/utf-8, us-ascii, utf-16, utf-16le, utf-16be, iso-8859-1/);
    expect(refusal(() => uploadAsUtf8(Uint8Array.from([0x50, 0xff, 0x41]), 'utf-8'))).toMatchObject({
      code: 'INVALID_TEXT_ENCODING',
      status: 400,
    });
    expect(refusal(() => uploadAsUtf8(utf16(WKT, 'le', false), 'utf-16')).message).toMatch(/byte order mark/);
    expect(refusal(() => uploadAsUtf8(Uint8Array.from([0x41, 0xe9]), 'us-ascii')).code).toBe(
      'INVALID_TEXT_ENCODING',
    );
    expect(refusal(() => uploadAsUtf8(Uint8Array.from([0xff, 0xfe, 0x41]), 'utf-16')).code).toBe(
      'INVALID_TEXT_ENCODING',
    );
  });

  it('keeps zips and other binary content as they are', () => {
    const zip = Uint8Array.from([0x50, 0x4b, 3, 4, 0xff, 0]);
    expect(uploadAsUtf8(zip, 'utf-16')).toMatchObject({ transcoded: false, data: zip });
    const bin = Uint8Array.from([0x89, 0x50, 0, 1]);
    expect(uploadAsUtf8(bin, null)).toMatchObject({ transcoded: false, data: bin });
  });
});

describe('upload names', () => {
  it('keep the last path component, without `..`, control and bidirectional control characters', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\windows\\win.ini')).toBe('win.ini');
    expect(safeFileName('..')).toBeNull();
    expect(safeFileName('a..b.zip')).toBe('a.b.zip');
    expect(safeFileName('invoice\u202Etxt.exe')).toBe('invoicetxt.exe');
    expect(safeFileName('x\u2066y\u2069z\u200F.kml')).toBe('xyz.kml');
    expect(safeFileName('line\r\nbreak\u0000\u007f\u0085.wkt')).toBe('linebreak.wkt');
    expect(safeFileName('a"b<c>d|e?.zip')).toBe('a_b_c_d_e_.zip');
    expect(safeFileName('.hidden')).toBe('hidden');
    expect(safeFileName('Mark Ødegård 2026.zip')).toBe('Mark Ødegård 2026.zip');
    expect(safeFileName('e\u0301.kml')).toBe('\u00e9.kml');
    expect([...(safeFileName('😀'.repeat(300)) ?? '')]).toHaveLength(255);
    expect(safeFileName('\u202E')).toBeNull();
  });

  it('never hold a separator, `..`, a control or bidi character, and are stable', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (name) => {
        const s = safeFileName(name);
        if (s === null) return;
        expect(s).not.toMatch(/[\\/]|\.\.|[\p{Cc}\u202A-\u202E\u2066-\u2069\u200E\u200F]/u);
        expect(s.length).toBeGreaterThan(0);
        expect([...s].length).toBeLessThanOrEqual(255);
        expect(safeFileName(s)).toBe(s);
      }),
      { numRuns: 500, seed: 3 },
    );
  });
});

describe('XML without document type declarations', () => {
  const external = '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n';

  it('finds a DOCTYPE in the prolog only (a CDATA description may quote one)', () => {
    expect(prologDoctype(`${external}<kml/>`)).toMatch(/^<!DOCTYPE x/);
    expect(prologDoctype('<!-- c --><?pi x?>\n<!doctype kml><kml/>')).toMatch(/^<!doctype/);
    expect(prologDoctype('<kml><description><![CDATA[<!DOCTYPE html>]]></description></kml>')).toBeNull();
    expect(() => assertNoDoctype('<gpx/>', 'a.gpx')).not.toThrow();
  });

  it('refuses ISOXML and KML with one: 400 XML_DOCTYPE_NOT_ALLOWED', () => {
    const iso = new TextEncoder().encode(
      `${external}<ISO11783_TaskData><PFD A="PFD1" C="&e;"/></ISO11783_TaskData>`,
    );
    const e = refusal(() => readIsoxmlFiles(new Map([['TASKDATA.XML', iso]])));
    expect(e).toMatchObject({ code: 'XML_DOCTYPE_NOT_ALLOWED', status: 400 });
    expect(e.message).toMatch(/^TASKDATA\.XML: /);
    const lol = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><kml><Placemark><name>&lol2;</name></Placemark></kml>`;
    expect(refusal(() => parseKml(lol)).code).toBe('XML_DOCTYPE_NOT_ALLOWED');
  });
});
