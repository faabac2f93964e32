/**
 * Boundary import from zipped shapefiles (any CRS with a .prj) and ISOXML
 * partfields: the fixtures (test/fixtures/shapefile/dk, Danish parcels,
 * CC0; test/fixtures/isoxml/greendb_partfields, isoxml-dotnet test data,
 * Apache-2.0) always, the real samples of ../shared/samples when present;
 * bad files answer what is wrong and where.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { zipSync } from 'fflate';
import { read as readShapefile } from 'shapefile';
import { describe, expect, it } from 'vitest';
import { prepareField } from '../core/field/prepare-field.ts';
import { polygonArea } from '../core/geometry/polygon.ts';
import { PlanningError } from '../core/types/index.ts';
import { repoRoot } from '../test/helpers/corpus.ts';
import { readIsoxmlFiles, readIsoxmlZip } from './boundary-isoxml.ts';
import { readShapefileZip } from './boundary-shapefile.ts';

const samples = resolve(repoRoot, '../shared/samples');
const hasSamples = existsSync(join(samples, 'shapefile'));

function zipDir(dir: string, prefix = '', skip: (name: string) => boolean = () => false): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (const f of readdirSync(dir)) {
    if (skip(f) || f === 'SOURCE.txt') continue;
    files[prefix + f] = readFileSync(join(dir, f));
  }
  return zipSync(files);
}

function readDir(dir: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const f of readdirSync(dir, { recursive: true }).map(String)) {
    const p = join(dir, f);
    if (statSync(p).isFile()) out.set(f, readFileSync(p));
  }
  return out;
}

/** Area [m²] of a WGS84 polygon as the planner measures it. */
function area(geometry: unknown): number {
  const p = prepareField(geometry);
  return p.field.parts.reduce((s, part) => s + polygonArea(part), 0);
}

/** Planar area of rings in their own coordinates (holes subtracted). */
function shoelace(polys: number[][][][]): number {
  let total = 0;
  for (const poly of polys) {
    poly.forEach((ring, i) => {
      let s = 0;
      for (let k = 0; k + 1 < ring.length; k++)
        s += ring[k][0] * ring[k + 1][1] - ring[k + 1][0] * ring[k][1];
      total += i === 0 ? Math.abs(s) / 2 : -Math.abs(s) / 2;
    });
  }
  return total;
}

/** Relative differences of imported areas to `expected` (records the planner refuses are left out). */
function areaErrors(polys: { geometry: unknown }[], expected: (i: number) => number): number[] {
  const out: number[] = [];
  polys.forEach((p, i) => {
    try {
      out.push(Math.abs(area(p.geometry) / expected(i) - 1));
    } catch {
      // a record with self-crossing rings: imported as it is, refused when planned
    }
  });
  return out;
}

async function parseError(f: () => unknown): Promise<PlanningError> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(PlanningError);
    expect((e as PlanningError).code).toBe('FIELD_PARSE_ERROR');
    return e as PlanningError;
  }
  throw new Error('expected a parse error');
}

const fixtureDk = resolve(repoRoot, 'test/fixtures/shapefile/dk');

describe('zipped shapefile', () => {
  it('imports the Danish parcels (ETRS89 / UTM 32N) with the areas the file states', async () => {
    const r = await readShapefileZip(zipDir(fixtureDk, 'upload/'));
    expect(r.format).toBe('shapefile');
    expect(r.crs).toBe('ETRS_1989_UTM_Zone_32N');
    expect(r.polygons).toHaveLength(100);
    for (const p of r.polygons) {
      const ring = p.geometry.type === 'Polygon' ? p.geometry.coordinates[0] : p.geometry.coordinates[0][0];
      for (const [lon, lat] of ring) {
        expect(lon).toBeGreaterThan(8);
        expect(lon).toBeLessThan(13);
        expect(lat).toBeGreaterThan(54.5);
        expect(lat).toBeLessThan(58);
      }
    }
    // The same areas as in the file's own plane (UTM 32N, scale 0.9996 near the central meridian).
    const raw = await readShapefile(
      readFileSync(join(fixtureDk, 'Marker_2026.shp')),
      readFileSync(join(fixtureDk, 'Marker_2026.dbf')),
    );
    const errs = areaErrors(r.polygons, (i) => {
      const g = raw.features[i].geometry;
      return shoelace((g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as number[][][][]);
    });
    expect(errs).toHaveLength(100);
    // All but a few within 0.15 %; the rest are parcels whose rings the planner repairs (spikes, overlapping parts).
    errs.sort((a, b) => a - b);
    expect(errs[94]).toBeLessThan(0.0015);
    expect(errs[99]).toBeLessThan(0.02);
    expect(r.polygons[0]).toMatchObject({ name: '1-0', source: 'upload/Marker_2026.shp record 1' });
    expect(r.polygons[0].properties.Afgroede).toBe('Poppel');
  });

  it.skipIf(!hasSamples)(
    'imports the real Slovak (S-JTSK Krovak) and Bulgarian (UTM 35N) parcels',
    async () => {
      const sk = await readShapefileZip(zipDir(join(samples, 'shapefile/sk')));
      expect(sk.crs).toBe('S-JTSK_Krovak_East_North');
      expect(sk.polygons).toHaveLength(100);
      // Shape_Area is in the Krovak plane (scale within 0.01 % of true here).
      const skErrs = areaErrors(sk.polygons, (i) => Number(sk.polygons[i].properties.Shape_Area));
      expect(skErrs.length).toBeGreaterThan(95);
      expect(Math.max(...skErrs)).toBeLessThan(0.001);
      for (const p of sk.polygons) {
        const [lon, lat] = (
          p.geometry.type === 'Polygon' ? p.geometry.coordinates : p.geometry.coordinates[0]
        )[0][0];
        expect(lon).toBeGreaterThan(16.8);
        expect(lon).toBeLessThan(22.6);
        expect(lat).toBeGreaterThan(47.7);
        expect(lat).toBeLessThan(49.7);
      }
      // Zemné lies at about 18.0 E, 48.0 N.
      expect(sk.polygons[0].properties.LOKALITA_N).toBe('Zemné');
      const [lon0, lat0] = (sk.polygons[0].geometry.coordinates as number[][][])[0][0];
      expect(Math.abs(lon0 - 18.0)).toBeLessThan(0.1);
      expect(Math.abs(lat0 - 48.0)).toBeLessThan(0.1);

      const bg = await readShapefileZip(zipDir(join(samples, 'shapefile/bg')));
      expect(bg.crs).toBe('WGS_1984_UTM_Zone_35N');
      expect(bg.polygons.length).toBeGreaterThan(90);
      // AREA is in the UTM 35N plane (scale 0.9996 near the central meridian: 0.08 % less area).
      const bgErrs = areaErrors(bg.polygons, (i) => Number(bg.polygons[i].properties.AREA));
      expect(bgErrs).toHaveLength(bg.polygons.length);
      expect(Math.max(...bgErrs)).toBeLessThan(0.0015);
    },
  );

  it('says what is wrong and where', async () => {
    const notZip = await parseError(() => readShapefileZip(new TextEncoder().encode('hello')));
    expect(notZip.message).toMatch(/not a readable zip/);

    const noShp = await parseError(() => readShapefileZip(zipSync({ 'a.txt': new Uint8Array([1]) })));
    expect(noShp.message).toMatch(/no \.shp file \(found: a\.txt\)/);

    const badPrj = await parseError(() =>
      readShapefileZip(
        zipSync({
          'f/Marker_2026.shp': readFileSync(join(fixtureDk, 'Marker_2026.shp')),
          'f/Marker_2026.prj': new TextEncoder().encode('PROJCS["nonsense",GEOGCS[oops'),
        }),
      ),
    );
    expect(badPrj.message).toMatch(/^f\/Marker_2026\.prj: /);

    const noPrj = await parseError(() => readShapefileZip(zipDir(fixtureDk, '', (n) => n.endsWith('.prj'))));
    expect(noPrj.message).toMatch(
      /^Marker_2026\.shp record 1, ring 1, point 1: \(554787\.348, 6258009\.309\) is not a longitude\/latitude and there is no Marker_2026\.prj/,
    );
    expect(noPrj.details).toMatchObject({ path: 'Marker_2026.shp#1', record: 1 });

    // Cut short in the middle of a record.
    const shp = readFileSync(join(fixtureDk, 'Marker_2026.shp'));
    const cut = await parseError(() =>
      readShapefileZip(
        zipSync({
          'Marker_2026.shp': shp.subarray(0, 5000),
          'Marker_2026.prj': readFileSync(join(fixtureDk, 'Marker_2026.prj')),
        }),
      ),
    );
    expect(cut.message).toMatch(/^Marker_2026\.shp record \d+: /);
  });
});

describe('ISOXML partfields', () => {
  it('imports the partfields of the fixture (PLN type 1, LSG 1 exterior, LSG 2 holes)', () => {
    const r = readIsoxmlFiles(readDir(resolve(repoRoot, 'test/fixtures/isoxml/greendb_partfields')));
    expect(r.format).toBe('isoxml');
    expect(r.polygons).toHaveLength(13);
    for (const p of r.polygons) {
      expect(p.name).toBeTruthy();
      expect(p.source).toMatch(/^TASKDATA\.XML PFD /);
      expect(area(p.geometry)).toBeGreaterThan(100);
    }
  });

  it('reads a TASKDATA zip with the data in a TASKDATA folder', () => {
    const files = readDir(resolve(repoRoot, 'test/fixtures/isoxml/greendb_partfields'));
    const zip = zipSync(Object.fromEntries([...files].map(([k, v]) => [`TASKDATA/${k}`, v])));
    expect(readIsoxmlZip(zip).polygons).toHaveLength(13);
  });

  it.skipIf(!hasSamples)('imports every real task data set that has partfield boundaries', () => {
    const dirs = [
      'cnh_another_single_acp',
      'cci_farmsystem_timelogs',
      'tc_130609_1847',
      'kverneland_singledpd',
      'greendb_partfields',
      'greendb_multifields',
      'dev4ag_generated_guidance',
      'isoxml-js/farmfacts_2021-04-09',
      'isoxml-js/test1',
      'isoxml-js/xfarm_task_with_grid',
    ];
    const counts: Record<string, number> = {};
    let holes = 0;
    for (const d of dirs) {
      const r = readIsoxmlFiles(readDir(join(samples, 'isoxml', d)));
      counts[d] = r.polygons.length;
      for (const p of r.polygons) {
        expect(area(p.geometry), `${d} ${p.source}`).toBeGreaterThan(0);
        if (p.geometry.type === 'Polygon') holes += p.geometry.coordinates.length - 1;
      }
    }
    // 11 partfields, one of them (PFD-11) without a boundary.
    expect(counts['cnh_another_single_acp']).toBe(10);
    // Their area less holes is what the display wrote as the partfield area (D).
    const cnh = readIsoxmlFiles(readDir(join(samples, 'isoxml/cnh_another_single_acp'))).polygons;
    expect(Math.max(...areaErrors(cnh, (i) => Number(cnh[i].properties.area)))).toBeLessThan(0.01);
    expect(counts['greendb_partfields']).toBe(13);
    // Partfields in external files (XFR PFD00000.XML, ...).
    expect(counts['isoxml-js/farmfacts_2021-04-09']).toBeGreaterThan(0);
    expect(holes).toBeGreaterThan(0);
  });

  it('says what is wrong and where', async () => {
    const enc = (s: string) => new Map([['TASKDATA.XML', new TextEncoder().encode(s)]]);
    const broken = await parseError(() =>
      readIsoxmlFiles(enc('<ISO11783_TaskData>\n<PFD A="PFD1">\n</ISO11783_TaskData>')),
    );
    expect(broken.message).toMatch(/^TASKDATA\.XML line 3, column \d+: not well-formed XML/);

    const pnt = (c: string, d: string) => `<PNT A="2" C="${c}" D="${d}"/>`;
    const bad = await parseError(() =>
      readIsoxmlFiles(
        enc(
          `<ISO11783_TaskData><PFD A="PFD7" C="North"><PLN A="1"><LSG A="1">${pnt('55', '10')}${pnt('55', '10.01')}${pnt('95.5', '10.01')}</LSG></PLN></PFD></ISO11783_TaskData>`,
        ),
      ),
    );
    expect(bad.message).toBe(
      `TASKDATA.XML PFD PFD7 ('North') PLN 1 LSG 1 PNT 3 (C="95.5", D="10.01"): (10.01, 95.5) is not a longitude/latitude in WGS84.`,
    );
    const none = await parseError(() =>
      readIsoxmlFiles(enc('<ISO11783_TaskData><PFD A="PFD1" C="x"/></ISO11783_TaskData>')),
    );
    expect(none.message).toMatch(/1 partfield\(s\) and none with a boundary polygon/);
    const missing = await parseError(() => readIsoxmlFiles(new Map([['a.xml', new Uint8Array([60])]])));
    expect(missing.message).toMatch(/No TASKDATA\.XML found/);
  });
});
