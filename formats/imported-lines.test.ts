/**
 * Imported guidance lines: ISOXML guidance patterns (the fixture
 * test/fixtures/isoxml/guidance always, the real samples of
 * ../shared/samples when present), KML and GeoJSON lines, bad files named
 * where, and whether a line meets a boundary.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { zipSync } from 'fflate';
import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import { PlanningError } from '../core/types/index.ts';
import { repoRoot } from '../test/helpers/corpus.ts';
import { shpLayerFiles } from './export/shp-layer.ts';
import { DEFAULT_ARCHIVE_LIMITS } from './file-limits.ts';
import {
  lineMeetsPolygon,
  readGeojsonLines,
  readIsoxmlLines,
  readKmlLines,
  readLineFile,
} from './imported-lines.ts';

const samples = resolve(repoRoot, '../shared/samples/isoxml');
const hasSamples = existsSync(samples);
const fixture = readFileSync(resolve(repoRoot, 'test/fixtures/isoxml/guidance/TASKDATA.XML'));

function xmlFiles(dir: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const f of readdirSync(dir))
    if (/\.xml$/i.test(f) && statSync(join(dir, f)).isFile()) out.set(f, readFileSync(join(dir, f)));
  return out;
}

async function parseError(fn: () => unknown): Promise<PlanningError> {
  try {
    await fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PlanningError);
    return e as PlanningError;
  }
  throw new Error('expected a parse error');
}

const FIELD = [
  [
    [10.1, 56.1],
    [10.104, 56.1],
    [10.104, 56.102],
    [10.1, 56.102],
    [10.1, 56.1],
  ],
];

describe('ISOXML guidance patterns', () => {
  it('reads each pattern line with its type, group and place in the file; single points are counted, not kept', async () => {
    const r = readIsoxmlLines(new Map([['TASKDATA.XML', fixture]]));
    expect(r.format).toBe('isoxml');
    expect(r.skipped).toBe(1);
    expect(r.lines.map((l) => [l.name, l.patternType, l.groupName, l.coordinates.length])).toEqual([
      ['AB east', 'ab', 'Spring lines', 2],
      ['Curve along the brook', 'curve', 'Spring lines', 3],
      ['Far away', 'ab', 'Neighbour', 2],
      ['Across', 'ab', 'Neighbour', 2],
    ]);
    expect(r.lines[0]).toMatchObject({
      source: 'TASKDATA.XML PFD PFD1 GGP GGP1 GPN GPN1',
      coordinates: [
        [10.1005, 56.1005],
        [10.1035, 56.1005],
      ],
    });
  });

  it('reads the same from a TASKDATA zip by file kind', async () => {
    const zip = zipSync({ 'TASKDATA/TASKDATA.XML': fixture });
    expect((await readLineFile('isoxml-zip', zip, DEFAULT_ARCHIVE_LIMITS)).lines).toHaveLength(4);
  });

  it('names the pattern and point of a bad coordinate', async () => {
    const bad = new TextEncoder().encode(fixture.toString('utf8').replace('D="10.1035"', 'D="310.1035"'));
    const e = await parseError(() => readLineFile('isoxml', bad, DEFAULT_ARCHIVE_LIMITS));
    expect(e.message).toMatch(/GPN GPN1 PNT 2 \(C="56.1005", D="310.1035"\)/);
  });

  it('says so when the task data has no guidance pattern', async () => {
    const none = new TextEncoder().encode(fixture.toString('utf8').replace(/<GGP[\s\S]*<\/GGP>/, ''));
    const e = await parseError(() => readLineFile('isoxml', none, DEFAULT_ARCHIVE_LIMITS));
    expect(e.code).toBe('FIELD_PARSE_ERROR');
    expect(e.message).toMatch(/no guidance pattern with a line/);
  });

  it.skipIf(!hasSamples)('reads the guidance patterns of real task data', () => {
    const dev4ag = readIsoxmlLines(xmlFiles(join(samples, 'dev4ag_generated_guidance')));
    expect(dev4ag.lines).toHaveLength(3);
    expect(dev4ag.lines.every((l) => l.patternType === 'ab')).toBe(true);
    // Guidance groups inside external partfield files (XFR).
    const farmfacts = readIsoxmlLines(xmlFiles(join(samples, 'isoxml-js/farmfacts_2021-04-09')));
    expect(farmfacts.lines).toHaveLength(7);
    expect(farmfacts.lines[0].source).toMatch(/^PFD00000\.XML PFD /);
    // A display export: 19 patterns (AB, A+, curve, pivot, spiral), two of them a single point.
    const cnh = readIsoxmlLines(xmlFiles(join(samples, 'cnh_another_single_acp')));
    expect(cnh.lines.length + cnh.skipped).toBe(19);
    expect(new Set(cnh.lines.map((l) => l.patternType))).toEqual(new Set(['ab', 'curve', 'pivot', 'spiral']));
  });
});

const dkPrj = readFileSync(resolve(repoRoot, 'test/fixtures/shapefile/dk/Marker_2026.prj'), 'utf8');

/** A zipped polyline shapefile of `lines` (WGS84) written in the CRS of `prj` (default WGS84). */
function polylineZip(lines: { name: string; parts: number[][][] }[], prj?: string): Uint8Array {
  const project = prj ? (p: number[]) => proj4('EPSG:4326', prj).forward([p[0], p[1]]) : (p: number[]) => p;
  const files = shpLayerFiles({
    name: 'lines',
    shapeType: 'POLYLINE',
    fields: [{ name: 'NAME', type: 'C', size: 40 }],
    records: lines.map((l) => ({
      parts: l.parts.map((part) => part.map(project) as [number, number][]),
      attributes: { NAME: l.name },
    })),
  });
  const out: Record<string, Uint8Array> = {};
  for (const f of files) out[f.path] = typeof f.data === 'string' ? new TextEncoder().encode(f.data) : f.data;
  if (prj) out['lines.prj'] = new TextEncoder().encode(prj);
  return zipSync(out);
}

describe('polyline shapefiles', () => {
  it('reads each part of each record as a line, reprojected from the CRS of the .prj', async () => {
    const zip = polylineZip(
      [
        {
          name: 'AB 1',
          parts: [
            [
              [10.1005, 56.1005],
              [10.1035, 56.1005],
            ],
          ],
        },
        {
          name: 'Two parts',
          parts: [
            [
              [10.101, 56.1],
              [10.101, 56.102],
            ],
            [
              [10.102, 56.1],
              [10.102, 56.101],
              [10.1025, 56.102],
            ],
          ],
        },
      ],
      dkPrj,
    );
    const r = await readLineFile('shapefile-zip', zip, DEFAULT_ARCHIVE_LIMITS);
    expect(r.format).toBe('shapefile');
    expect(r.lines.map((l) => [l.name, l.source, l.coordinates.length])).toEqual([
      ['AB 1', 'lines.shp record 1', 2],
      ['Two parts', 'lines.shp record 2 part 1', 2],
      ['Two parts', 'lines.shp record 2 part 2', 3],
    ]);
    expect(r.lines[0].coordinates[1][0]).toBeCloseTo(10.1035, 7);
    expect(r.lines[0].coordinates[1][1]).toBeCloseTo(56.1005, 7);
  });

  it('refuses a polygon shapefile, naming the record', async () => {
    const dk = resolve(repoRoot, 'test/fixtures/shapefile/dk');
    const zip = zipSync(
      Object.fromEntries(
        ['shp', 'shx', 'dbf', 'prj'].map((e) => [
          `Marker_2026.${e}`,
          readFileSync(resolve(dk, `Marker_2026.${e}`)),
        ]),
      ),
    );
    const e = await parseError(() => readLineFile('shapefile-zip', zip, DEFAULT_ARCHIVE_LIMITS));
    expect(e.message).toMatch(
      /^Marker_2026\.shp record 1 is a Polygon; guidance lines need polyline shapefiles/,
    );
  });
});

describe('KML and GeoJSON lines', () => {
  it('reads LineString placemarks of KML with their names, ignoring polygons', async () => {
    const kml = `<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>
      <Placemark><name>AB 1</name><LineString><coordinates>10.1,56.1 10.2,56.1</coordinates></LineString></Placemark>
      <Placemark><name>Field</name><Polygon><outerBoundaryIs><LinearRing><coordinates>10,56 10.1,56 10.1,56.1 10,56</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>
    </Document></kml>`;
    const r = readKmlLines(kml);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatchObject({
      name: 'AB 1',
      coordinates: [
        [10.1, 56.1],
        [10.2, 56.1],
      ],
    });
    const e = await parseError(() =>
      readKmlLines(kml.replace(/<Placemark><name>AB 1[\s\S]*?<\/Placemark>/, '')),
    );
    expect(e.message).toMatch(/no guidance line/);
  });

  it('reads LineStrings and MultiLineStrings of GeoJSON and names a bad position', async () => {
    const r = readGeojsonLines({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          properties: { name: 'a' },
          geometry: {
            type: 'LineString',
            coordinates: [
              [1, 2],
              [3, 4],
            ],
          },
        },
        {
          type: 'Feature',
          properties: null,
          geometry: {
            type: 'MultiLineString',
            coordinates: [
              [
                [1, 2],
                [3, 4],
              ],
              [
                [5, 6],
                [7, 8],
                [9, 10],
              ],
            ],
          },
        },
      ],
    });
    expect(r.lines.map((l) => [l.name, l.coordinates.length])).toEqual([
      ['a', 2],
      [null, 2],
      [null, 3],
    ]);
    const e = await parseError(() =>
      readGeojsonLines(
        {
          type: 'LineString',
          coordinates: [
            [1, 2],
            [3, 95],
          ],
        },
        'lines',
      ),
    );
    expect(e.message).toMatch(/^lines geometry point 2: \(3, 95\) is not a longitude\/latitude/);
    expect((await parseError(() => readGeojsonLines('{"type":', 'x'))).message).toMatch(/not valid JSON/);
  });
});

describe('whether a line meets a boundary', () => {
  it('is true for a point inside or a crossing, false outside and inside a hole', async () => {
    expect(
      lineMeetsPolygon(
        [
          [10.101, 56.101],
          [10.2, 56.2],
        ],
        FIELD,
      ),
    ).toBe(true);
    expect(
      lineMeetsPolygon(
        [
          [10.09, 56.101],
          [10.11, 56.101],
        ],
        FIELD,
      ),
    ).toBe(true);
    expect(
      lineMeetsPolygon(
        [
          [10.2, 56.2],
          [10.3, 56.2],
        ],
        FIELD,
      ),
    ).toBe(false);
    const hole = [
      [10.101, 56.1005],
      [10.103, 56.1005],
      [10.103, 56.1015],
      [10.101, 56.1015],
      [10.101, 56.1005],
    ];
    expect(
      lineMeetsPolygon(
        [
          [10.1015, 56.101],
          [10.1025, 56.101],
        ],
        [...FIELD, hole],
      ),
    ).toBe(false);
  });
});
