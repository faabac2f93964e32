import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanningError, type Point, type Pose } from '../types/index.ts';
import {
  ARC_STEP,
  appendSegmentSamples,
  endPose,
  leastSteps,
  MIN_SEGMENT_LENGTH,
  SampleBuffer,
  type Segment,
  samplePath,
  sampleSegmentInto,
  segmentEnd,
} from './path.ts';
import {
  angleDiff,
  checkSampling,
  circumradius,
  circumradiusTolerance,
  pathOf,
  pose,
  poseError,
  radius,
  randomSegments,
} from './turn-testing.ts';

const O: Pose = { x: 0, y: 0, heading: 0 };
const seg = (type: Segment['type'], length: number, reverse = false): Segment => ({ type, length, reverse });

describe('segmentEnd and endPose', () => {
  it('integrate quarter turns, reversing and straights in closed form', () => {
    const r = 5;
    const cases: [Segment, Pose][] = [
      [seg('L', (Math.PI / 2) * r), { x: 5, y: 5, heading: Math.PI / 2 }],
      [seg('R', (Math.PI / 2) * r), { x: 5, y: -5, heading: -Math.PI / 2 }],
      [seg('L', (Math.PI / 2) * r, true), { x: -5, y: 5, heading: -Math.PI / 2 }],
      [seg('R', (Math.PI / 2) * r, true), { x: -5, y: -5, heading: Math.PI / 2 }],
      [seg('S', 7), { x: 7, y: 0, heading: 0 }],
      [seg('S', 7, true), { x: -7, y: 0, heading: 0 }],
      [seg('L', 2 * Math.PI * r), { x: 0, y: 0, heading: 2 * Math.PI }],
    ];
    for (const [s, want] of cases) {
      const got = segmentEnd(O, s, r);
      expect(got.x).toBeCloseTo(want.x, 12);
      expect(got.y).toBeCloseTo(want.y, 12);
      expect(got.heading).toBeCloseTo(want.heading, 12);
    }
  });

  it('a half circle from any pose ends 2R to the side, heading back', () => {
    fc.assert(
      fc.property(pose, radius, fc.boolean(), (p, r, left) => {
        const e = segmentEnd(p, seg(left ? 'L' : 'R', Math.PI * r), r);
        const side = left ? 1 : -1;
        expect(e.x).toBeCloseTo(p.x - side * 2 * r * Math.sin(p.heading), 9);
        expect(e.y).toBeCloseTo(p.y + side * 2 * r * Math.cos(p.heading), 9);
        expect(Math.abs(angleDiff(e.heading, p.heading + Math.PI))).toBeLessThan(1e-12);
      }),
    );
  });

  it('endPose chains segmentEnd, and driving a path back in reverse returns to the start', () => {
    fc.assert(
      fc.property(pose, radius, randomSegments(false), (p, r, raw) => {
        const segments = raw.map((s) => ({ ...s, length: s.length * r }));
        let q = p;
        for (const s of segments) if (s.length >= MIN_SEGMENT_LENGTH) q = segmentEnd(q, s, r);
        const e = endPose(p, pathOf(segments), r);
        expect(e).toEqual(q);
        // The same segments in reverse order, each driven the other way, undo the path.
        const back = segments
          .slice()
          .reverse()
          .map((s) => ({ ...s, reverse: !s.reverse }));
        const err = poseError(endPose(e, pathOf(back), r), p);
        expect(err.pos).toBeLessThan(1e-9 * Math.max(1, r));
        expect(err.heading).toBeLessThan(1e-12);
      }),
    );
  });

  it('keeps full precision for very short arcs', () => {
    const e = segmentEnd(O, seg('L', 1e-7), 10);
    expect(e.x).toBe(1e-7);
    expect(e.y).toBeCloseTo(1e-14 / 20, 25);
    expect(e.heading).toBe(1e-8);
  });

  it('rejects a radius that is not a positive finite number', () => {
    for (const r of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => endPose(O, pathOf([seg('S', 1)]), r)).toThrow(PlanningError);
    }
  });
});

describe('samplePath', () => {
  it('draws segments with at least two chords: a straight shorter than maxStep too, not a tiny one', () => {
    const pieces = samplePath(O, pathOf([seg('S', 0.7)]), 5);
    expect(pieces).toEqual([
      {
        points: [
          { x: 0, y: 0 },
          { x: 0.35, y: 0 },
          { x: 0.7, y: 0 },
        ],
        reverse: false,
      },
    ]);
    expect([leastSteps(0.7), leastSteps(0.05)]).toEqual([2, 1]);
    // A 3-degree arc: two chords though one would keep the step and angle limits.
    expect(samplePath(O, pathOf([seg('L', (3 * Math.PI * 6) / 180)]), 6)[0].points.length).toBe(3);
    expect(samplePath(O, pathOf([seg('L', 0.05)]), 6)[0].points.length).toBe(2);
  });

  it('subdivides a straight into equal steps of at most maxStep', () => {
    expect(samplePath(O, pathOf([seg('S', 2)]), 5)[0].points.map((p) => p.x)).toEqual([0, 1, 2]);
    const pts = samplePath(O, pathOf([seg('S', 2.5)]), 5)[0].points;
    expect(pts.length).toBe(4);
    expect(pts[1].x).toBeCloseTo(2.5 / 3, 14);
    expect(samplePath(O, pathOf([seg('S', 10)]), 5, { maxStep: 2.5 })[0].points.length).toBe(5);
  });

  it('samples arcs at ARC_STEP by default and at the given maxAngleRad', () => {
    const r = 10;
    const quarter = pathOf([seg('L', (Math.PI / 2) * r)]);
    // 90 degrees at 5 degrees a step: 18 steps (15.7 m at 1 m would need only 16).
    expect(samplePath(O, quarter, r)[0].points.length).toBe(19);
    expect(ARC_STEP).toBeCloseTo((5 * Math.PI) / 180, 15);
    const fine = samplePath(O, quarter, r, { maxAngleRad: (1.8 * Math.PI) / 180 })[0].points;
    expect(fine.length).toBe(51);
    // With a large radius the step length decides.
    const big = pathOf([seg('R', 20)]);
    expect(samplePath(O, big, 1000, { maxAngleRad: (5 * Math.PI) / 180 })[0].points.length).toBe(21);
  });

  it('samples arcs exactly on their circle: every three consecutive samples have circumradius R', () => {
    fc.assert(
      fc.property(
        pose,
        radius,
        fc.constantFrom<Segment['type']>('L', 'R'),
        fc.double({ min: 0.01, max: 2 * Math.PI, noNaN: true }),
        fc.boolean(),
        (p, r, type, angle, reverse) => {
          const pieces = samplePath(p, pathOf([seg(type, angle * r, reverse)]), r);
          expect(pieces.length).toBe(1);
          const pts = pieces[0].points;
          // Centre of the circle: to the left (L) or right (R) of the start heading.
          const side = type === 'L' ? 1 : -1;
          const cx = p.x - side * r * Math.sin(p.heading);
          const cy = p.y + side * r * Math.cos(p.heading);
          for (const q of pts) expect(Math.abs(Math.hypot(q.x - cx, q.y - cy) - r)).toBeLessThan(1e-12 * 400);
          for (let i = 2; i < pts.length; i++) {
            // Exact but for the rounding of the coordinates (which grows as chords shorten).
            expect(Math.abs(circumradius(pts[i - 2], pts[i - 1], pts[i]) / r - 1)).toBeLessThan(
              circumradiusTolerance(pts[i - 2], pts[i - 1], pts[i], r),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('splits at cusps: the cusp point ends one piece and starts the next', () => {
    const path = pathOf([seg('S', 3), seg('L', 2, true), seg('S', 1, true), seg('R', 2)]);
    const pieces = samplePath(O, path, 4);
    expect(pieces.map((p) => p.reverse)).toEqual([false, true, false]);
    expect(pieces[0].points.at(-1)).toEqual({ x: 3, y: 0 });
    expect(pieces[1].points[0]).toEqual({ x: 3, y: 0 });
    expect(pieces[2].points[0]).toEqual(pieces[1].points.at(-1));
    // In the order of travel: the reversing piece moves backwards along -x first.
    expect(pieces[1].points[1].x).toBeLessThan(3);
    checkSampling(O, path.segments, 4, pieces, 1, ARC_STEP);
  });

  it('gives no points for zero-length segments and no pieces for an empty path', () => {
    expect(samplePath(O, pathOf([]), 5)).toEqual([]);
    expect(samplePath(O, pathOf([seg('L', 0), seg('S', 1e-12, true)]), 5)).toEqual([]);
    const path = pathOf([seg('L', 0), seg('S', 2), seg('R', 0, true), seg('S', 1e-12), seg('L', 3)]);
    const pieces = samplePath(O, path, 5);
    expect(pieces.length).toBe(1);
    checkSampling(O, path.segments, 5, pieces, 1, ARC_STEP);
    // A zero-length reversing segment is no cusp.
    const tail = pathOf([seg('S', 2), seg('S', 1e-10, true)]);
    const p2 = samplePath(O, tail, 5);
    expect(p2.length).toBe(1);
    expect(p2[0].points.at(-1)!.x).toBe(endPose(O, tail, 5).x);
  });

  it('rejects steps that are not positive', () => {
    const path = pathOf([seg('S', 1)]);
    expect(() => samplePath(O, path, 5, { maxStep: 0 })).toThrow(PlanningError);
    expect(() => samplePath(O, path, 5, { maxAngleRad: -1 })).toThrow(PlanningError);
    expect(() => samplePath(O, path, 5, { maxStep: Number.NaN })).toThrow(PlanningError);
    expect(() => samplePath(O, pathOf([seg('S', 1e6)]), 5, { maxStep: 1e-6 })).toThrow(PlanningError);
  });

  it('property: step, heading change, radius, exact ends, cusps, on random paths and options', () => {
    fc.assert(
      fc.property(
        pose,
        radius,
        randomSegments(false, 6),
        fc.double({ min: 0.05, max: 5, noNaN: true }),
        fc.double({ min: (0.5 * Math.PI) / 180, max: (10 * Math.PI) / 180, noNaN: true }),
        fc.boolean(),
        (p, r, raw, maxStep, maxAngle, tiny) => {
          // Some segments of zero or sub-nanometre length on purpose.
          const segments = raw.map((s, i) => ({
            ...s,
            length: tiny && i % 2 ? s.length * 1e-10 : s.length * r,
          }));
          const pieces = samplePath(p, pathOf(segments), r, { maxStep, maxAngleRad: maxAngle });
          checkSampling(p, segments, r, pieces, maxStep, maxAngle);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('property: a path samples as its segments do, one after the other', () => {
    fc.assert(
      fc.property(pose, radius, randomSegments(false), (p, r, raw) => {
        const segments = raw.map((s) => ({ ...s, length: (s.length + 1e-3) * r }));
        const whole = samplePath(p, pathOf(segments), r).flatMap((pc) => pc.points);
        const parts: Point[] = [];
        let q = p;
        for (const s of segments) {
          for (const pc of samplePath(q, pathOf([s]), r))
            for (const pt of pc.points) {
              const last = parts.at(-1);
              if (!last || last.x !== pt.x || last.y !== pt.y) parts.push(pt);
            }
          q = segmentEnd(q, s, r);
        }
        const dedup = whole.filter((pt, i) => i === 0 || pt.x !== whole[i - 1].x || pt.y !== whole[i - 1].y);
        expect(dedup).toEqual(parts);
      }),
    );
  });

  it('does not drift over long paths far from the origin', () => {
    const far: Pose = { x: 612_345.678, y: 5_812_345.678, heading: 1 };
    const r = 6;
    const path = pathOf(Array.from({ length: 50 }, (_, i) => seg(i % 2 ? 'L' : 'R', 40 + i, i % 3 === 0)));
    const pieces = samplePath(far, path, r);
    const last = pieces.at(-1)!.points.at(-1)!;
    const end = endPose(far, path, r);
    expect(last).toEqual({ x: end.x, y: end.y });
    expect(pieces[0].points[0]).toEqual({ x: far.x, y: far.y });
  });
});

describe('appendSegmentSamples', () => {
  it('pushes the samples samplePath gives for the segment alone, after its first point', () => {
    fc.assert(
      fc.property(
        pose,
        radius,
        fc.constantFrom<Segment['type']>('L', 'S', 'R'),
        fc.double({ min: 0, max: 40, noNaN: true }),
        fc.boolean(),
        (from, r, type, length, reverse) => {
          const s = seg(type, length, reverse);
          const whole = samplePath(from, { segments: [s], length, word: type }, r);
          const pts: Point[] = [{ x: from.x, y: from.y }];
          appendSegmentSamples(pts, from.x, from.y, from.heading, s, r);
          const want = whole.length ? whole[0].points : [{ x: from.x, y: from.y }];
          expect(pts).toEqual(want);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('pushes nothing for a segment shorter than MIN_SEGMENT_LENGTH', () => {
    const pts: Point[] = [];
    appendSegmentSamples(pts, 0, 0, 0, seg('L', MIN_SEGMENT_LENGTH / 2), 6);
    expect(pts).toEqual([]);
  });
});

describe('sampleSegmentInto', () => {
  it('holds the samples samplePath gives for the segment alone, as coordinates', () => {
    const buf = new SampleBuffer();
    fc.assert(
      fc.property(
        pose,
        radius,
        fc.constantFrom<Segment['type']>('L', 'S', 'R'),
        fc.double({ min: 0, max: 200, noNaN: true }),
        fc.boolean(),
        (from, r, type, length, reverse) => {
          const s = seg(type, length, reverse);
          const whole = samplePath(from, { segments: [s], length, word: type }, r);
          const want = whole.length ? whole[0].points : [{ x: from.x, y: from.y }];
          sampleSegmentInto(buf, from.x, from.y, from.heading, s, r);
          const got = Array.from({ length: buf.n }, (_, i) => ({ x: buf.xs[i], y: buf.ys[i] }));
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
