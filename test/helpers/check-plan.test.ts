/**
 * The plan checker's junction rule: consecutive driven parts meet without a
 * kink, read from the tangents of the curves they draw (arcs sampled at 5
 * degrees have end chords 2.5 degrees off their tangents), so a real kink
 * between straights is caught and a correctly sampled arc is not.
 */
import { describe, expect, it } from 'vitest';
import { planField } from '../../core/plan.ts';
import { samplePath } from '../../core/turn/path.ts';
import type { Point, Pose } from '../../core/types/index.ts';
import { checkPlan, junctionTurnDeg, TOLERANCES } from './check-plan.ts';

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
