/**
 * `tramline plan --format isoxml|shapefile|kml|gpx|vendor-*`: the command
 * plans a real fixture field and writes the export (a zip, or one file for
 * kml and gpx), read back by the isoxml library, the shapefile package and
 * togeojson; standard output carries only the export.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kml as kmlToGeoJSON } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { unzipSync } from 'fflate';
import GpxParser from 'gpxparser';
import { ISOXMLManager } from 'isoxml';
import { read as readShapefile } from 'shapefile';
import { describe, expect, it } from 'vitest';
import { planField } from '../../core/plan.ts';
import { fixtureFile } from '../../test/helpers/corpus.ts';
import { type PlanIO, runPlan } from './plan.ts';

// biome-ignore lint/suspicious/noExplicitAny: readers' results are loosely typed
type Any = any;

const fixtures = JSON.parse(readFileSync(fixtureFile, 'utf8')) as { features: Any[] };
/** The fixture field with holes (obstacles). */
const FIELD = JSON.stringify(fixtures.features[3]);

function io() {
  const x = {
    out: '',
    outBytes: [] as Uint8Array[],
    err: '',
    written: {} as Record<string, string | Uint8Array>,
  };
  const pio: PlanIO = {
    stdout: (s) => {
      if (typeof s === 'string') x.out += s;
      else x.outBytes.push(s);
    },
    stderr: (s) => {
      x.err += s;
    },
    readStdin: () => FIELD,
    readFile: () => FIELD,
    writeFile: (p, d) => {
      x.written[p] = d;
    },
    plan: planField,
    now: () => new Date('2026-04-01T00:00:00Z'),
  };
  return { x, pio };
}

describe('tramline plan exports', () => {
  it('writes ISOXML TASKDATA as a zip with client, farm and field names', async () => {
    const { x, pio } = io();
    const code = await runPlan(
      [
        'north.geojson',
        '--format',
        'isoxml',
        '--client',
        'Hansen',
        '--farm',
        'Nordgård',
        '--out',
        'task.zip',
      ],
      pio,
    );
    expect(code).toBe(0);
    expect(x.out).toBe('');
    expect(x.err).toContain('-> task.zip');
    const zip = x.written['task.zip'] as Uint8Array;
    expect(Object.keys(unzipSync(zip))).toContain('TASKDATA/TASKDATA.XML');
    const m = new ISOXMLManager();
    await m.parseISOXMLFile(zip, 'application/zip');
    expect(m.getWarnings()).toEqual([]);
    const root = m.rootElement.attributes as Any;
    expect(root.Customer[0].attributes.CustomerLastName).toBe('Hansen');
    expect(root.Farm[0].attributes.FarmDesignator).toBe('Nordgård');
    expect(root.Partfield[0].attributes.PartfieldDesignator).toBe('north');
    expect(root.Partfield[0].attributes.GuidanceGroup).toHaveLength(1);
  });

  it('writes a shapefile zip to standard output and nothing else there', async () => {
    const { x, pio } = io();
    expect(await runPlan(['north.geojson', '--format', 'shapefile'], pio)).toBe(0);
    expect(x.out).toBe('');
    expect(x.outBytes).toHaveLength(1);
    const files = unzipSync(x.outBytes[0]);
    const fc = await readShapefile(files['boundary.shp'], files['boundary.dbf']);
    expect(fc.features[0].properties.FIELD).toBe('north');
    expect((fc.features[0].geometry.coordinates as unknown[]).length).toBeGreaterThan(10);
  });

  it('writes KML as a plain file, chosen by the .kml extension', async () => {
    const { x, pio } = io();
    expect(await runPlan(['north.geojson', '--out', 'north.kml'], pio)).toBe(0);
    const text = x.written['north.kml'] as string;
    expect(typeof text).toBe('string');
    const fc = kmlToGeoJSON(new DOMParser().parseFromString(text, 'text/xml') as unknown as Document) as Any;
    expect(fc.features.filter((f: Any) => f.geometry?.type === 'Polygon')).toHaveLength(1);
  });

  it('writes GPX to standard output, or zipped when --out ends in .zip', async () => {
    const a = io();
    expect(await runPlan(['north.geojson', '--format', 'gpx'], a.pio)).toBe(0);
    const g = new GpxParser();
    g.parse(a.x.out);
    expect(g.tracks.length).toBeGreaterThan(10);
    expect(new Set(g.tracks.map((t) => t.type))).toEqual(new Set(['working', 'non-working']));
    const b = io();
    expect(await runPlan(['north.geojson', '--format', 'gpx', '--out', 'route.zip'], b.pio)).toBe(0);
    expect(Object.keys(unzipSync(b.x.written['route.zip'] as Uint8Array))).toEqual(['north.gpx']);
  });

  it('writes the vendor layouts', async () => {
    const { x, pio } = io();
    expect(
      await runPlan(['north.geojson', '--format', 'vendor-c', '--client', 'Hansen', '--out', 't.zip'], pio),
    ).toBe(0);
    const names = Object.keys(unzipSync(x.written['t.zip'] as Uint8Array));
    expect(names).toContain('AgGPS/Data/Hansen/Hansen/north/Boundary.shp');
    expect(names).toContain('AgGPS/Data/Hansen/Hansen/north/ABLines/Swath.shp');
  });

  it('runs as a process: the zip bytes on standard output, messages on standard error', () => {
    const bin = fileURLToPath(new URL('../tramline.ts', import.meta.url));
    const r = spawnSync(process.execPath, [bin, 'plan', '-', '--format', 'isoxml', '--name', 'fixtures'], {
      input: JSON.stringify(fixtures.features[0]),
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(r.status).toBe(0);
    const out = new Uint8Array(r.stdout);
    expect(String.fromCharCode(out[0], out[1])).toBe('PK');
    expect(Object.keys(unzipSync(out))).toEqual(['TASKDATA/TASKDATA.XML', 'TASKDATA/LINKLIST.XML']);
    expect(r.stderr.toString()).toContain('fixtures:');
  });
});
