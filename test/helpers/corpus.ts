/**
 * Real fields for tests and benchmarks: the shared corpus when this checkout
 * sits beside it (../shared/fields), the project's own fixture fields always.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedFieldsDir = resolve(repoRoot, '../shared/fields');
export const fixtureFile = resolve(repoRoot, 'test/fixtures/fields/fixtures.geojson');

export interface Feature {
  type: 'Feature';
  properties: Record<string, unknown> & { id?: string; shape_class?: string };
  geometry: unknown;
}

export interface SelectedField {
  id: string;
  file: string;
  why: string;
  feature: Feature;
}

export function hasCorpus(): boolean {
  return existsSync(resolve(sharedFieldsDir, 'benchmark_selection.json'));
}

const fileCache = new Map<string, Feature[]>();

export function loadFeatures(file: string): Feature[] {
  let f = fileCache.get(file);
  if (!f) {
    f = (JSON.parse(readFileSync(resolve(sharedFieldsDir, file), 'utf8')) as { features: Feature[] })
      .features;
    fileCache.set(file, f);
  }
  return f;
}

export function loadBenchmarkSelection(): SelectedField[] {
  const sel = JSON.parse(readFileSync(resolve(sharedFieldsDir, 'benchmark_selection.json'), 'utf8')) as {
    ids: { id: string; file: string; why: string }[];
  };
  return sel.ids.map((s) => {
    const feature = loadFeatures(s.file).find((f) => f.properties.id === s.id);
    if (!feature) throw new Error(`benchmark field ${s.id} not found in ${s.file}`);
    return { ...s, feature };
  });
}

/** A deterministic sample of n fields, spread evenly over each reason for selection. */
export function sampleSelection(n: number, seed = 1): SelectedField[] {
  const all = loadBenchmarkSelection();
  const byWhy = new Map<string, SelectedField[]>();
  for (const s of all) byWhy.set(s.why, [...(byWhy.get(s.why) ?? []), s]);
  const out: SelectedField[] = [];
  for (const [, list] of [...byWhy.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const k = Math.max(1, Math.round((n * list.length) / all.length));
    const stride = list.length / k;
    for (let i = 0; i < k && out.length < n; i++)
      out.push(list[Math.floor((i * stride + seed) % list.length)]);
  }
  return out;
}

export function loadFixtureFields(): Feature[] {
  if (!existsSync(fixtureFile)) return [];
  return (JSON.parse(readFileSync(fixtureFile, 'utf8')) as { features: Feature[] }).features;
}
