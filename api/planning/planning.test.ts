import { describe, expect, it } from 'vitest';
import { requiresApiKey } from '../auth/public-routes.ts';
import { fromAjvErrors, planningErrorStatus, toPointer } from '../errors.ts';
import { estimateComplexity, measureBoundary, tooComplex } from './complexity.ts';
import { readDirectRequest } from './read-request.ts';
import type { DirectPlanRequest } from './schemas.ts';
import { unsupportedOptions } from './supported-options.ts';

const poly = {
  type: 'Polygon' as const,
  coordinates: [
    [
      [10, 55],
      [10.01, 55],
      [10.01, 55.01],
      [10, 55.01],
      [10, 55],
    ],
  ],
};

describe('readDirectRequest', () => {
  it('maps the v2.0.0 outline to a PlanRequest with defaults', () => {
    const r = readDirectRequest({
      boundary: poly,
      equipment: { swathWidth: 6, minTurningRadius: 8, workingSpeed: 3, trackWidths: [2] },
      exteriorHeadlandPasses: 2,
      trackBearing: 45,
      routeOptions: { startPointNodeIndex: 1, maxOptimizerTime: 20 },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.request.plan).toEqual({
      boundary: poly,
      machine: { swathWidth: 6, minTurningRadius: 8, workingSpeed: 3, trackWidths: [2] },
      exteriorHeadlandPasses: 2,
      interiorHeadlandPasses: 0,
      preferredBearingDeg: 45,
      route: { algorithm: 'auto', startPointNodeIndex: 1 },
    });
    expect(r.request).toMatchObject({
      operationType: 'generic',
      maxOptimizerTime: 20,
      boundaryPath: '/boundary',
    });
  });

  it('maps the quick-start outline', () => {
    const r = readDirectRequest({
      field: poly,
      machine: { widthMeters: 4 },
      headland: { passes: 3 },
      tracks: { preferredDirectionDegrees: 90 },
    });
    expect(r.ok && r.request.plan).toMatchObject({
      machine: { swathWidth: 4 },
      exteriorHeadlandPasses: 3,
      preferredBearingDeg: 90,
    });
    expect(r.ok && r.request.boundaryPath).toBe('/field');
  });

  it('names the field and the swath width when missing, and refuses one value in two outlines', () => {
    const r = readDirectRequest({} as DirectPlanRequest);
    expect(!r.ok && r.errors.map((e) => e.path)).toEqual(['/boundary', '/equipment/swathWidth']);
    const both = readDirectRequest({
      boundary: poly,
      field: poly,
      equipment: { swathWidth: 6 },
      machine: { widthMeters: 6 },
      trackBearing: 1,
      tracks: { preferredDirectionDegrees: 2 },
    });
    expect(!both.ok && both.errors.map((e) => e.path)).toEqual([
      '/field',
      '/machine',
      '/tracks/preferredDirectionDegrees',
    ]);
  });

  it('keeps only the passable property of features and takes the plan name', () => {
    const r = readDirectRequest({
      boundary: {
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', properties: { name: 'North', deep: { a: { b: 1 } } }, geometry: poly },
          { type: 'Feature', properties: { passable: true, other: 1 }, geometry: poly },
        ],
      },
      equipment: { swathWidth: 6 },
    });
    expect(r.ok && r.request.pathPlanName).toBe('North');
    expect(r.ok && r.request.plan.boundary).toEqual({
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', geometry: poly, properties: {} },
        { type: 'Feature', geometry: poly, properties: { passable: true } },
      ],
    });
  });
});

describe('unsupportedOptions', () => {
  it('accepts exactly what the planner does', () => {
    expect(
      unsupportedOptions({
        trackType: 'Straight',
        includeSlopes: false,
        extendTracks: false,
        useCrossHatches: false,
        usePassable: true,
        routeOptions: {
          algorithm: 'boustrophedon',
          enableHeadlandDrivethrough: false,
          headlandsFirst: false,
          calculateRefillPoints: false,
          maxOptimizerTime: 5,
          startPointNodeIndex: 0,
          endPointNodeIndex: 1,
        },
      }),
    ).toEqual([]);
  });

  it('names every option it cannot plan', () => {
    const list = unsupportedOptions({
      trackType: 'Spiral',
      usePassable: false,
      curvedOptions: {},
      routeOptions: {
        algorithm: 'clusteredSpiral',
        skipCount: 0,
        refillStrategyType: 'Exact',
        forcedDirection: 'CCW',
      },
    });
    expect(list.map((u) => u.path)).toEqual(['/routeOptions/refillStrategyType']);
    expect(
      unsupportedOptions({
        routeOptions: { calculateRefillPoints: true, refillStrategyType: 'StartOfTrack' },
      }),
    ).toEqual([]);
  });

  it('accepts every route order and refuses order options that the chosen order does not use', () => {
    for (const algorithm of ['auto', 'boustrophedon', 'snake', 'clusteredSpiral', 'optimized'])
      expect(unsupportedOptions({ routeOptions: { algorithm } })).toEqual([]);
    expect(unsupportedOptions({ routeOptions: { algorithm: 'tsp' } }).map((u) => u.path)).toEqual([
      '/routeOptions/algorithm',
    ]);
    expect(
      unsupportedOptions({
        routeOptions: { algorithm: 'boustrophedon', skipCount: 2, objective: 'time' },
      }).map((u) => u.path),
    ).toEqual(['/routeOptions/skipCount', '/routeOptions/objective']);
    expect(unsupportedOptions({ routeOptions: { algorithm: 'optimized', objective: 'fuel' } })).toEqual([]);
  });

  it('maps the route order options to the planner', () => {
    const r = readDirectRequest({
      boundary: poly,
      equipment: { swathWidth: 6 },
      routeOptions: { algorithm: 'clusteredSpiral', skipCount: 3, maxOptimizerTime: 2 },
    });
    expect(r.ok && r.request.plan.route).toEqual({ algorithm: 'clusteredSpiral', skipCount: 3 });
    const o = readDirectRequest({
      boundary: poly,
      equipment: { swathWidth: 6 },
      extendTracks: true,
      routeOptions: {
        algorithm: 'optimized',
        objective: 'time',
        headlandsFirst: true,
        forcedDirection: 'CCW',
      },
    });
    expect(o.ok && o.request.plan.extendTracks).toBe(true);
    expect(o.ok && o.request.plan.route).toEqual({
      algorithm: 'optimized',
      objective: 'time',
      headlandsFirst: true,
      forcedDirection: 'CCW',
    });
  });
});

describe('complexity', () => {
  it('measures vertices, holes and area', () => {
    const m = measureBoundary({
      type: 'MultiPolygon',
      coordinates: [
        poly.coordinates,
        [
          poly.coordinates[0],
          [
            [10.002, 55.002],
            [10.003, 55.002],
            [10.003, 55.003],
            [10.002, 55.002],
          ],
        ],
      ],
    });
    expect(m.vertices).toBe(14);
    expect(m.parts).toBe(2);
    expect(m.holes).toBe(1);
    // 0.01 deg x 0.01 deg at 55 N: about 638 m x 1112 m = 71 ha per part.
    expect(m.areaM2 / 2 / 10_000).toBeGreaterThan(70);
    expect(m.areaM2 / 2 / 10_000).toBeLessThan(71.5);
    expect(
      Number.isNaN(
        measureBoundary({
          type: 'Polygon',
          coordinates: [
            [
              [500000, 0],
              [1, 2],
              [3, 4],
            ],
          ],
        }).areaM2,
      ),
    ).toBe(true);
  });

  it('refuses absurd work and lets ordinary fields through', () => {
    const m = measureBoundary(poly);
    const opts = { exteriorHeadlandPasses: 2, interiorHeadlandPasses: 1 };
    expect(tooComplex(estimateComplexity(m, { swathWidth: 6, ...opts }))).toBeNull();
    expect(tooComplex(estimateComplexity(m, { swathWidth: 0.5, ...opts }))).toMatch(/swath-sized cells/);
  });
});

describe('errors', () => {
  it('maps planner codes in one place', () => {
    expect(planningErrorStatus('FIELD_SELF_INTERSECTION')).toBe(400);
    expect(planningErrorStatus('INVALID_OPTION')).toBe(400);
    expect(planningErrorStatus('HEADLAND_EXHAUSTS_FIELD')).toBe(422);
    expect(planningErrorStatus('SWATH_WIDER_THAN_FIELD')).toBe(422);
    expect(planningErrorStatus('PLAN_TOO_COMPLEX')).toBe(422);
  });

  it('writes JSON pointers', () => {
    expect(toPointer('features[0].geometry.coordinates[0][3]', '/boundary')).toBe(
      '/boundary/features/0/geometry/coordinates/0/3',
    );
    expect(toPointer('equipment.swathWidth')).toBe('/equipment/swathWidth');
    expect(toPointer('', '/field')).toBe('/field');
  });

  it('names unknown properties and the removed options string first', () => {
    const errs = fromAjvErrors([
      {
        instancePath: '/equipment',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'x' },
        message: 'no',
      },
      {
        instancePath: '',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'options' },
        message: 'no',
      },
    ]);
    expect(errs[0].path).toBe('/options');
    expect(errs[0].message).toContain('useCrossHatches');
    expect(errs[1]).toEqual({ path: '/equipment/x', message: "unknown property 'x'" });
  });
});

describe('public routes', () => {
  it('needs a key everywhere under /api except the allow-list', () => {
    expect(requiresApiKey('GET', '/api/healthz', '/api/healthz')).toBe(false);
    expect(requiresApiKey('GET', '/api/openapi.json?x=1', '/api/openapi.json')).toBe(false);
    expect(requiresApiKey('POST', '/api/healthz', undefined)).toBe(true);
    expect(requiresApiKey('POST', '/api/path-plans/direct', '/api/path-plans/direct')).toBe(true);
    expect(requiresApiKey('GET', '/api/unknown', undefined)).toBe(true);
    expect(requiresApiKey('GET', '/api', undefined)).toBe(true);
    expect(requiresApiKey('GET', '/docs', '/docs')).toBe(false);
    expect(requiresApiKey('GET', '/apixyz', undefined)).toBe(false);
  });
});
