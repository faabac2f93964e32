/**
 * Shapefile, KML, GPX and GeoJSON exports read back by independent readers:
 * the `shapefile` npm package, @tmcw/togeojson (KML and GPX), `gpxparser`
 * and GDAL's ogrinfo (Debian package gdal-bin). The geometry must come back
 * within 1 cm of the plan model, with the attributes as exported.
 *
 * ogrinfo tests are skipped with a message only when ogrinfo is missing
 * outside CI; in CI (.ci/run installs gdal-bin) a missing ogrinfo fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gpx as gpxToGeoJSON, kml as kmlToGeoJSON } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import GpxParser from 'gpxparser';
import { read as readShapefile } from 'shapefile';
import { afterAll, describe, expect, it } from 'vitest';
import type { Position } from '../plan-model.ts';
import { activeGroup, fieldPartsOf, orientRing, routeParts } from './common.ts';
import { exportPlans } from './index.ts';
import { guidanceLines } from './shapefile.ts';
import { fixturePlans, maxDeviation, ogrFeatures, text, unzip } from './testing.ts';

// biome-ignore lint/suspicious/noExplicitAny: readers return loosely typed GeoJSON
type Any = any;

const plans = fixturePlans();
const dir = mkdtempSync(join(tmpdir(), 'tramline-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hasOgrinfo = spawnSync('ogrinfo', ['--version'], { encoding: 'utf8' }).status === 0;
const ogrinfo = (args: string[]) => {
  const r = spawnSync('ogrinfo', args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`ogrinfo ${args.join(' ')} failed: ${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
};
if (!hasOgrinfo && !process.env.CI) {
  console.warn(
    'GDAL ogrinfo is not installed (Debian package gdal-bin): the GDAL read-back tests are skipped. Install it with: apt-get install -y gdal-bin',
  );
}

describe('GDAL in CI', () => {
  it.runIf(Boolean(process.env.CI))('has ogrinfo (installed by .ci/run)', () => {
    expect(hasOgrinfo).toBe(true);
  });
});

const xml = (s: string) => new DOMParser().parseFromString(s, 'text/xml') as unknown as Document;

/** All guidance lines and the route of the fixture plans, in export order. */
const expected = plans.map((p) => ({
  lines: p.plan.zones.flatMap((z) => guidanceLines(activeGroup(z)!, p.plan.equipment.swathWidth)),
  route: routeParts(p.plan).map((r) => r.part),
}));

/** A ring as read back, oriented like the model (exterior CCW, holes CW). */
const asModel = (ring: Position[], exterior: boolean) => orientRing(ring, !exterior);

describe('shapefile export', async () => {
  const { zip } = await exportPlans(plans, 'shapefile');
  const files = unzip(zip);
  const zipPath = join(dir, 'shapefile.zip');
  writeFileSync(zipPath, zip);

  it('holds boundary and guidance line layers with .shp .shx .dbf .prj .cpg, WGS84', () => {
    for (const layer of ['boundary', 'guidance_lines']) {
      for (const ext of ['shp', 'shx', 'dbf', 'prj', 'cpg']) expect(files[`${layer}.${ext}`]).toBeDefined();
      expect(text(files[`${layer}.prj`])).toMatch(/^GEOGCS\["GCS_WGS_1984"/);
    }
  });

  it('has no Z or M values: shape types 5 (Polygon) and 3 (PolyLine) only', () => {
    const type = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset).getInt32(32, true);
    expect(type(files['boundary.shp'])).toBe(5);
    expect(type(files['guidance_lines.shp'])).toBe(3);
  });

  it('is read back by the shapefile package within 1 cm, with the attributes displays look for', async () => {
    const b = await readShapefile(files['boundary.shp'], files['boundary.dbf'], { encoding: 'windows-1252' });
    const parts = plans.flatMap((p) => fieldPartsOf(p.plan).map((part) => ({ p, part })));
    expect(b.features).toHaveLength(parts.length);
    b.features.forEach((f, i) => {
      const { p, part } = parts[i];
      expect(f.properties).toMatchObject({
        CLIENT: p.customerName!.replace('ů', 'u'),
        FARM: p.farmName,
        FIELD: p.fieldName,
        ZONE: part.index + 1,
        PLAN_ID: p.plan.pathPlanId,
      });
      expect(f.properties.AREA_M2 as number).toBeCloseTo(part.area, 1);
      expect(f.geometry.type).toBe('Polygon');
      const rings = f.geometry.coordinates as Position[][];
      expect(rings).toHaveLength(part.rings.length);
      rings.forEach((r, ri) => {
        expect(maxDeviation(asModel(r, ri === 0), part.rings[ri])).toBeLessThan(0.01);
      });
    });
    const g = await readShapefile(files['guidance_lines.shp'], files['guidance_lines.dbf'], {
      encoding: 'windows-1252',
    });
    const lines = expected.flatMap((e) => e.lines);
    expect(g.features).toHaveLength(lines.length);
    g.features.forEach((f, i) => {
      expect(f.geometry.type).toBe('LineString');
      expect(f.properties.NAME).toBe(lines[i].name);
      expect(f.properties.TYPE).toBe(lines[i].kind);
      expect(maxDeviation(f.geometry.coordinates as Position[], lines[i].coordinates)).toBeLessThan(0.01);
    });
    expect(new Set(g.features.map((f) => f.properties.TYPE))).toEqual(
      new Set(['AB', 'TRACK', 'HEADLAND', 'OBST_HDL']),
    );
  });

  it.skipIf(!hasOgrinfo)('is read back by GDAL ogrinfo from the zip within 1 cm', () => {
    const src = `/vsizip/${zipPath}`;
    const b = ogrFeatures(ogrinfo, `${src}/boundary.shp`, 'boundary');
    const parts = plans.flatMap((p) => fieldPartsOf(p.plan));
    expect(b).toHaveLength(parts.length);
    b.forEach((f, i) => {
      expect(f.type).toBe('POLYGON');
      const rings = f.coordinates as Position[][];
      rings.forEach((r, ri) => {
        expect(maxDeviation(asModel(r, ri === 0), parts[i].rings[ri])).toBeLessThan(0.01);
      });
    });
    expect(b[0].attributes.FARM).toBe(plans[0].farmName);
    const g = ogrFeatures(ogrinfo, `${src}/guidance_lines.shp`, 'guidance_lines');
    const lines = expected.flatMap((e) => e.lines);
    expect(g).toHaveLength(lines.length);
    g.forEach((f, i) => {
      expect(f.type).toBe('LINESTRING');
      expect(maxDeviation(f.coordinates as Position[], lines[i].coordinates)).toBeLessThan(0.01);
    });
    // Integer and real fields typed as such (ZONE is whole numbers).
    const info = ogrinfo(['-ro', '-so', `${src}/guidance_lines.shp`, 'guidance_lines']).stdout;
    expect(info).toMatch(/ZONE: Integer/);
    expect(info).toMatch(/LENGTH_M: Real/);
    expect(info).toMatch(/Geometry: Line String/);
    expect(info).toMatch(/ID\["EPSG",4326\]/);
  });
});

describe('kml export', async () => {
  const { zip } = await exportPlans(plans, 'kml');
  const files = unzip(zip);
  const [name] = Object.keys(files);
  const kmlText = text(files[name]);
  const kmlPath = join(dir, 'plans.kml');
  writeFileSync(kmlPath, kmlText);

  it('is one .kml file in the zip', () => {
    expect(Object.keys(files)).toEqual(['plans.kml']);
  });

  it('is read back by @tmcw/togeojson within 1 cm: boundaries with holes, guidance lines, route', () => {
    const fc = kmlToGeoJSON(xml(kmlText)) as Any;
    const polys = fc.features.filter((f: Any) => f.geometry?.type === 'Polygon');
    const fieldParts = plans.flatMap((p) => fieldPartsOf(p.plan));
    expect(polys).toHaveLength(fieldParts.length);
    polys.forEach((f: Any, i: number) => {
      expect(f.properties.kind).toBe('boundary');
      f.geometry.coordinates.forEach((r: Position[], ri: number) => {
        expect(maxDeviation(r, fieldParts[i].rings[ri])).toBeLessThan(0.01);
      });
    });
    const guidance = fc.features.filter(
      (f: Any) => f.geometry?.type === 'LineString' && f.properties.kind !== 'route',
    );
    const lines = expected.flatMap((e) => e.lines);
    expect(guidance).toHaveLength(lines.length);
    guidance.forEach((f: Any, i: number) => {
      expect(f.properties.name).toBe(lines[i].name);
      expect(maxDeviation(f.geometry.coordinates, lines[i].coordinates)).toBeLessThan(0.01);
    });
    const route = fc.features.filter((f: Any) => f.properties.kind === 'route');
    const parts = expected.flatMap((e) => e.route);
    expect(route).toHaveLength(parts.length);
    route.forEach((f: Any, i: number) => {
      expect(f.properties.working).toBe(String(parts[i].working));
      expect(maxDeviation(f.geometry.coordinates, parts[i].geometry.coordinates)).toBeLessThan(0.01);
    });
  });

  it.skipIf(!hasOgrinfo)('is read back by GDAL ogrinfo within 1 cm', () => {
    const b = ogrFeatures(ogrinfo, kmlPath, 'Boundary');
    expect(b).toHaveLength(fieldPartsOf(plans[0].plan).length);
    expect(b[0].attributes.Name).toBe(plans[0].fieldName);
    (b[0].coordinates as Position[][]).forEach((r, ri) => {
      expect(maxDeviation(r, fieldPartsOf(plans[0].plan)[0].rings[ri])).toBeLessThan(0.01);
    });
    const holes = ogrFeatures(ogrinfo, kmlPath, 'Boundary (#4)');
    expect((holes[0].coordinates as Position[][]).length).toBe(fieldPartsOf(plans[3].plan)[0].rings.length);
    const g = ogrFeatures(ogrinfo, kmlPath, 'Guidance');
    expect(g).toHaveLength(expected[0].lines.length);
    g.forEach((f, i) => {
      expect(maxDeviation(f.coordinates as Position[], expected[0].lines[i].coordinates)).toBeLessThan(0.01);
    });
  });
});

describe('gpx export', async () => {
  const { zip } = await exportPlans(plans, 'gpx');
  const files = unzip(zip);
  const names = Object.keys(files);
  const gpxPath = join(dir, 'plan.gpx');
  writeFileSync(gpxPath, files[names[0]]);

  it('is one GPX 1.1 file per plan', () => {
    expect(names).toHaveLength(plans.length);
    for (const n of names) {
      expect(n).toMatch(/\.gpx$/);
      expect(text(files[n])).toContain('<gpx version="1.1"');
    }
  });

  it('has one track per route part, working and non-working told apart (gpxparser), within 1 cm', () => {
    names.forEach((n, i) => {
      const g = new GpxParser();
      g.parse(text(files[n]));
      const parts = expected[i].route;
      expect(g.tracks).toHaveLength(parts.length);
      g.tracks.forEach((t, ti) => {
        expect(t.type).toBe(parts[ti].working ? 'working' : 'non-working');
        expect(t.name).toBe(`${ti + 1} ${parts[ti].geometryPartType}`);
        const pts = t.points.map((q) => [q.lon, q.lat]);
        expect(maxDeviation(pts, parts[ti].geometry.coordinates)).toBeLessThan(0.01);
      });
      expect(g.waypoints.map((w) => w.name)).toEqual(['Start', 'End']);
      expect(g.metadata.name).toBe(plans[i].fieldName?.replace('&', '&amp;'));
    });
    const types = new Set(expected.flatMap((e) => e.route.map((r) => r.working)));
    expect(types).toEqual(new Set([true, false]));
  });

  it('is read back by @tmcw/togeojson', () => {
    const fc = gpxToGeoJSON(xml(text(files[names[3]]))) as Any;
    const tracks = fc.features.filter((f: Any) => f.geometry?.type === 'LineString');
    expect(tracks).toHaveLength(expected[3].route.length);
    tracks.forEach((f: Any, i: number) => {
      expect(f.properties.type).toBe(expected[3].route[i].working ? 'working' : 'non-working');
      expect(maxDeviation(f.geometry.coordinates, expected[3].route[i].geometry.coordinates)).toBeLessThan(
        0.01,
      );
    });
  });

  it.skipIf(!hasOgrinfo)('is read back by GDAL ogrinfo within 1 cm', () => {
    const t = ogrFeatures(ogrinfo, gpxPath, 'tracks');
    expect(t).toHaveLength(expected[0].route.length);
    t.forEach((f, i) => {
      expect(f.attributes.type).toBe(expected[0].route[i].working ? 'working' : 'non-working');
      expect(
        maxDeviation((f.coordinates as Position[][])[0], expected[0].route[i].geometry.coordinates),
      ).toBeLessThan(0.01);
    });
    expect(ogrFeatures(ogrinfo, gpxPath, 'waypoints').map((w) => w.attributes.name)).toEqual([
      'Start',
      'End',
    ]);
  });

  it('refuses plans without any route', async () => {
    const bare = plans.map((p) => ({
      ...p,
      plan: {
        ...p.plan,
        zones: p.plan.zones.map((z) => ({
          ...z,
          geometryGroups: z.geometryGroups.map((g) => ({
            ...g,
            geometryParts: g.geometryParts.filter((q) => q.sequence === undefined),
          })),
        })),
      },
    }));
    await expect(exportPlans(bare, 'gpx')).rejects.toMatchObject({ code: 'EXPORT_NOTHING_TO_EXPORT' });
  });
});

describe('geojson export read by GDAL', async () => {
  const { zip } = await exportPlans([plans[3]], 'geojson');
  const [name, data] = Object.entries(unzip(zip))[0];
  const path = join(dir, name);
  writeFileSync(path, data);
  it.skipIf(!hasOgrinfo)('has the zone with its holes within 1 cm', () => {
    const layer = name.replace(/\.geojson$/, '');
    const fs = ogrFeatures(ogrinfo, path, layer).filter((f) => f.attributes.featureType === 'zoneBoundary');
    expect(fs).toHaveLength(1);
    (fs[0].coordinates as Position[][]).forEach((r, ri) => {
      expect(maxDeviation(r, plans[3].plan.zones[0].zoneBoundary.coordinates[ri])).toBeLessThan(0.01);
    });
  });
});
