/**
 * Fuzz: well over 1,000 generated bad requests (broken JSON, wrong types,
 * NaN and huge numbers, self-intersecting and degenerate rings, deep
 * nesting, huge vertex counts, wrong content types). Every answer must be a
 * 4xx within 5 s, never a 5xx, and the server must stay healthy.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey } from './testing.ts';

let srv: TestServer;
let key: string;
const statuses = new Map<number, number>();
let total = 0;

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 1_000_000 });
  key = (await testKey({ unlimited: true })).key;
});

afterAll(async () => {
  await srv?.close();
});

interface Bad {
  path: string;
  body: string;
  type: string;
}

async function send(b: Bad): Promise<void> {
  const t0 = performance.now();
  const res = await fetch(srv.url + b.path, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': b.type },
    body: b.body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  total++;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  if (res.status < 400 || res.status >= 500 || ms > 5000) {
    throw new Error(
      `${res.status} after ${Math.round(ms)} ms for ${b.type} ${b.body.slice(0, 300)}: ${text.slice(0, 300)}`,
    );
  }
  if (res.status !== 401) {
    const j = JSON.parse(text);
    expect(j.correlationId ?? j.error).toBeDefined();
  }
}

const paths = fc.constantFrom('/api/path-plans/direct', '/api/path-plans/direct/geojson', '/api/path-plan');
const ring = (pts: number[][]) => [...pts, pts[0]];
const lon = fc.double({ min: -179, max: 179, noNaN: true });
const lat = fc.double({ min: -80, max: 80, noNaN: true });
const small = fc.double({ min: 0.0005, max: 0.02, noNaN: true });

const valid = (boundary: unknown) => ({
  boundary,
  equipment: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
});
const square = {
  type: 'Polygon',
  coordinates: [
    ring([
      [10, 55],
      [10.004, 55],
      [10.004, 55.002],
      [10, 55.002],
    ]),
  ],
};

const badValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 10 }),
  fc.constant('6'),
  fc.constant({}),
  fc.constant([]),
  fc.constantFrom(1e308, -1e308, 1e20, -1, 0, 0.1, 101, 1.5, -0.0),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

/** A valid request with one value replaced by a bad one (or an unknown member added). */
const wrongTypes = fc
  .tuple(
    fc.constantFrom(
      ['equipment', 'swathWidth'],
      ['equipment', 'minTurningRadius'],
      ['equipment', 'trackWidths'],
      ['equipment', 'workingSpeed'],
      ['exteriorHeadlandPasses'],
      ['interiorHeadlandPasses'],
      ['boundary'],
      ['boundary', 'type'],
      ['boundary', 'coordinates'],
      ['equipment'],
      ['unknownMember'],
      ['equipment', 'unknownMember'],
      ['options'],
    ),
    badValue,
    paths,
  )
  .filter(([p, v]) => {
    // Keep only values that are really wrong at that place.
    const k = p.join('.');
    if (k === 'equipment.swathWidth' || k === 'equipment.minTurningRadius')
      return !(typeof v === 'number' && v >= 0.5 && v <= 100);
    if (k === 'equipment.workingSpeed') return !(typeof v === 'number' && v > 0 && v <= 30);
    if (k === 'exteriorHeadlandPasses' || k === 'interiorHeadlandPasses')
      return !(typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 50);
    if (k === 'equipment.trackWidths') return !(Array.isArray(v) && v.length === 0);
    return true;
  })
  .map(([p, v, path]): Bad => {
    const body: any = structuredClone(valid(square));
    let o = body;
    for (const seg of p.slice(0, -1)) o = o[seg];
    o[p[p.length - 1]] = v;
    return { path, body: JSON.stringify(body), type: 'application/json' };
  });

const brokenJson = fc
  .tuple(
    fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constant(JSON.stringify(valid(square)).slice(0, 57)),
      fc.constantFrom(
        '{',
        '}',
        '[',
        'null',
        'true',
        '"x"',
        '42',
        '{"a":}',
        '{,}',
        "{'a':1}",
        '\u0000',
        'NaN',
        '{"boundary": NaN}',
      ),
    ),
    paths,
  )
  .filter(([s]) => {
    try {
      const v = JSON.parse(s);
      return typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).length === 0;
    } catch {
      return true;
    }
  })
  .map(([s, path]): Bad => ({ path, body: s, type: 'application/json' }));

/** NaN/Infinity cannot be written in JSON; 1e999 parses to Infinity. */
const hugeNumbers = fc
  .tuple(
    fc.constantFrom('1e999', '-1e999', '1e400', '123456789e999'),
    fc.constantFrom('swath', 'coord', 'passes'),
    paths,
  )
  .map(([n, where, path]): Bad => {
    const base = JSON.stringify(valid(square));
    const body =
      where === 'swath'
        ? base.replace('"swathWidth":6', `"swathWidth":${n}`)
        : where === 'passes'
          ? base.replace('"exteriorHeadlandPasses":2', `"exteriorHeadlandPasses":${n}`)
          : base.replace('[10,55]', `[${n},55]`);
    return { path, body, type: 'application/json' };
  });

/** Bow-ties: a convex quad sent in crossing order. */
const selfIntersecting = fc.tuple(lon, lat, small, small, paths).map(([x, y, w, h, path]): Bad => {
  const q = [
    [x, y],
    [x + w, y + h],
    [x + w, y],
    [x, y + h],
  ];
  return {
    path,
    body: JSON.stringify(valid({ type: 'Polygon', coordinates: [ring(q)] })),
    type: 'application/json',
  };
});

/**
 * Fewer than 3 distinct points, collinear points, empty rings, out-of-range
 * lon/lat. (A hole outside the exterior is not here: the planner drops it
 * and reports the repair.)
 */
const degenerate = fc
  .tuple(
    lon,
    lat,
    small,
    fc.constantFrom('point', 'two', 'collinear', 'empty', 'noRings', 'outOfRange', 'emptyMulti', 'emptyFc'),
    paths,
  )
  .map(([x, y, d, kind, path]): Bad => {
    const coordinates: unknown = {
      point: [
        [
          [x, y],
          [x, y],
          [x, y],
          [x, y],
        ],
      ],
      two: [
        [
          [x, y],
          [x + d, y],
          [x, y],
        ],
      ],
      collinear: [
        [
          [x, y],
          [x + d, y + d],
          [x + 2 * d, y + 2 * d],
          [x, y],
        ],
      ],
      empty: [[]],
      noRings: [],
      outOfRange: [
        [
          [x + 400, y],
          [x + 401, y],
          [x + 401, y + 100],
          [x + 400, y],
        ],
      ],
      emptyMulti: [],
      emptyFc: [],
    }[kind];
    const boundary =
      kind === 'emptyMulti'
        ? { type: 'MultiPolygon', coordinates: [] }
        : kind === 'emptyFc'
          ? { type: 'FeatureCollection', features: [] }
          : { type: 'Polygon', coordinates };
    return { path, body: JSON.stringify(valid(boundary)), type: 'application/json' };
  });

/** Deep nesting in the coordinates, in free-form properties and in the body itself. */
const deepNesting = fc
  .tuple(
    fc.integer({ min: 50, max: 50_000 }),
    fc.constantFrom('coordinates', 'properties', 'body', 'equipment'),
    paths,
  )
  .map(([depth, where, path]): Bad => {
    const nest = (inner: string) => '['.repeat(depth) + inner + ']'.repeat(depth);
    const obj = (inner: string) => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
    const body =
      where === 'coordinates'
        ? `{"boundary":{"type":"Polygon","coordinates":${nest('1')}},"equipment":{"swathWidth":6}}`
        : where === 'properties'
          ? `{"boundary":{"type":"Feature","properties":${obj('1')},"geometry":{"type":"Polygon","coordinates":[[[0,0],[0,0],[0,0]]]}},"equipment":{"swathWidth":6}}`
          : where === 'equipment'
            ? `{"boundary":${JSON.stringify(square)},"equipment":${obj('6')}}`
            : obj('1');
    return { path, body, type: 'application/json' };
  });

/** Wrong or missing content types with otherwise valid bodies. */
const wrongContentTypes = fc
  .tuple(
    fc.constantFrom(
      'text/plain',
      'text/html',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=zz',
      'application/octet-stream',
      'image/png',
      'application/jsonx',
      'json',
      'application/vnd.api',
    ),
    paths,
  )
  .map(([type, path]): Bad => ({ path, body: JSON.stringify(valid(square)), type }));

/** Vertex counts past the limit (a star so the shape is not trivial). */
const hugeVertexCounts = fc.tuple(fc.integer({ min: 100_001, max: 160_000 }), paths).map(([n, path]): Bad => {
  const pts: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = (2 * Math.PI * i) / n;
    const r = i % 2 ? 0.01 : 0.008;
    pts.push(`[${(10 + r * Math.cos(t)).toFixed(6)},${(55 + r * Math.sin(t)).toFixed(6)}]`);
  }
  return {
    path,
    body: `{"boundary":{"type":"Polygon","coordinates":[[${pts.join(',')}]]},"equipment":{"swathWidth":6}}`,
    type: 'application/json',
  };
});

const run = (arb: fc.Arbitrary<Bad>, numRuns: number, seed: number) =>
  fc.assert(fc.asyncProperty(arb, send), { numRuns, seed, endOnFailure: true });

describe('fuzz: bad requests only ever get 4xx', () => {
  it('wrong types and values (400 naming them)', () => run(wrongTypes, 300, 1), 60_000);
  it('broken JSON', () => run(brokenJson, 200, 2), 60_000);
  it('NaN and huge numbers', () => run(hugeNumbers, 60, 3), 60_000);
  it('self-intersecting rings', () => run(selfIntersecting, 150, 4), 60_000);
  it('degenerate rings', () => run(degenerate, 150, 5), 60_000);
  it('deep nesting', () => run(deepNesting, 60, 6), 60_000);
  it('wrong content types', () => run(wrongContentTypes, 80, 7), 60_000);
  it('huge vertex counts', () => run(hugeVertexCounts, 6, 8), 60_000);

  it('sent over 1,000 requests, and the server is still healthy', async () => {
    expect(total).toBeGreaterThanOrEqual(1000);
    expect([...statuses.keys()].every((s) => s >= 400 && s < 500)).toBe(true);
    const h = await fetch(`${srv.url}/api/healthz`);
    expect(h.status).toBe(200);
    const ok = await fetch(`${srv.url}/api/path-plans/direct`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(valid(square)),
    });
    expect(ok.status).toBe(200);
  });
});
