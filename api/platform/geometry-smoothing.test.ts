/**
 * Line smoothing over HTTP: the answered line never bends tighter than the
 * radius (measured again here in a metric frame of the test's own), keeps
 * its ends; many lines with their own parameters; validation naming the
 * member; the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricFrame } from '../../core/geometry/projection.ts';
import { tightestRadius } from '../../core/tracks/smooth-line.ts';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
const frame = createMetricFrame(10, 55);
const LINE = {
  type: 'LineString',
  coordinates: [
    [0, 0],
    [100, 0],
    [130, 40],
    [200, 45],
    [260, -20],
    [400, -20],
  ].map(([x, y]) => frame.toLonLat({ x, y })),
};
const radiusOf = (coords: number[][]) => tightestRadius(coords.map(([lon, lat]) => frame.toMetric(lon, lat)));

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  a = client(srv.url, { key: (await testKey()).key });
});
afterAll(async () => {
  await srv?.close();
});

describe('line smoothing', () => {
  it('answers a line never tighter than the radius, with its ends kept', async () => {
    for (const strategy of ['Fillet', 'CornerCutting']) {
      const r = await a.post('/api/geometry/smoothline', { line: LINE, radius: 15, strategy });
      expectOk(r);
      expect(r.json).toMatchObject({ strategy, radius: 15 });
      const coords = r.json.line.coordinates as number[][];
      expect(coords.length).toBeGreaterThan(LINE.coordinates.length);
      expect(radiusOf(coords)).toBeGreaterThan(15 * 0.99);
      expect(r.json.tightestRadius).toBeGreaterThanOrEqual(15 * 0.999);
      for (const [got, want] of [
        [coords[0], LINE.coordinates[0]],
        [coords.at(-1)!, LINE.coordinates.at(-1)!],
      ]) {
        expect(got[0]).toBeCloseTo(want[0], 8);
        expect(got[1]).toBeCloseTo(want[1], 8);
      }
    }
  });

  it('smooths many lines with their own parameters, in order', async () => {
    const r = await a.post('/api/geometry/smoothlines', {
      lines: [
        { id: 'wide', line: LINE, radius: 40 },
        {
          id: 'tight',
          line: LINE,
          radius: 5,
          strategy: 'CornerCutting',
          curvedOptions: { smoothingIterations: 2 },
        },
        { line: { type: 'LineString', coordinates: LINE.coordinates.slice(0, 2) }, radius: 5 },
      ],
    });
    expectOk(r);
    expect(r.json.lines.map((l: { id?: string }) => l.id)).toEqual(['wide', 'tight', undefined]);
    expect(radiusOf(r.json.lines[0].line.coordinates)).toBeGreaterThan(40 * 0.99);
    expect(radiusOf(r.json.lines[1].line.coordinates)).toBeGreaterThan(5 * 0.99);
    expect(r.json.lines[2].tightestRadius).toBeNull();
    expect(r.json.lines[2].length).toBeCloseTo(100, 1);
  });

  it('refuses bad input naming the member', async () => {
    expectError(await a.post('/api/geometry/smoothline', { line: LINE, radius: 0 }), 400, 'VALIDATION_ERROR');
    expectError(
      await a.post('/api/geometry/smoothline', { line: LINE, radius: 5, strategy: 'Bezier' }),
      400,
      'VALIDATION_ERROR',
    );
    const far = await a.post('/api/geometry/smoothlines', {
      lines: [
        { line: LINE, radius: 5 },
        {
          line: {
            type: 'LineString',
            coordinates: [
              [200, 0],
              [10, 55],
            ],
          },
          radius: 5,
        },
      ],
    });
    expectError(far, 400, 'VALIDATION_ERROR');
    expect(far.json.errors[0].path).toBe('/lines/1/line/coordinates/0');
    const point = await a.post('/api/geometry/smoothline', {
      line: { type: 'LineString', coordinates: [LINE.coordinates[0], LINE.coordinates[0]] },
      radius: 5,
    });
    expectError(point, 400, 'VALIDATION_ERROR');
  });

  it('is in the OpenAPI document with named schemas', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    for (const name of [
      'SmoothLineRequest',
      'SmoothLinesRequest',
      'SmoothedLine',
      'SmoothedLines',
      'SmoothingStrategyType',
    ])
      expect(doc.components.schemas[name], name).toBeDefined();
  });
});
