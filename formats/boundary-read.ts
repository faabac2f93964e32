/** Read a field boundary from text in any supported format: GeoJSON, WKT or KML (sniffed when not named). */
import { PlanningError } from '../core/types/index.ts';
import { parseKml } from './boundary-kml.ts';
import { parseWkt } from './boundary-wkt.ts';

export type BoundaryFormat = 'geojson' | 'wkt' | 'kml';

export function sniffBoundaryFormat(text: string): BoundaryFormat | null {
  const t = text.trimStart();
  if (t.startsWith('{')) return 'geojson';
  if (t.startsWith('<')) return 'kml';
  if (/^(POLYGON|MULTIPOLYGON)\b/i.test(t)) return 'wkt';
  return null;
}

export function readBoundary(text: string, hint?: BoundaryFormat): unknown {
  const format = hint ?? sniffBoundaryFormat(text);
  if (format === 'geojson') {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new PlanningError(
        'FIELD_PARSE_ERROR',
        `GeoJSON: the text is not valid JSON (${(e as Error).message}).`,
        { path: 'geojson' },
      );
    }
  }
  if (format === 'wkt') return parseWkt(text);
  if (format === 'kml') return parseKml(text);
  throw new PlanningError(
    'FIELD_PARSE_ERROR',
    'The boundary is not GeoJSON (a JSON object), WKT (POLYGON or MULTIPOLYGON) or KML (XML).',
    { path: '' },
  );
}
