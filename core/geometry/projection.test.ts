/**
 * The metric frame: true distances and exact round trips wherever fields
 * are (both hemispheres, UTM zone edges, across the antimeridian, high
 * latitudes), and whole plans made there.
 */
import { describe, expect, it } from 'vitest';
import { toPlanGeoJSON } from '../../formats/plan-geojson.ts';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { planField } from '../plan.ts';
import { createMetricFrame, utmZoneOf, wrapLon } from './projection.ts';

/** WGS84 ellipsoid. */
const A = 6_378_137;
const F = 1 / 298.257223563;
const E2 = F * (2 - F);

/** Ellipsoidal radii of curvature at a latitude: meridian (M) and prime vertical (N) [m]. */
function radii(latDeg: number) {
  const s = Math.sin((latDeg * Math.PI) / 180);
  const w = 1 - E2 * s * s;
  return { M: (A * (1 - E2)) / w ** 1.5, N: A / Math.sqrt(w) };
}

const PLACES: [string, number, number][] = [
  ['Netherlands', 5.1, 52.2],
  ['Buenos Aires (south, west)', -58.4, -34.6],
  ['Tierra del Fuego (far south)', -68.3, -54.8],
  ['Svalbard (78 degrees north)', 15.6, 78.2],
  ['Fiji, on the antimeridian', 180, -16.8],
  ['Fiji, just west of it', 179.9999, -16.8],
  ['Fiji, just east of it', -179.9999, -16.8],
  ['a UTM zone edge (6 E)', 6, 50.5],
  ['the equator', 30, 0],
];

describe('createMetricFrame', () => {
  it.each(PLACES)('round-trips positions within 0.1 mm near %s', (_name, lon0, lat0) => {
    const frame = createMetricFrame(lon0, lat0);
    for (const [dlon, dlat] of [
      [0, 0],
      [0.01, 0.005],
      [-0.02, 0.013],
      [0.0137, -0.0191],
    ]) {
      const lon = wrapLon(lon0 + dlon);
      const lat = lat0 + dlat;
      const back = frame.toLonLat(frame.toMetric(lon, lat));
      const p = frame.toMetric(back[0], back[1]);
      const q = frame.toMetric(lon, lat);
      expect(Math.hypot(p.x - q.x, p.y - q.y)).toBeLessThan(1e-4);
      expect(back[0]).toBeGreaterThanOrEqual(-180);
      expect(back[0]).toBeLessThan(180);
      // Same longitude modulo 360, same latitude, to about 1e-9 degrees (0.1 mm).
      expect(Math.abs(wrapLon(back[0] - lon))).toBeLessThan(1e-9);
      expect(Math.abs(back[1] - lat)).toBeLessThan(1e-9);
    }
  });

  it.each(PLACES)('measures true distances (within 0.05 %%) near %s', (_name, lon0, lat0) => {
    const frame = createMetricFrame(lon0, lat0);
    const { M, N } = radii(lat0);
    const d = 0.005; // about 550 m north-south
    const north = frame.toMetric(lon0, lat0 + d);
    const south = frame.toMetric(lon0, lat0 - d);
    const meridian = M * ((2 * d * Math.PI) / 180);
    expect(Math.abs(Math.hypot(north.x - south.x, north.y - south.y) / meridian - 1)).toBeLessThan(5e-4);
    // Across the antimeridian too: east and west of the centre by the same angle.
    const east = frame.toMetric(wrapLon(lon0 + d), lat0);
    const west = frame.toMetric(wrapLon(lon0 - d), lat0);
    const parallel = N * Math.cos((lat0 * Math.PI) / 180) * ((2 * d * Math.PI) / 180);
    expect(Math.abs(Math.hypot(east.x - west.x, east.y - west.y) / parallel - 1)).toBeLessThan(5e-4);
    // North is up, east is right.
    expect(north.y).toBeGreaterThan(south.y);
    expect(east.x).toBeGreaterThan(west.x);
  });

  it('names UTM zones in both hemispheres and across the antimeridian', () => {
    expect(utmZoneOf(5.1, 52.2)).toEqual({ zone: 31, hemisphere: 'N' });
    expect(utmZoneOf(6.0001, 50)).toEqual({ zone: 32, hemisphere: 'N' });
    expect(utmZoneOf(-58.4, -34.6)).toEqual({ zone: 21, hemisphere: 'S' });
    expect(utmZoneOf(179.99, -16.8)).toEqual({ zone: 60, hemisphere: 'S' });
    expect(utmZoneOf(-179.99, -16.8)).toEqual({ zone: 1, hemisphere: 'S' });
    expect(utmZoneOf(180, -16.8)).toEqual({ zone: 1, hemisphere: 'S' });
  });
});

/** A 300 m x 200 m rectangle, slightly rotated, centred on lon0/lat0, as GeoJSON lon/lat. */
function rectangleAt(lon0: number, lat0: number) {
  const { M, N } = radii(lat0);
  const degLat = (m: number) => ((m / M) * 180) / Math.PI;
  const degLon = (m: number) => ((m / (N * Math.cos((lat0 * Math.PI) / 180))) * 180) / Math.PI;
  const t = (12 * Math.PI) / 180;
  const ring = [
    [-150, -100],
    [150, -100],
    [150, 100],
    [-150, 100],
  ].map(([x, y]) => {
    const xr = x * Math.cos(t) - y * Math.sin(t);
    const yr = x * Math.sin(t) + y * Math.cos(t);
    return [wrapLon(lon0 + degLon(xr)), lat0 + degLat(yr)];
  });
  return { type: 'Polygon', coordinates: [[...ring, ring[0]]] };
}

describe('plans wherever the field is', () => {
  it.each(PLACES)(
    'plans a 6 ha rectangle near %s: true area, valid plan, lon/lat output',
    (_n, lon0, lat0) => {
      const boundary = rectangleAt(lon0, lat0);
      const result = planField({
        boundary,
        machine: { swathWidth: 6, minTurningRadius: 6 },
        exteriorHeadlandPasses: 2,
        interiorHeadlandPasses: 1,
      });
      expect(checkPlan(result.plan)).toEqual([]);
      expect(Math.abs(result.plan.stats.fieldArea / 60_000 - 1)).toBeLessThan(1e-3);
      // The track count of a 200 m wide rectangle less 2 x 6 m of headland: ceil(176 / 6) = 30.
      const tracks = result.plan.zones[0].groups[0].parts.filter((p) => p.type === 'GuidanceTrack');
      expect(tracks.length).toBe(30);
      const fc = toPlanGeoJSON(result, { pathPlanId: 'p', pathPlanName: 'p' });
      const lons: number[] = [];
      const walk = (c: unknown): void => {
        if (Array.isArray(c) && typeof c[0] === 'number') {
          lons.push(c[0] as number);
          expect(Math.abs((c[1] as number) - lat0)).toBeLessThan(0.01);
        } else if (Array.isArray(c)) for (const x of c) walk(x);
      };
      for (const f of fc.features) if (f.geometry) walk((f.geometry as { coordinates: unknown }).coordinates);
      expect(lons.length).toBeGreaterThan(100);
      for (const lon of lons) {
        expect(lon).toBeGreaterThanOrEqual(-180);
        expect(lon).toBeLessThan(180);
        // Every output position lies near the field, also across the antimeridian.
        expect(Math.abs(wrapLon(lon - lon0))).toBeLessThan(0.02);
      }
    },
  );
});
