/**
 * What an uploaded file is, told from its content (never its name): a zip
 * (a zipped shapefile when it holds a .shp, ISOXML task data when it holds a
 * TASKDATA.XML, KMZ when it holds a .kml), XML by its root element (KML,
 * GPX, ISOXML TASKDATA or other XML), JSON (GeoJSON when its `type` is a
 * GeoJSON type) or WKT text. A zip's names come from its central directory,
 * read within the archive limits (archive.ts): one that passes them is
 * refused here (FileRefusal) before anything is unpacked.
 */
import { listZip, looksLikeZip } from './archive.ts';
import { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS, FileRefusal } from './file-limits.ts';

export type FileKind =
  | 'shapefile-zip'
  | 'isoxml-zip'
  | 'kmz'
  | 'zip'
  | 'kml'
  | 'gpx'
  | 'isoxml'
  | 'xml'
  | 'geojson'
  | 'json'
  | 'wkt';

export const FILE_KINDS: readonly FileKind[] = [
  'shapefile-zip',
  'isoxml-zip',
  'kmz',
  'zip',
  'kml',
  'gpx',
  'isoxml',
  'xml',
  'geojson',
  'json',
  'wkt',
];

export const MEDIA_TYPES: Record<FileKind, string> = {
  'shapefile-zip': 'application/zip',
  'isoxml-zip': 'application/zip',
  kmz: 'application/vnd.google-earth.kmz',
  zip: 'application/zip',
  kml: 'application/vnd.google-earth.kml+xml',
  gpx: 'application/gpx+xml',
  isoxml: 'application/xml',
  xml: 'application/xml',
  geojson: 'application/geo+json',
  json: 'application/json',
  wkt: 'text/plain; charset=utf-8',
};

const GEOJSON_TYPES = new Set([
  'FeatureCollection',
  'Feature',
  'Polygon',
  'MultiPolygon',
  'Point',
  'MultiPoint',
  'LineString',
  'MultiLineString',
  'GeometryCollection',
]);

const WKT_RE =
  /^(SRID=\d+;\s*)?(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION|TRIANGLE|TIN|POLYHEDRALSURFACE)\s*(Z|M|ZM)?\s*(\(|EMPTY\b)/i;

/**
 * The kind of a file, or null when it is none of the accepted kinds (with
 * the reason); throws a FileRefusal for a zip past the archive limits.
 */
export function sniffFileKind(
  data: Uint8Array,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
  what = 'The file',
): { kind: FileKind } | { kind: null; reason: string } {
  if (data.length === 0) return { kind: null, reason: 'the file is empty' };
  if (looksLikeZip(data)) {
    let names: string[];
    try {
      names = listZip(data, limits, what).map((e) => e.name.toLowerCase());
    } catch (e) {
      if (e instanceof FileRefusal) throw e;
      return {
        kind: null,
        reason: `it starts like a zip archive but cannot be read (${(e as Error).message})`,
      };
    }
    if (names.some((n) => n.endsWith('.shp'))) return { kind: 'shapefile-zip' };
    if (names.some((n) => /(^|\/)taskdata\.xml$/.test(n))) return { kind: 'isoxml-zip' };
    if (names.some((n) => n.endsWith('.kml') && !n.startsWith('__macosx/'))) return { kind: 'kmz' };
    return { kind: 'zip' };
  }
  if (data.includes(0)) return { kind: null, reason: 'it is binary data, but not a zip archive' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data.subarray(0, Math.min(data.length, 1 << 20)));
  } catch {
    // Text in a legacy encoding: the first characters still tell the kind.
    text = new TextDecoder('latin1').decode(data.subarray(0, 4096));
  }
  const t = text.replace(/^\uFEFF/, '').trimStart();
  if (t.startsWith('<')) {
    const root = rootElement(t);
    if (!root) return { kind: null, reason: 'it starts like XML but has no root element' };
    const local = root.replace(/^.*:/, '');
    if (local === 'kml') return { kind: 'kml' };
    if (local === 'gpx') return { kind: 'gpx' };
    if (local === 'ISO11783_TaskData') return { kind: 'isoxml' };
    return { kind: 'xml' };
  }
  if (t.startsWith('{') || t.startsWith('[')) {
    let v: unknown;
    try {
      v = JSON.parse(new TextDecoder().decode(data).replace(/^\uFEFF/, ''));
    } catch (e) {
      return { kind: null, reason: `it starts like JSON but is not valid JSON (${(e as Error).message})` };
    }
    const type = (v as { type?: unknown } | null)?.type;
    return { kind: typeof type === 'string' && GEOJSON_TYPES.has(type) ? 'geojson' : 'json' };
  }
  if (WKT_RE.test(t)) return { kind: 'wkt' };
  return {
    kind: null,
    reason: `its content is not a zip, XML (KML, GPX, ISOXML), JSON (GeoJSON) or WKT (it starts with "${t.slice(0, 20).replace(/\s+/g, ' ')}")`,
  };
}

function rootElement(t: string): string | null {
  let i = 0;
  for (;;) {
    const lt = t.indexOf('<', i);
    if (lt < 0) return null;
    if (t.startsWith('<?', lt)) i = t.indexOf('?>', lt) + 2;
    else if (t.startsWith('<!--', lt)) i = t.indexOf('-->', lt) + 3;
    else if (t.startsWith('<!', lt)) i = t.indexOf('>', lt) + 1;
    else {
      const m = /^<([A-Za-z_][\w:.-]*)/.exec(t.slice(lt, lt + 200));
      return m ? m[1] : null;
    }
    if (i <= 0) return null;
  }
}
