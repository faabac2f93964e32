/**
 * Exports of a spread of real fields from the shared corpus (../shared/fields,
 * skipped when absent): every format is written and read back by its
 * independent reader without a warning, with every feature accounted for.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gpx as gpxToGeoJSON, kml as kmlToGeoJSON } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { ISOXMLManager } from 'isoxml';
import { read as readShapefile } from 'shapefile';
import { afterAll, describe, expect, it } from 'vitest';
import { planField } from '../../core/plan.ts';
import { PlanningError } from '../../core/types/index.ts';
import { hasCorpus, sampleSelection } from '../../test/helpers/corpus.ts';
import { toNormalizedModel } from '../plan-model.ts';
import { activeGroup, routeParts } from './common.ts';
import { exportPlans } from './index.ts';
import { guidanceLines } from './shapefile.ts';
import { ogrFeatures, text, unzip } from './testing.ts';
import type { ExportPlan } from './types.ts';

// biome-ignore lint/suspicious/noExplicitAny: readers' results are loosely typed
type Any = any;

describe.skipIf(!hasCorpus())('exports of corpus fields', () => {
  const plans: ExportPlan[] = [];
  for (const s of hasCorpus() ? sampleSelection(16, 3) : []) {
    try {
      const result = planField({
        boundary: s.feature,
        machine: { swathWidth: 6, minTurningRadius: 6 },
        exteriorHeadlandPasses: 2,
        interiorHeadlandPasses: 1,
      });
      plans.push({
        plan: toNormalizedModel(result, {
          pathPlanId: s.id,
          pathPlanName: s.id,
          createdAt: '2026-04-01T00:00:00Z',
        }),
        customerName: s.why,
        farmName: s.file,
        fieldName: s.id,
      });
    } catch (e) {
      if (!(e instanceof PlanningError)) throw e;
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'tramline-corpus-export-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('plans most of the sample', () => {
    expect(plans.length).toBeGreaterThanOrEqual(12);
  });

  it('isoxml and the vendor task data are read without a warning', async () => {
    for (const f of ['isoxml', 'isoxml-v3', 'vendor-a', 'vendor-b'] as const) {
      const m = new ISOXMLManager();
      await m.parseISOXMLFile((await exportPlans(plans, f)).zip, 'application/zip');
      expect(m.getWarnings(), f).toEqual([]);
      expect((m.rootElement.attributes as Any).Partfield).toHaveLength(plans.length);
    }
  });

  it('shapefile layers hold every zone and guidance line (shapefile package and ogrinfo)', async () => {
    const { zip } = await exportPlans(plans, 'shapefile');
    const files = unzip(zip);
    const zones = plans.reduce((s, p) => s + p.plan.zones.length, 0);
    const lines = plans.reduce(
      (s, p) => s + p.plan.zones.reduce((t, z) => t + guidanceLines(activeGroup(z)!, 6).length, 0),
      0,
    );
    const b = await readShapefile(files['boundary.shp'], files['boundary.dbf']);
    expect(b.features).toHaveLength(zones);
    const g = await readShapefile(files['guidance_lines.shp'], files['guidance_lines.dbf']);
    expect(g.features).toHaveLength(lines);
    if (spawnSync('ogrinfo', ['--version']).status === 0) {
      const path = join(dir, 's.zip');
      writeFileSync(path, zip);
      const run = (args: string[]) => {
        const r = spawnSync('ogrinfo', args, { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
        return { stdout: r.stdout, stderr: r.stderr };
      };
      expect(ogrFeatures(run, `/vsizip/${path}/boundary.shp`, 'boundary')).toHaveLength(zones);
    }
  });

  it('kml and gpx hold every zone and route part', async () => {
    const kml = kmlToGeoJSON(
      new DOMParser().parseFromString(
        text(Object.values(unzip((await exportPlans(plans, 'kml')).zip))[0]),
        'text/xml',
      ) as unknown as Document,
    ) as Any;
    const zones = plans.reduce((s, p) => s + p.plan.zones.length, 0);
    expect(kml.features.filter((f: Any) => f.geometry?.type === 'Polygon')).toHaveLength(zones);
    const gpx = unzip((await exportPlans(plans, 'gpx')).zip);
    const withRoute = plans.filter((p) => routeParts(p.plan).length > 0);
    expect(Object.keys(gpx)).toHaveLength(withRoute.length);
    Object.values(gpx).forEach((data, i) => {
      const fc = gpxToGeoJSON(
        new DOMParser().parseFromString(text(data), 'text/xml') as unknown as Document,
      ) as Any;
      const tracks = fc.features.filter((f: Any) => f.geometry?.type === 'LineString');
      expect(tracks).toHaveLength(routeParts(withRoute[i].plan).length);
    });
  });
});
