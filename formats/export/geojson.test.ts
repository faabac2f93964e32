import { describe, expect, it } from 'vitest';
import { activeGroup } from './common.ts';
import { ExportError, exportPlans } from './index.ts';
import { fixturePlans, maxDeviation, text, unzip } from './testing.ts';

describe('geojson export', () => {
  it('writes one FeatureCollection per plan whose geometry equals the model', async () => {
    const plans = fixturePlans();
    const { fileName, zip } = await exportPlans(plans, 'geojson');
    expect(fileName).toBe(`tramline-geojson-${plans.length}-plans.zip`);
    const files = unzip(zip);
    const names = Object.keys(files);
    expect(names).toHaveLength(plans.length);
    plans.forEach((p, i) => {
      const fc = JSON.parse(text(files[names[i]]));
      expect(fc.type).toBe('FeatureCollection');
      expect(fc.properties.fieldName).toBe(p.fieldName);
      const byId = new Map(fc.features.map((f: { id: string }) => [f.id, f]));
      for (const z of p.plan.zones) {
        const zb = byId.get(z.zoneId) as { geometry: { coordinates: number[][][] } };
        z.zoneBoundary.coordinates.forEach((r, ri) => {
          expect(maxDeviation(zb.geometry.coordinates[ri], r)).toBe(0);
        });
        for (const part of activeGroup(z)!.geometryParts) {
          const f = byId.get(part.geometryPartId) as { geometry: { coordinates: number[][] } };
          expect(f.geometry.coordinates).toEqual(part.geometry.coordinates);
        }
      }
    });
  });

  it('names a single plan export after its field', async () => {
    const { fileName } = await exportPlans([fixturePlans()[0]], 'geojson');
    expect(fileName).toBe('convex_10_ha_fiboa-dk_110-0-geojson.zip');
  });

  it('refuses an empty list and an unknown format with a code', async () => {
    await expect(exportPlans([], 'geojson')).rejects.toMatchObject({ code: 'EXPORT_NO_PLANS' });
    await expect(exportPlans(fixturePlans(), 'dxf' as 'geojson')).rejects.toBeInstanceOf(ExportError);
  });
});
