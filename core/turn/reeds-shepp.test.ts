import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanningError, type Pose } from '../types/index.ts';
import { dubinsShortest } from './dubins.ts';
import { ARC_STEP, endPose, MIN_SEGMENT_LENGTH, samplePath } from './path.ts';
import { reedsSheppPaths, reedsSheppShortest } from './reeds-shepp.ts';
import {
  checkSampling,
  familyPath,
  nearPair,
  pathOf,
  pose,
  poseError,
  radius,
  randomSegments,
} from './turn-testing.ts';

const O: Pose = { x: 0, y: 0, heading: 0 };

describe('Reeds-Shepp paths: known cases', () => {
  it('a goal straight behind is reached by reversing straight back', () => {
    for (const h of [0, 1, -2.5, 7]) {
      const a = { x: 10, y: -3, heading: h };
      const b = { x: a.x - 7 * Math.cos(h), y: a.y - 7 * Math.sin(h), heading: h };
      const p = reedsSheppShortest(a, b, 6)!;
      expect(p.word).toBe('S-');
      expect(p.segments).toEqual([{ type: 'S', length: p.length, reverse: true }]);
      expect(p.length).toBeCloseTo(7, 12);
    }
  });

  it('a goal straight ahead is one straight forwards', () => {
    const p = reedsSheppShortest(O, { x: 25, y: 0, heading: 0 }, 6)!;
    expect(p.word).toBe('S+');
    expect(p.length).toBeCloseTo(25, 12);
  });

  it('the same pose is a path of length zero', () => {
    const p = reedsSheppShortest({ x: 3, y: 4, heading: 1 }, { x: 3, y: 4, heading: 1 - 2 * Math.PI }, 5)!;
    expect(p.length).toBe(0);
    expect(p.segments).toEqual([]);
    expect(p.word).toBe('');
  });

  it('a U-turn between opposite poses 2R apart is a half circle, a quarter turn a quarter circle', () => {
    const u = reedsSheppShortest(O, { x: 0, y: 12, heading: Math.PI }, 6)!;
    expect(u.word).toBe('L+');
    expect(u.length).toBeCloseTo(6 * Math.PI, 9);
    const q = reedsSheppShortest(O, { x: 5, y: -5, heading: -Math.PI / 2 }, 5)!;
    expect(q.word).toBe('R+');
    expect(q.length).toBeCloseTo((5 * Math.PI) / 2, 9);
    // The same quarter circle driven backwards.
    const b = reedsSheppShortest(O, { x: -5, y: 5, heading: -Math.PI / 2 }, 5)!;
    expect(b.word).toBe('L-');
    expect(b.length).toBeCloseTo((5 * Math.PI) / 2, 9);
  });

  it('a U-turn to a track closer than 2R uses reversing and beats the Dubins bulb', () => {
    const R = 6;
    for (const d of [0, 1, 3, 6]) {
      const a = { x: 0, y: 0, heading: Math.PI / 2 };
      const b = { x: d, y: 0, heading: -Math.PI / 2 };
      const rs = reedsSheppShortest(a, b, R)!;
      const bulb = R * (Math.PI + 4 * Math.acos((2 * R + d) / (4 * R)));
      expect(dubinsShortest(a, b, R)!.length).toBeCloseTo(bulb, 9);
      expect(rs.length).toBeLessThan(bulb - 1);
      expect(rs.segments.some((s) => s.reverse)).toBe(true);
      const err = poseError(endPose(a, rs, R), b);
      expect(err.pos).toBeLessThan(1e-9);
    }
  });

  it('turning round on the spot takes cusps and is no longer than the turn C|CC|C of pi R', () => {
    const R = 4;
    const goal = { x: 0, y: 0, heading: Math.PI };
    // L- R+ L- R+ through pi/6, pi/3, pi/3, pi/6 turns the machine round where it stands.
    const k = pathOf([
      { type: 'L', length: (R * Math.PI) / 6, reverse: true },
      { type: 'R', length: (R * Math.PI) / 3, reverse: false },
      { type: 'L', length: (R * Math.PI) / 3, reverse: true },
      { type: 'R', length: (R * Math.PI) / 6, reverse: false },
    ]);
    const e = poseError(endPose(O, k, R), goal);
    expect(e.pos).toBeLessThan(1e-12);
    expect(e.heading).toBeLessThan(1e-12);
    const p = reedsSheppShortest(O, goal, R)!;
    expect(
      p.segments.filter((s, i) => i > 0 && s.reverse !== p.segments[i - 1].reverse).length,
    ).toBeGreaterThan(0);
    expect(p.length).toBeLessThanOrEqual(k.length * (1 + 1e-12));
    expect(p.length).toBeLessThan(dubinsShortest(O, goal, R)!.length);
  });

  it('an S-bend between touching circles is L+R+', () => {
    const p = reedsSheppShortest(O, { x: 12, y: 12, heading: 0 }, 6)!;
    expect(p.word).toBe('L+R+');
    expect(p.length).toBeCloseTo(6 * Math.PI, 9);
  });

  it('rejects bad radii and poses', () => {
    expect(() => reedsSheppPaths(O, O, -1)).toThrow(PlanningError);
    expect(() => reedsSheppShortest(O, O, Number.POSITIVE_INFINITY)).toThrow(PlanningError);
    expect(() => reedsSheppPaths(O, { x: Number.NaN, y: 0, heading: 0 }, 1)).toThrow(PlanningError);
  });

  it('keeps no state between calls', () => {
    const a = { x: 1, y: 2, heading: 0.5 };
    const b = { x: -4, y: 9, heading: 2.5 };
    const first = reedsSheppPaths(a, b, 3);
    reedsSheppPaths(b, a, 7);
    reedsSheppShortest(O, { x: 50, y: -20, heading: 1 }, 2);
    expect(reedsSheppPaths(a, b, 3)).toEqual(first);
  });
});

describe('Reeds-Shepp paths: properties', () => {
  it('every candidate reaches the goal pose within 1e-6 m and 1e-6 rad', () => {
    fc.assert(
      fc.property(fc.oneof(nearPair, fc.record({ a: pose, b: pose, r: radius })), ({ a, b, r }) => {
        for (const p of reedsSheppPaths(a, b, r)) {
          const err = poseError(endPose(a, p, r), b);
          expect(err.pos).toBeLessThan(1e-6);
          expect(err.heading).toBeLessThan(1e-6);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('candidates are sorted, distinct, normalized, and their words and lengths match their segments', () => {
    fc.assert(
      fc.property(nearPair, ({ a, b, r }) => {
        const paths = reedsSheppPaths(a, b, r);
        expect(paths.length).toBeGreaterThan(0);
        for (let i = 0; i < paths.length; i++) {
          const p = paths[i];
          if (i > 0) expect(p.length).toBeGreaterThanOrEqual(paths[i - 1].length);
          const segs = p.segments;
          expect(segs.length).toBeLessThanOrEqual(5);
          expect(p.word).toBe(segs.map((s) => s.type + (s.reverse ? '-' : '+')).join(''));
          expect(p.length).toBe(segs.reduce((s, g) => s + g.length, 0));
          for (let k = 0; k < segs.length; k++) {
            expect(segs[k].length).toBeGreaterThanOrEqual(MIN_SEGMENT_LENGTH);
            if (segs[k].type !== 'S') expect(segs[k].length).toBeLessThanOrEqual(2 * Math.PI * r);
            // Neighbours of the same kind and direction are merged.
            if (k > 0)
              expect(segs[k].type === segs[k - 1].type && segs[k].reverse === segs[k - 1].reverse).toBe(
                false,
              );
          }
          // Two paths of one word differ in some segment by more than rounding.
          for (let j = 0; j < i; j++) {
            if (paths[j].word !== p.word) continue;
            const diff = Math.max(...segs.map((s, k) => Math.abs(s.length - paths[j].segments[k].length)));
            expect(diff).toBeGreaterThan(0.99e-9 * r);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('the shortest is the first candidate, and never longer than the Dubins shortest', () => {
    fc.assert(
      fc.property(fc.oneof(nearPair, fc.record({ a: pose, b: pose, r: radius })), ({ a, b, r }) => {
        const best = reedsSheppShortest(a, b, r)!;
        expect(best).toEqual(reedsSheppPaths(a, b, r)[0]);
        // Either may leave out segments under MIN_SEGMENT_LENGTH (a Dubins word up to three).
        expect(best.length).toBeLessThanOrEqual(
          dubinsShortest(a, b, r)!.length + 3 * MIN_SEGMENT_LENGTH + 1e-9 * r,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('no path of the Reeds-Shepp families is shorter (random family paths as oracle)', () => {
    fc.assert(
      fc.property(pose, radius, familyPath, (a, r, raw) => {
        const segments = raw.map((s) => ({ ...s, length: s.length * r }));
        const path = pathOf(segments);
        const b = endPose(a, path, r);
        expect(reedsSheppShortest(a, b, r)!.length).toBeLessThanOrEqual(path.length + 1e-9 * r);
      }),
      { numRuns: 5000 },
    );
  });

  it('no path of arcs and straights in any directions is shorter (random paths as oracle)', () => {
    fc.assert(
      fc.property(pose, radius, randomSegments(false, 6), (a, r, raw) => {
        const segments = raw.map((s) => ({ ...s, length: s.length * r }));
        const path = pathOf(segments);
        const b = endPose(a, path, r);
        expect(reedsSheppShortest(a, b, r)!.length).toBeLessThanOrEqual(path.length + 1e-9 * r);
      }),
      { numRuns: 3000 },
    );
  });

  it('the distance is symmetric, and unchanged by rigid motion, mirroring and scaling', () => {
    fc.assert(
      fc.property(
        nearPair,
        fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
        fc.double({ min: 0.1, max: 10, noNaN: true }),
        ({ a, b, r }, rot, k) => {
          // A goal within a few MIN_SEGMENT_LENGTH of the start may count as reached at one scale
          // and need a tiny K-turn at another: the dropped length is absolute [m], not scaled.
          const e = poseError(a, b);
          fc.pre(e.pos > 1e-6 * r || e.heading > 1e-6);
          const l0 = reedsSheppShortest(a, b, r)!.length;
          const tol = 1e-6 * (r + l0);
          // Driving the path backwards in time goes from b to a.
          expect(Math.abs(reedsSheppShortest(b, a, r)!.length - l0)).toBeLessThan(tol);
          const mirror = (p: Pose): Pose => ({ x: p.x, y: -p.y, heading: -p.heading });
          expect(Math.abs(reedsSheppShortest(mirror(a), mirror(b), r)!.length - l0)).toBeLessThan(tol);
          const move = (p: Pose): Pose => ({
            x: k * (p.x * Math.cos(rot) - p.y * Math.sin(rot)) + 17,
            y: k * (p.x * Math.sin(rot) + p.y * Math.cos(rot)) - 5,
            heading: p.heading + rot,
          });
          expect(Math.abs(reedsSheppShortest(move(a), move(b), k * r)!.length - k * l0)).toBeLessThan(
            k * tol,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('samples of the shortest path keep every sampling invariant, one piece per run of direction', () => {
    fc.assert(
      fc.property(nearPair, ({ a, b, r }) => {
        const p = reedsSheppShortest(a, b, r)!;
        const pieces = samplePath(a, p, r);
        checkSampling(a, p.segments, r, pieces, 1, ARC_STEP);
        if (pieces.length) {
          const last = pieces.at(-1)!.points.at(-1)!;
          expect(Math.hypot(last.x - b.x, last.y - b.y)).toBeLessThan(1e-6);
        }
      }),
      { numRuns: 300 },
    );
  });
});
