/**
 * Exterior headland passes are driven on their planned lines: pulled in
 * only round a bend the turning radius cannot follow, and where a pass
 * pinches off in a narrow neck, the pieces on both sides are driven on the
 * line (not one ring pulled in all round to get through). Corpus fields
 * that lost a 2-4 m strip along their edge, in any orientation and
 * mirrored, S1 (swath 6 m, radius 6 m, 2 + 1 passes); every plan here
 * passes the shared plan checker.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus } from '../../test/helpers/corpus.ts';
import { findCorpusField, orientations } from '../../test/helpers/field-transforms.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { planField } from '../plan.ts';
import type { Plan } from '../types/index.ts';
import { generateHeadlands } from './generate-headlands.ts';

const S1 = {
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
} as const;

function turned(id: string, degrees?: readonly number[]) {
  const f = hasCorpus() ? findCorpusField(id) : undefined;
  return f ? orientations(f, degrees).map((o) => [String(o.properties.id), o] as const) : [];
}

/**
 * Length of exterior pass k [m] (the exact reference line, all zones) and
 * how much of it has a driven exterior pass within `tol` of it.
 */
function onLine(p: Plan, k: number, tol: number): { planned: number; on: number } {
  let planned = 0;
  let on = 0;
  const m = p.machine;
  for (const z of p.zones) {
    if (z.decomposition?.role === 'cell') continue;
    const h = generateHeadlands(z.partBoundary ?? z.boundary, {
      swathWidth: m.swathWidth,
      exteriorPasses: 2,
      interiorPasses: 1,
      turningRadius: m.minTurningRadius,
    });
    const chords = z.groups[z.activeGroup].parts
      .filter((q) => q.sequence !== undefined && q.type === 'ExteriorHeadlandPass' && q.passNumber === k)
      .flatMap((q) => q.points.slice(1).map((b, i) => [q.points[i], b]));
    const index = chords.length ? new EdgeIndex(chords) : null;
    for (const ref of h.exterior) {
      if (ref.passNumber !== k) continue;
      const ring = [...ref.ring, ref.ring[0]];
      for (let i = 1; i < ring.length; i++) {
        const a = ring[i - 1];
        const b = ring[i];
        const l = Math.hypot(b.x - a.x, b.y - a.y);
        const n = Math.max(1, Math.ceil(l));
        for (let j = 0; j < n; j++) {
          const q = { x: a.x + ((b.x - a.x) * (j + 0.5)) / n, y: a.y + ((b.y - a.y) * (j + 0.5)) / n };
          planned += l / n;
          if (index && index.distance(q, tol) <= tol) on += l / n;
        }
      }
    }
  }
  return { planned, on };
}

/** Stretches of exterior passes the audit finds undriven or driven off their line [m]. */
function auditedOff(p: Plan): number {
  let s = 0;
  for (const z of p.zones)
    for (const u of z.audit?.undrivenPasses ?? []) if (u.kind === 'exterior') s += u.length;
  return s;
}

/**
 * Per field: the pass that was driven off its line, the share of it now
 * within half a metre of a driven pass (corners driven square or rounded
 * take the rest), and the coverage; main had 5-28 % of it and 80-87 %.
 */
const CASES: { id: string; why: string; pass: number; on: number; covered: number; degrees?: number[] }[] = [
  {
    id: 'fiboa-at:106806139',
    why: 'two blocks joined by a strip: pass 1 was driven 2 m inside over 517 m',
    pass: 1,
    on: 0.8,
    covered: 91,
  },
  {
    id: 'fiboa-be_vlg:1971177517',
    why: 'pass 1 pinches off in a neck: both pieces on the line, not one ring pulled in',
    pass: 1,
    on: 0.8,
    covered: 91.5,
  },
  {
    id: 'fiboa-lv:Lauki.4257353',
    why: 'pass 2 was pulled in all round for a bend at one end',
    pass: 2,
    on: 0.85,
    covered: 93,
  },
  {
    id: 'fiboa-de_sh:DESHLIL020110001',
    why: '29 ha: pass 1 was not driven along 1.32 ha of the edge',
    pass: 1,
    on: 0.9,
    covered: 95.5,
    degrees: [90],
  },
];

describe.skipIf(!hasCorpus())('exterior passes are driven on their planned lines', () => {
  for (const c of CASES) {
    it.each(turned(c.id, c.degrees))(`%s: ${c.why}`, (_id, f) => {
      const p = planField({ boundary: f, ...S1 }).plan;
      const k = onLine(p, c.pass, 0.5);
      expect(k.on / k.planned).toBeGreaterThan(c.on);
      // What the audit still finds off the line or undriven: corners and short stretches.
      expect(auditedOff(p)).toBeLessThan(60);
      expect(p.stats.coveredPercent).toBeGreaterThan(c.covered);
      expect(checkPlan(p)).toEqual([]);
    });
  }
});
