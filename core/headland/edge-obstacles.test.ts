/**
 * Obstacles near the field edge: the exterior passes go round them as round
 * a bay of the edge, once each, without folding into spikes; no obstacle
 * gets a pass of its own squeezed between it and the edge; no headland
 * guidance line crosses an obstacle.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus } from '../../test/helpers/corpus.ts';
import { findCorpusField, orientations } from '../../test/helpers/field-transforms.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { planField } from '../plan.ts';
import type { PathPart, Plan, Point, Zone } from '../types/index.ts';

const S1 = {
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
};

const plan = (boundary: unknown): Plan => planField({ boundary, ...S1 }).plan;

const mLat = 111_320;
const mLon = 111_320 * Math.cos((55 * Math.PI) / 180);
const ring = (r: [number, number][]) => {
  const c = r.map(([x, y]) => [10 + x / mLon, 55 + y / mLat]);
  return [...c, c[0]];
};
const square = (x: number, y: number, s: number): [number, number][] => [
  [x, y],
  [x + s, y],
  [x + s, y + s],
  [x, y + s],
];
/** A 240 m x 150 m field with a 4 m obstacle 12 m from its south edge and one 60 m in. */
const FIELD = {
  type: 'Feature',
  properties: { id: 'edge-obstacles' },
  geometry: {
    type: 'Polygon',
    coordinates: [
      ring([
        [0, 0],
        [240, 0],
        [240, 150],
        [0, 150],
      ]),
      ring(square(100, 12, 4).reverse() as [number, number][]),
      ring(square(160, 60, 4).reverse() as [number, number][]),
    ],
  },
};

/** The driven headland loops of a zone: the working parts of each pass, joined in driving order. */
function loops(zone: Zone): { key: string; points: Point[] }[] {
  const byKey = new Map<string, Point[]>();
  const parts = zone.groups[zone.activeGroup].parts
    .filter((p) => p.working && p.sequence !== undefined)
    .sort((a, b) => (a.sequence as number) - (b.sequence as number));
  for (const p of parts) {
    if (p.type !== 'ExteriorHeadlandPass' && p.type !== 'InteriorHeadlandPass') continue;
    const key = `${p.type}:${p.passNumber}:${p.obstacleIndex ?? ''}`;
    const pts = byKey.get(key) ?? [];
    pts.push(...p.points);
    byKey.set(key, pts);
  }
  return [...byKey].map(([key, points]) => ({ key, points }));
}

/** Pairs of non-adjacent segments of an open polyline that cross. */
function selfCrossings(pts: readonly Point[]): number {
  const clean = pts.filter((p, i) => i === 0 || Math.hypot(p.x - pts[i - 1].x, p.y - pts[i - 1].y) > 1e-6);
  let n = 0;
  for (let i = 0; i + 1 < clean.length; i++) {
    for (let j = i + 2; j + 1 < clean.length; j++) {
      if (i === 0 && j + 2 === clean.length) continue;
      if (properCross(clean[i], clean[i + 1], clean[j], clean[j + 1])) n++;
    }
  }
  return n;
}

function properCross(a: Point, b: Point, c: Point, d: Point): boolean {
  const o = (p: Point, q: Point, r: Point) => (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x);
  const d1 = o(c, d, a);
  const d2 = o(c, d, b);
  const d3 = o(a, b, c);
  const d4 = o(a, b, d);
  const eps = 1e-9;
  return (
    ((d1 > eps && d2 < -eps) || (d1 < -eps && d2 > eps)) &&
    ((d3 > eps && d4 < -eps) || (d3 < -eps && d4 > eps))
  );
}

/**
 * How many driven headland loops go round the obstacle within `near` metres
 * of it: turn more than 200 degrees round its centre along one stretch
 * that stays that close (a pass going by turns less than 180).
 */
function loopsRound(zone: Zone, hole: readonly Point[], near: number, type?: PathPart['type']): number {
  const index = new EdgeIndex([hole]);
  const c = hole.reduce((s, p) => ({ x: s.x + p.x / hole.length, y: s.y + p.y / hole.length }), {
    x: 0,
    y: 0,
  });
  const sweep = (pts: readonly Point[]): number => {
    let best = 0;
    let run = 0;
    for (let i = 1; i < pts.length; i++) {
      const a = pts[i - 1];
      const b = pts[i];
      if (index.distance(a, near) >= near || index.distance(b, near) >= near) {
        run = 0;
        continue;
      }
      let d = Math.atan2(b.y - c.y, b.x - c.x) - Math.atan2(a.y - c.y, a.x - c.x);
      if (d > Math.PI) d -= 2 * Math.PI;
      if (d < -Math.PI) d += 2 * Math.PI;
      run += d;
      best = Math.max(best, Math.abs(run));
    }
    return best;
  };
  return loops(zone).filter(
    (l) =>
      (!type || l.key.startsWith(`${type}:`)) && sweep([...l.points, ...l.points]) > (200 * Math.PI) / 180,
  ).length;
}

/** Points of parts that are not driven (guidance lines) lying more than 1 cm inside an obstacle. */
function guidanceInObstacles(p: Plan): number {
  let n = 0;
  for (const zone of p.zones) {
    const holes = (zone.partBoundary ?? zone.boundary).holes;
    if (!holes.length) continue;
    const index = new EdgeIndex(holes);
    const inside = (q: Point) => index.contains(q) && index.distance(q, 1) > 0.01;
    for (const part of zone.groups[zone.activeGroup].parts as PathPart[]) {
      if (part.sequence !== undefined) continue;
      for (let i = 0; i < part.points.length; i++) {
        const a = part.points[i];
        if (inside(a)) n++;
        const b = part.points[i + 1];
        if (b && inside({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 })) n++;
      }
    }
  }
  return n;
}

describe('obstacles near the field edge', () => {
  it('a small obstacle near the edge lies in a bay of the exterior passes: gone round once, no pass of its own', () => {
    const p = plan(FIELD);
    expect(checkPlan(p)).toEqual([]);
    const zone = p.zones[0];
    const edge = new EdgeIndex([zone.boundary.outer]);
    const gap = (h: readonly Point[]) => Math.min(...h.map((q) => edge.distance(q)));
    const [nearHole, farHole] = zone.boundary.holes.slice().sort((a, b) => gap(a) - gap(b));
    // Near the edge: the exterior pass goes round it, and no pass of its own;
    // far from the edge: its own pass goes round it, and nothing else close by.
    expect(loopsRound(zone, nearHole, 12, 'InteriorHeadlandPass')).toBe(0);
    expect(loopsRound(zone, nearHole, 12)).toBe(1);
    expect(loopsRound(zone, farHole, 12)).toBe(1);
    expect(loopsRound(zone, farHole, 12, 'InteriorHeadlandPass')).toBe(1);
    for (const l of loops(zone)) expect(selfCrossings(l.points), l.key).toBe(0);
    expect(guidanceInObstacles(p)).toBe(0);
  });

  it.skipIf(!hasCorpus())(
    'fiboa-bg:00151-587: the outer passes round the two small obstacles near the edge neither cross themselves nor fold into reversing spikes',
    () => {
      for (const f of orientations(findCorpusField('fiboa-bg:00151-587')!)) {
        const p = plan(f);
        expect(checkPlan(p), String(f.properties.id)).toEqual([]);
        for (const zone of p.zones) {
          for (const l of loops(zone)) expect(selfCrossings(l.points), `${f.properties.id} ${l.key}`).toBe(0);
          // Each obstacle is gone round closely by one loop at most.
          for (const hole of zone.boundary.holes)
            expect(loopsRound(zone, hole, 12), String(f.properties.id)).toBeLessThanOrEqual(1);
        }
      }
    },
  );

  it.skipIf(!hasCorpus())(
    'fiboa-cz:44715294: no small obstacle along the edge is circled by more than one pass',
    () => {
      for (const f of orientations(findCorpusField('fiboa-cz:44715294')!)) {
        const p = plan(f);
        expect(checkPlan(p), String(f.properties.id)).toEqual([]);
        for (const zone of p.zones)
          for (const hole of zone.boundary.holes)
            expect(loopsRound(zone, hole, 12), String(f.properties.id)).toBeLessThanOrEqual(1);
      }
    },
    30_000,
  );

  it.skipIf(!hasCorpus())(
    'no headland guidance line crosses an obstacle (ponds near the edge of fiboa-ec_lv:1651473, fiboa-si:78)',
    () => {
      for (const id of ['fiboa-ec_lv:1651473', 'fiboa-si:78']) {
        for (const f of orientations(findCorpusField(id)!)) {
          const p = plan(f);
          expect(guidanceInObstacles(p), String(f.properties.id)).toBe(0);
        }
      }
    },
    30_000,
  );
});
