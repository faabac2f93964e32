/**
 * The polygons of a stored upload by its kind (file-kind.ts): zipped
 * shapefiles, ISOXML task data (zip or TASKDATA.XML), KML and KMZ, GeoJSON
 * and WKT. Zips are unpacked within the archive limits (archive.ts), XML is
 * read without DOCTYPEs (xml-safety.ts). Meant to run on a worker thread
 * (boundary-file-pool.ts): what a file unpacks to and how long it takes to
 * parse is the file's business, not the request thread's.
 */
import { PlanningError } from '../core/types/index.ts';
import { isNoiseEntry, unzipEntries } from './archive.ts';
import type { BoundaryImport, ImportedPolygon } from './boundary-import.ts';
import { readIsoxmlFiles, readIsoxmlZip } from './boundary-isoxml.ts';
import { readBoundary } from './boundary-read.ts';
import { readShapefileZip } from './boundary-shapefile.ts';
import type { ArchiveLimits } from './file-limits.ts';

/** The kinds that can hold field boundaries. */
export const BOUNDARY_FILE_KINDS = new Set([
  'shapefile-zip',
  'isoxml-zip',
  'isoxml',
  'kml',
  'kmz',
  'geojson',
  'wkt',
]);

export async function readBoundaryFile(
  kind: string,
  content: Uint8Array,
  limits: ArchiveLimits,
): Promise<BoundaryImport> {
  switch (kind) {
    case 'shapefile-zip':
      return readShapefileZip(content, limits);
    case 'isoxml-zip':
      return readIsoxmlZip(content, limits);
    case 'isoxml':
      return readIsoxmlFiles(new Map([['TASKDATA.XML', content]]));
    case 'kmz': {
      const { name, text } = kmzDocument(content, limits);
      return {
        format: 'kml',
        crs: 'WGS 84',
        polygons: flatten(readBoundary(text, 'kml'), 'kml', name),
      };
    }
    case 'geojson':
    case 'kml':
    case 'wkt': {
      const text = new TextDecoder().decode(content).replace(/^\uFEFF/, '');
      const g = readBoundary(text, kind);
      return { format: kind, crs: 'WGS 84', polygons: flatten(g, kind) };
    }
    default:
      throw new PlanningError('FIELD_PARSE_ERROR', `Files of kind '${kind}' hold no field boundary.`, {
        path: '',
      });
  }
}

/** The main KML document of a KMZ: doc.kml at the top (KMZ convention), else the first .kml. */
export function kmzDocument(content: Uint8Array, limits: ArchiveLimits): { name: string; text: string } {
  const files = unzipEntries(content, limits, {
    what: 'The KMZ upload',
    want: (n) => /\.kml$/i.test(n) && !isNoiseEntry(n),
  });
  const names = [...files.keys()].sort(
    (a, b) => Number(b.toLowerCase() === 'doc.kml') - Number(a.toLowerCase() === 'doc.kml'),
  );
  if (names.length === 0)
    throw new PlanningError('FIELD_PARSE_ERROR', 'The KMZ holds no .kml document.', { path: 'kmz' });
  return { name: names[0], text: new TextDecoder().decode(files.get(names[0])!) };
}

/** Polygons of parsed GeoJSON (geometry, Feature or FeatureCollection). */
function flatten(g: unknown, kind: string, file?: string): ImportedPolygon[] {
  const out: ImportedPolygon[] = [];
  const label = file ? `${file}` : kind.toUpperCase();
  const walk = (x: unknown, where: string, props: Record<string, unknown>) => {
    const o = x as {
      type?: string;
      features?: unknown[];
      geometry?: unknown;
      properties?: unknown;
      coordinates?: unknown;
    };
    if (!o || typeof o !== 'object') return;
    if (o.type === 'FeatureCollection' && Array.isArray(o.features)) {
      o.features.forEach((f, i) => {
        walk(f, `feature ${i + 1}`, {});
      });
    } else if (o.type === 'Feature') {
      const p = (o.properties && typeof o.properties === 'object' ? o.properties : {}) as Record<
        string,
        unknown
      >;
      walk(o.geometry, where, p);
    } else if (o.type === 'Polygon' || o.type === 'MultiPolygon') {
      const name = typeof props.name === 'string' ? props.name : null;
      out.push({
        name,
        source: `${label} ${where}`,
        geometry: { type: o.type, coordinates: o.coordinates } as ImportedPolygon['geometry'],
        properties: props,
      });
    }
  };
  walk(g, 'geometry', {});
  if (out.length === 0)
    throw new PlanningError('FIELD_PARSE_ERROR', 'The file holds no Polygon or MultiPolygon.', { path: '' });
  return out;
}
