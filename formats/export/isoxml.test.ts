/**
 * ISOXML export read back by an independent reader, the `isoxml` npm
 * library: no warnings, the hierarchy and the geometry as exported (within
 * 1 cm). Real task data sets (../shared/samples/isoxml, and the fixture in
 * test/fixtures/isoxml) are read, their partfields planned and re-exported by
 * our writer, and the result read back again.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { zipSync } from 'fflate';
import { ISOXMLManager } from 'isoxml';
import { describe, expect, it } from 'vitest';
import { planField } from '../../core/plan.ts';
import { PlanningError } from '../../core/types/index.ts';
import { repoRoot } from '../../test/helpers/corpus.ts';
import { toNormalizedModel } from '../plan-model.ts';
import { activeGroup, fieldPartsOf, hasLength } from './common.ts';
import { exportPlans } from './index.ts';
import { designator, ringAreaM2 } from './isoxml.ts';
import { fixturePlans, maxDeviation, metres, text, unzip } from './testing.ts';
import type { ExportPlan } from './types.ts';

// biome-ignore lint/suspicious/noExplicitAny: the reader's entity attributes are loosely typed
type Any = any;

async function read(zip: Uint8Array, rootFolder = 'TASKDATA'): Promise<ISOXMLManager> {
  const m = new ISOXMLManager({ rootFolder });
  await m.parseISOXMLFile(zip, 'application/zip');
  return m;
}

const pnts = (lsg: Any): [number, number][] =>
  (lsg.attributes.Point ?? []).map((p: Any) => [
    Number(p.attributes.PointEast),
    Number(p.attributes.PointNorth),
  ]);

const polygons = (pfd: Any, type: string): Any[] =>
  (pfd.attributes.PolygonnonTreatmentZoneonly ?? []).filter((p: Any) => p.attributes.PolygonType === type);

/** Smallest distance from p to the ring's edges [m]. */
function distanceToRing(p: number[], ring: number[][]): number {
  const k = Math.PI / 180;
  const R = 6_371_008.8;
  const c = Math.cos(p[1] * k);
  const xy = (q: number[]) => [(q[0] - p[0]) * k * c * R, (q[1] - p[1]) * k * R];
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ring.length; i++) {
    const [ax, ay] = xy(ring[i]);
    const [bx, by] = xy(ring[(i + 1) % ring.length]);
    const dx = bx - ax;
    const dy = by - ay;
    const l2 = dx * dx + dy * dy;
    const t = l2 > 0 ? Math.max(0, Math.min(1, -(ax * dx + ay * dy) / l2)) : 0;
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return best;
}

describe('isoxml export (version 4)', async () => {
  const plans = fixturePlans();
  const { fileName, zip } = await exportPlans(plans, 'isoxml');
  const m = await read(zip);
  const root = m.rootElement.attributes as Any;
  const pfds: Any[] = root.Partfield ?? [];

  it('is a TASKDATA/TASKDATA.XML the isoxml reader takes without a warning', () => {
    expect(fileName).toBe('tramline-isoxml-6-plans.zip');
    expect(Object.keys(unzip(zip)).sort()).toEqual(['TASKDATA/LINKLIST.XML', 'TASKDATA/TASKDATA.XML']);
    expect(m.getWarnings()).toEqual([]);
    expect(root.VersionMajor).toBe('4');
    expect(pfds).toHaveLength(plans.length);
  });

  it('keeps customers and farms, one per distinct name, and links partfields to them', () => {
    const customers = new Set(plans.map((p) => p.customerName));
    expect(root.Customer.map((c: Any) => c.attributes.CustomerLastName).sort()).toEqual(
      [...customers].sort(),
    );
    plans.forEach((p, i) => {
      const pfd = pfds[i].attributes;
      expect(pfd.CustomerIdRef.entity.attributes.CustomerLastName).toBe(p.customerName);
      expect(pfd.FarmIdRef.entity.attributes.FarmDesignator).toBe(p.farmName);
      expect(pfd.FarmIdRef.entity.attributes.CustomerIdRef.entity.attributes.CustomerLastName).toBe(
        p.customerName,
      );
      expect(pfd.PartfieldDesignator).toBe(designator(p.fieldName ?? ''));
    });
  });

  it('gives PartfieldArea as the field area in m^2 less its holes', () => {
    plans.forEach((p, i) => {
      expect(pfds[i].attributes.PartfieldArea).toBe(Math.round(p.plan.area));
    });
    // Measured from the exported rings of the field with holes: the exteriors less the inner rings.
    const rings = polygons(pfds[3], '1')[0].attributes.LineString;
    const outer = ringAreaM2(pnts(rings[0]));
    const holes = rings.slice(1).reduce((s: number, r: Any) => s + ringAreaM2(pnts(r)), 0);
    const d = pfds[3].attributes.PartfieldArea;
    expect(holes).toBeGreaterThan(100);
    expect(Math.abs(d - (outer - holes))).toBeLessThan(holes / 4);
  });

  it('round-trips boundaries, inner rings and obstacles within 1 cm', () => {
    plans.forEach((p, i) => {
      const boundaries = polygons(pfds[i], '1');
      // One boundary per field part (a decomposed part once, not its cells).
      const parts = fieldPartsOf(p.plan);
      expect(boundaries).toHaveLength(parts.length);
      const obstacles = polygons(pfds[i], '6');
      let o = 0;
      parts.forEach((part, pi) => {
        const rings = boundaries[pi].attributes.LineString;
        const [outer, ...holes] = part.rings;
        expect(rings.map((r: Any) => r.attributes.LineStringType)).toEqual(['1', ...holes.map(() => '2')]);
        expect(maxDeviation(pnts(rings[0]), outer)).toBeLessThan(0.01);
        holes.forEach((h, hi) => {
          expect(maxDeviation(pnts(rings[hi + 1]), h)).toBeLessThan(0.01);
          expect(maxDeviation(pnts(obstacles[o++].attributes.LineString[0]), h)).toBeLessThan(0.01);
        });
      });
      expect(obstacles).toHaveLength(o);
    });
    // The fixture with holes really has them.
    expect(polygons(pfds[3], '6').length).toBeGreaterThan(10);
  });

  it('writes AB, A+ and curve guidance patterns as LSG type 5 lines within 1 cm', () => {
    plans.forEach((p, i) => {
      const groups: Any[] = pfds[i].attributes.GuidanceGroup ?? [];
      expect(groups).toHaveLength(p.plan.zones.length);
      p.plan.zones.forEach((z, zi) => {
        const g = activeGroup(z)!;
        const patterns: Any[] = groups[zi].attributes.GuidancePattern;
        const byType = (t: string) => patterns.filter((x) => x.attributes.GuidancePatternType === t);
        const [ab] = byType('1');
        if (!hasLength(g.abLine.coordinates)) {
          // A zone without tracks (the headland of a decomposed part) has no AB pattern.
          expect(ab).toBeUndefined();
          expect(g.geometryParts.some((q) => q.geometryPartType === 'GuidanceTrack')).toBe(false);
          return;
        }
        const line = ab.attributes.LineString[0];
        expect(line.attributes.LineStringType).toBe('5');
        expect(line.attributes.LineStringWidth).toBe(6000);
        expect(line.attributes.Point.map((q: Any) => q.attributes.PointType)).toEqual(['6', '7']);
        expect(maxDeviation(pnts(line), g.abLine.coordinates)).toBeLessThan(0.01);
        const [aplus] = byType('2');
        expect(Number(aplus.attributes.GuidancePatternHeading)).toBeCloseTo(g.trackBearing, 3);
        expect(metres(pnts(aplus.attributes.LineString[0])[0], g.abLine.coordinates[0])).toBeLessThan(0.01);
        const headlands = g.geometryParts.filter(
          (q) => q.geometryPartType === 'ExteriorHeadlandPass' && q.sequence === undefined,
        );
        const curves = byType('3');
        expect(curves).toHaveLength(headlands.length);
        curves.forEach((c, ci) => {
          const l = c.attributes.LineString[0];
          expect(l.attributes.LineStringType).toBe('5');
          expect(maxDeviation(pnts(l), headlands[ci].geometry.coordinates)).toBeLessThan(0.01);
        });
      });
    });
  });

  it('links partfields, zones and guidance groups to the plan ids in LINKLIST.XML', () => {
    const ll = text(unzip(zip)['TASKDATA/LINKLIST.XML']);
    expect(ll).toContain('<LNK A="PFD1" B="fixture-0"');
    expect(ll).toContain(`B="${plans[0].plan.zones[0].activeGeometryGroupId}"`);
  });

  it('the reader does warn about a broken file (the check is live)', async () => {
    // The reader checks required attributes: take PartfieldArea away.
    const xml = text(unzip(zip)['TASKDATA/TASKDATA.XML']).replace(/ D="\d+" E="CTR/, ' E="CTR');
    const broken = await read(
      zipSync({
        'TASKDATA/TASKDATA.XML': new TextEncoder().encode(xml),
        'TASKDATA/LINKLIST.XML': unzip(zip)['TASKDATA/LINKLIST.XML'],
      }),
    );
    expect(broken.getWarnings().length).toBeGreaterThan(0);
  });
});

describe('isoxml export (version 3)', () => {
  it('is read without a warning, with boundaries and AB lines as partfield line strings', async () => {
    const plans = fixturePlans();
    const { zip } = await exportPlans(plans, 'isoxml-v3');
    expect(Object.keys(unzip(zip))).toEqual(['TASKDATA/TASKDATA.XML']);
    const m = await read(zip);
    expect(m.getWarnings()).toEqual([]);
    const root = m.rootElement.attributes as Any;
    expect(root.VersionMajor).toBe('3');
    plans.forEach((p, i) => {
      const pfd = root.Partfield[i].attributes;
      expect(pfd.GuidanceGroup ?? []).toHaveLength(0);
      // One polygon per partfield in version 3: all rings of all zones in it.
      expect(pfd.PolygonnonTreatmentZoneonly).toHaveLength(1);
      const rings = fieldPartsOf(p.plan).flatMap((part) => part.rings);
      const lsgs = pfd.PolygonnonTreatmentZoneonly[0].attributes.LineString;
      expect(lsgs).toHaveLength(rings.length);
      rings.forEach((r, ri) => {
        expect(maxDeviation(pnts(lsgs[ri]), r)).toBeLessThan(0.01);
      });
      expect(pfd.PartfieldArea).toBe(Math.round(p.plan.area));
      const lines: Any[] = pfd.LineString;
      const ab = lines.find((l) => /^(Part \d+ )?(Zone 1 )?AB /.test(l.attributes.LineStringDesignator));
      expect(maxDeviation(pnts(ab), activeGroup(p.plan.zones[0])!.abLine.coordinates)).toBeLessThan(0.01);
      expect(
        maxDeviation(
          pnts(polygons(root.Partfield[i], '1')[0].attributes.LineString[0]),
          fieldPartsOf(p.plan)[0].rings[0],
        ),
      ).toBeLessThan(0.01);
    });
  });
});

/** Task data folders: the shared samples when present, and the project's own fixture. */
function taskdataSets(): { name: string; dir: string }[] {
  const out: { name: string; dir: string }[] = [];
  const walk = (dir: string, name: string) => {
    if (readdirSync(dir).some((e) => e.toUpperCase() === 'TASKDATA.XML')) out.push({ name, dir });
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p, name ? `${name}/${e}` : e);
    }
  };
  const shared = resolve(repoRoot, '../shared/samples/isoxml');
  if (existsSync(shared)) walk(shared, '');
  walk(resolve(repoRoot, 'test/fixtures/isoxml'), '');
  return out;
}

/** A task data folder as a zip with the files under TASKDATA/, as the reader expects. */
function zipFolder(dir: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isFile()) files[`TASKDATA/${e.toUpperCase()}`] = readFileSync(p);
  }
  return zipSync(files);
}

describe('real task data re-exported', () => {
  const sets = taskdataSets();
  it('finds the task data sets (the fixture at least)', () => {
    expect(sets.length).toBeGreaterThan(0);
  });

  for (const set of sets) {
    it(`${set.name}: partfields planned, re-exported and read back without a warning`, async () => {
      const original = await read(zipFolder(set.dir));
      const pfds: Any[] = (original.rootElement.attributes as Any).Partfield ?? [];
      const exports: { plan: ExportPlan; rings: number[][][][] }[] = [];
      let withBoundary = 0;
      for (const pfd of pfds) {
        const outer: Any[] = polygons(pfd, '1');
        if (!outer.length) continue;
        const mp: Any = { type: 'MultiPolygon', coordinates: [] };
        for (const pl of outer) {
          const rings: Any[] = pl.attributes.LineString ?? [];
          const ext = rings.filter((r) => r.attributes.LineStringType === '1').map(pnts);
          const int = rings.filter((r) => r.attributes.LineStringType === '2').map(pnts);
          if (ext.length === 1) mp.coordinates.push([ext[0], ...int]);
        }
        if (!mp.coordinates.length) continue;
        withBoundary++;
        let result: ReturnType<typeof planField>;
        try {
          result = planField({
            boundary: mp,
            machine: { swathWidth: 6, minTurningRadius: 6 },
            exteriorHeadlandPasses: 1,
            interiorHeadlandPasses: 0,
          });
        } catch (e) {
          if (e instanceof PlanningError) continue;
          throw e;
        }
        const a = pfd.attributes;
        const name = String(a.PartfieldDesignator ?? '');
        exports.push({
          plan: {
            plan: toNormalizedModel(result, {
              pathPlanId: `${set.name}-${a.PartfieldId ?? exports.length}`,
              pathPlanName: name,
              createdAt: '2026-04-01T00:00:00.000Z',
            }),
            customerName: a.CustomerIdRef?.entity?.attributes?.CustomerLastName,
            farmName: a.FarmIdRef?.entity?.attributes?.FarmDesignator,
            fieldName: name,
          },
          rings: mp.coordinates,
        });
      }
      // Most partfields plan (a few are refused by the planner: too narrow for a headland pass).
      expect(exports.length).toBeGreaterThanOrEqual(Math.ceil(withBoundary / 2));
      if (!exports.length) return;
      const { zip } = await exportPlans(
        exports.map((e) => e.plan),
        'isoxml',
      );
      const again = await read(zip);
      expect(again.getWarnings()).toEqual([]);
      const back: Any[] = (again.rootElement.attributes as Any).Partfield;
      expect(back).toHaveLength(exports.length);
      exports.forEach((e, i) => {
        const b = back[i].attributes;
        expect(b.PartfieldDesignator).toBe(designator(e.plan.fieldName ?? ''));
        expect(b.PartfieldArea).toBe(Math.round(e.plan.plan.area));
        // Every exported boundary vertex lies on the original boundary (within 1 cm):
        // the planner only drops repeated and collinear points.
        const originalRings = e.rings.flat();
        for (const pl of polygons(back[i], '1')) {
          for (const r of pl.attributes.LineString) {
            for (const q of pnts(r)) {
              expect(Math.min(...originalRings.map((o) => distanceToRing(q, o)))).toBeLessThan(0.01);
            }
          }
        }
      });
    });
  }
});
