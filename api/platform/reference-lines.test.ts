/**
 * The reference-line endpoints over HTTP against a listening server: the
 * straight edges of an L field (longest first, one per direction), its
 * contours, the planner's best bearing first among the default lines with
 * track counts, the GeoJSON variants; 400 for bad input and 401 without a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  c = client(srv.url, { key: (await testKey()).key });
});
afterAll(async () => {
  await srv?.close();
});

const R = '/api/reference-lines';
const LON0 = 9.5;
const LAT0 = 52.3;
const M_LAT = 111_320;
const M_LON = 111_320 * Math.cos((LAT0 * Math.PI) / 180);
const ll = ([x, y]: number[]) => [LON0 + x / M_LON, LAT0 + y / M_LAT];

function polygon(pts: number[][]) {
  const c = pts.map(ll);
  return { type: 'Polygon', coordinates: [[...c, c[0]]] };
}

// An L: a 400 m south edge (east-west), a 300 m west edge (north-south), shorter edges in both directions.
const L = polygon([
  [0, 0],
  [400, 0],
  [400, 80],
  [80, 80],
  [80, 300],
  [0, 300],
]);

interface Line {
  kind: string;
  rank: number;
  bearing: number;
  length: number;
  trackCount?: number;
  fieldPartIndex: number;
  line: { type: string; coordinates: number[][] };
}

describe('POST /api/reference-lines/default-straight-edges', () => {
  it('answers the long straight edges, longest first, one per direction', async () => {
    const a = await c.post(`${R}/default-straight-edges`, { boundary: L });
    expectOk(a);
    const lines = a.json.lines as Line[];
    expect(lines).toHaveLength(2);
    expect(lines[0].kind).toBe('edge');
    expect(lines[0].bearing).toBeCloseTo(90, 0);
    expect(lines[0].length).toBeCloseTo(400, -1);
    expect(lines[1].bearing % 180).toBeCloseTo(0, 0);
    expect(lines[1].length).toBeCloseTo(300, -1);
    expect(lines.map((l) => l.rank)).toEqual([0, 1]);
    expect(lines[0].line.type).toBe('LineString');
    expect(lines[0].line.coordinates[0][0]).toBeCloseTo(LON0, 5);
  });

  it('answers the same lines as GeoJSON', async () => {
    const a = await c.post(`${R}/default-straight-edges/geojson`, { boundary: L, maxLines: 1 });
    expectOk(a);
    expect(a.headers.get('content-type')).toContain('application/geo+json');
    expect(a.json.type).toBe('FeatureCollection');
    expect(a.json.features).toHaveLength(1);
    expect(a.json.features[0].geometry.type).toBe('LineString');
    expect(a.json.features[0].properties.kind).toBe('edge');
  });
});

describe('POST /api/reference-lines/default-contours', () => {
  it('answers smooth runs of the boundary, usable as referenceLine of a curved plan', async () => {
    const arc: number[][] = [];
    for (let i = 0; i <= 30; i++) {
      const t = Math.PI + (i / 30) * (Math.PI / 2);
      arc.push([300 + 300 * Math.cos(t), 300 + 300 * Math.sin(t)]);
    }
    const field = polygon([...arc, [300, 400], [0, 400]]);
    const a = await c.post(`${R}/default-contours`, { boundary: field, maxLines: 2 });
    expectOk(a);
    const lines = a.json.lines as Line[];
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0].kind).toBe('contour');
    expect(lines[0].line.coordinates.length).toBeGreaterThan(10);
    const p = await c.post('/api/path-plans/direct', {
      boundary: field,
      equipment: { swathWidth: 12, minTurningRadius: 6 },
      exteriorHeadlandPasses: 1,
      trackType: 'Curved',
      referenceLine: lines[0].line.coordinates,
    });
    expect(p.status, p.text).toBe(200);
    expect(p.json.zones[0].geometryGroups[0].trackType).toBe('Curved');
    const g = await c.post(`${R}/default-contours/geojson`, { boundary: field });
    expectOk(g);
    expect(g.json.features[0].properties.kind).toBe('contour');
  });
});

describe('POST /api/reference-lines/default-lines', () => {
  it("puts the planner's best bearing first, then the edges, with their track counts", async () => {
    const a = await c.post(`${R}/default-lines`, {
      boundary: L,
      equipment: { swathWidth: 6, minTurningRadius: 6 },
      exteriorHeadlandPasses: 1,
    });
    expectOk(a);
    const lines = a.json.lines as Line[];
    expect(lines[0].kind).toBe('best');
    expect(lines[0].trackCount).toBeGreaterThan(0);
    for (const l of lines) expect(l.trackCount).toBeGreaterThanOrEqual(lines[0].trackCount as number);
    expect(lines.some((l) => l.kind === 'edge')).toBe(true);
    const g = await c.post(`${R}/default-lines/geojson`, {
      boundary: L,
      equipment: { swathWidth: 6 },
    });
    expectOk(g);
    expect(g.json.features[0].properties.kind).toBe('best');
  });

  it('needs the swath width', async () => {
    const a = await c.post(`${R}/default-lines`, { boundary: L });
    expectError(a, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(a.json.errors)).toContain('/equipment/swathWidth');
  });
});

describe('bad input', () => {
  it('answers 400 naming the member, and 401 without a key', async () => {
    const bad = await c.post(`${R}/default-straight-edges`, { boundary: L, maxLines: 0 });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(bad.json.errors)).toContain('/maxLines');
    const unknown = await c.post(`${R}/default-contours`, { boundary: L, colour: 'red' });
    expectError(unknown, 400, 'VALIDATION_ERROR');
    const crossing = await c.post(`${R}/default-lines`, {
      boundary: polygon([
        [0, 0],
        [100, 100],
        [100, 0],
        [0, 100],
      ]),
      equipment: { swathWidth: 6 },
    });
    expect(crossing.status).toBe(400);
    expect(crossing.json.errorCode).toMatch(/^FIELD_/);
    expect(crossing.json.correlationId).toBeTruthy();
    const anon = await call(srv.url, `${R}/default-straight-edges`, { body: { boundary: L } });
    expect(anon.status).toBe(401);
  });
});
