/**
 * Route-option benchmark: plans the benchmark selection (or the fixture
 * fields) on S1 (swath 6 m, radius 6 m, 2+1 headland passes) with each
 * route order and option, checks every plan with the shared plan checker,
 * and prints per option the median and p95 plan time, the median
 * non-working distance, coverage and violations. For 'optimized' it also
 * prints the optimizer's non-working distance against the plain
 * boustrophedon order of the same field (the acceptance ratio: median at
 * most 0.85) and what the optimizer itself reported; 'extendTracks' shows
 * the missed area with extended tracks (acceptance: median at most 0.5 %).
 * Every option also gets the plan audit's figures (undriven passes and
 * tracks, duplicate tracks, turn overhang, fields under 95 % and 90 %
 * covered); 'spiral' its targets (median covered >= 98.5 %, overlap <= 5 %).
 * 'passable' and 'usePassable-false' send each field's holes as passable
 * obstacles (features marked passable: true), driven over or, with
 * usePassable false, gone round. The other options: no decomposition,
 * crosshatch lines, headland drive-through, clustered spiral with skipCount
 * 1, the fuel objective, refill points of each strategy (a 2,000 l tank at
 * 200 l/ha), a staging area off the field, start and end route nodes.
 *
 *   npm run bench:options                       # first 100 fields of the selection
 *   npm run bench:options -- --limit 0          # the whole selection
 *   npm run bench:options -- --time 1 --option optimized --option boustrophedon
 *   npm run bench:options -- --limit 0 --every 4 --option cc-auto   # a spread quarter
 *
 * The optimizer's time cap (maxOptimizerTime, default 1 s) is measured from
 * the start of each plan, as the direct interface does.
 * Writes the same as JSON to bench/results/route-options-bench.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { planField } from '../core/plan.ts';
import { PlanningError, type PlanRequest, type RouteOptions } from '../core/types/index.ts';
import { checkPlan } from '../test/helpers/check-plan.ts';
import { hasCorpus, loadBenchmarkSelection, loadFixtureFields, repoRoot } from '../test/helpers/corpus.ts';
import { type AuditFigures, auditFigures, auditLines, auditSummary } from './audit-figures.ts';

const { values } = parseArgs({
  options: {
    limit: { type: 'string', default: '100' },
    /** Every n-th field only (a spread sample of the selection). */
    every: { type: 'string', default: '1' },
    out: { type: 'string', default: 'route-options-bench.json' },
    time: { type: 'string', default: '1' },
    option: { type: 'string', multiple: true },
    quiet: { type: 'boolean', default: false },
  },
});

interface Option {
  name: string;
  route: Partial<RouteOptions>;
  request?: Partial<PlanRequest>;
  /** Machine settings beyond S1 (the turn model). */
  machine?: Partial<PlanRequest['machine']>;
  /** Send each field's holes as features of their own marked passable (fields without holes are sent as they are). */
  holesPassable?: boolean;
  /** Route options that depend on the field (a staging area near it, say). */
  perField?: (feature: unknown) => Partial<RouteOptions>;
}

/** The first vertex of a feature's first exterior ring [lon, lat]. */
function firstVertex(feature: unknown): [number, number] {
  const g = (feature as { geometry: { type: string; coordinates: unknown } }).geometry;
  const c = (g.type === 'Polygon' ? g.coordinates : (g.coordinates as unknown[])[0]) as number[][][];
  return [c[0][0][0], c[0][0][1]];
}

type Ring = number[][];
/** A feature's holes as passable features beside the field without them; the feature itself when it has none. */
function withPassableHoles(feature: unknown): unknown {
  const f = feature as {
    type: string;
    geometry?: { type: string; coordinates: unknown };
    properties?: object;
  };
  const g = f.geometry;
  if (!g) return feature;
  const polys = (
    g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : []
  ) as Ring[][];
  const holes = polys.flatMap((p) => p.slice(1));
  if (!holes.length) return feature;
  const outer = polys.map((p) => [p[0]]);
  return {
    type: 'FeatureCollection',
    features: [
      {
        type: 'Feature',
        properties: f.properties ?? {},
        geometry: { type: 'MultiPolygon', coordinates: outer },
      },
      ...holes.map((h) => ({
        type: 'Feature',
        properties: { passable: true },
        geometry: { type: 'Polygon', coordinates: [h] },
      })),
    ],
  };
}

const OPTIONS: Option[] = [
  { name: 'auto', route: { algorithm: 'auto' } },
  { name: 'boustrophedon', route: { algorithm: 'boustrophedon' } },
  { name: 'snake', route: { algorithm: 'snake' } },
  { name: 'clusteredSpiral', route: { algorithm: 'clusteredSpiral' } },
  { name: 'optimized', route: { algorithm: 'optimized' } },
  { name: 'optimized-time', route: { algorithm: 'optimized', objective: 'time' } },
  { name: 'extendTracks', route: { algorithm: 'auto' }, request: { extendTracks: true } },
  { name: 'curved', route: { algorithm: 'auto' }, request: { trackType: 'Curved' } },
  { name: 'spiral', route: { algorithm: 'auto' }, request: { trackType: 'Spiral' } },
  { name: 'headlandsFirst', route: { algorithm: 'auto', headlandsFirst: true } },
  { name: 'forcedDirection-CW', route: { algorithm: 'auto', forcedDirection: 'CW' } },
  // The holes of each field given as passable obstacles (a drain, a pole line): driven over, not worked;
  // with usePassable false they are obstacles again, gone round by interior passes.
  { name: 'passable', route: { algorithm: 'auto' }, holesPassable: true },
  {
    name: 'usePassable-false',
    route: { algorithm: 'auto' },
    request: { usePassable: false },
    holesPassable: true,
  },
  { name: 'no-decomposition', route: { algorithm: 'auto' }, request: { decomposition: false } },
  { name: 'crossHatches', route: { algorithm: 'auto' }, request: { useCrossHatches: true } },
  { name: 'drivethrough', route: { algorithm: 'auto', enableHeadlandDrivethrough: true } },
  // Turns onto the next line but one: narrower than the turning circle (bulbs, fishtails, the headland).
  { name: 'clusteredSpiral-skip1', route: { algorithm: 'clusteredSpiral', skipCount: 1 } },
  { name: 'optimized-fuel', route: { algorithm: 'optimized', objective: 'fuel' } },
  // A 2,000 l tank at 200 l/ha: a refill every 10 ha.
  ...(['Exact', 'StartOfTrack', 'ClosestExternalHeadland'] as const).map((refillStrategyType) => ({
    name: `refill-${refillStrategyType}`,
    route: { algorithm: 'auto' as const, calculateRefillPoints: true, refillStrategyType },
    machine: { tankCapacity: 2000, applicationRate: 0.02 },
  })),
  // From and back to a yard 200 m or so off the field's first vertex; and from node 0 to node 1.
  {
    name: 'stagingArea',
    route: { algorithm: 'auto' },
    perField: (f) => {
      const [lon, lat] = firstVertex(f);
      return { stagingArea: [lon + 0.002, lat + 0.002] };
    },
  },
  { name: 'start-end-nodes', route: { algorithm: 'auto', startPointNodeIndex: 0, endPointNodeIndex: 1 } },
  // Turn models: continuous-curvature turns with a curvature-rate limit [1/m^2].
  { name: 'cc-auto', route: { algorithm: 'auto' }, machine: { maxCurvatureRate: 0.05 } },
  { name: 'cc-optimized', route: { algorithm: 'optimized' }, machine: { maxCurvatureRate: 0.05 } },
];

const cases = (
  hasCorpus()
    ? loadBenchmarkSelection().map((s) => ({ id: s.id, feature: s.feature as unknown }))
    : loadFixtureFields().map((f, i) => ({ id: `fixture-${i}`, feature: f as unknown }))
)
  .slice(0, Number(values.limit) > 0 ? Number(values.limit) : undefined)
  .filter((_, i) => i % Math.max(1, Number(values.every)) === 0);
const capMs = Number(values.time) * 1000;
const chosen = values.option?.length ? OPTIONS.filter((o) => values.option!.includes(o.name)) : OPTIONS;

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

interface Row {
  id: string;
  ms: number;
  nonWorking: number;
  covered: number;
  missed: number;
  overlap: number;
  violations: number;
  /** Turns by kind (U, bulb, fishtail, K, ...). */
  kinds: Record<string, number>;
  gain?: number;
  converged?: boolean;
  /** Refill points of the plan, when asked for. */
  refills?: number;
  /** The plan audit: undriven passes and tracks, duplicate tracks, turn overhang. */
  audit: AuditFigures;
}

const results: Record<string, { rows: Row[]; refused: number; crashed: string[] }> = {};
for (const o of chosen) {
  const rows: Row[] = [];
  let refused = 0;
  const crashed: string[] = [];
  for (const c of cases) {
    const req: PlanRequest = {
      boundary: o.holesPassable ? withPassableHoles(c.feature) : c.feature,
      machine: { swathWidth: 6, minTurningRadius: 6, ...o.machine },
      exteriorHeadlandPasses: 2,
      interiorHeadlandPasses: 1,
      route: { ...o.route, ...o.perField?.(c.feature) } as RouteOptions,
      ...o.request,
    };
    const t0 = performance.now();
    const deadline = t0 + capMs;
    try {
      const r = planField(req, { shouldStopOptimizer: () => performance.now() >= deadline });
      const ms = performance.now() - t0;
      const v = checkPlan(r.plan);
      const reps = r.plan.zones.flatMap((z) => (z.optimizer ? [z.optimizer] : []));
      const kinds: Record<string, number> = {};
      for (const z of r.plan.zones)
        for (const p of z.groups[z.activeGroup].parts)
          if (p.type === 'Turn' && p.turnKind) kinds[p.turnKind] = (kinds[p.turnKind] ?? 0) + 1;
      const base = reps.reduce((a, x) => a + x.baselineCost, 0);
      const cost = reps.reduce((a, x) => a + x.cost, 0);
      rows.push({
        id: c.id,
        ms,
        nonWorking: r.plan.stats.nonWorkingDistance,
        covered: r.plan.stats.coveredPercent,
        missed: r.plan.stats.fieldArea > 0 ? (100 * r.plan.stats.missedArea) / r.plan.stats.fieldArea : 0,
        overlap: r.plan.stats.overlapPercent,
        violations: v.length,
        kinds,
        audit: auditFigures(r.plan),
        ...(reps.length
          ? { gain: base > 0 ? 100 * (1 - cost / base) : 0, converged: reps.every((x) => x.converged) }
          : {}),
        ...(req.route?.calculateRefillPoints
          ? { refills: r.plan.zones.reduce((a, z) => a + (z.refillPoints?.length ?? 0), 0) }
          : {}),
      });
      if (!values.quiet && v.length)
        console.error(`${o.name} ${c.id}: ${v.length} violation(s): ${[...new Set(v.map((x) => x.rule))]}`);
    } catch (e) {
      if (e instanceof PlanningError) refused++;
      else crashed.push(`${c.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  results[o.name] = { rows, refused, crashed };
  const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const col = (g: (r: Row) => number) => rows.map(g);
  const lines = [
    `${o.name} (S1, maxOptimizerTime ${values.time} s): ${rows.length}/${cases.length} planned, ${refused} refused, ${crashed.length} crashed${
      o.holesPassable
        ? `; ${cases.filter((c) => withPassableHoles(c.feature) !== c.feature).length} fields with their holes sent as passable`
        : ''
    }`,
    `  plan time      median ${f(
      quantile(
        col((r) => r.ms),
        0.5,
      ),
      0,
    )} ms   p95 ${f(
      quantile(
        col((r) => r.ms),
        0.95,
      ),
      0,
    )} ms`,
    `  non-working    median ${f(
      quantile(
        col((r) => r.nonWorking),
        0.5,
      ),
      0,
    )} m   covered median ${f(
      quantile(
        col((r) => r.covered),
        0.5,
      ),
      2,
    )} %`,
    `  missed         median ${f(
      quantile(
        col((r) => r.missed),
        0.5,
      ),
      3,
    )} % of field area   overlap median ${f(
      quantile(
        col((r) => r.overlap),
        0.5,
      ),
      2,
    )} %`,
    `  turns          ${Object.entries(
      rows.reduce(
        (acc, r) => {
          for (const [k, n] of Object.entries(r.kinds)) acc[k] = (acc[k] ?? 0) + n;
          return acc;
        },
        {} as Record<string, number>,
      ),
    )
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `  violations     ${rows.filter((r) => r.violations > 0).length} field(s)`,
    ...auditLines(auditSummary(rows.map((r) => r.audit))),
  ];
  if (o.name === 'spiral') {
    const covered = quantile(
      col((r) => r.covered),
      0.5,
    );
    const overlap = quantile(
      col((r) => r.overlap),
      0.5,
    );
    lines.push(
      `  targets        covered median ${f(covered, 2)} % (>= 98.5 %: ${covered >= 98.5 ? 'yes' : 'NO'})   overlap median ${f(overlap, 2)} % (<= 5 %: ${overlap <= 5 ? 'yes' : 'NO'})`,
    );
  }
  const refills = rows.filter((r) => r.refills !== undefined);
  if (refills.length)
    lines.push(
      `  refill points  ${refills.reduce((a, r) => a + (r.refills ?? 0), 0)} on ${refills.filter((r) => (r.refills ?? 0) > 0).length} field(s)`,
    );
  const gains = rows.filter((r) => r.gain !== undefined);
  if (gains.length)
    lines.push(
      `  optimizer      reported gain median ${f(
        quantile(
          col((r) => r.gain ?? 0),
          0.5,
        ),
      )} %   converged on ${gains.filter((r) => r.converged).length} field(s)`,
    );
  console.log(lines.join('\n'));
  for (const c of crashed.slice(0, 5)) console.error(`crash ${c}`);
}

// The acceptance ratio: optimized against boustrophedon, field by field.
const summary: Record<string, unknown> = {};
if (results.optimized && results.boustrophedon) {
  const base = new Map(results.boustrophedon.rows.map((r) => [r.id, r.nonWorking]));
  const ratios = results.optimized.rows
    .filter((r) => (base.get(r.id) ?? 0) > 0)
    .map((r) => r.nonWorking / (base.get(r.id) as number));
  summary.optimizedOverBoustrophedon = {
    fields: ratios.length,
    median: quantile(ratios, 0.5),
    p95: quantile(ratios, 0.95),
    worse: ratios.filter((x) => x > 1).length,
  };
  console.log(
    `optimized / boustrophedon non-working distance: median ${quantile(ratios, 0.5).toFixed(3)}   p95 ${quantile(ratios, 0.95).toFixed(3)}   over ${ratios.length} fields (${ratios.filter((x) => x > 1).length} worse)`,
  );
}
const out = resolve(repoRoot, 'bench/results');
mkdirSync(out, { recursive: true });
writeFileSync(resolve(out, values.out), JSON.stringify({ summary, results }, null, 1));
console.log(`results: ${resolve(out, values.out)}`);
