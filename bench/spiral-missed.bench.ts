/**
 * Where spiral plans leave ground unworked: plans the benchmark selection (or
 * the fixture fields) on S1 (swath 6 m, radius 6 m, 2+1 headland passes) with
 * spiral tracks and splits each field's missed area (the field less the
 * union of the working strips, as the plan's statistics measure it) by where
 * it lies:
 *
 *   headland   outside the workable area (the headland passes' corners and
 *              edges; straight plans lose this too)
 *   edge       inside the workable area, within one swath of its edge (the
 *              corners the outermost loop rounds, the ends of its lane change)
 *   small      further in, pieces under one square swath (the crescents
 *              rounded corners leave between successive loops, wedges beside
 *              lane changes and at the ends of the middle's tracks, slivers
 *              beside them)
 *   medium     pieces of one to four square swaths
 *   large      pieces over four square swaths (cores and pockets)
 *
 * Prints the median and mean of each as a share of the field area [%], with
 * the covered and overlap medians. `--straight` plans straight tracks instead
 * (for the headland and edge shares to compare with).
 *
 *   npx node bench/spiral-missed.bench.ts --limit 0 --every 20
 *   npx node bench/spiral-missed.bench.ts --field fiboa-ec_si:6961084 --field fiboa-es_cat:35
 *
 * Measured (2026-11, every 20th field of the selection, 40 fields): covered
 * median 97.93 %; headland 0.53 % median (straight tracks 0.61 %), edge
 * 0.42 % (straight 0.71 %), small 0.56 %, medium 0.06 %, large 0 %. The
 * spiral's own loss is its rounded corners': two loops rounding a corner
 * that turns by phi to the turning radius r leave a crescent of
 * 2 r w (tan(phi/2) - phi/2) between their strips (15.5 m2 at 90 degrees,
 * r = w = 6 m; 49 m2 at 120 degrees), and the outermost loop a pocket of
 * (r + w/2)^2 (tan(phi/2) - phi/2) in the workable area's corner (17.4 m2).
 * Whatever the loops' radii, the gap on the corner's bisector is
 * (1/sin(a/2) - 1) w per loop (a the corner's angle): rounder outer corners
 * only move it outwards. A straight track along a row of crescents works
 * about 80 % of each but three times as much ground already worked.
 *
 * Squaring corners instead (the loop runs on to half a swath past the
 * corner point, the route turns, the next track starts there), measured on
 * every 4th field of the selection (199 fields; rounded: covered median
 * 98.17 %, overlap 2.96 %, non-working 1909 m): every loop's corners turning
 * by 80 degrees or more 98.44 %, 3.48 %, 2615 m (fields over 2 % duplicate
 * track 5 -> 9); only the first loop's (the pocket by the headland) 98.17 %,
 * 2.98 %, 2029 m (+0.07 % covered on average, 8 fields 0.1 % worse).
 *
 * Gap tracks through rows of two corner crescents or more, run on 4 m past
 * the row's ends and kept at 15 % new ground (spiral-gaps.ts), on every 20th
 * field: covered median 98.20 %, overlap 4.17 %; missed headland 0.53 %,
 * edge 0.29 %, small 0.45 %, medium 0.02 %, large 0 % (medians). On every
 * 4th field 98.50 %, overlap 4.52 %, non-working 2331 m.
 *
 * Writes the rows as JSON to bench/results/spiral-missed.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Clipper } from 'clipper2-ts';
import { bufferLines, bufferRings, difference, intersection, offset } from '../core/geometry/clip.ts';
import { multiPolygonArea, polygonArea } from '../core/geometry/polygon.ts';
import { planField } from '../core/plan.ts';
import { PlanningError, type Point, type Polygon } from '../core/types/index.ts';
import { hasCorpus, loadBenchmarkSelection, loadFixtureFields, repoRoot } from '../test/helpers/corpus.ts';

const { values } = parseArgs({
  options: {
    limit: { type: 'string', default: '0' },
    every: { type: 'string', default: '20' },
    field: { type: 'string', multiple: true },
    straight: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
});

const W = 6;
const cases = (
  hasCorpus()
    ? loadBenchmarkSelection().map((s) => ({ id: s.id, feature: s.feature as unknown }))
    : loadFixtureFields().map((f, i) => ({ id: `fixture-${i}`, feature: f as unknown }))
)
  .slice(0, Number(values.limit) > 0 ? Number(values.limit) : undefined)
  .filter((c, i) =>
    values.field?.length ? values.field.includes(c.id) : i % Math.max(1, Number(values.every)) === 0,
  );

const KEYS = ['headland', 'edge', 'small', 'medium', 'large'] as const;
type Key = (typeof KEYS)[number];
interface Row extends Record<Key, number> {
  id: string;
  covered: number;
  overlap: number;
}

function isClosed(p: readonly Point[]): boolean {
  const a = p[0];
  const b = p[p.length - 1];
  return p.length > 3 && Math.hypot(a.x - b.x, a.y - b.y) < 1e-6;
}

const rows: Row[] = [];
for (const c of cases) {
  let plan: ReturnType<typeof planField>['plan'];
  try {
    plan = planField({
      boundary: c.feature,
      machine: { swathWidth: W, minTurningRadius: 6 },
      exteriorHeadlandPasses: 2,
      interiorHeadlandPasses: 1,
      ...(values.straight ? {} : { trackType: 'Spiral' as const }),
    }).plan;
  } catch (e) {
    if (e instanceof PlanningError) continue;
    throw e;
  }
  const missed: Record<Key, number> = { headland: 0, edge: 0, small: 0, medium: 0, large: 0 };
  let field = 0;
  for (const z of plan.zones) {
    const strips: Polygon[] = [];
    for (const p of z.groups[z.activeGroup].parts) {
      if (!p.working || p.sequence === undefined || p.points.length < 2) continue;
      const closed = isClosed(p.points);
      const ring = closed ? p.points.slice(0, -1) : p.points;
      const line = ring.length > 8 ? Clipper.simplifyPathD(ring as Point[], 0.02, closed) : ring;
      strips.push(...(closed ? bufferRings([line], W / 2) : bufferLines([line], W / 2, 'butt')));
    }
    field += polygonArea(z.boundary);
    const left = difference([z.boundary], strips);
    const inWorkable = intersection(left, z.workable);
    missed.headland += multiPolygonArea(difference(left, z.workable));
    const inner = offset(z.workable, -W, 'miter', 0.05);
    missed.edge += multiPolygonArea(difference(inWorkable, inner));
    for (const p of intersection(inWorkable, inner)) {
      const a = polygonArea(p);
      missed[a < W * W ? 'small' : a < 4 * W * W ? 'medium' : 'large'] += a;
    }
  }
  if (field <= 0) continue;
  const row: Row = {
    id: c.id,
    covered: plan.stats.coveredPercent,
    overlap: plan.stats.overlapPercent,
  } as Row;
  for (const k of KEYS) row[k] = (100 * missed[k]) / field;
  rows.push(row);
  if (!values.quiet)
    console.log(
      `${c.id}: covered ${row.covered.toFixed(2)} %, overlap ${row.overlap.toFixed(2)} %; missed ${KEYS.map((k) => `${k} ${row[k].toFixed(2)}`).join(', ')} %`,
    );
}

const median = (xs: number[]) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length ? s[Math.ceil(s.length / 2) - 1] : Number.NaN;
};
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);
console.log(
  `${values.straight ? 'straight' : 'spiral'} (S1), ${rows.length} fields: covered median ${median(rows.map((r) => r.covered)).toFixed(2)} %, overlap median ${median(rows.map((r) => r.overlap)).toFixed(2)} %`,
);
for (const k of KEYS)
  console.log(
    `  missed ${k.padEnd(9)} median ${median(rows.map((r) => r[k])).toFixed(3)} %   mean ${mean(rows.map((r) => r[k])).toFixed(3)} % of field area`,
  );
const dir = resolve(repoRoot, 'bench/results');
mkdirSync(dir, { recursive: true });
writeFileSync(resolve(dir, 'spiral-missed.json'), JSON.stringify(rows, null, 1));
