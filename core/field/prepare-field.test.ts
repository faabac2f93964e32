/**
 * Dirty boundaries as users send them: what is unambiguous is repaired (and
 * said so), the rest is refused with the reason and the place.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { polygonArea, signedArea } from '../geometry/polygon.ts';
import { planField } from '../plan.ts';
import { PlanningError } from '../types/index.ts';
import { prepareField } from './prepare-field.ts';

const LON0 = 10.2;
const LAT0 = 56.1;
const M_LAT = 111_320;
const M_LON = 111_320 * Math.cos((LAT0 * Math.PI) / 180);

/** [x, y] in metres around LON0/LAT0 to [lon, lat]. */
const ll = ([x, y]: [number, number]): [number, number] => [LON0 + x / M_LON, LAT0 + y / M_LAT];
const ring = (pts: [number, number][], close = true) => {
  const r = pts.map(ll);
  return close ? [...r, r[0]] : r;
};

function refusal(input: unknown): PlanningError {
  try {
    prepareField(input);
  } catch (e) {
    if (e instanceof PlanningError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

const SQUARE: [number, number][] = [
  [0, 0],
  [200, 0],
  [200, 200],
  [0, 200],
];

describe('prepareField repairs what is unambiguous', () => {
  it('closes an unclosed ring and drops Z values', () => {
    const coords = ring(SQUARE, false).map(([x, y]) => [x, y, 12.5]);
    const { field, repairs } = prepareField({ type: 'Polygon', coordinates: [coords] });
    expect(field.parts).toHaveLength(1);
    // (The test's metres-per-degree is spherical: within 0.5 % of the ellipsoid.)
    expect(Math.abs(polygonArea(field.parts[0]) / 40_000 - 1)).toBeLessThan(0.005);
    expect(repairs.join(' ')).toMatch(/Closed the ring/);
  });

  it('removes duplicate, near-duplicate and collinear points', () => {
    const pts: [number, number][] = [
      [0, 0],
      [0.004, 0.003], // within 1 cm of the previous point
      [100, 0], // collinear
      [100, 0], // duplicate
      [200, 0],
      [200, 200],
      [0, 200],
    ];
    const { field, repairs } = prepareField({ type: 'Polygon', coordinates: [ring(pts)] });
    expect(field.parts[0].outer).toHaveLength(4);
    expect(repairs.join(' ')).toMatch(/Removed 3 duplicate or collinear point/);
  });

  it('removes a spike (the ring runs out and straight back)', () => {
    const pts: [number, number][] = [
      [0, 0],
      [200, 0],
      [200, 100],
      [260, 100.3], // out 60 m ...
      [200, 100.6], // ... and back
      [200, 200],
      [0, 200],
    ];
    const { field, repairs } = prepareField({ type: 'Polygon', coordinates: [ring(pts)] });
    expect(repairs.join(' ')).toMatch(/spike/);
    const xs = field.parts[0].outer.map((p) => p.x);
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThan(200.5);
  });

  it('orients the exterior counter-clockwise and holes clockwise', () => {
    const outerCw = ring(SQUARE.slice().reverse());
    const holeCcw = ring([
      [50, 50],
      [80, 50],
      [80, 80],
      [50, 80],
    ]);
    const { field, repairs } = prepareField({ type: 'Polygon', coordinates: [outerCw, holeCcw] });
    expect(signedArea(field.parts[0].outer)).toBeGreaterThan(0);
    expect(field.parts[0].holes).toHaveLength(1);
    expect(signedArea(field.parts[0].holes[0])).toBeLessThan(0);
    expect(repairs.filter((r) => r.startsWith('Reoriented'))).toHaveLength(2);
  });

  it('keeps every interior ring as an obstacle, however small (a 30 cm pole)', () => {
    const pole = ring([
      [100, 100],
      [100.3, 100],
      [100.3, 100.3],
      [100, 100.3],
    ]);
    const { field } = prepareField({ type: 'Polygon', coordinates: [ring(SQUARE), pole] });
    expect(field.parts[0].holes).toHaveLength(1);
    expect(polygonArea({ outer: field.parts[0].holes[0], holes: [] })).toBeCloseTo(0.09, 2);
    // And the plan goes round it: an interior headland pass, tracks split, the checker satisfied.
    const result = planField({
      boundary: { type: 'Polygon', coordinates: [ring(SQUARE), pole] },
      machine: { swathWidth: 6, minTurningRadius: 6 },
      exteriorHeadlandPasses: 2,
      interiorHeadlandPasses: 1,
    });
    expect(checkPlan(result.plan)).toEqual([]);
    const parts = result.plan.zones[0].groups[0].parts;
    expect(parts.some((p) => p.type === 'InteriorHeadlandPass')).toBe(true);
  });

  it('takes Feature, FeatureCollection and MultiPolygon, and passable obstacles', () => {
    const square = { type: 'Polygon', coordinates: [ring(SQUARE)] };
    const far = {
      type: 'Polygon',
      coordinates: [ring(SQUARE.map(([x, y]) => [x + 500, y] as [number, number]))],
    };
    const drain = {
      type: 'Feature',
      properties: { passable: true },
      geometry: {
        type: 'Polygon',
        coordinates: [
          ring([
            [0, 99],
            [200, 99],
            [200, 101],
            [0, 101],
          ]),
        ],
      },
    };
    expect(prepareField({ type: 'Feature', properties: {}, geometry: square }).field.parts).toHaveLength(1);
    expect(
      prepareField({ type: 'MultiPolygon', coordinates: [square.coordinates, far.coordinates] }).field.parts,
    ).toHaveLength(2);
    const fc = prepareField({
      type: 'FeatureCollection',
      features: [{ type: 'Feature', properties: {}, geometry: square }, drain],
    });
    expect(fc.field.parts).toHaveLength(1);
    expect(fc.field.passable).toHaveLength(1);
    expect(polygonArea(fc.field.passable[0])).toBeCloseTo(400, -1);
  });

  it('drops a passable obstacle without area (a drain drawn as a line there and back), saying so', () => {
    const square = {
      type: 'Feature',
      properties: {},
      geometry: { type: 'Polygon', coordinates: [ring(SQUARE)] },
    };
    const line = {
      type: 'Feature',
      properties: { passable: true },
      geometry: {
        type: 'Polygon',
        coordinates: [
          ring([
            [0, 100],
            [200, 100],
            [100, 100],
          ]),
        ],
      },
    };
    for (const usePassable of [true, false]) {
      const boundary = { type: 'FeatureCollection', features: [square, line] };
      const prepared = prepareField(boundary);
      expect(prepared.field.parts).toHaveLength(1);
      expect(prepared.field.passable).toHaveLength(0);
      expect(prepared.repairs.some((r) => /Dropped the passable obstacle features\[1\]/.test(r))).toBe(true);
      const { plan } = planField({ boundary, machine: { swathWidth: 6, minTurningRadius: 6 }, usePassable });
      expect(checkPlan(plan)).toEqual([]);
    }
    // The same ring as the field itself is refused.
    expect(refusal({ type: 'FeatureCollection', features: [{ ...line, properties: {} }] }).code).toBe(
      'FIELD_TOO_FEW_POINTS',
    );
  });
});

describe('prepareField refuses the rest, saying what and where', () => {
  it('refuses a ring that crosses itself, at the crossing', () => {
    const bowTie = ring([
      [0, 0],
      [200, 200],
      [200, 0],
      [0, 200],
    ]);
    const e = refusal({ type: 'Polygon', coordinates: [bowTie] });
    expect(e.code).toBe('FIELD_SELF_INTERSECTION');
    const [lon, lat] = e.details.coordinate as [number, number];
    const [clon, clat] = ll([100, 100]);
    expect(Math.abs(lon - clon) * M_LON).toBeLessThan(0.05);
    expect(Math.abs(lat - clat) * M_LAT).toBeLessThan(0.05);
    expect(e.message).toContain(`${lon}`);
  });

  it('names the ring the crossing is in: a hole after another hole', () => {
    const outer = ring([
      [0, 0],
      [400, 0],
      [400, 400],
      [0, 400],
    ]);
    const hole1 = ring([
      [20, 20],
      [20, 60],
      [60, 60],
      [60, 20],
    ]);
    const bowTieHole = ring([
      [200, 200],
      [300, 300],
      [300, 200],
      [200, 300],
    ]);
    const e = refusal({ type: 'Polygon', coordinates: [outer, hole1, bowTieHole] });
    expect(e.code).toBe('FIELD_SELF_INTERSECTION');
    expect(e.details.path).toBe('coordinates[2]');
    expect(e.message).toContain('has a hole that crosses itself');
    expect(e.message).toContain('(coordinates[2])');
    // An empty ring before it is dropped; the crossing keeps its own ring's name.
    const f = refusal({ type: 'Polygon', coordinates: [outer, [], bowTieHole] });
    expect(f.details.path).toBe('coordinates[2]');
  });

  it('refuses fewer than 3 distinct points', () => {
    const e = refusal({
      type: 'Polygon',
      coordinates: [
        ring([
          [0, 0],
          [100, 0],
          [0.001, 0],
        ]),
      ],
    });
    expect(e.code).toBe('FIELD_TOO_FEW_POINTS');
    expect(e.message).toMatch(/at least 3/);
  });

  it('refuses coordinates that are not lon/lat (projected metres), naming the place', () => {
    const e = refusal({
      type: 'Polygon',
      coordinates: [
        [
          [554787.3, 6258009.3],
          [554987.3, 6258009.3],
          [554987.3, 6258209.3],
          [554787.3, 6258009.3],
        ],
      ],
    });
    expect(e.code).toBe('FIELD_NOT_LONLAT');
    expect(e.message).toContain('coordinates');
  });

  it('refuses strings, NaN and missing numbers in coordinates', () => {
    for (const bad of [
      [
        ['10.2', 56.1],
        [10.3, 56.1],
        [10.3, 56.2],
        ['10.2', 56.1],
      ],
      [
        [Number.NaN, 56.1],
        [10.3, 56.1],
        [10.3, 56.2],
        [Number.NaN, 56.1],
      ],
      [[10.2], [10.3, 56.1], [10.3, 56.2], [10.2]],
    ]) {
      const e = refusal({ type: 'Polygon', coordinates: [bad] });
      expect(['FIELD_NOT_LONLAT', 'FIELD_INVALID']).toContain(e.code);
      expect(e.details.path).toMatch(/coordinates/);
    }
  });

  it('refuses an empty field and geometry that is not a polygon', () => {
    expect(refusal({ type: 'Polygon', coordinates: [] }).code).toBe('FIELD_EMPTY');
    expect(refusal({ type: 'FeatureCollection', features: [] }).code).toBe('FIELD_EMPTY');
    expect(refusal({ type: 'LineString', coordinates: [ll([0, 0]), ll([10, 0])] }).code).toBe(
      'FIELD_UNSUPPORTED_GEOMETRY',
    );
    expect(refusal(null).code).toMatch(/^FIELD_/);
  });
});
