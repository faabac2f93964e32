/**
 * Exports of plans with several zones, of plans without guidance, and of
 * malformed input.
 */
import { readFileSync } from 'node:fs';
import { ISOXMLManager } from 'isoxml';
import { read as readShapefile } from 'shapefile';
import { describe, expect, it } from 'vitest';
import { planField } from '../../core/plan.ts';
import { fixtureFile } from '../../test/helpers/corpus.ts';
import { toNormalizedModel } from '../plan-model.ts';
import { activeGroup, fieldPartsOf, hasLength, orientRing } from './common.ts';
import { ExportError, exportPlans } from './index.ts';
import { fixturePlans, maxDeviation, unzip } from './testing.ts';
import type { ExportPlan } from './types.ts';

// biome-ignore lint/suspicious/noExplicitAny: readers' results are loosely typed
type Any = any;

/** A field of two parts: two real fixture fields planned as one (two zones). */
function twoZonePlan(): ExportPlan {
  const fc = JSON.parse(readFileSync(fixtureFile, 'utf8')) as { features: Any[] };
  const result = planField({
    boundary: { type: 'FeatureCollection', features: [fc.features[2], fc.features[5]] },
    machine: { swathWidth: 6, minTurningRadius: 6 },
    exteriorHeadlandPasses: 1,
    interiorHeadlandPasses: 0,
  });
  const plan = toNormalizedModel(result, {
    pathPlanId: 'two-zones',
    pathPlanName: 'Two parts',
    createdAt: '2026-04-01T08:30:00.000Z',
  });
  return { plan, customerName: 'Hansen', farmName: 'North', fieldName: 'Two parts' };
}

describe('a field of two parts', async () => {
  const p = twoZonePlan();

  it('has two field parts (each one zone or more, when decomposed)', () => {
    expect(fieldPartsOf(p.plan)).toHaveLength(2);
    expect(p.plan.zones.length).toBeGreaterThanOrEqual(2);
  });

  it('isoxml: one partfield, a boundary polygon and a guidance group per part, area of both', async () => {
    const { zip } = await exportPlans([p], 'isoxml');
    const m = new ISOXMLManager();
    await m.parseISOXMLFile(zip, 'application/zip');
    expect(m.getWarnings()).toEqual([]);
    const pfd = (m.rootElement.attributes as Any).Partfield[0].attributes;
    expect(pfd.PartfieldArea).toBe(Math.round(p.plan.area));
    const boundaries = pfd.PolygonnonTreatmentZoneonly.filter((x: Any) => x.attributes.PolygonType === '1');
    expect(boundaries.map((b: Any) => b.attributes.PolygonDesignator)).toEqual([
      'Two parts 1',
      'Two parts 2',
    ]);
    // A guidance group per zone with guidance.
    const guided = p.plan.zones.filter((z) => (activeGroup(z)?.geometryParts.length ?? 0) > 0);
    expect(pfd.GuidanceGroup).toHaveLength(guided.length);
  });

  it('isoxml-v3: one boundary polygon with both exteriors', async () => {
    const m = new ISOXMLManager();
    await m.parseISOXMLFile((await exportPlans([p], 'isoxml-v3')).zip, 'application/zip');
    expect(m.getWarnings()).toEqual([]);
    const plns = (m.rootElement.attributes as Any).Partfield[0].attributes.PolygonnonTreatmentZoneonly;
    expect(plns).toHaveLength(1);
    const types = plns[0].attributes.LineString.map((l: Any) => l.attributes.LineStringType);
    expect(types.filter((t: string) => t === '1')).toHaveLength(2);
  });

  it('shapefile: a boundary record per part; vendor-c: one record with both parts as rings', async () => {
    const s = unzip((await exportPlans([p], 'shapefile')).zip);
    const b = await readShapefile(s['boundary.shp'], s['boundary.dbf']);
    expect(b.features.map((f) => f.properties.ZONE)).toEqual([1, 2]);
    const c = unzip((await exportPlans([p], 'vendor-c')).zip);
    const dir = 'AgGPS/Data/Hansen/North/Two parts';
    const t = await readShapefile(c[`${dir}/Boundary.shp`], c[`${dir}/Boundary.dbf`]);
    expect(t.features).toHaveLength(1);
    // Two exteriors make a MultiPolygon for the reader.
    expect(t.features[0].geometry.type).toBe('MultiPolygon');
    const polys = t.features[0].geometry.coordinates as number[][][][];
    polys.forEach((poly, i) => {
      expect(
        maxDeviation(orientRing(poly[0] as [number, number][], false), fieldPartsOf(p.plan)[i].rings[0]),
      ).toBeLessThan(0.01);
    });
    const s2 = await readShapefile(c[`${dir}/ABLines/Swath.shp`], c[`${dir}/ABLines/Swath.dbf`]);
    // An AB line per zone with tracks, numbered from 1.
    const withAb = p.plan.zones.filter((z) => hasLength(activeGroup(z)?.abLine.coordinates ?? []));
    expect(withAb.length).toBeGreaterThanOrEqual(2);
    expect(s2.features.map((f) => f.properties.ID)).toEqual(withAb.map((_, i) => i + 1));
  });
});

/** An L-shaped part (decomposed into cells and a headland zone) and a rectangle beside it. */
function decomposedTwoPartPlan(): ExportPlan {
  const mLat = 111_320;
  const mLon = 111_320 * Math.cos((52.3 * Math.PI) / 180);
  const ring = (pts: [number, number][]) => {
    const c = pts.map(([x, y]) => [9.5 + x / mLon, 52.3 + y / mLat]);
    return [[...c, c[0]]];
  };
  const L: [number, number][] = [
    [0, 0],
    [300, 0],
    [300, 80],
    [80, 80],
    [80, 300],
    [0, 300],
  ];
  const rect: [number, number][] = [
    [400, 0],
    [600, 0],
    [600, 150],
    [400, 150],
  ];
  const result = planField({
    boundary: { type: 'MultiPolygon', coordinates: [ring(L), ring(rect)] },
    machine: { swathWidth: 6, minTurningRadius: 6 },
    exteriorHeadlandPasses: 2,
    interiorHeadlandPasses: 0,
  });
  const plan = toNormalizedModel(result, {
    pathPlanId: 'decomposed-two-parts',
    pathPlanName: 'L and rectangle',
    createdAt: '2026-04-01T08:30:00.000Z',
  });
  return { plan, customerName: 'Hansen', farmName: 'North', fieldName: 'L and rectangle' };
}

describe('a field of two parts, one decomposed', async () => {
  const p = decomposedTwoPartPlan();
  const parts = fieldPartsOf(p.plan);

  it('has two field parts, the first of several zones', () => {
    expect(parts).toHaveLength(2);
    expect(parts[0].zones.length).toBeGreaterThan(1);
    expect(parts[1].zones).toHaveLength(1);
  });

  it('gpx: each route part names the field part it lies in, not its zone', async () => {
    const files = unzip((await exportPlans([p], 'gpx')).zip);
    const gpx = Object.entries(files).find(([k]) => k.endsWith('.gpx'))?.[1];
    const text = new TextDecoder().decode(gpx);
    const descs = [...text.matchAll(/<desc>([^<]*)<\/desc>/g)].map((m) => m[1]);
    const partOf = descs.map((d) => /part (\d+)/.exec(d)?.[1]).filter(Boolean);
    expect(partOf.length).toBeGreaterThan(10);
    expect(new Set(partOf)).toEqual(new Set(['1', '2']));
  });

  it('vendor-a: headland patterns name the field part, not the zone', async () => {
    const { zip } = await exportPlans([p], 'vendor-a');
    const m = new ISOXMLManager();
    await m.parseISOXMLFile(zip, 'application/zip');
    const names = ((m.rootElement.attributes as Any).Partfield[0].attributes.GuidanceGroup as Any[])
      .flatMap((g) => g.attributes.GuidancePattern ?? [])
      .map((gp: Any) => String(gp.attributes.GuidancePatternDesignator))
      .filter((n: string) => n.startsWith('Headland'));
    expect(names.length).toBeGreaterThan(0);
    const partNumbers = new Set(names.map((n: string) => /\(part (\d+)\)/.exec(n)?.[1]));
    expect(partNumbers).toEqual(new Set(['1', '2']));
  });
});

describe('a plan without guidance', () => {
  const bare = (): ExportPlan => {
    const p = fixturePlans()[0];
    return {
      ...p,
      plan: { ...p.plan, zones: p.plan.zones.map((z) => ({ ...z, geometryGroups: [] })) },
    };
  };

  it('exports its boundary and an empty, valid guidance layer', async () => {
    const s = unzip((await exportPlans([bare()], 'shapefile')).zip);
    const g = await readShapefile(s['guidance_lines.shp'], s['guidance_lines.dbf']);
    expect(g.features).toEqual([]);
    const b = await readShapefile(s['boundary.shp'], s['boundary.dbf']);
    expect(b.features).toHaveLength(1);
  });

  it('exports task data without guidance groups, read without a warning', async () => {
    const m = new ISOXMLManager();
    await m.parseISOXMLFile((await exportPlans([bare()], 'isoxml')).zip, 'application/zip');
    expect(m.getWarnings()).toEqual([]);
    expect((m.rootElement.attributes as Any).Partfield[0].attributes.GuidanceGroup ?? []).toEqual([]);
  });
});

describe('malformed input', () => {
  it('names the offending member', async () => {
    const p = fixturePlans()[0];
    const broken = {
      ...p,
      plan: {
        ...p.plan,
        zones: [
          {
            ...p.plan.zones[0],
            zoneBoundary: {
              type: 'Polygon',
              coordinates: [
                [
                  [200, 10],
                  [1, 1],
                  [2, 2],
                  [200, 10],
                ],
              ],
            },
          },
        ],
      },
    } as ExportPlan;
    const e = await exportPlans([broken], 'isoxml').catch((x) => x);
    expect(e).toBeInstanceOf(ExportError);
    expect(e.code).toBe('EXPORT_PLAN_INVALID');
    expect(e.path).toBe('plans[0].plan.zones[0].zoneBoundary.coordinates[0]');
    expect(e.message).toContain('lon -180..180');
    const noPlan = await exportPlans([{} as ExportPlan], 'kml').catch((x) => x);
    expect(noPlan).toMatchObject({ code: 'EXPORT_PLAN_INVALID', path: 'plans[0].plan' });
  });

  it('gives the same bytes for the same plans', async () => {
    const a = await exportPlans(fixturePlans().slice(0, 2), 'vendor-a');
    const b = await exportPlans(fixturePlans().slice(0, 2), 'vendor-a');
    expect(a.zip).toEqual(b.zip);
  });
});
