/**
 * Over HTTP (PGlite and PostgreSQL): all reference lines of a boundary and
 * the deprecated name of default-lines; John Deere multipolygons JSON to
 * GeoJSON (holes, passable obstacles, closing, errors naming the member);
 * the GeoJSON wrappers check; the plans of a share as a normalized table
 * (no key; unknown codes 404).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
const FIELD = rectangleField(6, 10, 55);

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  a = client(srv.url, { key: (await testKey({ credits: 100 })).key });
});
afterAll(async () => {
  await srv?.close();
});

describe('reference lines', () => {
  it('answers every reference line of a boundary: best, edges, contours', async () => {
    const all = await a.post('/api/reference-lines/default-reference-lines', {
      boundary: FIELD,
      equipment: { swathWidth: 12 },
    });
    expectOk(all);
    const kinds = all.json.lines.map((l: { kind: string }) => l.kind);
    expect(kinds[0]).toBe('best');
    expect(kinds).toContain('edge');
    expect(kinds).toContain('contour');
    expect(all.json.lines.map((l: { rank: number }) => l.rank)).toEqual(
      kinds.map((_: string, i: number) => i),
    );
    const noSwath = await a.post('/api/reference-lines/default-reference-lines', { boundary: FIELD });
    expectOk(noSwath);
    expect(noSwath.json.lines.some((l: { kind: string }) => l.kind === 'best')).toBe(false);
    const lines = await a.post('/api/reference-lines/default-lines', {
      boundary: FIELD,
      equipment: { swathWidth: 12 },
    });
    const old = await a.post('/api/reference-lines/default-lines-deprecated', {
      boundary: FIELD,
      equipment: { swathWidth: 12 },
    });
    expectOk(old);
    expect(old.json).toEqual(lines.json);
    expectError(
      await a.post('/api/reference-lines/default-lines-deprecated', { boundary: FIELD }),
      400,
      'VALIDATION_ERROR',
    );
    const doc = (await a.get('/api/openapi.json')).json;
    expect(doc.paths['/api/reference-lines/default-lines-deprecated'].post.deprecated).toBe(true);
  });
});

describe('John Deere multipolygons', () => {
  const pts = (c: number[][]) => c.map(([lon, lat]) => ({ '@type': 'Point', lat, lon }));
  it('converts exteriors with their holes, and passable interiors as passable features', async () => {
    const body = {
      multipolygons: [
        {
          '@type': 'Polygon',
          rings: [
            {
              type: 'exterior',
              passable: false,
              points: pts([
                [10, 55],
                [10.01, 55],
                [10.01, 55.01],
                [10, 55.01],
              ]),
            },
            {
              type: 'interior',
              passable: false,
              points: pts([
                [10.002, 55.002],
                [10.003, 55.002],
                [10.003, 55.003],
              ]),
            },
            {
              type: 'interior',
              passable: true,
              points: pts([
                [10.006, 55.006],
                [10.007, 55.006],
                [10.007, 55.007],
              ]),
            },
          ],
        },
      ],
    };
    const r = await a.post('/api/geometry-operations/convert-jd-multipolygonsjson-to-geojson', body);
    expectOk(r);
    expect(r.json.type).toBe('FeatureCollection');
    const [passable, field] = r.json.features;
    expect(passable.properties.passable).toBe(true);
    expect(field.geometry.coordinates).toHaveLength(2);
    expect(field.geometry.coordinates[0][0]).toEqual(field.geometry.coordinates[0].at(-1));
    expect(field.geometry.coordinates[0]).toHaveLength(5);
    // The planner reads it: one field part with a hole, one passable obstacle.
    const check = await a.post('/api/geometry-operations/geojson-wrappers-testing', { geojson: r.json });
    expect(check.json).toMatchObject({
      wrapper: 'FeatureCollection',
      valid: true,
      fieldParts: 1,
      passableObstacles: 1,
    });
  });

  it('names the offending member', async () => {
    const r = await a.post('/api/geometry-operations/convert-jd-multipolygonsjson-to-geojson', {
      multipolygons: [
        {
          rings: [
            {
              type: 'exterior',
              points: [
                { lat: 55, lon: 10 },
                { lat: 95, lon: 10 },
              ],
            },
          ],
        },
      ],
    });
    expectError(r, 400, 'FIELD_INVALID');
    expect(r.json.errors[0].path).toBe('/multipolygons/0/rings/0/points/1/lat');
    expectError(
      await a.post('/api/geometry-operations/convert-jd-multipolygonsjson-to-geojson', { multipolygons: [] }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('GeoJSON wrappers check', () => {
  it('reports the wrapper, its contents and whether it makes a field', async () => {
    const geometry = await a.post('/api/geometry-operations/geojson-wrappers-testing', { geojson: FIELD });
    expect(geometry.json).toMatchObject({
      wrapper: 'Geometry',
      type: 'Polygon',
      valid: true,
      fieldParts: 1,
      problems: [],
    });
    expect(geometry.json.area).toBeCloseTo(60_000, -3);
    const feature = await a.post('/api/geometry-operations/geojson-wrappers-testing', {
      geojson: { type: 'Feature', properties: {}, geometry: FIELD },
    });
    expect(feature.json).toMatchObject({
      wrapper: 'Feature',
      featureCount: 1,
      geometryTypes: ['Polygon'],
      valid: true,
    });
    const line = await a.post('/api/geometry-operations/geojson-wrappers-testing', {
      geojson: {
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            properties: {},
            geometry: {
              type: 'LineString',
              coordinates: [
                [10, 55],
                [10.1, 55],
              ],
            },
          },
        ],
      },
    });
    expect(line.json).toMatchObject({
      wrapper: 'FeatureCollection',
      valid: false,
      geometryTypes: ['LineString'],
    });
    expect(line.json.problems[0].errorCode).toBe('FIELD_UNSUPPORTED_GEOMETRY');
  });
});

describe('POST /api/shares/{code}/plans', () => {
  it('answers the shared plans as normalized models without a key; unknown codes 404', async () => {
    const direct = await a.post('/api/path-plans/direct', {
      boundary: FIELD,
      equipment: { swathWidth: 12, minTurningRadius: 6 },
    });
    const stored = await a.post('/api/path-plans/upsert', { plan: direct.json });
    expectOk(stored, 201);
    const planId = stored.json.pathPlanId;
    const share = await a.post('/api/shares/path-plan', { pathPlanId: planId });
    const code = share.json.code;
    const r = await call(srv.url, `/api/shares/${code}/plans`, { method: 'POST', body: {} });
    expectOk(r);
    expect(r.json.total).toBe(1);
    expect(r.json.items[0].pathPlanId).toBe(planId);
    expect(r.json.items[0].zones.length).toBeGreaterThan(0);
    const empty = await call(srv.url, `/api/shares/${code}/plans`, { method: 'POST', body: { offset: 1 } });
    expect(empty.json).toMatchObject({ items: [], total: 1 });
    expectError(
      await call(srv.url, `/api/shares/tls_${'x'.repeat(20)}/plans`, { method: 'POST', body: {} }),
      404,
      'NOT_FOUND',
    );
    const doc = (await a.get('/api/openapi.json')).json;
    expect(doc.components.schemas.TableSharePathPlanNormalizedResponseModel).toBeDefined();
  });
});
