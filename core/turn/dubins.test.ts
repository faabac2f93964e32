import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanningError, type Pose } from '../types/index.ts';
import { dubinsPaths, dubinsShortest, dubinsShortestLength } from './dubins.ts';
import { ARC_STEP, endPose, MIN_SEGMENT_LENGTH, samplePath } from './path.ts';
import { checkSampling, nearPair, pathOf, pose, poseError, radius, randomSegments } from './turn-testing.ts';

const O: Pose = { x: 0, y: 0, heading: 0 };
const WORDS = ['LSL', 'RSR', 'LSR', 'RSL', 'RLR', 'LRL'];

describe('Dubins paths: known cases', () => {
  it('a U-turn between opposite poses 2R apart is a half circle', () => {
    const left = dubinsShortest(O, { x: 0, y: 12, heading: Math.PI }, 6)!;
    expect(left.length).toBeCloseTo(Math.PI * 6, 9);
    expect(left.word).toBe('LSL');
    expect(left.segments).toEqual([{ type: 'L', length: left.length, reverse: false }]);
    const right = dubinsShortest(O, { x: 0, y: -12, heading: Math.PI }, 6)!;
    expect(right.length).toBeCloseTo(Math.PI * 6, 9);
    expect(right.word).toBe('RSR');
  });

  it('a U-turn to a track d >= 2R away is two quarter circles and a straight', () => {
    for (const d of [12, 12.5, 20, 100]) {
      const p = dubinsShortest(
        { x: 0, y: 0, heading: Math.PI / 2 },
        { x: d, y: 0, heading: -Math.PI / 2 },
        6,
      )!;
      expect(p.length).toBeCloseTo(Math.PI * 6 + d - 12, 9);
      expect(p.word).toBe('RSR');
    }
  });

  it('a U-turn to a track d < 2R away is a bulb: R (pi + 4 acos((2R + d) / 4R))', () => {
    // Swing out away from the next track, round the middle circle, and back in:
    // the outer circles are 2R + d apart and the middle one touches both.
    const R = 6;
    for (const d of [0.5, 3, 6, 9, 11.9]) {
      const want = R * (Math.PI + 4 * Math.acos((2 * R + d) / (4 * R)));
      const right = dubinsShortest(
        { x: 0, y: 0, heading: Math.PI / 2 },
        { x: d, y: 0, heading: -Math.PI / 2 },
        R,
      )!;
      expect(right.word).toBe('LRL');
      expect(right.length).toBeCloseTo(want, 9);
      const left = dubinsShortest(
        { x: 0, y: 0, heading: Math.PI / 2 },
        { x: -d, y: 0, heading: -Math.PI / 2 },
        R,
      )!;
      expect(left.word).toBe('RLR');
      expect(left.length).toBeCloseTo(want, 9);
    }
    // Turning back on the spot: 7 pi R / 3.
    const spot = dubinsShortest(O, { x: 0, y: 0, heading: Math.PI }, R)!;
    expect(spot.length).toBeCloseTo((7 * Math.PI * R) / 3, 9);
  });

  it('a quarter turn is one quarter circle', () => {
    const p = dubinsShortest(O, { x: 5, y: 5, heading: Math.PI / 2 }, 5)!;
    expect(p.length).toBeCloseTo((Math.PI / 2) * 5, 9);
    expect(p.segments.length).toBe(1);
    expect(p.segments[0].type).toBe('L');
    const q = dubinsShortest(O, { x: 5, y: -5, heading: -Math.PI / 2 }, 5)!;
    expect(q.segments.map((s) => s.type)).toEqual(['R']);
  });

  it('straight ahead is one straight segment', () => {
    const p = dubinsShortest(
      { x: 1, y: 2, heading: 0.3 },
      { x: 1 + 10 * Math.cos(0.3), y: 2 + 10 * Math.sin(0.3), heading: 0.3 },
      4,
    )!;
    expect(p.length).toBeCloseTo(10, 9);
    expect(p.segments.map((s) => s.type)).toEqual(['S']);
  });

  it('an S-bend between touching circles is LSR with no straight', () => {
    // The start's left circle and the goal's right circle touch: centres (0, 6) and (12, 6).
    const paths = dubinsPaths(O, { x: 12, y: 12, heading: 0 }, 6);
    const lsr = paths.find((p) => p.word === 'LSR')!;
    expect(lsr.segments.map((s) => s.type)).toEqual(['L', 'R']);
    expect(lsr.length).toBeCloseTo(6 * Math.PI, 9);
    expect(paths[0].length).toBeLessThanOrEqual(lsr.length);
  });

  it('the same pose is a path of length zero', () => {
    const p = dubinsShortest({ x: 3, y: 4, heading: 1 }, { x: 3, y: 4, heading: 1 + 2 * Math.PI }, 5)!;
    expect(p.length).toBe(0);
    expect(p.segments).toEqual([]);
  });

  it('offers LSR and RSL only when the circles are 2R apart, RLR and LRL only within 4R', () => {
    // Far away: all four CSC words, no CCC.
    expect(
      dubinsPaths(O, { x: 100, y: 0, heading: 0 }, 5)
        .map((p) => p.word)
        .sort(),
    ).toEqual(['LSL', 'LSR', 'RSL', 'RSR'].sort());
    // Facing back on the spot: the CSC words across need the circles 2R apart, which they are not.
    const words = dubinsPaths(O, { x: 0, y: 1, heading: 0 }, 5).map((p) => p.word);
    expect(words).toContain('LRL');
    expect(words).toContain('RLR');
  });

  it('rejects bad radii and poses', () => {
    expect(() => dubinsPaths(O, O, 0)).toThrow(PlanningError);
    expect(() => dubinsPaths(O, O, Number.NaN)).toThrow(PlanningError);
    expect(() => dubinsShortest(O, { x: Number.POSITIVE_INFINITY, y: 0, heading: 0 }, 1)).toThrow(
      PlanningError,
    );
    expect(() => dubinsShortest(O, { x: 0, y: 0, heading: Number.NaN }, 1)).toThrow(PlanningError);
  });
});

describe('Dubins paths: properties', () => {
  it('every word reaches the goal pose within 1e-6 m and 1e-6 rad', () => {
    fc.assert(
      fc.property(fc.oneof(nearPair, fc.record({ a: pose, b: pose, r: radius })), ({ a, b, r }) => {
        const paths = dubinsPaths(a, b, r);
        for (const p of paths) {
          const err = poseError(endPose(a, p, r), b);
          expect(err.pos).toBeLessThan(1e-6);
          expect(err.heading).toBeLessThan(1e-6);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('words are distinct, forward only, sorted, with consistent lengths; LSL and RSR always exist', () => {
    fc.assert(
      fc.property(nearPair, ({ a, b, r }) => {
        const paths = dubinsPaths(a, b, r);
        const words = paths.map((p) => p.word);
        expect(new Set(words).size).toBe(words.length);
        expect(words).toContain('LSL');
        expect(words).toContain('RSR');
        for (let i = 0; i < paths.length; i++) {
          const p = paths[i];
          expect(WORDS).toContain(p.word);
          if (i > 0) expect(p.length).toBeGreaterThanOrEqual(paths[i - 1].length);
          expect(p.length).toBeCloseTo(
            p.segments.reduce((s, g) => s + g.length, 0),
            12,
          );
          // The segments are the word's letters, less the dropped zero-length ones.
          let k = 0;
          for (const s of p.segments) {
            expect(s.reverse).toBe(false);
            expect(s.length).toBeGreaterThanOrEqual(MIN_SEGMENT_LENGTH);
            while (k < 3 && p.word[k] !== s.type) k++;
            expect(k).toBeLessThan(3);
            k++;
          }
          // No arc is a full turn or more.
          for (const s of p.segments) if (s.type !== 'S') expect(s.length).toBeLessThan(2 * Math.PI * r);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('the shortest is the first of all words and no longer than any of them', () => {
    fc.assert(
      fc.property(nearPair, ({ a, b, r }) => {
        const paths = dubinsPaths(a, b, r);
        const best = dubinsShortest(a, b, r)!;
        expect(best).toEqual(paths[0]);
        for (const p of paths) expect(best.length).toBeLessThanOrEqual(p.length);
      }),
      { numRuns: 500 },
    );
  });

  it('no forward path of arcs and straights is shorter (random paths as oracle)', () => {
    fc.assert(
      fc.property(pose, radius, randomSegments(true, 5), (a, r, raw) => {
        const segments = raw.map((s) => ({ ...s, length: s.length * r }));
        const path = pathOf(segments);
        const b = endPose(a, path, r);
        expect(dubinsShortest(a, b, r)!.length).toBeLessThanOrEqual(path.length + 1e-9 * r);
      }),
      { numRuns: 3000 },
    );
  });

  it('lengths do not change under rigid motion and scale with the radius', () => {
    fc.assert(
      fc.property(
        nearPair,
        fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
        fc.double({ min: 0.1, max: 10, noNaN: true }),
        ({ a, b, r }, rot, k) => {
          // The Dubins length jumps by a full turn where the goal sits just behind the start;
          // rounding of the moved poses may land on either side of that.
          const e = poseError(a, b);
          fc.pre(e.pos > 1e-6 * r || e.heading > 1e-6);
          const move = (p: Pose): Pose => ({
            x: k * (p.x * Math.cos(rot) - p.y * Math.sin(rot)) + 17,
            y: k * (p.x * Math.sin(rot) + p.y * Math.cos(rot)) - 5,
            heading: p.heading + rot,
          });
          const l0 = dubinsShortest(a, b, r)!.length;
          const l1 = dubinsShortest(move(a), move(b), k * r)!.length;
          // Near ties between words the rounding of the moved poses may pick another word of equal length.
          expect(Math.abs(l1 - k * l0)).toBeLessThan(1e-6 * k * (r + l0));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('samples of the shortest path keep every sampling invariant', () => {
    fc.assert(
      fc.property(nearPair, ({ a, b, r }) => {
        const p = dubinsShortest(a, b, r)!;
        const pieces = samplePath(a, p, r);
        checkSampling(a, p.segments, r, pieces, 1, ARC_STEP);
        expect(pieces.every((pc) => !pc.reverse)).toBe(true);
        if (pieces.length) {
          const last = pieces[0].points.at(-1)!;
          expect(Math.hypot(last.x - b.x, last.y - b.y)).toBeLessThan(1e-6);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('dubinsShortestLength', () => {
  it('is the length of dubinsShortest, to the bit', () => {
    fc.assert(
      fc.property(pose, pose, radius, (a, b, r) => {
        expect(dubinsShortestLength(a, b, r)).toBe(
          dubinsShortest(a, b, r)?.length ?? Number.POSITIVE_INFINITY,
        );
      }),
      { numRuns: 2000 },
    );
  });
});
