/**
 * Acceptance tests of the HTTP direct interface against a really listening
 * server (ephemeral port, fetch).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOW_TASK_FILE } from './planning/testing/slow-task.ts';
import { rectangleField, startTestServer, type TestServer, testKey, testStore } from './testing.ts';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function call(
  base: string,
  path: string,
  opts: {
    method?: string;
    key?: string | null;
    body?: unknown;
    raw?: string;
    type?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const res = await fetch(base + path, {
    method: opts.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

function expectCommonHeaders(a: Answer, windowSeconds = 60) {
  expect(a.headers.get('x-correlation-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(a.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  expect(a.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  const reset = Number(a.headers.get('x-ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(windowSeconds);
}

function expectError(a: Answer, status: number, errorCode: string) {
  expect(a.status, a.text).toBe(status);
  expect(a.json.errorCode).toBe(errorCode);
  expect(a.json.correlationId).toBe(a.headers.get('x-correlation-id'));
  expect(typeof a.json.message).toBe('string');
  expectCommonHeaders(a);
}

const fixture = JSON.parse(
  readFileSync(new URL('../test/fixtures/fields/fixtures.geojson', import.meta.url), 'utf8'),
);
const smallField =
  fixture.features.find((f: any) => (f.properties.area_ha ?? 0) > 2 && (f.properties.area_ha ?? 0) < 15) ??
  fixture.features[0];

const S1 = (boundary: unknown = smallField) => ({
  boundary,
  equipment: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
});

let srv: TestServer;
let key: string;
let keyCompany: string;

beforeAll(async () => {
  srv = await startTestServer();
  const k = await testKey({ credits: 100 });
  key = k.key;
  keyCompany = k.companyId;
});

afterAll(async () => {
  await srv?.close();
});

describe('keys (401) come first', () => {
  it('answers 401 without a body for a missing, unknown or revoked key', async () => {
    const store = await testStore();
    const revoked = await testKey();
    await store.apiKeys.revoke(revoked.keyId);
    for (const k of [
      null,
      'short',
      'tl_unknownunknownunknownunknownunknownunknown1',
      revoked.key,
      'x'.repeat(300),
    ]) {
      const a = await call(srv.url, '/api/user/current', { key: k });
      expect(a.status).toBe(401);
      expect(a.text).toBe('');
      expect(a.headers.get('content-length')).toBe('0');
      expectCommonHeaders(a);
    }
  });

  it('answers 401 before parsing or validating the body, and on unknown /api paths', async () => {
    const cases = [
      call(srv.url, '/api/path-plans/direct', { raw: '{not json' }),
      call(srv.url, '/api/path-plans/direct', { body: { nonsense: true } }),
      call(srv.url, '/api/path-plans/direct', { raw: 'hello', type: 'text/plain' }),
      call(srv.url, '/api/path-plans/direct/geojson', { raw: 'x'.repeat(6 * 1024 * 1024) }),
      call(srv.url, '/api/no-such-endpoint'),
    ];
    for (const a of await Promise.all(cases)) {
      expect(a.status).toBe(401);
      expect(a.text).toBe('');
    }
  });

  it('validates a key with GET /api/user/current', async () => {
    const a = await call(srv.url, '/api/user/current', { key });
    expect(a.status).toBe(200);
    expectCommonHeaders(a);
    expect(a.json).toMatchObject({
      partnerAdmin: false,
      companyAccess: [{ companyId: keyCompany, role: 'admin' }],
      apiKey: { companyId: keyCompany, masked: expect.stringMatching(/^tl_.{4}….{4}$/) },
      credits: { available: 100, unlimited: false },
    });
    expect(a.text).not.toContain(key);
  });

  it('needs no key for health, OpenAPI and docs', async () => {
    const h = await call(srv.url, '/api/healthz');
    expect(h.status).toBe(200);
    expect(h.json).toMatchObject({
      status: 'ok',
      database: 'ok',
      databaseKind:
        process.env.TRAMLINE_TEST_PROJECT === 'postgres' || process.env.TRAMLINE_TEST_DATABASE_URL
          ? 'postgres'
          : 'pglite',
    });
    // Probes are not rate limited, so they carry no rate limit headers.
    expect(h.headers.get('x-correlation-id')).toBeTruthy();
    expect(h.headers.get('x-ratelimit-limit')).toBeNull();
    const o = await call(srv.url, '/api/openapi.json');
    expect(o.status).toBe(200);
    expectCommonHeaders(o);
    const d = await fetch(`${srv.url}/docs`, { redirect: 'follow' });
    expect(d.status).toBe(200);
    expect(d.headers.get('x-correlation-id')).toBeTruthy();
  });
});

describe('correlation ids', () => {
  it('accepts a sane incoming id and replaces an insane one', async () => {
    const a = await call(srv.url, '/api/healthz', { headers: { 'x-correlation-id': 'abc-123.x:y_z' } });
    expect(a.headers.get('x-correlation-id')).toBe('abc-123.x:y_z');
    const b = await call(srv.url, '/api/healthz', { headers: { 'x-correlation-id': 'bad id with spaces' } });
    expect(b.headers.get('x-correlation-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    const c = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: {},
      headers: { 'x-correlation-id': 'req-42' },
    });
    expect(c.json.correlationId).toBe('req-42');
  });
});

describe('400 validation', () => {
  const bad: Array<[string, unknown, string]> = [
    ['string swath', { boundary: smallField, equipment: { swathWidth: '6' } }, '/equipment/swathWidth'],
    ['null swath', { boundary: smallField, equipment: { swathWidth: null } }, '/equipment/swathWidth'],
    ['boolean passes', { ...S1(), exteriorHeadlandPasses: true }, '/exteriorHeadlandPasses'],
    ['fractional passes', { ...S1(), exteriorHeadlandPasses: 1.5 }, '/exteriorHeadlandPasses'],
    ['too many passes', { ...S1(), interiorHeadlandPasses: 51 }, '/interiorHeadlandPasses'],
    ['swath too small', { boundary: smallField, equipment: { swathWidth: 0.4 } }, '/equipment/swathWidth'],
    ['swath too wide', { boundary: smallField, equipment: { swathWidth: 100.5 } }, '/equipment/swathWidth'],
    [
      'radius too large',
      { boundary: smallField, equipment: { swathWidth: 6, minTurningRadius: 101 } },
      '/equipment/minTurningRadius',
    ],
    ['unknown property', { ...S1(), colour: 'red' }, '/colour'],
    [
      'unknown nested property',
      { boundary: smallField, equipment: { swathWidth: 6, width: 3 } },
      '/equipment/width',
    ],
    ['unknown route option', { ...S1(), routeOptions: { speedy: true } }, '/routeOptions/speedy'],
    ['missing field', { equipment: { swathWidth: 6 } }, '/boundary'],
    ['missing swath', { boundary: smallField }, '/equipment/swathWidth'],
    [
      'equipment without swath',
      { boundary: smallField, equipment: { minTurningRadius: 6 } },
      '/equipment/swathWidth',
    ],
    ['both outlines for the field', { ...S1(), field: smallField.geometry }, '/field'],
    ['both outlines for passes', { ...S1(), headland: { passes: 1 } }, '/headland/passes'],
    [
      'wrong geometry type',
      {
        ...S1({
          type: 'LineString',
          coordinates: [
            [0, 0],
            [1, 1],
          ],
        }),
      },
      '/boundary',
    ],
    [
      'position of one number',
      { ...S1({ type: 'Polygon', coordinates: [[[0], [1, 1], [1, 0]]] }) },
      '/boundary/coordinates/0/0',
    ],
    [
      'string coordinate',
      {
        ...S1({
          type: 'Polygon',
          coordinates: [
            [
              [0, '1'],
              [1, 1],
              [1, 0],
            ],
          ],
        }),
      },
      '/boundary/coordinates/0/0/1',
    ],
    ['array body', [1, 2, 3], ''],
  ];
  for (const [name, body, path] of bad) {
    it(`refuses ${name}`, async () => {
      const a = await call(srv.url, '/api/path-plans/direct', { key, body });
      expectError(a, 400, 'VALIDATION_ERROR');
      expect(a.json.errors.map((e: { path: string }) => e.path)).toContain(path);
    });
  }

  it('names the v2.0.0 replacements of the removed options string', async () => {
    const a = await call(srv.url, '/api/path-plans/direct/geojson', {
      key,
      body: { ...S1(), options: 'useCrossHatches,extendTracks' },
    });
    expectError(a, 400, 'VALIDATION_ERROR');
    expect(a.json.errors[0].path).toBe('/options');
    for (const name of ['includeSlopes', 'extendTracks', 'useCrossHatches', 'usePassable'])
      expect(a.json.message).toContain(name);
  });

  it('refuses broken JSON and an empty body', async () => {
    expectError(
      await call(srv.url, '/api/path-plans/direct', { key, raw: '{"boundary": ' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await call(srv.url, '/api/path-plans/direct', { key, raw: '' }), 400, 'VALIDATION_ERROR');
    expectError(
      await call(srv.url, '/api/path-plans/direct', { key, raw: '{"__proto__": {"x": 1}}' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('accepts only the 2.2 subset on /api/path-plan', async () => {
    const a = await call(srv.url, '/api/path-plan', { key, body: { ...S1(), trackBearing: 10 } });
    expectError(a, 400, 'VALIDATION_ERROR');
    expect(a.json.errors[0]).toEqual({ path: '/trackBearing', message: "unknown property 'trackBearing'" });
  });

  it("maps the planner's field errors to 400 with a pointer into the body", async () => {
    const bowtie = {
      type: 'Polygon',
      coordinates: [
        [
          [10, 55],
          [10.01, 55.01],
          [10.01, 55],
          [10, 55.01],
          [10, 55],
        ],
      ],
    };
    const a = await call(srv.url, '/api/path-plans/direct', { key, body: S1(bowtie) });
    expectError(a, 400, 'FIELD_SELF_INTERSECTION');
    expect(a.json.errors[0].path).toMatch(/^\/boundary/);
    const projected = {
      type: 'Polygon',
      coordinates: [
        [
          [500000, 6000000],
          [500100, 6000000],
          [500100, 6000100],
          [500000, 6000000],
        ],
      ],
    };
    expectError(
      await call(srv.url, '/api/path-plans/direct', { key, body: S1(projected) }),
      400,
      'FIELD_NOT_LONLAT',
    );
  });
});

describe('200: planning', () => {
  it('plans the v2.0.0 outline, answers the normalized model, charges one credit', async () => {
    const k = await testKey({ credits: 2 });
    const a = await call(srv.url, '/api/path-plans/direct', {
      key: k.key,
      body: { ...S1(), operationType: 'seeding' },
    });
    expect(a.status, a.text).toBe(200);
    expectCommonHeaders(a);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    expect(a.json).toMatchObject({
      operationType: 'seeding',
      equipment: { swathWidth: 6, minTurningRadius: 6 },
    });
    expect(a.json.pathPlanId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.json.zones.length).toBeGreaterThan(0);
    expect(a.json.numberOfTracks).toBeGreaterThan(0);
    expect((await (await testStore()).credits.get(k.companyId)).credits).toBe(1);
  });

  it('plans the quick-start outline and answers GeoJSON', async () => {
    const a = await call(srv.url, '/api/path-plans/direct/geojson', {
      key,
      body: {
        field: smallField.geometry,
        machine: { widthMeters: 6 },
        headland: { passes: 1 },
        tracks: { preferredDirectionDegrees: 30 },
      },
    });
    expect(a.status, a.text).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/geo\+json/);
    // Where the time went: planning, handing over to a planning thread, and in all.
    const timing = /^plan;dur=([\d.]+), pool;dur=([\d.]+), total;dur=([\d.]+)$/.exec(
      a.headers.get('server-timing') ?? '',
    );
    expect(timing, a.headers.get('server-timing') ?? 'no Server-Timing').not.toBeNull();
    const [plan, pool, total] = timing!.slice(1).map(Number);
    expect(plan).toBeGreaterThan(0);
    expect(plan + pool).toBeLessThanOrEqual(total + 0.1);
    expect(a.json.type).toBe('FeatureCollection');
    const types = new Set(a.json.features.map((f: any) => f.properties.featureType));
    for (const t of ['zoneBoundary', 'geometryPart', 'pathPlanStatistics']) expect(types.has(t)).toBe(true);
    const group = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: {
        field: smallField.geometry,
        machine: { widthMeters: 6 },
        tracks: { preferredDirectionDegrees: 30 },
      },
    });
    expect(group.json.zones[0].geometryGroups[0].trackBearing).toBeCloseTo(30, 6);
  });

  it('plans the 2.2 subset on /api/path-plan with defaults, and every boundary form', async () => {
    const forms = [
      smallField.geometry,
      smallField,
      { type: 'FeatureCollection', features: [smallField] },
      { type: 'MultiPolygon', coordinates: [smallField.geometry.coordinates] },
    ];
    for (const boundary of forms) {
      const a = await call(srv.url, '/api/path-plan', {
        key,
        body: { boundary, equipment: { swathWidth: 12 } },
      });
      expect(a.status, a.text).toBe(200);
      expect(a.json.operationType).toBe('generic');
      expect(a.json.equipment).toMatchObject({ minTurningRadius: 6, trackWidths: [], tireWidths: [] });
    }
  });
});

describe('memory of answers', () => {
  it('gives the memory of a plan answer back once the answer is sent, and the client gets all of it', async () => {
    const sent: unknown[] = [];
    const own = await startTestServer({ poolOptions: { threads: 1 } }, (app) => {
      app.addHook('onSend', async (_req, _reply, payload) => {
        sent.push(payload);
        return payload;
      });
    });
    try {
      const a = await call(own.url, '/api/path-plans/direct/geojson', { key, body: S1() });
      expect(a.status, a.text).toBe(200);
      expect(a.json.type).toBe('FeatureCollection');
      const body = sent.find((p) => Buffer.isBuffer(p)) as Buffer;
      expect(Buffer.byteLength(a.text)).toBeGreaterThan(1000);
      // 'finish' may come a moment after the client has the last byte.
      for (let i = 0; i < 100 && body.byteLength > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(body.byteLength).toBe(0);
      expect((body.buffer as ArrayBuffer).detached).toBe(true);
    } finally {
      await own.close();
    }
  });
});

describe('402: credits', () => {
  it('refuses a plan without credits and charges nothing for failures', async () => {
    const k = await testKey({ credits: 0 });
    const a = await call(srv.url, '/api/path-plans/direct', { key: k.key, body: S1() });
    expect(a.status).toBe(402);
    expect(a.json).toMatchObject({
      creditsAvailable: 0,
      creditsRequired: 1,
      correlationId: a.headers.get('x-correlation-id'),
    });
    expect(typeof a.json.message).toBe('string');
    expectCommonHeaders(a);

    const one = await testKey({ credits: 1 });
    // About 4 m^2: no headland pass turns round it and no 6 m track fits inside.
    const refused = await call(srv.url, '/api/path-plans/direct', {
      key: one.key,
      body: S1(rectangleField(0.0004)),
    });
    expectError(refused, 422, 'SWATH_WIDER_THAN_FIELD');
    expect((await (await testStore()).credits.get(one.companyId)).credits).toBe(1);
  });

  it('never charges an unlimited account', async () => {
    const k = await testKey({ unlimited: true });
    const a = await call(srv.url, '/api/path-plans/direct', { key: k.key, body: S1() });
    expect(a.status).toBe(200);
    expect(await (await testStore()).credits.get(k.companyId)).toMatchObject({ unlimited: true, credits: 0 });
  });
});

describe('403: partner endpoints', () => {
  const partnerCalls: [string, unknown][] = [
    ['/api/partner/users', { partnerUserId: 'p-1', email: 'p1@example.org', firstName: 'A', lastName: 'B' }],
    ['/api/partner/companies', { partnerCompanyId: 'c-1', name: 'Partner farm' }],
    ['/api/partner/company-accesses', { partnerUserId: 'p-1', partnerCompanyId: 'c-1' }],
    ['/api/partner/launch', { userId: 'p-1' }],
  ];
  for (const [path, body] of partnerCalls) {
    it(`${path}: a valid non-Partner-Admin key gets 403 NotAuthorized with the spec 7 body`, async () => {
      const a = await call(srv.url, path, { key, body });
      expectError(a, 403, 'NotAuthorized');
      expect(Object.keys(a.json).sort()).toEqual(['correlationId', 'errorCode', 'message']);
      // Decided before the body: junk from a non-partner key is 403 too, not 400.
      expectError(await call(srv.url, path, { key, raw: '{not json' }), 403, 'NotAuthorized');
      // No key at all stays 401 with no body.
      const none = await call(srv.url, path, { body });
      expect(none.status).toBe(401);
      expect(none.text).toBe('');
    });
  }

  it('lets a Partner Admin key through the guard, and the launch exchange needs no key', async () => {
    const admin = await testKey({ partnerAdmin: true });
    const u = await call(srv.url, '/api/partner/users', { key: admin.key, body: partnerCalls[0][1] });
    expect([200, 201], u.text).toContain(u.status);
    const x = await call(srv.url, '/api/partner/launch/exchange', { body: { code: 'no-such-code' } });
    expect(x.status, x.text).toBe(400);
  });
});

describe('413, 415, 404', () => {
  it('refuses bodies over 5 MB', async () => {
    const a = await call(srv.url, '/api/path-plans/direct', {
      key,
      raw: `{"x":"${'a'.repeat(5 * 1024 * 1024)}"}`,
    });
    expectError(a, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses fields over 100,000 vertices', async () => {
    const n = 100_001;
    const ring: number[][] = [];
    for (let i = 0; i < n; i++) {
      const t = (2 * Math.PI * i) / n;
      ring.push([+(10 + 0.01 * Math.cos(t)).toFixed(7), +(55 + 0.01 * Math.sin(t)).toFixed(7)]);
    }
    const a = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: S1({ type: 'Polygon', coordinates: [ring] }),
    });
    expectError(a, 413, 'PAYLOAD_TOO_LARGE');
    expect(a.json.details).toEqual({ vertices: n, maxVertices: 100_000 });
  });

  it('refuses other content types with 415 and accepts application/geo+json', async () => {
    for (const type of [
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      expectError(
        await call(srv.url, '/api/path-plans/direct', { key, raw: JSON.stringify(S1()), type }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
    }
    const ok = await call(srv.url, '/api/path-plans/direct', {
      key,
      raw: JSON.stringify(S1()),
      type: 'application/geo+json',
    });
    expect(ok.status).toBe(200);
  });

  it('answers unknown routes with JSON 404', async () => {
    expectError(await call(srv.url, '/api/nothing-here', { key }), 404, 'NOT_FOUND');
    expectError(await call(srv.url, '/nothing-here'), 404, 'NOT_FOUND');
  });
});

describe('422', () => {
  const unsupported: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown route order', { routeOptions: { algorithm: 'antColony' } }, '/routeOptions/algorithm'],
    [
      'skipCount without clusteredSpiral',
      { routeOptions: { algorithm: 'snake', skipCount: 2 } },
      '/routeOptions/skipCount',
    ],
    [
      'a refill strategy without refill points',
      { routeOptions: { refillStrategyType: 'Exact' } },
      '/routeOptions/refillStrategyType',
    ],
  ];
  for (const [name, extra, path] of unsupported) {
    it(`refuses ${name} with OPTION_NOT_SUPPORTED naming it`, async () => {
      const a = await call(srv.url, '/api/path-plans/direct', { key, body: { ...S1(), ...extra } });
      expectError(a, 422, 'OPTION_NOT_SUPPORTED');
      expect(a.json.details.options.map((o: { path: string }) => o.path)).toContain(path);
      expect(a.json.message).toContain(path.slice(1).replaceAll('/', '.'));
    });
  }

  it('plans Curved and Spiral tracks and crosshatch lines', async () => {
    for (const trackType of ['Curved', 'Spiral'] as const) {
      const a = await call(srv.url, '/api/path-plans/direct', {
        key,
        body: {
          ...S1(),
          trackType,
          ...(trackType === 'Curved'
            ? { curvedOptions: { levelOfSmoothing: 0.3, smoothingIterations: 2, minAngleToSmooth: 10 } }
            : {}),
          useCrossHatches: true,
        },
      });
      expect(a.status, a.text).toBe(200);
      const g = a.json.zones[0].geometryGroups[0];
      expect(g.trackType).toBe(trackType);
      const types = new Set(g.geometryParts.map((p: { geometryPartType: string }) => p.geometryPartType));
      for (const t of ['GuidanceTrack', 'RouteTrack', 'Crosshatch']) expect(types.has(t), t).toBe(true);
      if (trackType === 'Curved') expect(g.referenceLine.coordinates.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('refuses curvedOptions without Curved tracks, and out of range, naming the field', async () => {
    const a = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: { ...S1(), trackType: 'Spiral', curvedOptions: { smoothingIterations: 2 } },
    });
    expectError(a, 400, 'INVALID_OPTION');
    expect(a.json.message).toContain('curvedOptions');
    const b = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: { ...S1(), trackType: 'Curved', curvedOptions: { levelOfSmoothing: 0.9 } },
    });
    expectError(b, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(b.json.errors)).toContain('/curvedOptions/levelOfSmoothing');
  });

  it('accepts the supported values of those options', async () => {
    const a = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: {
        ...S1(),
        trackType: 'Straight',
        includeSlopes: false,
        extendTracks: true,
        useCrossHatches: false,
        usePassable: true,
        routeOptions: {
          algorithm: 'boustrophedon',
          maxOptimizerTime: 20,
          headlandsFirst: true,
          forcedDirection: 'CW',
          startPointNodeIndex: 0,
        },
      },
    });
    expect(a.status, a.text).toBe(200);
  });

  it('plans every route order; the optimizer reports its gain over boustrophedon within its time cap', async () => {
    for (const routeOptions of [
      { algorithm: 'boustrophedon' },
      { algorithm: 'snake' },
      { algorithm: 'clusteredSpiral', skipCount: 2 },
    ]) {
      const a = await call(srv.url, '/api/path-plans/direct', { key, body: { ...S1(), routeOptions } });
      expect(a.status, a.text).toBe(200);
    }
    const o = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: { ...S1(), routeOptions: { algorithm: 'optimized', objective: 'time', maxOptimizerTime: 1 } },
    });
    expect(o.status, o.text).toBe(200);
    const rep = o.json.zones[0].optimizer;
    expect(rep.objective).toBe('time');
    expect(rep.cost).toBeLessThanOrEqual(rep.baselineCost);
    expect(rep.gainPercent).toBeGreaterThanOrEqual(0);
  });

  it('answers refill points from the tank capacity and application rate', async () => {
    const body = {
      ...S1(),
      equipment: { swathWidth: 6, minTurningRadius: 6, tankCapacity: 50, applicationRate: 200 },
      routeOptions: { calculateRefillPoints: true, refillStrategyType: 'ClosestExternalHeadland' },
    };
    const a = await call(srv.url, '/api/path-plans/direct', { key, body });
    expect(a.status, a.text).toBe(200);
    expect(a.json.zones[0].refillPoints.length).toBeGreaterThan(0);
    const g = await call(srv.url, '/api/path-plans/direct/geojson', { key, body });
    expect(g.status, g.text).toBe(200);
    const refills = g.json.features.filter(
      (f: { properties: { featureType: string } }) => f.properties.featureType === 'refillPoint',
    );
    expect(refills.length).toBe(a.json.zones[0].refillPoints.length);
    const staged = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: { ...S1(), routeOptions: { stagingArea: [9.9, 55] } },
    });
    expect(staged.status, staged.text).toBe(200);
    expect(staged.json.zones[0].stagingEntry.coordinates[0]).toEqual([9.9, 55]);
    expect(staged.json.zones[0].stagingExit.coordinates[1]).toEqual([9.9, 55]);
    const bad = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: { ...S1(), routeOptions: { calculateRefillPoints: true } },
    });
    expectError(bad, 400, 'INVALID_OPTION');
  });

  it('refuses work estimated too large at once with PLAN_TOO_COMPLEX', async () => {
    const t0 = performance.now();
    const a = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: { boundary: rectangleField(100), equipment: { swathWidth: 0.5 } },
    });
    expectError(a, 422, 'PLAN_TOO_COMPLEX');
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('answers INVALID_OPTION (400) for a node index the field does not have', async () => {
    const a = await call(srv.url, '/api/path-plans/direct', {
      key,
      body: { ...S1(), routeOptions: { startPointNodeIndex: 99_999 } },
    });
    expectError(a, 400, 'INVALID_OPTION');
  });
});

describe('429: rate limit', () => {
  it('limits per key in the database window and says when to retry', async () => {
    // A long window, so the five requests do not straddle a window boundary.
    const limited = await startTestServer({ rateLimitPerMin: 3, rateLimitWindowSeconds: 3600 });
    try {
      const k = await testKey();
      const answers: Answer[] = [];
      for (let i = 0; i < 5; i++) answers.push(await call(limited.url, '/api/user/current', { key: k.key }));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
      expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0', '0']);
      const a = answers[3];
      expectCommonHeaders(a, 3600);
      expect(a.json).toMatchObject({
        error: { code: 'RATE_LIMIT_EXCEEDED' },
        limit: 3,
        windowSeconds: 3600,
        correlationId: a.headers.get('x-correlation-id'),
      });
      expect(a.json.retryAfterSeconds).toBe(Number(a.headers.get('retry-after')));
      expect(a.json.retryAfterSeconds).toBe(Number(a.headers.get('x-ratelimit-reset')));
      // Another key has its own window, and so does the main server (same database, other limit).
      expect((await call(limited.url, '/api/user/current', { key: (await testKey()).key })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('503 and time cap: the planning pool', () => {
  it('answers 503 with Retry-After when every worker is busy and the queue is full; refunds', async () => {
    const busy = await startTestServer({
      poolOptions: { threads: 1, maxQueue: 0, filename: SLOW_TASK_FILE },
    });
    try {
      const k = await testKey({ credits: 10 });
      const slow = call(busy.url, '/api/path-plans/direct', {
        key: k.key,
        body: { ...S1(), operationType: 'sleep-2500' },
      });
      // Wait until the slow plan holds the only worker.
      for (let i = 0; i < 100; i++) {
        const h = await call(busy.url, '/api/healthz');
        if (h.json.planner.running === 1) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const t0 = performance.now();
      const a = await call(busy.url, '/api/path-plans/direct', {
        key: k.key,
        body: { ...S1(), operationType: 'sleep-0' },
      });
      expect(performance.now() - t0).toBeLessThan(2000);
      expectError(a, 503, 'SERVICE_BUSY');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      const h = await call(busy.url, '/api/healthz');
      expect(h.status).toBe(200);
      expect(h.json.planner).toMatchObject({ threads: 1, running: 1 });
      expect((await slow).status).toBe(200);
      expect((await (await testStore()).credits.get(k.companyId)).credits).toBe(9);
    } finally {
      await busy.close();
    }
  });

  it('ends planning at the time cap with PLAN_TOO_COMPLEX and refunds', async () => {
    const capped = await startTestServer({
      poolOptions: { threads: 1, maxQueue: 1, filename: SLOW_TASK_FILE },
      planning: { graceMs: 100 },
    });
    try {
      const k = await testKey({ credits: 1 });
      const t0 = performance.now();
      const a = await call(capped.url, '/api/path-plans/direct', {
        key: k.key,
        body: { ...S1(), operationType: 'sleep-20000', routeOptions: { maxOptimizerTime: 1 } },
      });
      expect(performance.now() - t0).toBeLessThan(8000);
      expectError(a, 422, 'PLAN_TOO_COMPLEX');
      expect((await (await testStore()).credits.get(k.companyId)).credits).toBe(1);
      // The pool replaced the ended thread.
      const b = await call(capped.url, '/api/path-plans/direct', {
        key: k.key,
        body: { ...S1(), operationType: 'sleep-1' },
      });
      expect(b.status).toBe(200);
    } finally {
      await capped.close();
    }
  });
});

describe('out of memory: a plan larger than the heap of a planning thread', () => {
  it('answers 422 PLAN_TOO_COMPLEX, refunds, and the server stays healthy and plans on', async () => {
    const small = await startTestServer({
      poolOptions: { threads: 1, maxQueue: 1, filename: SLOW_TASK_FILE, heapMb: 32 },
    });
    try {
      const k = await testKey({ credits: 1 });
      const a = await call(small.url, '/api/path-plans/direct/geojson', {
        key: k.key,
        body: { ...S1(), operationType: 'hold-80' },
      });
      expectError(a, 422, 'PLAN_TOO_COMPLEX');
      expect(a.json.message).toMatch(/memory/);
      expect((await (await testStore()).credits.get(k.companyId)).credits).toBe(1);
      const h = await call(small.url, '/api/healthz');
      expect(h.status).toBe(200);
      expect(h.json).toMatchObject({ status: 'ok', planner: { threads: 1, running: 0, queued: 0 } });
      const b = await call(small.url, '/api/path-plans/direct/geojson', {
        key: k.key,
        body: { ...S1(), operationType: 'hold-2' },
      });
      expect(b.status, b.text).toBe(200);
      expect(b.json).toMatchObject({ held: 2 });
    } finally {
      await small.close();
    }
  });
});

describe('OpenAPI', () => {
  it('is OpenAPI 3.1 with full paths, the key scheme and public routes marked', async () => {
    const a = await call(srv.url, '/api/openapi.json');
    const doc = a.json;
    expect(doc.openapi).toBe('3.1.0');
    for (const p of [
      '/api/path-plans/direct',
      '/api/path-plans/direct/geojson',
      '/api/path-plan',
      '/api/healthz',
      '/api/user/current',
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(doc.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-KEY',
    });
    expect(doc.paths['/api/healthz'].get.security).toEqual([]);
    const direct = doc.paths['/api/path-plans/direct/geojson'].post;
    expect(Object.keys(direct.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '402', '413', '415', '422', '429', '503']),
    );
    expect(direct.responses['200'].content['application/geo+json']).toBeDefined();
    // Headers told the same on every response are shared components.
    expect(direct.responses['200'].headers['X-RateLimit-Reset']).toEqual({
      $ref: '#/components/headers/X-RateLimit-Reset',
    });
    expect(doc.components.headers['X-RateLimit-Reset'].schema.type).toBe('integer');
    expect(direct.responses['401'].content).toBeUndefined();
    expect(JSON.stringify(doc)).toContain('trackBearing');
    expect(doc.paths['/api/openapi.json']).toBeUndefined();
  });
});
