import { describe, expect, it } from 'vitest';
import { pointInPolygon } from '../core/geometry/polygon.ts';
import type { Polygon } from '../core/types/index.ts';
import { labelPoint, type PlanFeature, toPlanGeoJSON } from './plan-geojson.ts';
import type { GeoJSONPoint } from './plan-model.ts';
import { samplePlanResult } from './plan-sample.ts';

const meta = { pathPlanId: 'pp1', pathPlanName: 'North field' };
const FEATURE_TYPES = [
  'zoneBoundary',
  'zonesBoundary',
  'geometryPart',
  'abLine',
  'routeStartPoint',
  'routeEndPoint',
  'zoneStatistics',
  'pathPlanStatistics',
  'refillPoint',
  'stagingLeg',
];

function decimals(v: number): number {
  const t = String(v);
  return t.includes('.') ? t.split('.')[1].length : 0;
}

describe('toPlanGeoJSON', () => {
  const result = samplePlanResult();
  const fc = toPlanGeoJSON(result, meta);
  const of = (t: string) => fc.features.filter((f) => f.properties.featureType === t);
  const parts = of('geometryPart');

  it('is a FeatureCollection of known feature types with unique ids', () => {
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.properties).toEqual(meta);
    for (const f of fc.features) {
      expect(f.type).toBe('Feature');
      expect(FEATURE_TYPES).toContain(f.properties.featureType);
    }
    const ids = fc.features.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(JSON.parse(JSON.stringify(fc))).toStrictEqual(fc);
  });

  it('holds the field, each zone and its AB line', () => {
    expect(of('zonesBoundary')).toHaveLength(1);
    expect(of('zonesBoundary')[0].geometry?.type).toBe('MultiPolygon');
    const zones = of('zoneBoundary');
    expect(zones.map((f) => [f.properties.zoneId, f.properties.zoneIndex])).toEqual([
      ['pp1-z0', 0],
      ['pp1-z1', 1],
    ]);
    expect(zones[0].geometry?.type).toBe('Polygon');
    const ab = of('abLine');
    expect(ab).toHaveLength(2);
    expect(ab[0].geometry?.type).toBe('LineString');
    expect(ab[0].properties.trackBearing).toBe(90);
    expect(ab[0].properties.geometryGroupId).toBe('pp1-z0-g0');
  });

  it('holds the parts of the active group only, with the common properties', () => {
    expect(parts).toHaveLength(11 + 2);
    for (const f of parts) {
      expect(f.geometry?.type).toBe('LineString');
      expect(f.properties.geometryGroupId).not.toMatch(/-g1$/);
      expect(typeof f.properties.geometryPartType).toBe('string');
      expect(typeof f.properties.zoneId).toBe('string');
      expect(typeof f.properties.zoneIndex).toBe('number');
      expect(typeof f.properties.working).toBe('boolean');
      expect(typeof f.properties.length).toBe('number');
      expect(f.id).toBe(f.properties.geometryPartId);
      if ('reverse' in f.properties) expect(f.properties.reverse).toBe(true);
    }
  });

  it('numbers the route 0..n-1 across the collection, in driving order', () => {
    const driven = parts.filter((f) => f.properties.sequence !== undefined);
    expect(driven.map((f) => f.properties.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // The zone-1 track follows the active route of zone 0 (the inactive group's number is skipped).
    expect(driven[7].properties.zoneIndex).toBe(1);
    expect(driven[7].properties.geometryPartId).toBe('pp1-z1-g0-p1');
    expect(driven.filter((f) => f.properties.reverse).map((f) => f.properties.sequence)).toEqual([4]);
    // Reference parts carry no sequence.
    const guides = parts.filter((f) => f.properties.geometryPartType === 'GuidanceTrack');
    expect(guides).toHaveLength(3);
    for (const g of guides) expect(g.properties.sequence).toBeUndefined();
  });

  it('gives tracks their index and bearing and headland passes their pass number', () => {
    for (const f of parts) {
      const t = f.properties.geometryPartType;
      if (t === 'GuidanceTrack' || t === 'RouteTrack') {
        expect(typeof f.properties.trackIndex).toBe('number');
        expect(f.properties.bearing).toBe(90);
      }
      if (t === 'ExteriorHeadlandPass' || t === 'InteriorHeadlandPass') {
        expect(f.properties.passNumber).toBe(1);
        expect(['CW', 'CCW']).toContain(f.properties.direction);
      }
    }
    const interior = parts.find((f) => f.properties.geometryPartType === 'InteriorHeadlandPass');
    expect(interior?.properties.obstacleIndex).toBe(0);
    const uturn = parts.find((f) => f.properties.turnKind === 'U');
    expect(uturn?.properties.working).toBe(false);
  });

  it('marks where each route starts and ends', () => {
    expect(of('routeStartPoint').map((f) => f.properties.zoneIndex)).toEqual([0, 1]);
    expect(of('routeEndPoint')).toHaveLength(2);
    const start = of('routeStartPoint')[0].geometry;
    expect(start?.type).toBe('Point');
    const p = result.frame.toMetric(...(start as GeoJSONPoint).coordinates);
    expect(p.x).toBeCloseTo(10, 3);
    expect(p.y).toBeCloseTo(15, 3);
  });

  it('gives zone statistics at a point inside the zone and plan statistics without geometry', () => {
    const zs = of('zoneStatistics');
    expect(zs).toHaveLength(2);
    zs.forEach((f: PlanFeature, i) => {
      expect(f.properties.zoneId).toBe(`pp1-z${i}`);
      expect(f.properties.zoneIndex).toBe(i);
      expect(f.properties.routeFailures).toBe(0);
      expect(typeof f.properties.fieldArea).toBe('number');
      expect(f.geometry?.type).toBe('Point');
      const p = result.frame.toMetric(...(f.geometry as GeoJSONPoint).coordinates);
      expect(pointInPolygon(p, result.plan.zones[i].boundary)).toBe(true);
    });
    expect(zs[0].properties.workableArea).toBe(5600.123);
    const ps = of('pathPlanStatistics');
    expect(ps).toHaveLength(1);
    expect(ps[0].geometry).toBeNull();
    expect(ps[0].properties.pathPlanId).toBe('pp1');
    expect(ps[0].properties.trackCount).toBe(3);
    expect(fc.features.at(-1)).toBe(ps[0]);
  });

  it('writes positions with at most 9 decimals', () => {
    const walk = (v: unknown): void => {
      if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number') {
        expect(decimals(v[0])).toBeLessThanOrEqual(9);
        expect(decimals(v[1] as number)).toBeLessThanOrEqual(9);
      } else if (Array.isArray(v)) v.forEach(walk);
    };
    for (const f of fc.features) walk(f.geometry?.coordinates);
  });

  it('leaves out the AB line of a zone without tracks', () => {
    const r = samplePlanResult();
    const g = r.plan.zones[1].groups[0];
    g.abLine = [g.abLine[0], g.abLine[0]];
    g.parts = [];
    const out = toPlanGeoJSON(r, meta);
    expect(out.features.filter((f) => f.properties.featureType === 'abLine')).toHaveLength(1);
  });
});

describe('labelPoint', () => {
  it('lies inside a U shape and outside its holes', () => {
    // A U open to the north, with a hole in its west arm.
    const u: Polygon = {
      outer: [
        { x: 0, y: 0 },
        { x: 100, y: 0 },
        { x: 100, y: 100 },
        { x: 80, y: 100 },
        { x: 80, y: 20 },
        { x: 20, y: 20 },
        { x: 20, y: 100 },
        { x: 0, y: 100 },
      ],
      holes: [
        [
          { x: 5, y: 40 },
          { x: 5, y: 60 },
          { x: 15, y: 60 },
          { x: 15, y: 40 },
        ],
      ],
    };
    const p = labelPoint(u);
    expect(pointInPolygon(p, u)).toBe(true);
  });

  it('takes (near) the middle of a rectangle', () => {
    const p = labelPoint({
      outer: [
        { x: 0, y: 0 },
        { x: 40, y: 0 },
        { x: 40, y: 20 },
        { x: 0, y: 20 },
      ],
      holes: [],
    });
    expect(p.x).toBe(20);
    expect(Math.abs(p.y - 10)).toBeLessThan(1);
  });
});
