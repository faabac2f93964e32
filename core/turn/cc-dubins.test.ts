import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { curvatureRateViolation } from '../../test/helpers/check-plan.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { connectPoses } from '../route/connect.ts';
import { PlanningError, type Point, type Pose } from '../types/index.ts';
import {
  ccCorner,
  ccDubinsPaths,
  ccDubinsShortest,
  ccDubinsWays,
  ccTurn,
  ccTurnGeometry,
} from './cc-dubins.ts';
import {
  type CurvePath,
  curveEndPose,
  maxCurvature,
  maxSharpness,
  pieceEnd,
  sampleCurvePath,
} from './clothoid.ts';
import { dubinsShortest } from './dubins.ts';
import { nearPair, poseError } from './turn-testing.ts';

const O: Pose = { x: 0, y: 0, heading: 0 };
/** Curvature rates as multiples of kmax^2: each full clothoid turns between 1 and 1/100 rad. */
const rateFactor = fc.double({ min: 0.5, max: 50, noNaN: true });
/** Start and goal not (nearly) the same pose. */
const pair = nearPair.filter(({ a, b, r }) => Math.hypot(b.x - a.x, b.y - a.y) > 1e-3 * r);

function sampled(from: Pose, p: CurvePath): Point[] {
  const out: Point[] = [];
  for (const piece of sampleCurvePath(from, p)) for (const q of piece.points) out.push(q);
  return out;
}

function checkSamples(from: Pose, p: CurvePath, radius: number) {
  const pieces = sampleCurvePath(from, p);
  const end = curveEndPose(from, p);
  const last = pieces[pieces.length - 1].points;
  expect(last[last.length - 1]).toEqual({ x: end.x, y: end.y });
  expect(pieces[0].points[0]).toEqual({ x: from.x, y: from.y });
  for (const pc of pieces) {
    for (let i = 1; i < pc.points.length; i++) {
      const a = pc.points[i - 1];
      const b = pc.points[i];
      expect(Math.hypot(b.x - a.x, b.y - a.y)).toBeLessThanOrEqual(1 + 1e-6);
      if (i >= 2) {
        const z = pc.points[i - 2];
        const h1 = Math.atan2(a.y - z.y, a.x - z.x);
        const h2 = Math.atan2(b.y - a.y, b.x - a.x);
        const turn = Math.abs(Math.atan2(Math.sin(h2 - h1), Math.cos(h2 - h1)));
        expect(turn).toBeLessThanOrEqual((5 * Math.PI) / 180);
        // Circumradius never below the turning radius.
        const ab = Math.hypot(a.x - z.x, a.y - z.y);
        const bc = Math.hypot(b.x - a.x, b.y - a.y);
        const ca = Math.hypot(b.x - z.x, b.y - z.y);
        const k = (2 * Math.abs((a.x - z.x) * (b.y - z.y) - (a.y - z.y) * (b.x - z.x))) / (ab * bc * ca);
        if (ab > 1e-3 && bc > 1e-3) expect(k).toBeLessThanOrEqual((1 / radius) * 1.01);
      }
    }
  }
}

describe('CC turns', () => {
  it('a full CC turn is clothoid, arc, clothoid and ends on its CC circle', () => {
    const g = ccTurnGeometry(6, 0.05);
    expect(g.clothoidLength).toBeCloseTo(1 / 6 / 0.05, 12);
    expect(g.clothoidDeflection).toBeCloseTo(1 / 36 / 0.1, 12);
    for (const delta of [0.3, 1, Math.PI / 2, Math.PI, 5]) {
      const pieces = ccTurn(g, delta, 1);
      expect(pieces.map((p) => Math.sign(p.sharpness))).toEqual(
        delta > 2 * g.clothoidDeflection + 1e-9 ? [1, 0, -1] : [1, -1],
      );
      const end = curveEndPose(O, { pieces, length: 0, word: '' });
      expect(end.heading).toBeCloseTo(delta, 12);
      // On the circle of radius rO around (xO, yO).
      expect(Math.hypot(end.x - g.xO, end.y - g.yO)).toBeCloseTo(g.rO, 9);
    }
  });

  it('small turns are two clothoids of at most the sharpness limit, still on the CC circle', () => {
    const g = ccTurnGeometry(6, 0.05);
    for (const delta of [1e-6, 0.01, 0.1, 0.5]) {
      const pieces = ccTurn(g, delta, -1);
      expect(pieces).toHaveLength(2);
      for (const p of pieces) expect(Math.abs(p.sharpness)).toBeLessThanOrEqual(0.05 * (1 + 1e-9));
      const path = { pieces, length: 0, word: '' };
      expect(maxCurvature(path)).toBeLessThanOrEqual(1 / 6);
      const end = curveEndPose(O, path);
      expect(end.heading).toBeCloseTo(-delta, 12);
      expect(Math.hypot(end.x - g.xO, end.y + g.yO)).toBeCloseTo(g.rO, 9);
    }
  });

  it('a U-turn between tracks 2 rO apart is one CC turn; closer tracks need a bulb', () => {
    const g = ccTurnGeometry(6, 0.05);
    const wide = ccDubinsShortest(O, { x: 0, y: 30, heading: Math.PI }, 6, 0.05)!;
    expect(wide.word).toBe('LSL');
    const narrow = ccDubinsShortest(O, { x: 0, y: 6, heading: Math.PI }, 6, 0.05)!;
    expect(['LRL', 'RLR']).toContain(narrow.word);
    // A CC path is never shorter than the Dubins path of the same radius.
    expect(narrow.length).toBeGreaterThan(dubinsShortest(O, { x: 0, y: 6, heading: Math.PI }, 6)!.length);
    expect(g.rO).toBeGreaterThan(6);
  });

  it('with a very high curvature rate the paths approach Dubins paths', () => {
    fc.assert(
      fc.property(pair, ({ a, b, r }) => {
        const cc = ccDubinsShortest(a, b, r, 1e5 / r)!;
        const d = dubinsShortest(a, b, r)!;
        expect(Math.abs(cc.length - d.length)).toBeLessThan(1e-3 * r);
      }),
      { numRuns: 300 },
    );
  });

  it('property: every path ends exactly on the goal, curvature <= 1/R, sharpness <= limit', () => {
    fc.assert(
      fc.property(pair, rateFactor, ({ a, b, r }, f) => {
        const s = f / (r * r);
        const paths = ccDubinsPaths(a, b, r, s);
        expect(paths.length).toBeGreaterThan(0);
        for (const p of paths) {
          const e = poseError(curveEndPose(a, p), b);
          expect(e.pos).toBeLessThan(1e-6);
          expect(e.heading).toBeLessThan(1e-9);
          expect(maxCurvature(p)).toBeLessThanOrEqual((1 / r) * (1 + 1e-9));
          expect(maxSharpness(p)).toBeLessThanOrEqual(s * (1 + 1e-9));
          // Curvature continuous: each piece starts where the previous one ended, from and back to 0.
          let k = 0;
          for (const pc of p.pieces) {
            expect(Math.abs(pc.k0 - k)).toBeLessThan(1e-9 / r);
            k = pc.k0 + pc.sharpness * pc.length;
          }
          expect(Math.abs(k)).toBeLessThan(1e-9 / r);
        }
        for (let i = 1; i < paths.length; i++)
          expect(paths[i].length).toBeGreaterThanOrEqual(paths[i - 1].length);
      }),
      { numRuns: 400 },
    );
  });

  it('property: the paths given one by one are those of ccDubinsPaths, in order; n of them when n is given', () => {
    fc.assert(
      fc.property(pair, rateFactor, fc.integer({ min: 0, max: 4 }), ({ a, b, r }, f, n) => {
        const s = f / (r * r);
        const all = ccDubinsPaths(a, b, r, s);
        expect([...ccDubinsWays(a, b, r, s)]).toEqual(all);
        expect([...ccDubinsWays(a, b, r, s, n)]).toEqual(all.slice(0, n));
        expect(ccDubinsShortest(a, b, r, s)).toEqual(all[0] ?? null);
      }),
      { numRuns: 300 },
    );
  });

  it("a full clothoid's end, rise and fall, is where integrating it ends, left and mirrored right", () => {
    for (const [r, s] of [
      [6, 0.05],
      [4, 0.2],
      [10, 0.01],
    ]) {
      const g = ccTurnGeometry(r, s);
      const L = g.clothoidLength;
      for (const side of [1, -1]) {
        const rise = pieceEnd(O, { k0: 0, sharpness: side * s, length: L, reverse: false });
        const fall = pieceEnd(O, { k0: side / r, sharpness: -side * s, length: L, reverse: false });
        expect(rise.x).toBeCloseTo(g.rise.x, 12);
        expect(rise.y).toBeCloseTo(side * g.rise.y, 12);
        expect(fall.x).toBeCloseTo(g.fall.x, 12);
        expect(fall.y).toBeCloseTo(side * g.fall.y, 12);
        expect(rise.heading).toBeCloseTo(side * g.clothoidDeflection, 12);
      }
    }
  });

  it('property: every sample of a piece lies within half its length of the middle of its ends', () => {
    // What the crossing test of continuous-curvature connections leans on:
    // edges farther than that from the middle cannot meet the piece's chords.
    fc.assert(
      fc.property(
        fc.record({
          x: fc.double({ min: -1e4, max: 1e4, noNaN: true }),
          y: fc.double({ min: -1e4, max: 1e4, noNaN: true }),
          heading: fc.double({ min: -10, max: 10, noNaN: true }),
        }),
        fc.double({ min: -0.5, max: 0.5, noNaN: true }),
        fc.double({ min: -0.2, max: 0.2, noNaN: true }),
        fc.double({ min: 1e-3, max: 60, noNaN: true }),
        fc.boolean(),
        (from, k0, sharpness, length, reverse) => {
          const piece = { k0, sharpness, length, reverse };
          const end = pieceEnd(from, piece);
          const mx = (from.x + end.x) / 2;
          const my = (from.y + end.y) / 2;
          for (const sp of sampleCurvePath(from, { pieces: [piece], length, word: '' }))
            for (const q of sp.points)
              expect(Math.hypot(q.x - mx, q.y - my)).toBeLessThanOrEqual(length / 2 + 1e-6);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: samples are fine, on the path, and their curvature changes no faster than the limit', () => {
    fc.assert(
      fc.property(
        pair.filter(({ r }) => r >= 2),
        rateFactor,
        ({ a, b, r }, f) => {
          const s = f / (r * r);
          const p = ccDubinsShortest(a, b, r, s)!;
          checkSamples(a, p, r);
          expect(curvatureRateViolation(sampled(a, p), s)).toBeNull();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the checker sees the abrupt start of a Dubins arc', () => {
    const pts: Point[] = [];
    for (let i = 0; i <= 10; i++) pts.push({ x: i - 10, y: 0 });
    for (let i = 1; i <= 30; i++) {
      const t = i * 0.5;
      pts.push({ x: 6 * Math.sin(t / 6), y: 6 - 6 * Math.cos(t / 6) });
    }
    expect(curvatureRateViolation(pts, 0.05)).not.toBeNull();
  });

  it('refuses a rate that is not a positive number', () => {
    expect(() => ccDubinsPaths(O, { x: 10, y: 0, heading: 0 }, 6, 0)).toThrow(PlanningError);
    expect(() => ccDubinsPaths(O, { x: 10, y: 0, heading: 0 }, 6, Number.NaN)).toThrow(PlanningError);
  });

  it('a polyline corner rounded with clothoids leaves and rejoins the edges at the tangent length', () => {
    for (const delta of [0.05, 0.5, Math.PI / 2, -2.5]) {
      const c = ccCorner(6, 0.05, delta);
      const end = curveEndPose(O, { pieces: c.pieces, length: 0, word: '' });
      // The end lies on the outgoing edge at the tangent length from the corner (c.tangent, 0).
      expect(end.x).toBeCloseTo(c.tangent + c.tangent * Math.cos(delta), 9);
      expect(end.y).toBeCloseTo(c.tangent * Math.sin(delta), 9);
      expect(c.tangent).toBeGreaterThanOrEqual(6 * Math.tan(Math.abs(delta) / 2));
    }
  });
});

describe('turn choice (connectPoses)', () => {
  // Two tracks ending at x = 0 in a strip of the field; `room` metres of headland beyond their ends.
  const strip = (room: number, y0: number, y1: number) =>
    new EdgeIndex([
      [
        { x: -200, y: y0 },
        { x: room, y: y0 },
        { x: room, y: y1 },
        { x: -200, y: y1 },
      ],
    ]);
  const end: Pose = { x: 0, y: 0, heading: 0 };
  const next = (d: number): Pose => ({ x: 0, y: d, heading: Math.PI });
  const inside = (c: { pieces: { points: Point[] }[] }, room: number, y0: number, y1: number) => {
    for (const p of c.pieces)
      for (const q of p.points) {
        expect(q.x).toBeLessThanOrEqual(room + 1e-9);
        expect(q.y).toBeGreaterThanOrEqual(y0 - 1e-9);
        expect(q.y).toBeLessThanOrEqual(y1 + 1e-9);
      }
  };

  for (const rate of [undefined, 0.05]) {
    const opts = rate === undefined ? {} : { curvatureRate: rate };
    const model = rate === undefined ? 'Dubins' : 'continuous curvature';
    it(`${model}: U-turn when the spacing is at least twice the radius`, () => {
      const c = connectPoses(end, next(16), 6, strip(30, -3, 19), opts)!;
      expect(c.kind).toBe('U');
      inside(c, 30, -3, 19);
    });
    it(`${model}: bulb when the tracks are closer and the headland is deep enough`, () => {
      const c = connectPoses(end, next(6), 6, strip(30, -3, 9), opts)!;
      expect(c.kind).toBe('bulb');
      inside(c, 30, -3, 9);
    });
    it(`${model}: nothing when no turn fits (the route then travels along the headland)`, () => {
      expect(connectPoses(end, next(6), 6, strip(2, -3, 9), { ...opts, allowReverse: false })).toBeNull();
      expect(connectPoses(end, next(6), 6, strip(9, -3, 9), { ...opts, allowReverse: false })).toBeNull();
    });
  }
  for (const rate of [undefined, 0.05]) {
    it(`${rate === undefined ? 'Dubins' : 'continuous curvature'}: a fishtail (reversing) where the headland is too shallow for a bulb`, () => {
      const c = connectPoses(
        end,
        next(6),
        6,
        strip(9, -3, 9),
        rate === undefined ? {} : { curvatureRate: rate },
      )!;
      expect(c.kind).toBe('fishtail');
      expect(c.pieces.some((p) => p.reverse)).toBe(true);
      inside(c, 9, -3, 9);
      if (rate !== undefined)
        for (const p of c.pieces) expect(curvatureRateViolation(p.points, rate)).toBeNull();
      // Pieces meet end to start.
      for (let i = 1; i < c.pieces.length; i++)
        expect(c.pieces[i].points[0]).toEqual(c.pieces[i - 1].points[c.pieces[i - 1].points.length - 1]);
    });
  }
});
