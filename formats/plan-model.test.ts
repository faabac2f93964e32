import { describe, expect, it } from 'vitest';
import { toNormalizedModel } from './plan-model.ts';
import { samplePlanResult } from './plan-sample.ts';

const meta = { pathPlanId: 'pp1', pathPlanName: 'North field', createdAt: '2026-03-01T12:00:00.000Z' };

/** Signed area of a [lon, lat] ring; positive when counter-clockwise. */
function lonLatArea(ring: number[][]): number {
  let s = 0;
  for (let i = 1; i < ring.length; i++) s += (ring[i - 1][0] - ring[i][0]) * (ring[i - 1][1] + ring[i][1]);
  return s / 2;
}

function decimals(v: number): number {
  const t = String(v);
  return t.includes('.') ? t.split('.')[1].length : 0;
}

function allPositions(v: unknown, out: number[][] = []): number[][] {
  if (Array.isArray(v)) {
    if (v.length === 2 && typeof v[0] === 'number') out.push(v as number[]);
    else for (const x of v) allPositions(x, out);
  } else if (v && typeof v === 'object') {
    for (const x of Object.values(v)) allPositions(x, out);
  }
  return out;
}

describe('toNormalizedModel', () => {
  const result = samplePlanResult();
  const m = toNormalizedModel(result, { ...meta, operationType: 'seeding' });

  it('has the top-level members of the v2.0.0 model, in square metres', () => {
    expect(m.pathPlanId).toBe('pp1');
    expect(m.pathPlanName).toBe('North field');
    expect(m.name).toBe('North field');
    expect(m.createdAt).toBe(meta.createdAt);
    expect(m.operationType).toBe('seeding');
    expect(m.area).toBe(11900);
    expect(m.totalArea).toBe(11900);
    expect(m.areaHa).toBe(1.19);
    expect(m.numberOfTracks).toBe(3);
    expect(m.repairs).toEqual(['removed 1 duplicate point']);
    expect(m.stats.trackCount).toBe(3);
    expect(m.zones).toHaveLength(2);
  });

  it('defaults operationType and echoes the equipment with the machine as planned', () => {
    const e = toNormalizedModel(result, { ...meta, equipment: { swathWidth: 99, model: 'X7' } });
    expect(e.operationType).toBe('generic');
    expect(e.equipment).toEqual({
      model: 'X7',
      swathWidth: 10,
      minTurningRadius: 5,
      workingSpeed: 10 / 3.6,
      turningSpeed: 6 / 3.6,
      trackWidths: [1.8],
      tireWidths: [0.45],
    });
  });

  it('is plain JSON: no undefined members, survives a round trip unchanged', () => {
    expect(JSON.parse(JSON.stringify(m))).toStrictEqual(m);
  });

  it('gives the same ids and output for the same plan', () => {
    const again = toNormalizedModel(samplePlanResult(), { ...meta, operationType: 'seeding' });
    expect(JSON.stringify(again)).toBe(JSON.stringify(m));
    expect(m.zones.map((z) => z.zoneId)).toEqual(['pp1-z0', 'pp1-z1']);
    expect(m.zones[0].geometryGroups.map((g) => g.geometryGroupId)).toEqual(['pp1-z0-g0', 'pp1-z0-g1']);
    expect(m.zones[0].geometryGroups[0].geometryParts[4].geometryPartId).toBe('pp1-z0-g0-p4');
    const ids = m.zones.flatMap((z) =>
      z.geometryGroups.flatMap((g) => [g.geometryGroupId, ...g.geometryParts.map((p) => p.geometryPartId)]),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('writes the field as a closed, correctly wound MultiPolygon in WGS84', () => {
    expect(m.boundary.type).toBe('MultiPolygon');
    expect(m.boundary.coordinates).toHaveLength(2);
    const [outer, hole] = m.boundary.coordinates[0];
    expect(outer).toHaveLength(5);
    expect(outer[0]).toEqual(outer[4]);
    expect(lonLatArea(outer)).toBeGreaterThan(0);
    expect(lonLatArea(hole)).toBeLessThan(0);
    // Positions map back to the metric frame within a millimetre.
    const back = result.frame.toMetric(outer[1][0], outer[1][1]);
    expect(back.x).toBeCloseTo(120, 3);
    expect(back.y).toBeCloseTo(0, 3);
  });

  it('rounds every position to at most 9 decimals and keeps enough of them', () => {
    const positions = allPositions(m);
    expect(positions.length).toBeGreaterThan(50);
    for (const [lon, lat] of positions) {
      expect(decimals(lon)).toBeLessThanOrEqual(9);
      expect(decimals(lat)).toBeLessThanOrEqual(9);
      expect(Math.abs(lon)).toBeLessThanOrEqual(180);
      expect(Math.abs(lat)).toBeLessThanOrEqual(90);
    }
    // 1 m east of the origin is visible at 9 decimals.
    const track = m.zones[0].geometryGroups[0].geometryParts[4].geometry.coordinates;
    expect(track[0][0]).not.toBe(track[1][0]);
    expect(Math.max(...positions.map(([lon]) => decimals(lon)))).toBeGreaterThanOrEqual(8);
  });

  it('describes each zone with its boundary, workable area, route ends and groups', () => {
    const z = m.zones[0];
    expect(z.zoneIndex).toBe(0);
    expect(z.zoneBoundary.type).toBe('Polygon');
    expect(z.zoneBoundary.coordinates).toHaveLength(2);
    expect(z.innerBoundaries.type).toBe('MultiPolygon');
    expect(z.innerBoundaries.coordinates[0]).toHaveLength(2);
    expect(z.activeGeometryGroupId).toBe('pp1-z0-g0');
    expect(z.geometryGroups.map((g) => g.isActive)).toEqual([true, false]);
    expect(z.routeStartPoint?.type).toBe('Point');
    expect(z.routeEndPoint?.coordinates).toHaveLength(2);
    expect(z.routeFailures).toBe(0);
    expect(z.stats.workableArea).toBe(5600.123);
    const g = z.geometryGroups[0];
    expect(g.trackType).toBe('Straight');
    expect(g.trackBearing).toBe(90);
    expect(g.abLine.type).toBe('LineString');
    expect(g.abLine.coordinates).toHaveLength(2);
    expect(g.stats.coveredPercent).toBe(97.895);
  });

  it('gives each part its type, geometry, length and details', () => {
    const parts = m.zones[0].geometryGroups[0].geometryParts;
    expect(parts.map((p) => p.geometryPartType)).toEqual([
      'GuidanceTrack',
      'GuidanceTrack',
      'ExteriorHeadlandPass',
      'InteriorHeadlandPass',
      'RouteTrack',
      'Turn',
      'RouteTrack',
      'Turn',
      'Turn',
      'HeadlandConnector',
      'ExteriorHeadlandPass',
    ]);
    const [guide, , ext, int, track, uturn, , kturn, reverse, connector, drivenPass] = parts;
    expect(guide.sequence).toBeUndefined();
    expect(guide.working).toBe(false);
    expect(guide.trackDetail).toEqual({ trackIndex: 0, bearing: 90, width: 10 });
    expect(track.sequence).toBe(0);
    expect(track.working).toBe(true);
    expect(track.length).toBe(100);
    expect(track.geometry.coordinates).toHaveLength(2);
    expect(track.trackDetail).toEqual({ trackIndex: 0, bearing: 90, width: 10 });
    expect(ext.headlandDetail).toEqual({ passNumber: 1, direction: 'CCW' });
    expect(int.headlandDetail).toEqual({ passNumber: 1, direction: 'CW', obstacleIndex: 0 });
    expect(drivenPass.headlandDetail).toEqual({ passNumber: 1, direction: 'CCW' });
    expect(drivenPass.length).toBe(360);
    expect(uturn.turnDetail).toEqual({ turnKind: 'U' });
    expect(kturn.reverse).toBeUndefined();
    expect(reverse.reverse).toBe(true);
    expect(connector.sequence).toBe(5);
    expect(connector.turnDetail).toBeUndefined();
    expect(connector.length).toBe(8.246);
    for (const p of parts) {
      expect(p.geometry.type).toBe('LineString');
      if (p.reverse !== undefined) expect(p.reverse).toBe(true);
    }
  });

  it('copes with an empty plan', () => {
    const r = samplePlanResult();
    r.plan.zones = [];
    const e = toNormalizedModel(r, meta);
    expect(e.zones).toEqual([]);
    expect(e.boundary).toEqual({ type: 'MultiPolygon', coordinates: [] });
  });
});
