/** KML boundaries: Placemarks with Polygon or MultiGeometry to GeoJSON (via @tmcw/togeojson), and back. */
import { kml } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { PlanningError } from '../core/types/index.ts';
import { assertNoDoctype } from './xml-safety.ts';

/** Every Placemark of a KML document as a GeoJSON feature (any geometry), the XML checked first. */
export function kmlFeatures(text: string): { geometry?: { type?: string } | null }[] {
  // No document type declarations: their entities are not expanded, nor external files read.
  assertNoDoctype(text, 'KML');
  const errors: string[] = [];
  let doc: Document;
  try {
    doc = new DOMParser({
      onError: (level: string, msg: string) => {
        if (level !== 'warning') errors.push(msg);
      },
    }).parseFromString(text, 'text/xml') as unknown as Document;
  } catch (e) {
    throw new PlanningError(
      'FIELD_PARSE_ERROR',
      `KML: the text is not well-formed XML (${(e as Error).message}).`,
      { path: 'kml' },
    );
  }
  if (errors.length || !doc?.documentElement) {
    throw new PlanningError(
      'FIELD_PARSE_ERROR',
      `KML: the text is not well-formed XML (${errors[0] ?? 'no root element'}).`,
      {
        path: 'kml',
      },
    );
  }
  return (kml(doc) as { features: { geometry?: { type?: string } | null }[] }).features;
}

export function parseKml(text: string): { type: 'FeatureCollection'; features: unknown[] } {
  const features = kmlFeatures(text).flatMap((f) => {
    const g = f.geometry;
    if (!g) return [];
    if (g.type === 'Polygon' || g.type === 'MultiPolygon') return [f];
    if (g.type === 'GeometryCollection') {
      const geoms = ((g as { geometries?: { type: string }[] }).geometries ?? []).filter(
        (x) => x.type === 'Polygon' || x.type === 'MultiPolygon',
      );
      return geoms.map((geometry) => ({ ...f, geometry }));
    }
    return [];
  });
  if (features.length === 0) {
    throw new PlanningError(
      'FIELD_PARSE_ERROR',
      'KML: no Polygon found; a field boundary needs a Placemark with a Polygon.',
      {
        path: 'kml',
      },
    );
  }
  return { type: 'FeatureCollection', features };
}

/** A KML document with one Placemark per polygon. */
export function toKml(
  polygons: { name?: string; coordinates: number[][][] }[],
  documentName = 'Tramline',
): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const ring = (r: number[][]) =>
    `<LinearRing><coordinates>${r.map((p) => `${p[0]},${p[1]}`).join(' ')}</coordinates></LinearRing>`;
  const placemarks = polygons.map(
    (p, i) =>
      `<Placemark><name>${esc(p.name ?? `Field ${i + 1}`)}</name><Polygon><outerBoundaryIs>${ring(p.coordinates[0])}</outerBoundaryIs>${p.coordinates
        .slice(1)
        .map((h) => `<innerBoundaryIs>${ring(h)}</innerBoundaryIs>`)
        .join('')}</Polygon></Placemark>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>${esc(documentName)}</name>${placemarks.join('')}</Document></kml>\n`;
}
