/**
 * Planner benchmark: plans every field of the benchmark selection
 * (../shared/fields/benchmark_selection.json, or the project's fixture fields
 * when that folder is absent) in two scenarios and prints, per scenario, the
 * median and p95 of plan time and of quality, the refusals and why, the
 * invariant violations found by the shared plan checker, the plan audit's
 * figures (undriven passes and tracks, duplicate tracks, turn overhang, fields
 * under 95 % and 90 % covered, reversing farther than a turn needs, the
 * fields with the most of each) and a table
 * against the targets (bench/audit-figures.ts; the spiral row comes from the
 * last `npm run bench:options -- --option spiral`).
 *
 *   npm run bench                       # both scenarios, whole selection
 *   npm run bench -- --scenario S1 --limit 100 --field fiboa-bg:00151-494
 *   npm run bench -- --scenario S1 --shape convex --no-check
 *   npm run bench -- --why holes      # only the fields selected for their holes
 *   npm run bench -- --decomposition off   # every field part as one zone
 *
 * Writes the same as JSON to bench/results/plan-bench.json.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { planField } from '../core/plan.ts';
import { PlanningError, type PlanRequest, type PlanResult, type Point } from '../core/types/index.ts';
import { checkPlan } from '../test/helpers/check-plan.ts';
import { hasCorpus, loadBenchmarkSelection, loadFixtureFields, repoRoot } from '../test/helpers/corpus.ts';
import {
  type AuditFigures,
  auditFigures,
  auditLines,
  auditSummary,
  reversesFar,
  targetRows,
  targetTable,
} from './audit-figures.ts';

interface Scenario {
  name: string;
  swath: number;
  radius: number;
  exterior: number;
  interior: number;
}

const SCENARIOS: Scenario[] = [
  { name: 'S1', swath: 6, radius: 6, exterior: 2, interior: 1 },
  { name: 'S2', swath: 24, radius: 8, exterior: 1, interior: 1 },
];

const { values } = parseArgs({
  options: {
    scenario: { type: 'string' },
    limit: { type: 'string' },
    field: { type: 'string', multiple: true },
    shape: { type: 'string' },
    why: { type: 'string' },
    check: { type: 'boolean', default: true },
    'no-check': { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    /** 'off' plans every field part as one zone (to measure what decomposition costs and saves). */
    decomposition: { type: 'string', default: 'on' },
  },
});

interface FieldCase {
  id: string;
  why: string;
  shapeClass?: string;
  feature: unknown;
}

function loadCases(): FieldCase[] {
  if (hasCorpus()) {
    return loadBenchmarkSelection().map((s) => ({
      id: s.id,
      why: s.why,
      shapeClass: (s.feature as { properties?: { shape_class?: string } }).properties?.shape_class,
      feature: s.feature,
    }));
  }
  return loadFixtureFields().map((f) => {
    const props = (f as { properties?: { id?: string; shape_class?: string } }).properties ?? {};
    return { id: props.id ?? 'fixture', why: 'fixture', shapeClass: props.shape_class, feature: f };
  });
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = xs.slice().sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i];
}

/** Minimum width of a point set (rotating calipers over its convex hull) [m]. */
function minWidth(points: Point[]): number {
  const pts = points.slice().sort((a, b) => a.x - b.x || a.y - b.y);
  if (pts.length < 3) return 0;
  const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const lower: Point[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], pts[i]) <= 0)
      upper.pop();
    upper.push(pts[i]);
  }
  const hull = lower.slice(0, -1).concat(upper.slice(0, -1));
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < hull.length; i++) {
    const a = hull[i];
    const b = hull[(i + 1) % hull.length];
    const l = Math.hypot(b.x - a.x, b.y - a.y);
    if (l === 0) continue;
    let far = 0;
    for (const p of hull) far = Math.max(far, Math.abs(cross(a, b, p)) / l);
    best = Math.min(best, far);
  }
  return best;
}

/** Distinct straight track lines among the guidance tracks (1 cm apart or more). */
function trackLines(parts: readonly { type: string; points: Point[]; bearingDeg?: number }[]): number {
  const seen = new Set<string>();
  for (const p of parts) {
    if (p.type !== 'GuidanceTrack' || p.points.length < 2) continue;
    const a = p.points[0];
    const b = p.points[p.points.length - 1];
    const l = Math.hypot(b.x - a.x, b.y - a.y);
    if (l === 0) continue;
    // Signed distance of the line from the origin, and its direction.
    const off = (a.x * (b.y - a.y) - a.y * (b.x - a.x)) / l;
    let dir = Math.atan2(b.y - a.y, b.x - a.x);
    let o = off;
    if (dir < 0) {
      dir += Math.PI;
      o = -o;
    }
    seen.add(`${Math.round(dir * 1e4)}:${Math.round(o * 100)}`);
  }
  return seen.size;
}

interface Row {
  id: string;
  ms: number;
  covered: number;
  overlap: number;
  tracks: number;
  /** Distinct track lines (a line split by an obstacle or a concavity counts once). */
  lines: number;
  lowerBound: number;
  aboveBound: number;
  segmentsAboveBound: number;
  turns: number;
  nonWorking: number;
  convex: boolean;
  violations: number;
  rules: string[];
  failures: number;
  /** The plan audit: undriven passes and tracks, duplicate tracks, turn overhang (core/metrics/plan-audit.ts). */
  audit: AuditFigures;
  /** Set when a field part was decomposed: its figures planned as one zone and as planned. */
  decomposition?: {
    cells: number;
    baseline: { turns: number; nonWorking: number; time: number };
    planned: { turns: number; nonWorking: number; time: number };
  };
}

/** What decomposition changed on a plan: the decomposed parts' figures against the same parts as one zone. */
function decompositionOf(plan: PlanResult['plan']): Row['decomposition'] {
  const parts = new Map<number, typeof plan.zones>();
  for (const z of plan.zones) {
    if (!z.decomposition?.report) continue;
    const k = z.fieldPart ?? z.index;
    parts.set(k, [...(parts.get(k) ?? []), z]);
  }
  if (parts.size === 0) return undefined;
  const out = {
    cells: 0,
    baseline: { turns: 0, nonWorking: 0, time: 0 },
    planned: { turns: 0, nonWorking: 0, time: 0 },
  };
  for (const zs of parts.values()) {
    const r = zs[0].decomposition?.report;
    if (!r) continue;
    out.cells += r.cells;
    out.baseline.turns += r.baseline.turnCount;
    out.baseline.nonWorking += r.baseline.nonWorkingDistance;
    out.baseline.time += r.baseline.totalTime;
    for (const z of zs) {
      out.planned.turns += z.stats.turnCount;
      out.planned.nonWorking += z.stats.nonWorkingDistance;
      out.planned.time += z.stats.totalTime;
    }
  }
  return out;
}

/** How many fields were decomposed and what it saved, summed over them and as the median per field [%]. */
function decompositionSummary(rows: Row[]) {
  const dec = rows.filter((r) => r.decomposition);
  const sum = (f: (d: NonNullable<Row['decomposition']>) => number) =>
    dec.reduce((a, r) => a + f(r.decomposition as NonNullable<Row['decomposition']>), 0);
  const pct = (b: number, p: number) => (b > 0 ? (100 * (b - p)) / b : 0);
  const per = (f: (x: { turns: number; nonWorking: number; time: number }) => number) =>
    quantile(
      dec.map((r) => pct(f(r.decomposition!.baseline), f(r.decomposition!.planned))),
      0.5,
    );
  return {
    fields: dec.length,
    cells: sum((d) => d.cells),
    turnsSaved: sum((d) => d.baseline.turns - d.planned.turns),
    nonWorkingSavedM: sum((d) => d.baseline.nonWorking - d.planned.nonWorking),
    timeSavedS: sum((d) => d.baseline.time - d.planned.time),
    /** Over the decomposed fields, as a share of what they needed undecomposed [%]. */
    turnsSavedPercent: pct(
      sum((d) => d.baseline.turns),
      sum((d) => d.planned.turns),
    ),
    nonWorkingSavedPercent: pct(
      sum((d) => d.baseline.nonWorking),
      sum((d) => d.planned.nonWorking),
    ),
    timeSavedPercent: pct(
      sum((d) => d.baseline.time),
      sum((d) => d.planned.time),
    ),
    medianPerField: {
      turnsSavedPercent: per((x) => x.turns),
      nonWorkingSavedPercent: per((x) => x.nonWorking),
      timeSavedPercent: per((x) => x.time),
    },
  };
}

function run(s: Scenario, cases: FieldCase[]) {
  const rows: Row[] = [];
  const refused: Record<string, string[]> = {};
  const crashed: { id: string; error: string }[] = [];
  const request = (feature: unknown): PlanRequest => ({
    boundary: feature,
    machine: { swathWidth: s.swath, minTurningRadius: s.radius },
    exteriorHeadlandPasses: s.exterior,
    interiorHeadlandPasses: s.interior,
    decomposition: values.decomposition !== 'off',
  });
  // Warm-up on a few fields so the JIT has settled.
  for (const c of cases.slice(0, 5)) {
    try {
      planField(request(c.feature));
    } catch {}
  }
  for (const c of cases) {
    let result: PlanResult;
    const t0 = performance.now();
    try {
      result = planField(request(c.feature));
    } catch (e) {
      if (e instanceof PlanningError) {
        refused[e.code] = [...(refused[e.code] ?? []), c.id];
      } else crashed.push({ id: c.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      continue;
    }
    const ms = performance.now() - t0;
    const plan = result.plan;
    let violations = 0;
    const rules = new Set<string>();
    if (values.check && !values['no-check']) {
      const v = checkPlan(plan);
      violations = v.length;
      for (const x of v) rules.add(x.rule);
    }
    // The lower bound of each field part (the zones of a decomposed part together).
    const partWorkable = new Map<number, Point[]>();
    for (const z of plan.zones) {
      const k = z.fieldPart ?? z.index;
      partWorkable.set(k, [...(partWorkable.get(k) ?? []), ...z.workable.flatMap((p) => p.outer)]);
    }
    let lowerBound = 0;
    for (const pts of partWorkable.values())
      lowerBound += pts.length ? Math.ceil(minWidth(pts) / s.swath - 1e-9) : 0;
    const lines = plan.zones.reduce((n, z) => n + trackLines(z.groups[z.activeGroup]?.parts ?? []), 0);
    rows.push({
      id: c.id,
      ms,
      covered: plan.stats.coveredPercent,
      overlap: plan.stats.overlapPercent,
      tracks: plan.stats.trackCount,
      lines,
      lowerBound,
      aboveBound: lines - lowerBound,
      segmentsAboveBound: plan.stats.trackCount - lowerBound,
      turns: plan.stats.turnCount,
      nonWorking: plan.stats.nonWorkingDistance,
      convex: c.shapeClass === 'convex',
      violations,
      rules: [...rules],
      failures: plan.zones.reduce((n, z) => n + (z.routeFailures ?? 0), 0),
      audit: auditFigures(plan),
      decomposition: decompositionOf(plan),
    });
    if (!values.quiet && violations > 0)
      console.error(`${s.name} ${c.id}: ${violations} violation(s): ${[...rules].join(', ')}`);
  }
  const col = (f: (r: Row) => number) => rows.map(f);
  const convex = rows.filter((r) => r.convex);
  const summary = {
    scenario: s,
    fields: cases.length,
    planned: rows.length,
    refused: Object.fromEntries(Object.entries(refused).map(([k, v]) => [k, v.length])),
    refusedIds: refused,
    crashed,
    planTimeMs: {
      median: quantile(
        col((r) => r.ms),
        0.5,
      ),
      p95: quantile(
        col((r) => r.ms),
        0.95,
      ),
      max: Math.max(...col((r) => r.ms)),
    },
    coveredPercent: {
      median: quantile(
        col((r) => r.covered),
        0.5,
      ),
      p5: quantile(
        col((r) => r.covered),
        0.05,
      ),
    },
    overlapPercent: {
      median: quantile(
        col((r) => r.overlap),
        0.5,
      ),
      p95: quantile(
        col((r) => r.overlap),
        0.95,
      ),
    },
    tracksAboveLowerBound: {
      median: quantile(
        col((r) => r.aboveBound),
        0.5,
      ),
      p95: quantile(
        col((r) => r.aboveBound),
        0.95,
      ),
    },
    convexAtLowerBound: convex.length
      ? convex.filter((r) => r.aboveBound <= 0).length / convex.length
      : Number.NaN,
    /** The same counting every piece of a split track (obstacles and concavities split tracks). */
    convexSegmentsAtLowerBound: convex.length
      ? convex.filter((r) => r.segmentsAboveBound <= 0).length / convex.length
      : Number.NaN,
    convexFields: convex.length,
    turns: {
      median: quantile(
        col((r) => r.turns),
        0.5,
      ),
      p95: quantile(
        col((r) => r.turns),
        0.95,
      ),
    },
    nonWorkingDistanceM: {
      median: quantile(
        col((r) => r.nonWorking),
        0.5,
      ),
      p95: quantile(
        col((r) => r.nonWorking),
        0.95,
      ),
    },
    fieldsWithViolations: rows.filter((r) => r.violations > 0).length,
    violationsByRule: rows.reduce<Record<string, number>>((m, r) => {
      for (const k of r.rules) m[k] = (m[k] ?? 0) + 1;
      return m;
    }, {}),
    fieldsWithRouteFailures: rows.filter((r) => r.failures > 0).length,
    decomposition: decompositionSummary(rows),
    audit: auditSummary(rows.map((r) => r.audit)),
  };
  return { summary, rows };
}

/** Median coverage and overlap of the spiral option from the last route-options run (bench:options --option spiral). */
function spiralFigures(): { covered: number; overlap: number; fields: number } | undefined {
  const file = resolve(repoRoot, 'bench/results/route-options-bench.json');
  if (!existsSync(file)) return undefined;
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as {
      results?: { spiral?: { rows: { covered: number; overlap: number }[] } };
    };
    const rows = r.results?.spiral?.rows;
    if (!rows?.length) return undefined;
    return {
      covered: quantile(
        rows.map((x) => x.covered),
        0.5,
      ),
      overlap: quantile(
        rows.map((x) => x.overlap),
        0.5,
      ),
      fields: rows.length,
    };
  } catch {
    return undefined;
  }
}

const all = loadCases();
let cases = all;
if (values.field?.length) cases = all.filter((c) => values.field!.includes(c.id));
if (values.why) cases = cases.filter((c) => c.why === values.why);
if (values.shape) cases = cases.filter((c) => c.shapeClass === values.shape);
if (values.limit) cases = cases.slice(0, Number(values.limit));
const scenarios = values.scenario ? SCENARIOS.filter((s) => s.name === values.scenario) : SCENARIOS;
const results = [];
for (const s of scenarios) {
  const { summary, rows } = run(s, cases);
  results.push({ summary, rows });
  const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  console.log(
    [
      `${s.name} (swath ${s.swath} m, radius ${s.radius} m, ${s.exterior}+${s.interior} headland passes): ${summary.planned}/${summary.fields} planned`,
      `  plan time      median ${f(summary.planTimeMs.median, 2)} ms   p95 ${f(summary.planTimeMs.p95, 2)} ms   max ${f(summary.planTimeMs.max, 0)} ms`,
      `  covered        median ${f(summary.coveredPercent.median, 2)} %   p5 ${f(summary.coveredPercent.p5, 2)} %`,
      `  overlap        median ${f(summary.overlapPercent.median, 2)} %   p95 ${f(summary.overlapPercent.p95, 2)} %`,
      `  tracks > bound median ${f(summary.tracksAboveLowerBound.median, 0)}   p95 ${f(summary.tracksAboveLowerBound.p95, 0)}   convex at bound ${f(100 * summary.convexAtLowerBound)} % of ${summary.convexFields} (track pieces: ${f(100 * summary.convexSegmentsAtLowerBound)} %)`,
      `  turns          median ${f(summary.turns.median, 0)}   p95 ${f(summary.turns.p95, 0)}`,
      `  non-working    median ${f(summary.nonWorkingDistanceM.median, 0)} m   p95 ${f(summary.nonWorkingDistanceM.p95, 0)} m`,
      `  refused        ${JSON.stringify(summary.refused)}   crashed ${summary.crashed.length}`,
      `  violations     ${summary.fieldsWithViolations} field(s) ${JSON.stringify(summary.violationsByRule)}   route failures ${summary.fieldsWithRouteFailures}`,
      `  decomposed     ${summary.decomposition.fields} field(s) into ${summary.decomposition.cells} cells: saved ${f(summary.decomposition.turnsSaved, 0)} turns (${f(summary.decomposition.turnsSavedPercent)} %), ${f(summary.decomposition.nonWorkingSavedM, 0)} m non-working (${f(summary.decomposition.nonWorkingSavedPercent)} %), ${f(summary.decomposition.timeSavedS / 60, 1)} min (${f(summary.decomposition.timeSavedPercent)} %) against the same fields undecomposed; median per field ${f(summary.decomposition.medianPerField.turnsSavedPercent)} % turns, ${f(summary.decomposition.medianPerField.nonWorkingSavedPercent)} % non-working, ${f(summary.decomposition.medianPerField.timeSavedPercent)} % time`,
    ].join('\n'),
  );
  console.log(auditLines(summary.audit).join('\n'));
  if (!values.quiet) {
    // The fields with the most of each defect.
    const worst = (name: string, g: (a: AuditFigures) => number, unit: string) => {
      const top = rows.filter((r) => g(r.audit) > 0.05).sort((a, b) => g(b.audit) - g(a.audit));
      if (top.length)
        console.log(
          `  most ${name}: ${top
            .slice(0, 5)
            .map((r) => `${r.id} ${f(g(r.audit), 0)} ${unit}`)
            .join(', ')}`,
        );
    };
    worst('undriven pass', (a) => a.undrivenPass, 'm');
    worst('duplicate track', (a) => a.duplicateShare, '%');
    worst('turn overhang', (a) => a.overhangLength, 'm');
    worst('uncovered', (a) => (a.covered < 95 ? 100 - a.covered : 0), '%');
    worst('reversing', (a) => (reversesFar(a) ? a.longestReverse : 0), 'm');
  }
  const targets = targetRows(summary.audit, summary.planTimeMs, spiralFigures());
  (summary as typeof summary & { targets?: unknown }).targets = targets;
  console.log(`${s.name} against the targets:\n${targetTable(targets)}`);
  for (const c of summary.crashed.slice(0, 5)) console.error(`crash ${c.id}: ${c.error}`);
}
const out = resolve(repoRoot, 'bench/results');
mkdirSync(out, { recursive: true });
writeFileSync(resolve(out, 'plan-bench.json'), JSON.stringify(results, null, 1));
console.log(`results: ${resolve(out, 'plan-bench.json')}`);
