/**
 * The display-family layouts (vendor-a John Deere, vendor-b CNH, vendor-c
 * Trimble), read back by the isoxml library, the shapefile package and GDAL.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ISOXMLManager } from 'isoxml';
import { read as readShapefile } from 'shapefile';
import { afterAll, describe, expect, it } from 'vitest';
import type { Position } from '../plan-model.ts';
import { activeGroup, orientRing } from './common.ts';
import { exportPlans } from './index.ts';
import { fixturePlans, maxDeviation, metres, ogrFeatures, unzip } from './testing.ts';
import { trimbleFolderName } from './vendors.ts';

// biome-ignore lint/suspicious/noExplicitAny: the readers' results are loosely typed
type Any = any;

const plans = fixturePlans();
const dir = mkdtempSync(join(tmpdir(), 'tramline-vendor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasOgrinfo = spawnSync('ogrinfo', ['--version']).status === 0;
const ogrinfo = (args: string[]) => {
  const r = spawnSync('ogrinfo', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(r.stderr);
  return { stdout: r.stdout, stderr: r.stderr };
};

async function readTaskdata(zip: Uint8Array): Promise<Any> {
  const m = new ISOXMLManager();
  await m.parseISOXMLFile(zip, 'application/zip');
  expect(m.getWarnings()).toEqual([]);
  return m.rootElement.attributes;
}

const gpns = (pfd: Any): Any[] =>
  (pfd.attributes.GuidanceGroup ?? []).flatMap((g: Any) => g.attributes.GuidancePattern ?? []);

describe('vendor-a (John Deere)', async () => {
  const { fileName, zip } = await exportPlans(plans, 'vendor-a');
  const files = unzip(zip);

  it('holds TASKDATA and a Boundaries folder with one shapefile per field', () => {
    expect(fileName).toBe('tramline-vendor-a-6-plans.zip');
    expect(files['TASKDATA/TASKDATA.XML']).toBeDefined();
    const shps = Object.keys(files).filter((f) => f.startsWith('Boundaries/') && f.endsWith('.shp'));
    expect(shps).toHaveLength(plans.length);
    expect(shps[0]).toBe('Boundaries/Hansen_Son_Agri_Farm_Ost_convex_10_ha_fiboa-dk_110-0.shp');
  });

  it('names straight and headland tracks the Deere way, without A+ copies', async () => {
    const root = await readTaskdata(zip);
    const pfd = root.Partfield[0];
    const names = gpns(pfd).map((g) => g.attributes.GuidancePatternDesignator);
    expect(names[0]).toBe('Straight Track 1');
    expect(names.slice(1)).toEqual(['Headland Track 1', 'Headland Track 2']);
    expect(gpns(pfd).map((g) => g.attributes.GuidancePatternType)).toEqual(['1', '3', '3']);
    const ring = pfd.attributes.PolygonnonTreatmentZoneonly[0].attributes.LineString[0];
    expect(ring.attributes.LineStringDesignator).toBe('Exterior');
  });

  it('has boundary shapefiles with CLIENT, FARM, FIELD within 1 cm', async () => {
    const base = 'Boundaries/Hansen_Son_Agri_Farm_Ost_convex_10_ha_fiboa-dk_110-0';
    const fc = await readShapefile(files[`${base}.shp`], files[`${base}.dbf`], { encoding: 'windows-1252' });
    expect(fc.features[0].properties).toMatchObject({
      CLIENT: plans[0].customerName,
      FARM: plans[0].farmName,
      FIELD: plans[0].fieldName,
    });
    const r = (fc.features[0].geometry.coordinates as Position[][])[0];
    expect(
      maxDeviation(orientRing(r, false), plans[0].plan.zones[0].zoneBoundary.coordinates[0]),
    ).toBeLessThan(0.01);
  });
});

describe('vendor-b (CNH)', async () => {
  const { zip } = await exportPlans(plans, 'vendor-b');

  it('writes one guidance group per pattern with CNH names and dated rings', async () => {
    expect(Object.keys(unzip(zip)).sort()).toEqual(['TASKDATA/LINKLIST.XML', 'TASKDATA/TASKDATA.XML']);
    const root = await readTaskdata(zip);
    const pfd = root.Partfield[0];
    const groups: Any[] = pfd.attributes.GuidanceGroup;
    for (const g of groups) {
      expect(g.attributes.GuidancePattern).toHaveLength(1);
      expect(g.attributes.GuidanceGroupDesignator).toBe(
        g.attributes.GuidancePattern[0].attributes.GuidancePatternDesignator,
      );
    }
    expect(groups.map((g) => g.attributes.GuidanceGroupDesignator)).toEqual([
      'Straight_010426_1',
      'Heading_010426_1',
      'Curve_010426_1',
      'Curve_010426_2',
    ]);
    const ring = pfd.attributes.PolygonnonTreatmentZoneonly[0].attributes.LineString[0];
    expect(ring.attributes.LineStringDesignator).toBe('Outer_010426_1');
    const holes = root.Partfield[3].attributes.PolygonnonTreatmentZoneonly[0].attributes.LineString;
    expect(holes[1].attributes.LineStringDesignator).toBe('Inner_010426_1');
    // Numbers run on over the export: the second field's AB line is Straight_..._2.
    expect(root.Partfield[1].attributes.GuidanceGroup[0].attributes.GuidanceGroupDesignator).toBe(
      'Straight_010426_2',
    );
    const ab = gpns(pfd)[0].attributes.LineString[0].attributes.Point.map((p: Any) => [
      Number(p.attributes.PointEast),
      Number(p.attributes.PointNorth),
    ]);
    expect(maxDeviation(ab, activeGroup(plans[0].plan.zones[0])!.abLine.coordinates)).toBeLessThan(0.01);
  });
});

describe('vendor-c (Trimble)', async () => {
  const { zip } = await exportPlans(plans, 'vendor-c');
  const files = unzip(zip);
  const zipPath = join(dir, 'vendor-c.zip');
  writeFileSync(zipPath, zip);
  const folder = (i: number) =>
    `AgGPS/Data/${trimbleFolderName(plans[i].customerName!)}/${trimbleFolderName(plans[i].farmName!)}/${trimbleFolderName(plans[i].fieldName!)}`;

  it('lays out AgGPS/Data/<client>/<farm>/<field>/Boundary.shp and ABLines/Swath.shp', () => {
    expect(folder(0)).toBe('AgGPS/Data/Hansen _ Son _Agri_/Farm _Ost_/convex _10 ha (fiboa-dk_110-0)');
    for (let i = 0; i < plans.length; i++) {
      for (const ext of ['shp', 'shx', 'dbf', 'prj']) {
        expect(files[`${folder(i)}/Boundary.${ext}`]).toBeDefined();
        expect(files[`${folder(i)}/ABLines/Swath.${ext}`]).toBeDefined();
      }
    }
  });

  it('has 2D shapes (no Z or M) and the metric attributes Area, Date, Dist1, Dist2, ID, Length', async () => {
    const type = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset).getInt32(32, true);
    const f = folder(3);
    expect(type(files[`${f}/Boundary.shp`])).toBe(5);
    expect(type(files[`${f}/ABLines/Swath.shp`])).toBe(3);
    const b = await readShapefile(files[`${f}/Boundary.shp`], files[`${f}/Boundary.dbf`]);
    expect(b.features).toHaveLength(1);
    const props = b.features[0].properties;
    expect(props.Area as number).toBeCloseTo(plans[3].plan.area / 10000, 4);
    expect(props.Name).toBe(plans[3].fieldName);
    expect((props.Date as Date).toISOString().slice(0, 10)).toBe('2026-04-01');
    const rings = b.features[0].geometry.coordinates as Position[][];
    const model = plans[3].plan.zones[0].zoneBoundary.coordinates;
    expect(rings).toHaveLength(model.length);
    rings.forEach((r, i) => {
      expect(maxDeviation(orientRing(r, i !== 0), model[i])).toBeLessThan(0.01);
    });
    const s = await readShapefile(files[`${f}/ABLines/Swath.shp`], files[`${f}/ABLines/Swath.dbf`]);
    expect(s.features).toHaveLength(1);
    const ab = activeGroup(plans[3].plan.zones[0])!.abLine.coordinates;
    expect(s.features[0].properties).toMatchObject({ ID: 1, Dist1: 0, Dist2: 0 });
    expect(s.features[0].properties.Length as number).toBeCloseTo(metres(ab[0], ab[1]), 0);
    expect(maxDeviation(s.features[0].geometry.coordinates as Position[], ab)).toBeLessThan(0.01);
  });

  it.skipIf(!hasOgrinfo)('is read by GDAL ogrinfo with typed attributes', () => {
    const src = `/vsizip/${zipPath}/${folder(0)}/ABLines/Swath.shp`;
    const info = ogrinfo(['-ro', '-so', src, 'Swath']).stdout;
    expect(info).toMatch(/ID: Integer/);
    expect(info).toMatch(/Date: Date/);
    expect(info).toMatch(/Length: Real/);
    const [f] = ogrFeatures(ogrinfo, src, 'Swath');
    expect(f.attributes.Date).toBe('2026/04/01');
    expect(
      maxDeviation(f.coordinates as Position[], activeGroup(plans[0].plan.zones[0])!.abLine.coordinates),
    ).toBeLessThan(0.01);
  });
});
