/**
 * What includeSlopes costs: plans a rectangular field (default 10 ha, S1:
 * swath 6 m, radius 6 m, 2 headland passes) over a 1 m DEM of rolling
 * ground (EPSG:32632 GeoTIFF written to a temporary directory) as the
 * planning thread does, with and without slopes, alternating, and prints
 * the median times and their ratio (acceptance: at most 1.30), the ratio of
 * the fastest runs, and what the slope stages add against planning and
 * writing (stage medians; the steadiest figure on a loaded machine). "With"
 * includes finding the DEM's cells (read from the file once per thread).
 * Then the plan time with trackDirection 'Contour' against the usual
 * direction search.
 *
 *   node bench/slopes.bench.ts
 *   node bench/slopes.bench.ts --runs 40 --ha 10 --cell 1
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { planField } from '../core/plan.ts';
import { planSlopes } from '../core/terrain/slopes.ts';
import type { PlanRequest } from '../core/types/index.ts';
import { frameSampler, openDemWindow } from '../formats/dem-geotiff.ts';
import { groundForField, lonLatBBoxOf, planExtent } from '../formats/dem-slopes.ts';
import { localMetres, writeDem } from '../formats/dem-testing.ts';
import { toNormalizedModel } from '../formats/plan-model.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    ha: { type: 'string', default: '10' },
    cell: { type: 'string', default: '1' },
  },
});
const runs = Number(values.runs);
const ha = Number(values.ha);
const cell = Number(values.cell);

const lon0 = 9;
const lat0 = 55;
const h = Math.sqrt((ha * 10_000) / 2);
const w = 2 * h;
const dLon = w / (111_320 * Math.cos((lat0 * Math.PI) / 180));
const dLat = h / 111_200;
const request: PlanRequest = {
  boundary: {
    type: 'Polygon',
    coordinates: [
      [
        [lon0, lat0],
        [lon0 + dLon, lat0],
        [lon0 + dLon, lat0 + dLat],
        [lon0, lat0 + dLat],
        [lon0, lat0],
      ],
    ],
  },
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
};

const dir = await mkdtemp(join(tmpdir(), 'tramline-slopes-bench-'));
const demPath = join(dir, 'dem.tif');
const centre: [number, number] = [lon0 + dLon / 2, lat0 + dLat / 2];
const local = localMetres(...centre);
const margin = 60;
await writeDem(demPath, {
  epsg: 32632,
  centre,
  width: Math.ceil((w + 2 * margin) / cell),
  height: Math.ceil((h + 2 * margin) / cell),
  cell,
  ground: (lon, lat) => {
    const [e, n] = local(lon, lat);
    return 120 + 0.04 * e + 3 * Math.sin(e / 60) * Math.cos(n / 45);
  },
});

const meta = { pathPlanId: 'bench', pathPlanName: 'bench', createdAt: new Date(0).toISOString() };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function once(withSlopes: boolean) {
  const t0 = performance.now();
  const result = planField(request);
  const t1 = performance.now();
  let read = 0;
  let sample = 0;
  let slopes: ReturnType<typeof planSlopes> | undefined;
  if (withSlopes) {
    const extent = planExtent(result);
    const toLonLat = (x: number, y: number) => result.frame.toLonLat({ x, y });
    const dem = await openDemWindow(demPath, lonLatBBoxOf(toLonLat, extent));
    const t2 = performance.now();
    slopes = planSlopes(result.plan, frameSampler([dem], toLonLat, extent));
    const t3 = performance.now();
    read = t2 - t1;
    sample = t3 - t2;
  }
  const t5 = performance.now();
  const json = JSON.stringify(toNormalizedModel(result, meta, slopes));
  const t4 = performance.now();
  return {
    total: t4 - t0,
    plan: t1 - t0,
    read,
    sample,
    write: t4 - t5,
    bytes: json.length,
    samples: slopes?.summary.samples ?? 0,
  };
}

try {
  const first = await once(true);
  for (let i = 0; i < 5; i++) {
    await once(false);
    await once(true);
  }
  type Run = Awaited<ReturnType<typeof once>>;
  const without: Run[] = [];
  const withS: Run[] = [];
  for (let i = 0; i < runs; i++) {
    // Alternating, so load from elsewhere on the machine falls on both alike.
    const order = i % 2 ? [true, false] : [false, true];
    for (const s of order) (s ? withS : without).push(await once(s));
  }
  const med = (rs: Run[], k: keyof Run) => median(rs.map((r) => r[k]));
  const a = med(without, 'total');
  const b = med(withS, 'total');
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  console.log(`field ${ha} ha, DEM cell ${cell} m (EPSG:32632), S1, ${runs} runs each, alternating; medians`);
  console.log(
    `without includeSlopes: ${ms(a)} (planning ${ms(med(without, 'plan'))}, model and JSON ${ms(med(without, 'write'))}; answer ${(without[0].bytes / 1024).toFixed(0)} KB)`,
  );
  console.log(
    `with includeSlopes:    ${ms(b)} (planning ${ms(med(withS, 'plan'))}, DEM ${ms(med(withS, 'read'))}, slopes ${ms(med(withS, 'sample'))} for ${withS[0].samples} route samples, model and JSON ${ms(med(withS, 'write'))}; answer ${(withS[0].bytes / 1024).toFixed(0)} KB)`,
  );
  const lo = (rs: Run[]) => Math.min(...rs.map((r) => r.total));
  // What slopes add, stage by stage (each stage's median is little disturbed by load elsewhere):
  // reading the DEM, sampling, and the larger answer; against planning and writing without them.
  const added =
    med(withS, 'read') + med(withS, 'sample') + Math.max(0, med(withS, 'write') - med(without, 'write'));
  const base = Math.min(med(without, 'plan'), med(withS, 'plan')) + med(without, 'write');
  console.log(
    `added by slopes (stage medians): ${ms(added)} on ${ms(base)} (planning and writing): ratio ${((base + added) / base).toFixed(3)}`,
  );
  console.log(`ratio of the medians: ${(b / a).toFixed(3)} (acceptance: at most 1.30)`);
  console.log(
    `ratio of the fastest runs (least disturbed by other load): ${(lo(withS) / lo(without)).toFixed(3)} (${ms(lo(withS))} / ${ms(lo(without))})`,
  );
  console.log(
    `first DEM read (file not yet cached in the thread, code not yet optimised): ${ms(first.read)}`,
  );
  // Tracks along the contour: planning with the direction search scored on the DEM (the cells
  // read once before, as the planning thread does), against the usual search; alternating.
  const ground = await groundForField(request.boundary, [demPath]);
  const contour: PlanRequest = { ...request, trackDirection: 'Contour' };
  const usual: number[] = [];
  const along: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    planField(request);
    const t1 = performance.now();
    const z = planField(contour, { ground }).plan.zones[0];
    along.push(performance.now() - t1);
    usual.push(t1 - t0);
    if (i === 0)
      console.log(
        `contour bearing ${z.contour?.bearingDeg.toFixed(2)} deg (${z.warnings?.join('; ') ?? 'no warnings'})`,
      );
  }
  console.log(
    `trackDirection Contour: planning ${ms(median(along))} against ${ms(median(usual))} with the usual search (ratio ${(median(along) / median(usual)).toFixed(3)})`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
