/**
 * The plan checker's junction rule: consecutive driven parts meet without a
 * kink, read from the tangents of the curves they draw (arcs sampled at 5
 * degrees have end chords 2.5 degrees off their tangents), so a real kink
 * between straights is caught and a correctly sampled arc is not.
 */
import { describe, expect, it } from 'vitest';
import { planField } from '../../core/plan.ts';
import { type CurvePiece, curveEndPose, sampleCurvePath } from '../../core/turn/clothoid.ts';
import { samplePath } from '../../core/turn/path.ts';
import type { Point, Pose } from '../../core/types/index.ts';
import { checkPlan, curvatureRateViolation, junctionTurnDeg, TOLERANCES } from './check-plan.ts';

const DEG = Math.PI / 180;
const R = 6;
const K = 1 / R;

/** A straight from p heading h [rad], `len` metres in chords of at most `step`. */
function straight(p: Point, h: number, len: number, step = len): Point[] {
  const n = Math.ceil(len / step);
  return Array.from({ length: n + 1 }, (_, k) => ({
    x: p.x + ((len * k) / n) * Math.cos(h),
    y: p.y + ((len * k) / n) * Math.sin(h),
  }));
}

/** An arc of radius R from pose p, turning by th [rad] (left positive), sampled as the planner samples turns. */
function arc(p: Pose, th: number): Point[] {
  const seg = { type: th > 0 ? ('L' as const) : ('R' as const), length: Math.abs(th) * R, reverse: false };
  return samplePath(p, { segments: [seg], length: seg.length, word: seg.type }, R, {
    maxAngleRad: 5 * DEG,
  })[0].points;
}

const last = (pts: Point[]) => pts[pts.length - 1];

describe('junctionTurnDeg', () => {
  it('catches a kink between two straights: 10 and 4 degrees', () => {
    const a = straight({ x: 0, y: 0 }, 0, 50);
    for (const kink of [10, 4, -4]) {
      expect(junctionTurnDeg(a, straight(last(a), kink * DEG, 50), false, K)).toBeCloseTo(Math.abs(kink), 9);
      // Also where both are drawn in short chords, as a straight of a turn is.
      const fine = straight({ x: 0, y: 0 }, 0, 3, 0.5);
      const next = straight(last(fine), kink * DEG, 3, 0.5);
      expect(junctionTurnDeg(fine, next, false, K)).toBeCloseTo(Math.abs(kink), 9);
    }
    expect(junctionTurnDeg(a, straight(last(a), 0, 50), false, K)).toBeLessThan(1e-9);
  });

  it('passes an arc sampled at 5 degrees where it leaves or joins a straight, whose end chords are 2.5 degrees off', () => {
    const a = straight({ x: 0, y: 0 }, 0, 50);
    const turn = arc({ ...last(a), heading: 0 }, 90 * DEG);
    const chordOff = Math.atan2(turn[1].y - turn[0].y, turn[1].x - turn[0].x) / DEG;
    expect(chordOff).toBeCloseTo(2.5, 9);
    expect(chordOff).toBeGreaterThan(TOLERANCES.headingDeg);
    expect(junctionTurnDeg(a, turn, false, K)).toBeLessThan(1e-9);
    const out = straight(last(turn), 90 * DEG, 50);
    expect(junctionTurnDeg(turn, out, false, K)).toBeLessThan(1e-9);
    // ... and where the straight is drawn in short chords.
    expect(junctionTurnDeg(turn, straight(last(turn), 90 * DEG, 3, 0.5), false, K)).toBeLessThan(1e-9);
  });

  it('passes arcs that go on the same way or the other way, and catches an arc that leaves a straight at a kink', () => {
    const first = arc({ x: 0, y: 0, heading: 0 }, 45 * DEG);
    const same = arc({ ...last(first), heading: 45 * DEG }, 60 * DEG);
    const other = arc({ ...last(first), heading: 45 * DEG }, -60 * DEG);
    expect(junctionTurnDeg(first, same, false, K)).toBeLessThan(1e-9);
    expect(junctionTurnDeg(first, other, false, K)).toBeLessThan(1e-9);
    const kinked = arc({ ...last(first), heading: 49 * DEG }, 60 * DEG);
    expect(junctionTurnDeg(first, kinked, false, K)).toBeCloseTo(4, 9);
    const a = straight({ x: 0, y: 0 }, 0, 50);
    expect(junctionTurnDeg(a, arc({ ...last(a), heading: 4 * DEG }, 90 * DEG), false, K)).toBeCloseTo(4, 9);
  });

  it('at a cusp compares the line, not the direction of travel', () => {
    const a = straight({ x: 0, y: 0 }, 0, 10);
    const back = straight(last(a), Math.PI, 5);
    expect(junctionTurnDeg(a, back, true, K)).toBeLessThan(1e-9);
    expect(junctionTurnDeg(a, straight(last(a), Math.PI + 4 * DEG, 5), true, K)).toBeCloseTo(4, 9);
  });
});

describe('checkPlan continuity', () => {
  it('reports a turn rotated 4 degrees off the track it leaves, and nothing on the plan as made', () => {
    const m = 111_320;
    const lat = 55;
    const lon = 10;
    const w = 300 / (m * Math.cos(lat * DEG));
    const h = 200 / m;
    const boundary = {
      type: 'Polygon',
      coordinates: [
        [
          [lon, lat],
          [lon + w, lat],
          [lon + w, lat + h],
          [lon, lat + h],
          [lon, lat],
        ],
      ],
    };
    const { plan } = planField({
      boundary,
      machine: { swathWidth: 6, minTurningRadius: R },
      exteriorHeadlandPasses: 2,
    });
    const continuity = () => checkPlan(plan).filter((v) => v.rule === 'continuity');
    expect(continuity()).toEqual([]);
    const parts = plan.zones[0].groups[plan.zones[0].activeGroup].parts;
    const driven = parts.filter((p) => p.sequence !== undefined).sort((a, b) => a.sequence! - b.sequence!);
    const i = driven.findIndex((p, k) => p.type === 'Turn' && driven[k - 1]?.type === 'RouteTrack');
    expect(i).toBeGreaterThan(0);
    const turn = driven[i];
    const o = turn.points[0];
    const c = Math.cos(4 * DEG);
    const s = Math.sin(4 * DEG);
    turn.points = turn.points.map((q) => ({
      x: o.x + (q.x - o.x) * c - (q.y - o.y) * s,
      y: o.y + (q.x - o.x) * s + (q.y - o.y) * c,
    }));
    expect(
      continuity().some((v) => v.sequence === turn.sequence && /heading jumps 4\.00/.test(v.message)),
    ).toBe(true);
  });
});

describe('checkPlan degenerate parts', () => {
  it('reports a driven part shorter than 5 cm, and none on the plan as made', () => {
    const m = 111_320;
    const w = 200 / (m * Math.cos(55 * DEG));
    const h = 150 / m;
    const boundary = {
      type: 'Polygon',
      coordinates: [
        [
          [10, 55],
          [10 + w, 55],
          [10 + w, 55 + h],
          [10, 55 + h],
          [10, 55],
        ],
      ],
    };
    const { plan } = planField({
      boundary,
      machine: { swathWidth: 6, minTurningRadius: R },
      exteriorHeadlandPasses: 1,
    });
    const degenerate = () => checkPlan(plan).filter((v) => v.rule === 'degenerate-part');
    expect(degenerate()).toEqual([]);
    const parts = plan.zones[0].groups[plan.zones[0].activeGroup].parts;
    const turn = parts.find((p) => p.sequence !== undefined && p.type === 'Turn');
    expect(turn).toBeDefined();
    const o = turn!.points[0];
    // A 4.5 cm creep.
    turn!.points = [o, { x: o.x + 0.045, y: o.y }];
    expect(degenerate().map((v) => v.sequence)).toEqual([turn!.sequence]);
  });
});

describe('curvatureRateViolation', () => {
  const sigma = 0.05;
  /** Pieces sampled one after another as the planner samples parts (5 degrees, 1 m), joined into one polyline. */
  function drive(pieces: CurvePiece[][]): Point[] {
    let pose: Pose = { x: 0, y: 0, heading: 0 };
    const out: Point[] = [];
    for (const p of pieces) {
      const path = { pieces: p, length: p.reduce((a, x) => a + x.length, 0), word: '' };
      for (const s of sampleCurvePath(pose, path, { maxAngleRad: 5 * DEG, maxStep: 1 }))
        out.push(...s.points.slice(out.length ? 1 : 0));
      pose = curveEndPose(pose, path);
    }
    return out;
  }
  const L = K / sigma;
  const up = { k0: 0, sharpness: sigma, length: L, reverse: false };
  const arcOf = (k: number, len: number) => ({ k0: k, sharpness: 0, length: len, reverse: false });

  it('passes a junction of a real plan: a connector ending in a clothoid and a 6 cm chord, then a ring starting in a clothoid', () => {
    // fiboa-sk:530130601/1 at maxCurvatureRate 0.05 [m, from the junction]: chords of 0.51 m, one of 0.06 m, then 0.47 m.
    const xy = [
      [1.5850826, -5.4175126],
      [1.3249229, -4.9734296],
      [1.0765476, -4.5226667],
      [0.8461676, -4.0624715],
      [0.6403324, -3.5908192],
      [0.4659681, -3.1066882],
      [0.3281588, -2.6109116],
      [0.2232392, -2.1071102],
      [0.1449687, -1.5984568],
      [0.0868333, -1.0870882],
      [0.0421747, -0.574352],
      [0.0042669, -0.0610651],
      [0, 0],
      [-0.0339121, 0.4726056],
      [-0.0731267, 0.9447958],
      [-0.1229304, 1.4159767],
      [-0.1885684, 1.8851989],
      [-0.2751981, 2.3509824],
      [-0.3878147, 2.8111485],
      [-0.5311366, 3.2626636],
      [-0.7255936, 3.7391575],
      [-0.9599729, 4.1973346],
      [-1.2325672, 4.6338576],
      [-1.541391, 5.0455466],
    ];
    expect(
      curvatureRateViolation(
        xy.map(([x, y]) => ({ x, y })),
        sigma,
      ),
    ).toBeNull();
  });

  it('catches a curvature jump beside a short chord, and an arc starting straight from a straight', () => {
    expect(
      curvatureRateViolation(drive([[arcOf(0, 3), arcOf(0, 0.06)], [arcOf(K, 5)]]), sigma),
    ).not.toBeNull();
    expect(curvatureRateViolation(drive([[arcOf(0, 3)], [arcOf(K, 5)]]), sigma)).not.toBeNull();
    // A clothoid twice as sharp as the limit: caught too.
    expect(
      curvatureRateViolation(drive([[arcOf(0, 3), { ...up, sharpness: 2 * sigma, length: L / 2 }]]), sigma),
    ).not.toBeNull();
  });
});

describe('the last-track rule', () => {
  // 600 x 60.17 m: inside two 6 m headland passes, 6 swaths and a 0.17 m sliver.
  const m = 111_320;
  const lat = 52.3;
  const w = 600 / (m * Math.cos(lat * DEG));
  const h = 60.17 / m;
  const boundary = {
    type: 'Polygon',
    coordinates: [
      [
        [9.5, lat],
        [9.5 + w, lat],
        [9.5 + w, lat + h],
        [9.5, lat + h],
        [9.5, lat],
      ],
    ],
  };
  const request = (extendTracks: boolean) => ({
    boundary,
    machine: { swathWidth: 6, minTurningRadius: 6 },
    exteriorHeadlandPasses: 2,
    interiorHeadlandPasses: 1,
    extendTracks,
  });

  it('allows a last track a sliver beside its neighbour only where extendTracks asks to cover everything', () => {
    const covered = planField(request(true)).plan;
    expect(covered.stats.trackCount).toBe(7);
    expect(checkPlan(covered)).toEqual([]);
    // The same tracks without extendTracks: a full pass for 0.17 m breaks the rule.
    const asked = { ...covered, options: { ...covered.options, extendTracks: false } };
    const spacing = checkPlan(asked).filter((v) => v.rule === 'track-spacing');
    expect(spacing).toHaveLength(1);
    expect(spacing[0].message).toMatch(/under a third of the 6 m swath/);
    // The plan as made without it has no such track.
    expect(checkPlan(planField(request(false)).plan)).toEqual([]);
  });
});
