/**
 * The plan audit's figures per field for the benchmarks, their summary, and
 * the table of targets the planner is held to:
 *
 *   no undriven pass without a warning
 *   duplicate track length at most 2 % of track length on every field
 *   turn overhang zero on at least 95 % of fields
 *   covered p5 >= 95 % and median >= 98.5 %
 *   spiral tracks: median covered >= 98.5 % and median overlap <= 5 %
 *
 * and, with no target of its own, how far the route drives backwards in
 * one go (a turn needs at most five turning radii of it).
 */
import { longestReverse as reverseOf } from '../core/route/route-geometry.ts';
import type { Plan } from '../core/types/index.ts';

export interface AuditFigures {
  covered: number;
  overlap: number;
  /** Planned headland pass length not driven [m]. */
  undrivenPass: number;
  /** Of that, in stretches no zone warning names [m]. */
  undrivenPassUnwarned: number;
  undrivenTrack: number;
  duplicateTrack: number;
  trackLength: number;
  /** duplicateTrack / trackLength [%]. */
  duplicateShare: number;
  overhangLength: number;
  /** Of overhangLength, across necks narrower than the working width [m]. */
  overhangAcrossNecks: number;
  overhangArea: number;
  /** The longest part driven backwards [m]. */
  longestReverse: number;
  /** longestReverse in turning radii. */
  longestReverseRadii: number;
}

/** Reversing a turn needs at most [turning radii]. */
export const TURN_REVERSE_RADII = 5;

/** True where the plan drives backwards farther in one go than a turn needs. */
export function reversesFar(a: AuditFigures): boolean {
  return a.longestReverseRadii > TURN_REVERSE_RADII + 1e-6;
}

/** Overhang below this is zero [m] (the warning's threshold). */
const OVERHANG_ZERO = 0.05;

/** The audit's figures of a plan, and how much undriven pass no warning names. */
export function auditFigures(plan: Plan): AuditFigures {
  let unwarned = 0;
  let trackLength = 0;
  let overhangAcrossNecks = 0;
  let longestReverse = 0;
  for (const z of plan.zones) {
    longestReverse = Math.max(longestReverse, reverseOf(z.groups[z.activeGroup]?.parts ?? []));
    const a = z.audit;
    if (!a) continue;
    trackLength += a.trackLength;
    overhangAcrossNecks += a.overhangAcrossNecksLength ?? 0;
    const warnings = z.warnings ?? [];
    for (const s of a.undrivenPasses) {
      const named = warnings.some(
        (w) =>
          w.includes(`pass ${s.passNumber}`) ||
          new RegExp(`headland rings? \\(pass [0-9, ]*\\b${s.passNumber}\\b`).test(w),
      );
      if (!named) unwarned += s.length;
    }
  }
  const s = plan.stats;
  const duplicateTrack = s.duplicateTrackLength ?? 0;
  return {
    covered: s.coveredPercent,
    overlap: s.overlapPercent,
    undrivenPass: s.undrivenPassLength ?? 0,
    undrivenPassUnwarned: unwarned,
    undrivenTrack: s.undrivenTrackLength ?? 0,
    duplicateTrack,
    trackLength,
    duplicateShare: trackLength > 0 ? (100 * duplicateTrack) / trackLength : 0,
    overhangLength: s.overhangLength ?? 0,
    overhangAcrossNecks,
    overhangArea: s.overhangArea ?? 0,
    longestReverse,
    longestReverseRadii: longestReverse / plan.machine.minTurningRadius,
  };
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export interface AuditSummary {
  fields: number;
  coveredMedian: number;
  coveredP5: number;
  under95: number;
  under90: number;
  overlapMedian: number;
  fieldsWithUndrivenPass: number;
  undrivenPassM: number;
  fieldsWithUnwarnedUndrivenPass: number;
  fieldsWithUndrivenTrack: number;
  undrivenTrackM: number;
  fieldsWithDuplicates: number;
  fieldsOverDuplicateShare: number;
  duplicateShareMax: number;
  fieldsWithOverhang: number;
  /** Fields whose overhang is all across necks narrower than the working width. */
  fieldsWithOverhangOnlyAcrossNecks: number;
  overhangFreeShare: number;
  overhangM: number;
  overhangM2: number;
  /** Fields driven backwards farther in one go than a turn needs (TURN_REVERSE_RADII). */
  fieldsReversingFar: number;
  longestReverseMax: number;
}

export function auditSummary(rows: readonly AuditFigures[]): AuditSummary {
  const n = rows.length;
  const sum = (f: (r: AuditFigures) => number) => rows.reduce((a, r) => a + f(r), 0);
  const overhang = rows.filter((r) => r.overhangLength >= OVERHANG_ZERO).length;
  return {
    fields: n,
    coveredMedian: quantile(
      rows.map((r) => r.covered),
      0.5,
    ),
    coveredP5: quantile(
      rows.map((r) => r.covered),
      0.05,
    ),
    under95: rows.filter((r) => r.covered < 95).length,
    under90: rows.filter((r) => r.covered < 90).length,
    overlapMedian: quantile(
      rows.map((r) => r.overlap),
      0.5,
    ),
    fieldsWithUndrivenPass: rows.filter((r) => r.undrivenPass >= 0.5).length,
    undrivenPassM: sum((r) => r.undrivenPass),
    fieldsWithUnwarnedUndrivenPass: rows.filter((r) => r.undrivenPassUnwarned > 0).length,
    fieldsWithUndrivenTrack: rows.filter((r) => r.undrivenTrack >= 0.5).length,
    undrivenTrackM: sum((r) => r.undrivenTrack),
    fieldsWithDuplicates: rows.filter((r) => r.duplicateTrack >= 1).length,
    fieldsOverDuplicateShare: rows.filter((r) => r.duplicateShare > 2).length,
    duplicateShareMax: Math.max(0, ...rows.map((r) => r.duplicateShare)),
    fieldsWithOverhang: overhang,
    fieldsWithOverhangOnlyAcrossNecks: rows.filter(
      (r) => r.overhangLength >= OVERHANG_ZERO && r.overhangLength - r.overhangAcrossNecks < OVERHANG_ZERO,
    ).length,
    overhangFreeShare: n ? (100 * (n - overhang)) / n : Number.NaN,
    overhangM: sum((r) => r.overhangLength),
    overhangM2: sum((r) => r.overhangArea),
    fieldsReversingFar: rows.filter(reversesFar).length,
    longestReverseMax: Math.max(0, ...rows.map((r) => r.longestReverse)),
  };
}

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');

/** Lines of the audit's figures for a scenario or option. */
export function auditLines(s: AuditSummary): string[] {
  return [
    `  undriven pass  ${s.fieldsWithUndrivenPass} field(s), ${f(s.undrivenPassM, 0)} m in all; unwarned on ${s.fieldsWithUnwarnedUndrivenPass} field(s)`,
    `  undriven track ${s.fieldsWithUndrivenTrack} field(s), ${f(s.undrivenTrackM, 0)} m in all`,
    `  duplicate track ${s.fieldsWithDuplicates} field(s); over 2 % of track length on ${s.fieldsOverDuplicateShare} (max ${f(s.duplicateShareMax)} %)`,
    `  turn overhang  ${s.fieldsWithOverhang} field(s) (${f(s.overhangFreeShare)} % without), ${f(s.overhangM, 0)} m, ${f(s.overhangM2, 0)} m2 in all; on ${s.fieldsWithOverhangOnlyAcrossNecks} of them only across necks narrower than the working width`,
    `  coverage       under 95 % on ${s.under95} field(s), under 90 % on ${s.under90}`,
    `  reversing      farther than ${TURN_REVERSE_RADII} turning radii in one go on ${s.fieldsReversingFar} field(s) (longest ${f(s.longestReverseMax, 0)} m)`,
  ];
}

export interface TargetRow {
  target: string;
  measured: string;
  met: boolean | null;
}

/** The targets table: the scenario's audit, its plan time, and the spiral option's coverage when measured. */
export function targetRows(
  s: AuditSummary,
  time: { median: number; p95: number },
  spiral?: { covered: number; overlap: number; fields: number },
): TargetRow[] {
  return [
    {
      target: 'no undriven pass without a warning',
      measured: `${s.fieldsWithUnwarnedUndrivenPass} field(s) unwarned of ${s.fieldsWithUndrivenPass} with one`,
      met: s.fieldsWithUnwarnedUndrivenPass === 0,
    },
    {
      target: 'duplicate track <= 2 % of track length, every field',
      measured: `${s.fieldsOverDuplicateShare} field(s) over, max ${f(s.duplicateShareMax)} %`,
      met: s.fieldsOverDuplicateShare === 0,
    },
    {
      target: 'turn overhang zero on >= 95 % of fields',
      measured: `${f(s.overhangFreeShare)} % (${s.fieldsWithOverhang} field(s) with overhang)`,
      met: s.overhangFreeShare >= 95,
    },
    {
      target: 'covered p5 >= 95 %',
      measured: `${f(s.coveredP5, 2)} % (${s.under95} field(s) under 95 %, ${s.under90} under 90 %)`,
      met: s.coveredP5 >= 95,
    },
    {
      target: 'covered median >= 98.5 %',
      measured: `${f(s.coveredMedian, 2)} %`,
      met: s.coveredMedian >= 98.5,
    },
    spiral
      ? {
          target: 'spiral covered median >= 98.5 %',
          measured: `${f(spiral.covered, 2)} % (${spiral.fields} fields)`,
          met: spiral.covered >= 98.5,
        }
      : {
          target: 'spiral covered median >= 98.5 %',
          measured: 'not measured (bench:options --option spiral)',
          met: null,
        },
    spiral
      ? {
          target: 'spiral overlap median <= 5 %',
          measured: `${f(spiral.overlap, 2)} %`,
          met: spiral.overlap <= 5,
        }
      : { target: 'spiral overlap median <= 5 %', measured: 'not measured', met: null },
    { target: 'plan time median', measured: `${f(time.median, 1)} ms`, met: null },
    { target: 'plan time p95', measured: `${f(time.p95, 1)} ms`, met: null },
  ];
}

/** The rows as a plain-text table. */
export function targetTable(rows: readonly TargetRow[]): string {
  const w0 = Math.max(...rows.map((r) => r.target.length), 6);
  const w1 = Math.max(...rows.map((r) => r.measured.length), 8);
  const line = (a: string, b: string, c: string) => `  ${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`;
  return [
    line('target', 'measured', 'met'),
    line('-'.repeat(w0), '-'.repeat(w1), '---'),
    ...rows.map((r) => line(r.target, r.measured, r.met === null ? '' : r.met ? 'yes' : 'NO')),
  ].join('\n');
}
