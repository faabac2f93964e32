/**
 * The local metric frame: a transverse Mercator projection centred on the
 * field (scale 1 on the central meridian), so distances and areas are true
 * to well under 0.1 % over any field, in both hemispheres, at zone edges,
 * across the antimeridian and at high latitudes.
 */
import proj4 from 'proj4';
import type { MetricFrame, Point } from '../types/index.ts';

/** Longitude and latitude on WGS84, parsed once. */
const WGS84 = new proj4.Proj('EPSG:4326');

export function createMetricFrame(lon0: number, lat0: number): MetricFrame {
  const definition = `+proj=tmerc +lat_0=${lat0} +lon_0=${lon0} +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs`;
  // The inverse runs once per output vertex: the projection's own inverse (radians) skips the
  // generic transform around it (sanity, datum and axis checks that are all no-ops here),
  // with bit-identical results. The definition is parsed once, for both ways.
  const projection = new proj4.Proj(definition);
  const converter = proj4(WGS84, projection);
  return {
    definition,
    toMetric(lon: number, lat: number): Point {
      // Unwrap the longitude next to the centre so a field across 180 degrees stays whole.
      const [x, y] = converter.forward([lon0 + wrapLon(lon - lon0), lat]);
      return { x, y };
    },
    toLonLat(p: Point): [number, number] {
      const q = projection.inverse({ x: p.x, y: p.y, z: 0 });
      return [wrapLon(q.x * R2D), q.y * R2D];
    },
  };
}

/** Radians to degrees, as proj4 converts. */
const R2D = 57.29577951308232;

/** Longitude wrapped to [-180, 180). */
export function wrapLon(lon: number): number {
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}

/** UTM zone number of a position (for reporting; the planner works in its own frame). */
export function utmZoneOf(lon: number, lat: number): { zone: number; hemisphere: 'N' | 'S' } {
  const zone = Math.min(60, Math.max(1, Math.floor((wrapLon(lon) + 180) / 6) + 1));
  return { zone, hemisphere: lat < 0 ? 'S' : 'N' };
}
