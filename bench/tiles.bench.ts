/**
 * Vector tile benchmark: `node bench/tiles.bench.ts [--fields 5000] [--per-zoom 50]`.
 *
 * One company with `--fields` generated fields (seeded jittered
 * quadrilaterals of 40 vertices, ~12 ha each, packed on a grid over about
 * 27 x 27 km in Denmark) on an in-memory PGlite store; a really listening
 * server; one request at a time (POST /api/companies/{id}/field-tiles),
 * round trip measured client side with the body received:
 *   - first: the very first tile (the company's tile index is made);
 *   - pass 1: `--per-zoom` tiles at each of z 10, 12, 14, 16 under the
 *     fields (index cached, each tile cut on first use);
 *   - pass 2: the same tiles again (index and cut tiles cached);
 *   - after a change: the first tile after toggling one field (index made again).
 * Prints median, p95 and max [ms] and the features per tile.
 */
import { parseArgs } from 'node:util';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { buildApp } from '../api/app.ts';
import { createKeyForNewAccount } from '../store/bootstrap.ts';
import { openStore } from '../store/db.ts';
import { seedBoundaries } from './seed-boundaries.ts';

const { values } = parseArgs({
  options: {
    fields: { type: 'string', default: '5000' },
    'per-zoom': { type: 'string', default: '50' },
  },
});
const N = Number(values.fields);
const PER_ZOOM = Number(values['per-zoom']);
const ZOOMS = [10, 12, 14, 16];

/** mulberry32: a seeded PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LON0 = 9.0;
const LAT0 = 56.0;
const DLON = 0.0055;
const DLAT = 0.0038;

function generatedFields(n: number) {
  const rand = rng(42);
  const cols = Math.ceil(Math.sqrt(n));
  return Array.from({ length: n }, (_, i) => {
    const col = i % cols;
    const row = Math.floor(i / cols);
    const j = () => (rand() - 0.5) * 0.12;
    const x0 = LON0 + col * DLON;
    const y0 = LAT0 + row * DLAT;
    const corners = [
      [x0 + DLON * (0.05 + j()), y0 + DLAT * (0.05 + j())],
      [x0 + DLON * (0.95 + j()), y0 + DLAT * (0.05 + j())],
      [x0 + DLON * (0.95 + j()), y0 + DLAT * (0.95 + j())],
      [x0 + DLON * (0.05 + j()), y0 + DLAT * (0.95 + j())],
    ];
    const ring: number[][] = [];
    for (let k = 0; k < 4; k++) {
      const [ax, ay] = corners[k];
      const [bx, by] = corners[(k + 1) % 4];
      for (let s = 0; s < 10; s++) {
        const t = s / 10;
        const wobble = s === 0 ? 0 : (rand() - 0.5) * 0.00004;
        ring.push([ax + (bx - ax) * t + wobble, ay + (by - ay) * t + wobble]);
      }
    }
    ring.push([...ring[0]]);
    return { name: `Field ${i + 1}`, geometry: { type: 'Polygon' as const, coordinates: [ring] } };
  });
}

function tileOf(lon: number, lat: number, z: number) {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return {
    z,
    x: Math.floor(((lon + 180) / 360) * n),
    y: Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n),
  };
}

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const fmt = (xs: number[]) =>
  `median ${q(xs, 0.5).toFixed(1)} ms, p95 ${q(xs, 0.95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (n=${xs.length})`;

async function main(): Promise<void> {
  const store = await openStore({ dataDir: 'memory://' });
  const key = await createKeyForNewAccount(store, {
    email: `tiles-${Date.now()}@example.org`,
    unlimited: true,
  });
  const t0 = performance.now();
  const list = generatedFields(N);
  const seeded = await seedBoundaries(store, key.companyId, list);
  console.log(`seeded ${seeded.length} fields in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const app = await buildApp({
    store,
    logger: false,
    purgeIntervalMs: 0,
    rateLimitPerMin: 1_000_000,
    jobWorkers: false,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const path = `${url}/api/companies/${key.companyId}/field-tiles`;
  const get = async (body: unknown): Promise<{ ms: number; features: number }> => {
    const s = performance.now();
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const ms = performance.now() - s;
    if (res.status !== 200)
      throw new Error(`tile answered ${res.status}: ${new TextDecoder().decode(bytes)}`);
    const layer = new VectorTile(new PbfReader(bytes)).layers.fields;
    return { ms, features: layer?.length ?? 0 };
  };

  const cols = Math.ceil(Math.sqrt(N));
  const rows = Math.ceil(N / cols);
  const rand = rng(7);
  const tiles = ZOOMS.flatMap((z) =>
    Array.from({ length: PER_ZOOM }, () =>
      tileOf(LON0 + rand() * cols * DLON, LAT0 + rand() * rows * DLAT, z),
    ),
  );

  const first = await get(tiles[0]);
  console.log(`first tile (index made): ${first.ms.toFixed(1)} ms, ${first.features} features`);
  for (const pass of [1, 2]) {
    const ms: number[] = [];
    const byZoom = new Map<number, number[]>();
    const feats: number[] = [];
    for (const t of tiles) {
      const r = await get(t);
      ms.push(r.ms);
      feats.push(r.features);
      byZoom.set(t.z, [...(byZoom.get(t.z) ?? []), r.ms]);
    }
    console.log(
      `pass ${pass} (${pass === 1 ? 'index cached, tiles cut on first use' : 'all cached'}): ${fmt(ms)}`,
    );
    for (const [z, xs] of byZoom) console.log(`  z${z}: ${fmt(xs)}`);
    console.log(`  features per tile: median ${q(feats, 0.5)}, max ${Math.max(...feats)}`);
  }
  const toggled = await fetch(`${url}/api/companies/${key.companyId}/fields/toggle-enabled`, {
    method: 'PUT',
    headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
    body: JSON.stringify({ fieldIds: [seeded[0].fieldId], enabled: false }),
  });
  if (toggled.status !== 200) throw new Error(`toggle answered ${toggled.status}`);
  const after = await get(tiles[0]);
  console.log(`first tile after a change (index made again): ${after.ms.toFixed(1)} ms`);
  await app.close();
  await store.close();
}

await main();
