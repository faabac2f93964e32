/**
 * Real plans for export tests: the planner's plans of the fixture fields
 * (test/fixtures/fields), S1 settings (swath 6 m, turning radius 6 m, two
 * exterior and one interior headland pass), with client, farm and field names
 * that exercise non-ASCII text and XML escaping.
 */
import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { planField } from '../../core/plan.ts';
import { fixtureFile } from '../../test/helpers/corpus.ts';
import { toNormalizedModel } from '../plan-model.ts';
import { metresPerDegree } from './common.ts';
import type { ExportPlan } from './types.ts';

interface FixtureFeature {
  type: 'Feature';
  properties: { id: string; fixture?: string };
  geometry: unknown;
}

let cache: ExportPlan[] | undefined;

/** One plan per fixture field; ids `fixture-<n>`, createdAt fixed. */
export function fixturePlans(): ExportPlan[] {
  if (cache) return cache;
  const fc = JSON.parse(readFileSync(fixtureFile, 'utf8')) as { features: FixtureFeature[] };
  cache = fc.features.map((f, i) => {
    const result = planField({
      boundary: f,
      machine: { swathWidth: 6, minTurningRadius: 6 },
      exteriorHeadlandPasses: 2,
      interiorHeadlandPasses: 1,
    });
    const plan = toNormalizedModel(result, {
      pathPlanId: `fixture-${i}`,
      pathPlanName: f.properties.id,
      createdAt: '2026-04-01T08:30:00.000Z',
    });
    return {
      plan,
      customerName: i % 2 ? 'Agro Dvůr s.r.o.' : 'Hansen & Søn <Agri>',
      farmName: i % 3 ? 'Nordgård' : 'Farm "Øst"',
      fieldName: `${f.properties.fixture ?? f.properties.id} (${f.properties.id})`,
    };
  });
  return cache;
}

/** The files of a zip by path, as bytes. */
export function unzip(zip: Uint8Array): Record<string, Uint8Array> {
  return unzipSync(zip);
}

export function text(b: Uint8Array): string {
  return new TextDecoder().decode(b);
}

/** Distance between two [lon, lat] positions [m] (local WGS84 frame; exact to well under 1 mm over a field). */
export function metres(a: readonly number[], b: readonly number[]): number {
  const d = metresPerDegree((a[1] + b[1]) / 2);
  return Math.hypot((b[0] - a[0]) * d.lon, (b[1] - a[1]) * d.lat);
}

/** Largest distance between corresponding positions of two lines [m]; Infinity when the lengths differ. */
export function maxDeviation(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, metres(a[i], b[i]));
  return d;
}

/** A feature as ogrinfo prints it: attributes as text and the geometry parsed from WKT. */
export interface OgrFeature {
  attributes: Record<string, string>;
  type: string;
  /** Nested arrays as in GeoJSON (Point: [x, y]; LineString: [[x, y]...]; Polygon: [[[x, y]...]...]). */
  coordinates: unknown;
}

/** Parses the body of a WKT geometry ("(1 2,3 4)", "((...),(...))") into nested arrays. */
export function parseWktBody(s: string): unknown {
  let i = 0;
  const parse = (): unknown => {
    while (s[i] === ' ') i++;
    if (s[i] === '(') {
      i++;
      const items: unknown[] = [];
      for (;;) {
        items.push(parse());
        while (s[i] === ' ') i++;
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ')') {
          i++;
          break;
        }
        throw new Error(`bad WKT at ${i}: ${s.slice(i, i + 20)}`);
      }
      return items;
    }
    const m = /^[-+0-9.eE]+( [-+0-9.eE]+)+/.exec(s.slice(i));
    if (!m) throw new Error(`bad WKT at ${i}: ${s.slice(i, i + 20)}`);
    i += m[0].length;
    return m[0].split(' ').map(Number);
  };
  return parse();
}

/** Features of one layer as GDAL's ogrinfo reads them (`-ro -q`); stderr must be empty. */
export function ogrFeatures(
  run: (args: string[]) => { stdout: string; stderr: string },
  source: string,
  layer: string,
): OgrFeature[] {
  const { stdout, stderr } = run(['-ro', '-q', source, layer]);
  if (stderr.trim()) throw new Error(`ogrinfo ${source} ${layer}: ${stderr.trim()}`);
  const out: OgrFeature[] = [];
  for (const block of stdout.split(/\nOGRFeature\(.*\):\d+\n/).slice(1)) {
    const f: OgrFeature = { attributes: {}, type: '', coordinates: null };
    for (const line of block.split('\n')) {
      const a = /^ {2}(\S+) \([A-Za-z0-9]+\) = (.*)$/.exec(line);
      if (a) {
        f.attributes[a[1]] = a[2];
        continue;
      }
      const g = /^ {2}(POINT|LINESTRING|POLYGON|MULTILINESTRING|MULTIPOLYGON|MULTIPOINT) (\(.*)$/.exec(line);
      if (g) {
        f.type = g[1];
        f.coordinates = g[1] === 'POINT' ? (parseWktBody(g[2]) as unknown[])[0] : parseWktBody(g[2]);
      }
    }
    out.push(f);
  }
  return out;
}
