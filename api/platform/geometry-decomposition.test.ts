/**
 * The decomposition endpoints over HTTP against a listening server: an L
 * field comes back as two cells at right angles and its headland, a
 * rectangle as one zone, a manual cut as two pieces that cover the field;
 * bad input gets 400 naming the member.
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
const LON0 = 9.5;
const LAT0 = 52.3;
const M_LAT = 111_320;
const M_LON = 111_320 * Math.cos((LAT0 * Math.PI) / 180);
const ll = ([x, y]: number[]) => [LON0 + x / M_LON, LAT0 + y / M_LAT];

function polygon(pts: number[][]) {
  const c = pts.map(ll);
  return { type: 'Polygon', coordinates: [[...c, c[0]]] };
}

/** Area of a lon/lat ring near (LON0, LAT0) [m^2] (local plane; good to a fraction of a percent here). */
function ringArea(ring: number[][]): number {
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [x1, y1] = [(ring[j][0] - LON0) * M_LON, (ring[j][1] - LAT0) * M_LAT];
    const [x2, y2] = [(ring[i][0] - LON0) * M_LON, (ring[i][1] - LAT0) * M_LAT];
    s += x1 * y2 - x2 * y1;
  }
  return Math.abs(s) / 2;
}

const L = polygon([
  [0, 0],
  [300, 0],
  [300, 80],
  [80, 80],
  [80, 300],
  [0, 300],
]);
const RECT = polygon([
  [0, 0],
  [300, 0],
  [300, 100],
  [0, 100],
]);
const S1 = {
  equipment: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
};

interface ZoneFeature {
  geometry: { type: string; coordinates: number[][][] };
  properties: {
    zoneIndex: number;
    fieldPartIndex: number;
    role: string;
    trackBearing?: number;
    trackCount?: number;
    area: number;
  };
}

function near(a: number, b: number): boolean {
  const d = Math.abs(a - b) % 180;
  return Math.min(d, 180 - d) < 1;
}

describe('POST /api/geometry-operations/automatic-decomposition', () => {
  it('splits an L field into two cells at right angles and the headland around it', async () => {
    const a = await c.post(`${G}/automatic-decomposition`, { boundary: L, ...S1 });
    expectOk(a);
    expect(a.json.decomposed).toBe(true);
    const zones = a.json.zones.features as ZoneFeature[];
    const cells = zones.filter((z) => z.properties.role === 'cell');
    expect(cells).toHaveLength(2);
    expect(zones.filter((z) => z.properties.role === 'headland')).toHaveLength(1);
    const bearings = cells.map((z) => z.properties.trackBearing as number);
    expect(bearings.some((b) => near(b, 0)) && bearings.some((b) => near(b, 90))).toBe(true);
    for (const z of cells) expect(z.properties.trackCount).toBeGreaterThan(5);
    expect(zones.map((z) => z.properties.zoneIndex)).toEqual(zones.map((_, i) => i));
    expect(zones.every((z) => z.properties.fieldPartIndex === 0)).toBe(true);
    // The zones cover the field: their areas add up to its area.
    const total = zones.reduce((s, z) => s + z.properties.area, 0);
    expect(Math.abs(total - (300 * 80 + 80 * 220)) / total).toBeLessThan(0.005);
    const measured = zones.reduce(
      (s, z) =>
        s +
        ringArea(z.geometry.coordinates[0]) -
        z.geometry.coordinates.slice(1).reduce((h, r) => h + ringArea(r), 0),
      0,
    );
    expect(Math.abs(measured - total) / total).toBeLessThan(0.005);
    expect(a.json.estimate.nonWorkingDistance).toBeLessThan(a.json.estimate.baselineNonWorkingDistance);
  });

  it('keeps a rectangle as one zone with its best bearing', async () => {
    const a = await c.post(`${G}/automatic-decomposition`, { boundary: RECT, ...S1 });
    expectOk(a);
    expect(a.json.decomposed).toBe(false);
    const zones = a.json.zones.features as ZoneFeature[];
    expect(zones).toHaveLength(1);
    expect(zones[0].properties.role).toBe('field');
    expect(near(zones[0].properties.trackBearing as number, 90)).toBe(true);
    expect(a.json.estimate.nonWorkingDistance).toBe(a.json.estimate.baselineNonWorkingDistance);
  });

  it('refuses bad input with 400 naming the member', async () => {
    const noSwath = await c.post(`${G}/automatic-decomposition`, { boundary: L, equipment: {} });
    expectError(noSwath, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(noSwath.json.errors)).toMatch(/swathWidth/);
    const bad = await c.post(`${G}/automatic-decomposition`, {
      boundary: {
        type: 'Polygon',
        coordinates: [
          [
            [9.5, 52.3],
            [9.6, 52.3],
            [9.5, 52.3],
          ],
        ],
      },
      ...S1,
    });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toMatch(/^\/boundary/);
    expect(bad.json.correlationId).toBeTruthy();
  });
});

describe('POST /api/geometry-operations/manual-decomposition', () => {
  it('cuts a rectangle in two along a line; each piece gets its direction', async () => {
    const line = { type: 'LineString', coordinates: [ll([150, -20]), ll([150, 120])] };
    const a = await c.post(`${G}/manual-decomposition`, { boundary: RECT, lines: [line], ...S1 });
    expectOk(a);
    const zones = a.json.zones.features as ZoneFeature[];
    expect(zones).toHaveLength(2);
    for (const z of zones) {
      expect(z.properties.role).toBe('field');
      expect(z.properties.area).toBeGreaterThan(14_900);
      expect(z.properties.area).toBeLessThan(15_150);
      expect(typeof z.properties.trackBearing).toBe('number');
      expect(z.properties.trackCount).toBeGreaterThan(0);
    }
    // The local plane of the test is good to a fraction of a percent.
    expect(Math.abs(zones[0].properties.area + zones[1].properties.area - 30_000)).toBeLessThan(150);
  });

  it('refuses a line that cuts nothing, naming it', async () => {
    const across = { type: 'LineString', coordinates: [ll([150, -20]), ll([150, 120])] };
    const outside = { type: 'LineString', coordinates: [ll([400, 0]), ll([500, 100])] };
    const a = await c.post(`${G}/manual-decomposition`, { boundary: RECT, lines: [across, outside], ...S1 });
    expectError(a, 400, 'VALIDATION_ERROR');
    expect(a.json.errors).toEqual([{ path: '/lines/1', message: expect.stringMatching(/cuts no part/) }]);
    const none = await c.post(`${G}/manual-decomposition`, { boundary: RECT, lines: [], ...S1 });
    expectError(none, 400, 'VALIDATION_ERROR');
    const notLonLat = await c.post(`${G}/manual-decomposition`, {
      boundary: RECT,
      lines: [
        {
          type: 'LineString',
          coordinates: [
            [500, 0],
            [9.5, 52.3],
          ],
        },
      ],
      ...S1,
    });
    expectError(notLonLat, 400, 'VALIDATION_ERROR');
    expect(notLonLat.json.errors[0].path).toBe('/lines/0/coordinates/0');
  });
});

describe('POST /api/path-plans/direct with useDecomposition', () => {
  it('plans an L field as two cells and its headland by default, as one zone with useDecomposition false', async () => {
    const on = await c.post('/api/path-plans/direct', { boundary: L, ...S1 });
    expectOk(on);
    const zones = on.json.zones as {
      fieldPartIndex: number;
      decomposition?: {
        role: string;
        cells: number;
        baseline: { turnCount: number; nonWorkingDistance: number };
      };
      geometryGroups: { trackBearing: number }[];
    }[];
    expect(zones.map((z) => z.decomposition?.role)).toEqual(['cell', 'cell', 'headland']);
    expect(zones.every((z) => z.fieldPartIndex === 0 && z.decomposition?.cells === 2)).toBe(true);
    const [a, b] = zones.slice(0, 2).map((z) => z.geometryGroups[0].trackBearing);
    expect(near(a, b + 90)).toBe(true);
    const off = await c.post('/api/path-plans/direct', { boundary: L, ...S1, useDecomposition: false });
    expectOk(off);
    expect(off.json.zones).toHaveLength(1);
    expect(off.json.zones[0].decomposition).toBeUndefined();
    // The baseline the decomposed plan reports is the plan without decomposition.
    expect(zones[0].decomposition?.baseline.turnCount).toBe(off.json.stats.turnCount);
    expect(on.json.stats.turnCount).toBeLessThan(off.json.stats.turnCount);
    expect(on.json.stats.nonWorkingDistance).toBeLessThan(0.9 * off.json.stats.nonWorkingDistance);
    const bad = await c.post('/api/path-plans/direct', { boundary: L, ...S1, useDecomposition: 'yes' });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json.errors[0].path).toBe('/useDecomposition');
  });
});
