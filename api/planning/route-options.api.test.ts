/**
 * Route options and the turn model through the direct HTTP interface, against
 * a listening server: every option of spec 2.2/2.3 is planned or refused with
 * 422 OPTION_NOT_SUPPORTED naming it, never silently ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';

let srv: TestServer;
let key: string;

beforeAll(async () => {
  srv = await startTestServer();
  key = (await testKey({ unlimited: true })).key;
});

afterAll(async () => {
  await srv?.close();
});

async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(srv.url + path, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const field = rectangleField(6);
const base = (extra: Record<string, unknown> = {}, equipment: Record<string, unknown> = {}) => ({
  boundary: field,
  equipment: { swathWidth: 6, minTurningRadius: 6, ...equipment },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
  ...extra,
});

/** The driven geometry parts of a GeoJSON answer, in driving order. */
function driven(fc: any): any[] {
  return fc.features
    .filter((f: any) => f.properties.featureType === 'geometryPart' && f.properties.sequence !== undefined)
    .sort((a: any, b: any) => a.properties.sequence - b.properties.sequence);
}

describe('turn model: equipment.maxCurvatureRate', () => {
  it('plans continuous-curvature turns and echoes the rate', async () => {
    const a = await post('/api/path-plans/direct', base({}, { maxCurvatureRate: 0.05 }));
    expect(a.status).toBe(200);
    expect(a.json.equipment.maxCurvatureRate).toBe(0.05);
    const g = await post('/api/path-plans/direct/geojson', base({}, { maxCurvatureRate: 0.05 }));
    expect(g.status).toBe(200);
    const turns = driven(g.json).filter((f: any) => f.properties.geometryPartType === 'Turn');
    expect(turns.length).toBeGreaterThan(0);
    for (const t of turns) expect(['U', 'bulb', 'fishtail', 'K']).toContain(t.properties.turnKind);
  });

  it('refuses a rate that is not a positive number (400 naming the field)', async () => {
    for (const bad of [0, -0.1, 'fast']) {
      const a = await post('/api/path-plans/direct', base({}, { maxCurvatureRate: bad }));
      expect(a.status).toBe(400);
      expect(a.json.errorCode).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(a.json.errors)).toContain('/equipment/maxCurvatureRate');
    }
  });
});

describe('route options (spec 2.3)', () => {
  const planned: [string, Record<string, unknown>][] = [
    ['algorithm boustrophedon', { routeOptions: { algorithm: 'boustrophedon' } }],
    ['algorithm snake', { routeOptions: { algorithm: 'snake' } }],
    ['clusteredSpiral with skipCount', { routeOptions: { algorithm: 'clusteredSpiral', skipCount: 2 } }],
    ['optimized with maxOptimizerTime', { routeOptions: { algorithm: 'optimized', maxOptimizerTime: 1 } }],
    ['headlandsFirst', { routeOptions: { headlandsFirst: true } }],
    ['forcedDirection', { routeOptions: { forcedDirection: 'CW' } }],
    ['start and end nodes', { routeOptions: { startPointNodeIndex: 1, endPointNodeIndex: 3 } }],
    ['stagingArea', { routeOptions: { stagingArea: [9.99, 55.0] } }],
    ['enableHeadlandDrivethrough false', { routeOptions: { enableHeadlandDrivethrough: false } }],
    ['enableHeadlandDrivethrough true', { routeOptions: { enableHeadlandDrivethrough: true } }],
    ['extendTracks', { extendTracks: true }],
    ['usePassable false', { usePassable: false }],
  ];
  for (const [name, extra] of planned) {
    it(`plans ${name}`, async () => {
      const a = await post('/api/path-plans/direct', base(extra));
      expect(a.status, JSON.stringify(a.json)).toBe(200);
      expect(a.json.zones.length).toBeGreaterThan(0);
    });
  }

  const refused: [string, Record<string, unknown>][] = [
    ['/routeOptions/skipCount', { routeOptions: { algorithm: 'snake', skipCount: 2 } }],
    ['/routeOptions/algorithm', { routeOptions: { algorithm: 'genetic' } }],
  ];
  for (const [path, extra] of refused) {
    it(`answers 422 naming ${path}`, async () => {
      const a = await post('/api/path-plans/direct', base(extra));
      expect(a.status).toBe(422);
      expect(a.json.errorCode).toBe('OPTION_NOT_SUPPORTED');
      expect(JSON.stringify(a.json)).toContain(path.split('/').pop());
      expect(typeof a.json.correlationId).toBe('string');
    });
  }

  it('usePassable false routes round a passable obstacle instead of across it', async () => {
    const [x0, y0] = field.coordinates[0][0];
    const [x1, y1] = field.coordinates[0][2];
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    const dx = (x1 - x0) / 12;
    const dy = (y1 - y0) / 8;
    const pond = [
      [cx - dx, cy - dy],
      [cx + dx, cy - dy],
      [cx + dx, cy + dy],
      [cx - dx, cy + dy],
      [cx - dx, cy - dy],
    ];
    const boundary = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: {}, geometry: field },
        {
          type: 'Feature',
          properties: { passable: true },
          geometry: { type: 'Polygon', coordinates: [pond] },
        },
      ],
    };
    // More than 1 cm inside the pond (the plans' tolerance for touching an obstacle's edge).
    const ex = 0.01 / (111_320 * Math.cos((cy * Math.PI) / 180));
    const ey = 0.01 / 111_320;
    const inside = (p: number[]) =>
      p[0] > cx - dx + ex && p[0] < cx + dx - ex && p[1] > cy - dy + ey && p[1] < cy + dy - ey;
    const across = await post('/api/path-plans/direct/geojson', { ...base(), boundary });
    expect(across.status).toBe(200);
    const round = await post('/api/path-plans/direct/geojson', { ...base({ usePassable: false }), boundary });
    expect(round.status).toBe(200);
    const pts = (fc: any) => driven(fc).flatMap((f: any) => f.geometry.coordinates as number[][]);
    expect(pts(across.json).some(inside)).toBe(true);
    expect(pts(round.json).some(inside)).toBe(false);
    expect(
      driven(round.json).some((f: any) => f.properties.geometryPartType === 'InteriorHeadlandPass'),
    ).toBe(true);
  });
});
