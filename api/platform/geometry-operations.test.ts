/**
 * The stateless geometry operations over HTTP: WKT and GeoJSON both ways
 * (round trip exact), WGS84 to UTM (checked against known points), and
 * errors that point at the offending member.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  c = client(srv.url, { key: (await testKey()).key });
});
afterAll(async () => {
  await srv?.close();
});

const G = '/api/geometry-operations';
const polygon = {
  type: 'Polygon',
  coordinates: [
    [
      [9.1, 56.1],
      [9.12, 56.1],
      [9.12, 56.11],
      [9.1, 56.11],
      [9.1, 56.1],
    ],
    [
      [9.105, 56.102],
      [9.106, 56.103],
      [9.107, 56.102],
      [9.105, 56.102],
    ],
  ],
};

describe('WKT and GeoJSON', () => {
  it('round-trips a polygon with a hole and a multipolygon exactly', async () => {
    const w = await c.post(`${G}/convert-geojson-to-wkt`, { geojson: polygon });
    expectOk(w);
    expect(w.json.wkt).toBe(
      'POLYGON ((9.1 56.1, 9.12 56.1, 9.12 56.11, 9.1 56.11, 9.1 56.1), (9.105 56.102, 9.106 56.103, 9.107 56.102, 9.105 56.102))',
    );
    const g = await c.post(`${G}/convert-wkt-to-geojson`, { wkt: w.json.wkt });
    expectOk(g);
    expect(g.json.geometry).toEqual(polygon);

    const fc = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: {}, geometry: polygon },
        {
          type: 'Feature',
          properties: {},
          geometry: {
            type: 'MultiPolygon',
            coordinates: [[polygon.coordinates[0].map(([x, y]) => [x + 1, y])]],
          },
        },
      ],
    };
    const mw = await c.post(`${G}/convert-geojson-to-wkt`, { geojson: fc });
    expect(mw.json.wkt).toMatch(/^MULTIPOLYGON \(\(\(9\.1 56\.1,/);
    const mg = await c.post(`${G}/convert-wkt-to-geojson`, { wkt: mw.json.wkt });
    expect(mg.json.geometry.type).toBe('MultiPolygon');
    expect(mg.json.geometry.coordinates).toHaveLength(2);
    expect(mg.json.geometry.coordinates[1][0][1]).toEqual([10.12, 56.1]);
  });

  it('says where the input goes wrong', async () => {
    const bad = await c.post(`${G}/convert-wkt-to-geojson`, { wkt: 'POLYGON ((1 2, 3 x))' });
    expectError(bad, 400, 'FIELD_PARSE_ERROR');
    expect(bad.json.message).toMatch(/expected a number at character 17 \(near "x\)\)"\)/);
    expect(bad.json.errors[0].path).toBe('/wkt');
    const line = await c.post(`${G}/convert-geojson-to-wkt`, {
      geojson: {
        type: 'Feature',
        geometry: {
          type: 'LineString',
          coordinates: [
            [1, 2],
            [3, 4],
          ],
        },
      },
    });
    expectError(line, 400, 'FIELD_PARSE_ERROR');
    expect(line.json.errors[0].path).toBe('/geojson/geometry/type');
    const ring = await c.post(`${G}/convert-geojson-to-wkt`, {
      geojson: {
        type: 'Polygon',
        coordinates: [
          [
            [1, 2],
            [3, 4],
            ['a', 5],
            [1, 2],
          ],
        ],
      },
    });
    expect(ring.json.errors[0].path).toBe('/geojson/coordinates/0/2');
    expectError(
      await c.post(`${G}/convert-wkt-to-geojson`, { wkt: 'POLYGON ((1 2, 3 4, 5 6, 1 2))', x: 1 }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await c.post(`${G}/convert-wkt-to-geojson`, {}), 400, 'VALIDATION_ERROR');
  });
});

describe('WGS84 to UTM', () => {
  it('projects GeoJSON to the zone of its centre (known points within 1 mm)', async () => {
    // 9°E is the central meridian of zone 32: easting 500,000 m; northing the WGS84 meridian arc to 56°N (6,208,562.9 m) times k0 = 0.9996.
    const pt = await c.post(`${G}/geojson-change-crs-to-utm`, {
      geojson: { type: 'Point', coordinates: [9, 56, 42] },
    });
    expectOk(pt);
    expect(pt.json.utm).toMatchObject({ zone: 32, hemisphere: 'N', epsg: 32632 });
    expect(pt.json.geojson.coordinates[0]).toBeCloseTo(500000, 3);
    expect(pt.json.geojson.coordinates[1]).toBeCloseTo(6206079.587, 2);
    expect(pt.json.geojson.coordinates[2]).toBe(42);

    const fc = await c.post(`${G}/geojson-change-crs-to-utm`, {
      geojson: {
        type: 'FeatureCollection',
        features: [{ type: 'Feature', properties: { a: 1 }, geometry: polygon }],
      },
    });
    expectOk(fc);
    const ring = fc.json.geojson.features[0].geometry.coordinates[0];
    expect(fc.json.geojson.features[0].properties).toEqual({ a: 1 });
    // 0.02° of longitude at 56°N is about 1,244 m.
    expect(ring[1][0] - ring[0][0]).toBeGreaterThan(1240);
    expect(ring[1][0] - ring[0][0]).toBeLessThan(1250);

    // Southern hemisphere and a chosen zone.
    const s = await c.post(`${G}/geojson-change-crs-to-utm`, {
      geojson: { type: 'Point', coordinates: [-47.9, -15.8] },
    });
    expect(s.json.utm).toMatchObject({ zone: 23, hemisphere: 'S', epsg: 32723 });
    expect(s.json.geojson.coordinates[1]).toBeGreaterThan(8_000_000);
    const z = await c.post(`${G}/geojson-change-crs-to-utm`, {
      geojson: { type: 'Point', coordinates: [9, 56] },
      zone: 33,
    });
    expect(z.json.utm.epsg).toBe(32633);
    expect(z.json.geojson.coordinates[0]).toBeLessThan(500000);
  });

  it('projects WKT and refuses coordinates that are not longitude/latitude', async () => {
    const w = await c.post(`${G}/wkt-change-crs-to-utm`, {
      wkt: 'POLYGON ((9 56, 9.01 56, 9.01 56.01, 9 56))',
    });
    expectOk(w);
    expect(w.json.utm.zone).toBe(32);
    expect(w.json.wkt).toMatch(/^POLYGON \(\(500000 6206079\.\d+, 500623\.\d+ /);
    const bad = await c.post(`${G}/geojson-change-crs-to-utm`, {
      geojson: {
        type: 'LineString',
        coordinates: [
          [9, 56],
          [554787.3, 6258009.3],
        ],
      },
    });
    expectError(bad, 400, 'FIELD_NOT_LONLAT');
    expect(bad.json.errors[0].path).toBe('/geojson/coordinates/1');
    expectError(
      await c.post(`${G}/wkt-change-crs-to-utm`, {
        wkt: 'POLYGON ((9 56, 9.01 56, 9.01 56.01, 9 56))',
        zone: 61,
      }),
      400,
      'VALIDATION_ERROR',
    );
  });
});
