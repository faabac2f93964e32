/**
 * The OpenAPI document describes what the direct endpoints really answer:
 * real answers of a listening server, validated (JSON Schema 2020-12, as
 * OpenAPI 3.1 uses it) against the response schemas of /api/openapi.json,
 * and the decisions the spec leaves open written into it.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';

type Json = Record<string, any>;

let srv: TestServer;
let doc: Json;
let key: string;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

beforeAll(async () => {
  srv = await startTestServer();
  doc = (await (await fetch(`${srv.url}/api/openapi.json`)).json()) as Json;
  key = (await testKey({ credits: 1000 })).key;
});

afterAll(async () => {
  await srv?.close();
});

/** Resolves a local $ref of the document. */
function deref(s: Json): Json {
  if (typeof s?.$ref !== 'string') return s;
  return s.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((o: Json, k: string) => o[k], doc);
}

/** The schema with every reference replaced by what it names (the named schemas are not recursive). */
function inline(s: unknown): Json {
  if (Array.isArray(s)) return s.map(inline);
  if (typeof s !== 'object' || s === null) return s as Json;
  const o = s as Json;
  if (typeof o.$ref === 'string') {
    const { $ref: _, ...siblings } = o;
    return { ...inline(deref(o)), ...siblings };
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, inline(v)]));
}

/** The value of a literal schema (the document writes TypeBox's const as a one-value enum). */
const lit = (s: Json) => s?.const ?? s?.enum?.[0];

function responseSchema(path: string, status: number, mediaType: string): Json {
  const r = doc.paths[path]?.post?.responses?.[String(status)];
  expect(r, `${path} ${status}`).toBeDefined();
  const s = r.content?.[mediaType]?.schema;
  expect(s, `${path} ${status} ${mediaType}`).toBeDefined();
  // Components referenced from the schema travel with it.
  return { ...deref(s), components: doc.components };
}

async function post(path: string, body: unknown, k: string | null = key) {
  const res = await fetch(srv.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(k ? { 'x-api-key': k } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    json: text ? JSON.parse(text) : null,
  };
}

function expectValid(schema: Json, value: unknown) {
  const validate = ajv.compile(schema);
  const ok = validate(value);
  expect(ok ? [] : validate.errors?.slice(0, 5), 'answer matches the OpenAPI response schema').toEqual([]);
}

// A field with an obstacle (interior passes), and a request that makes the optimizer report.
const withHole = {
  type: 'Polygon',
  coordinates: [
    rectangleField(12, 10, 55).coordinates[0],
    [
      [10.0015, 55.0006],
      [10.0015, 55.0009],
      [10.0025, 55.0009],
      [10.0025, 55.0006],
      [10.0015, 55.0006],
    ],
  ],
};
const requests: [string, Json][] = [
  [
    'S1 rectangle',
    {
      boundary: rectangleField(8),
      equipment: { swathWidth: 6, minTurningRadius: 6 },
      exteriorHeadlandPasses: 2,
    },
  ],
  [
    'obstacle, interior passes, optimized route',
    {
      boundary: withHole,
      equipment: { swathWidth: 12, minTurningRadius: 8 },
      exteriorHeadlandPasses: 1,
      interiorHeadlandPasses: 1,
      routeOptions: { algorithm: 'optimized', maxOptimizerTime: 1 },
    },
  ],
  [
    'curved tracks with crosshatch lines',
    {
      boundary: withHole,
      equipment: { swathWidth: 12, minTurningRadius: 8 },
      exteriorHeadlandPasses: 1,
      interiorHeadlandPasses: 1,
      trackType: 'Curved',
      curvedOptions: { levelOfSmoothing: 0.25 },
      useCrossHatches: true,
    },
  ],
  [
    'spiral tracks',
    {
      boundary: rectangleField(8),
      equipment: { swathWidth: 6, minTurningRadius: 6 },
      exteriorHeadlandPasses: 2,
      trackType: 'Spiral',
    },
  ],
  [
    'quick-start outline',
    { field: rectangleField(5, 11, 52), machine: { widthMeters: 9 }, headland: { passes: 1 } },
  ],
];

describe('OpenAPI response schemas of the direct endpoints', () => {
  it('declares route start and end points as GeoJSON Points, in the model and in GeoJSON', () => {
    const model = inline(responseSchema('/api/path-plans/direct', 200, 'application/json'));
    const zone = model.properties.zones.items;
    for (const m of ['routeStartPoint', 'routeEndPoint']) {
      const p = deref(zone.properties[m]);
      expect(lit(p.properties.type)).toBe('Point');
      expect(p.properties.coordinates.type).toBe('array');
      expect(p.properties.coordinates.minItems).toBe(2);
      expect(zone.required).not.toContain(m);
    }
    expect(lit(deref(zone.properties.refillPoints).items.properties.point.properties.type)).toBe('Point');
    const geo = inline(responseSchema('/api/path-plans/direct/geojson', 200, 'application/geo+json'));
    const variants = geo.properties.features.items.anyOf;
    const start = variants.find(
      (v: Json) => lit(v.properties.properties.properties.featureType) === 'routeStartPoint',
    );
    expect(lit(start.properties.geometry.properties.type)).toBe('Point');
    expect(geo.additionalProperties).toBe(false);
  });

  for (const [name, body] of requests) {
    it(`${name}: the model and the GeoJSON answers match their schemas`, async () => {
      const m = await post('/api/path-plans/direct', body);
      expect(m.status, JSON.stringify(m.json)).toBe(200);
      expectValid(responseSchema('/api/path-plans/direct', 200, 'application/json'), m.json);
      expect(m.json.zones[0].routeStartPoint.type).toBe('Point');
      const g = await post('/api/path-plans/direct/geojson', body);
      expect(g.status).toBe(200);
      expect(g.type).toMatch(/^application\/geo\+json/);
      expectValid(responseSchema('/api/path-plans/direct/geojson', 200, 'application/geo+json'), g.json);
    });
  }

  it('the reference-line answers match their schemas, as JSON and as GeoJSON', async () => {
    const body = {
      boundary: withHole,
      equipment: { swathWidth: 12, minTurningRadius: 8 },
      exteriorHeadlandPasses: 1,
    };
    for (const kind of ['default-straight-edges', 'default-contours', 'default-lines']) {
      const path = `/api/reference-lines/${kind}`;
      const a = await post(path, body);
      expect(a.status, JSON.stringify(a.json)).toBe(200);
      expect(a.json.lines.length).toBeGreaterThan(0);
      expectValid(responseSchema(path, 200, 'application/json'), a.json);
      const g = await post(`${path}/geojson`, body);
      expect(g.status).toBe(200);
      expect(g.type).toMatch(/^application\/geo\+json/);
      expectValid(responseSchema(`${path}/geojson`, 200, 'application/geo+json'), g.json);
      const bad = await post(path, { ...body, maxLines: 'all' });
      expect(bad.status).toBe(400);
      expectValid(responseSchema(path, 400, 'application/json'), bad.json);
    }
  });

  it('the 2.2 subset endpoint answers the same model', async () => {
    const a = await post('/api/path-plan', {
      boundary: rectangleField(6),
      equipment: { swathWidth: 6 },
      exteriorHeadlandPasses: 1,
    });
    expect(a.status).toBe(200);
    expectValid(responseSchema('/api/path-plan', 200, 'application/json'), a.json);
  });

  it('error answers match their schemas (400, 402, 413, 422)', async () => {
    const p = '/api/path-plans/direct/geojson';
    const bad = await post(p, { boundary: rectangleField(5), equipment: { swathWidth: '6' }, extra: 1 });
    expect(bad.status).toBe(400);
    expectValid(responseSchema(p, 400, 'application/json'), bad.json);

    const broke = (await testKey({ credits: 0 })).key;
    const poor = await post(p, { boundary: rectangleField(5), equipment: { swathWidth: 6 } }, broke);
    expect(poor.status).toBe(402);
    expectValid(responseSchema(p, 402, 'application/json'), poor.json);

    // A 0.2 ha field (63 x 32 m) is too narrow for a 100 m swath to go round or to fit a track.
    const refused = await post(p, {
      boundary: rectangleField(0.2),
      equipment: { swathWidth: 100 },
      exteriorHeadlandPasses: 2,
    });
    expect(refused.status).toBe(422);
    expectValid(responseSchema(p, 422, 'application/json'), refused.json);
  });

  it('writes down what the spec leaves open: required members, defaults, bounds', () => {
    const body = inline(
      doc.paths['/api/path-plans/direct'].post.requestBody.content['application/json'].schema,
    );
    const text = JSON.stringify(body);
    // Bounds of spec 8 as decided here.
    expect(text).toContain('"minimum":0.5');
    expect(text).toContain('"maximum":100');
    expect(text).toContain('"maximum":50');
    // Defaults are documented (minTurningRadius 6 m, headland passes 0).
    expect(text).toMatch(/"default":6\b/);
    expect(text).toMatch(/"default":0\b/);
    // Strict: unknown members refused.
    expect(text).toContain('"additionalProperties":false');
    for (const status of ['400', '401', '402', '413', '415', '422', '429', '503']) {
      expect(doc.paths['/api/path-plans/direct/geojson'].post.responses[status], status).toBeDefined();
    }
    const e400 = responseSchema('/api/path-plans/direct/geojson', 400, 'application/json');
    expect(e400.required).toEqual(
      expect.arrayContaining(['correlationId', 'errorCode', 'message', 'errors']),
    );
  });
});
