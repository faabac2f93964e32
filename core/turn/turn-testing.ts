/**
 * Shared pieces of the turn library's tests: pose generators, angle and
 * pose comparisons, circumradius, and random paths as optimality oracles.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { hypot } from '../geometry/vec.ts';
import type { Point, Pose } from '../types/index.ts';
import {
  endPose,
  MIN_SEGMENT_LENGTH,
  type SampledPiece,
  type Segment,
  type SegmentType,
  type TurnPath,
} from './path.ts';

export function angleDiff(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d < -Math.PI) d += 2 * Math.PI;
  return d;
}

/** Position error [m] and heading error [rad, modulo 2 pi] between two poses. */
export function poseError(a: Pose, b: Pose): { pos: number; heading: number } {
  return { pos: hypot(a.x - b.x, a.y - b.y), heading: Math.abs(angleDiff(a.heading, b.heading)) };
}

/** Radius of the circle through three points (Infinity when collinear). */
export function circumradius(a: Point, b: Point, c: Point): number {
  const ab = hypot(b.x - a.x, b.y - a.y);
  const bc = hypot(c.x - b.x, c.y - b.y);
  const ca = hypot(a.x - c.x, a.y - c.y);
  const cross = Math.abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));
  return cross === 0 ? Number.POSITIVE_INFINITY : (ab * bc * ca) / (2 * cross);
}

/**
 * Relative accuracy of a circumradius measured from three samples: 1e-9, or
 * worse where the sagitta of short chords on a large circle (h^2 / 8r) nears
 * the rounding of the coordinates.
 */
export function circumradiusTolerance(a: Point, b: Point, c: Point, r: number): number {
  const h = Math.min(hypot(b.x - a.x, b.y - a.y), hypot(c.x - b.x, c.y - b.y));
  const scale = Math.max(Math.abs(a.x), Math.abs(a.y), Math.abs(c.x), Math.abs(c.y)) + r;
  return 1e-9 + (64 * Number.EPSILON * scale * r) / (h * h);
}

export function chordHeading(a: Point, b: Point): number {
  return Math.atan2(b.y - a.y, b.x - a.x);
}

export function pathOf(segments: Segment[]): TurnPath {
  return {
    segments,
    length: segments.reduce((s, g) => s + g.length, 0),
    word: segments.map((g) => g.type + (g.reverse ? '-' : '+')).join(''),
  };
}

/** Every invariant the planner relies on, for one sampled path. */
export function checkSampling(
  from: Pose,
  segments: Segment[],
  r: number,
  pieces: SampledPiece[],
  maxStep: number,
  maxAngle: number,
): void {
  const real = segments.filter((s) => s.length >= MIN_SEGMENT_LENGTH);
  if (real.length === 0) {
    expect(pieces).toEqual([]);
    return;
  }
  // One piece per run of equal direction.
  let runs = 1;
  for (let i = 1; i < real.length; i++) if (real[i].reverse !== real[i - 1].reverse) runs++;
  expect(pieces.length).toBe(runs);
  expect(pieces[0].reverse).toBe(real[0].reverse);
  // Exact ends.
  expect(pieces[0].points[0].x).toBe(from.x);
  expect(pieces[0].points[0].y).toBe(from.y);
  const end = endPose(from, pathOf(segments), r);
  const lastPiece = pieces[pieces.length - 1].points;
  expect(lastPiece[lastPiece.length - 1].x).toBe(end.x);
  expect(lastPiece[lastPiece.length - 1].y).toBe(end.y);
  for (let k = 0; k < pieces.length; k++) {
    const pts = pieces[k].points;
    expect(pts.length).toBeGreaterThanOrEqual(2);
    if (k > 0) {
      // The cusp point ends one piece and starts the next; directions alternate.
      const prev = pieces[k - 1].points;
      expect(pts[0]).toEqual(prev[prev.length - 1]);
      expect(pieces[k].reverse).toBe(!pieces[k - 1].reverse);
    }
    for (let i = 1; i < pts.length; i++) {
      const d = hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
      expect(d).toBeGreaterThan(0);
      expect(d).toBeLessThanOrEqual(maxStep * (1 + 1e-12));
    }
    for (let i = 2; i < pts.length; i++) {
      const turn = Math.abs(
        angleDiff(chordHeading(pts[i - 1], pts[i]), chordHeading(pts[i - 2], pts[i - 1])),
      );
      // Chord directions carry the rounding of the coordinates over the chord length.
      const h = Math.min(
        hypot(pts[i - 1].x - pts[i - 2].x, pts[i - 1].y - pts[i - 2].y),
        hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y),
      );
      const scale = Math.max(Math.abs(pts[i].x), Math.abs(pts[i].y), r);
      expect(turn).toBeLessThanOrEqual(maxAngle * (1 + 1e-9) + (8 * Number.EPSILON * scale) / h);
      // Never tighter than the turning radius, also across segment joins.
      expect(circumradius(pts[i - 2], pts[i - 1], pts[i])).toBeGreaterThanOrEqual(
        r * (1 - circumradiusTolerance(pts[i - 2], pts[i - 1], pts[i], r)),
      );
    }
  }
}

/** Poses in a field-sized box; headings beyond (-pi, pi] on purpose. */
export const pose = fc.record({
  x: fc.double({ min: -200, max: 200, noNaN: true }),
  y: fc.double({ min: -200, max: 200, noNaN: true }),
  heading: fc.double({ min: -7, max: 7, noNaN: true }),
});

/** A start pose and a goal within a few radii of it (where the words differ most). */
export const nearPair = fc
  .record({
    a: pose,
    dx: fc.double({ min: -1, max: 1, noNaN: true }),
    dy: fc.double({ min: -1, max: 1, noNaN: true }),
    heading: fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
    reach: fc.double({ min: 0, max: 8, noNaN: true }),
    r: fc.double({ min: 0.5, max: 40, noNaN: true }),
  })
  .map(({ a, dx, dy, heading, reach, r }) => ({
    a,
    b: { x: a.x + dx * reach * r, y: a.y + dy * reach * r, heading },
    r,
  }));

export const radius = fc.double({ min: 0.5, max: 50, noNaN: true });

const segmentType = fc.constantFrom<SegmentType>('L', 'S', 'R');

/** Random segments: arcs up to a half turn, straights up to 3 radii (lengths in radius units). */
export const randomSegments = (forwardOnly: boolean, maxSegments = 5) =>
  fc.array(
    fc.record({
      type: segmentType,
      length: fc.double({ min: 0, max: Math.PI, noNaN: true }),
      reverse: forwardOnly ? fc.constant(false) : fc.boolean(),
    }),
    { minLength: 1, maxLength: maxSegments },
  );

/**
 * Paths of the Reeds-Shepp families with their tied parameters (equal middle
 * arcs, quarter turns), any sides and directions; lengths in radius units.
 */
export const familyPath = fc
  .record({
    family: fc.integer({ min: 0, max: 6 }),
    t: fc.double({ min: 0, max: Math.PI / 2, noNaN: true }),
    u: fc.double({ min: 0, max: Math.PI, noNaN: true }),
    v: fc.double({ min: 0, max: Math.PI / 2, noNaN: true }),
    s: fc.double({ min: 0, max: 4, noNaN: true }),
    mirror: fc.boolean(),
    flip: fc.boolean(),
    reversed: fc.boolean(),
    lastSame: fc.boolean(),
  })
  .map(({ family, t, u, v, s, mirror, flip, reversed, lastSame }) => {
    const [a, b]: SegmentType[] = mirror ? ['R', 'L'] : ['L', 'R'];
    const q = Math.PI / 2;
    const seg = (type: SegmentType, length: number, reverse: boolean): Segment => ({
      type,
      length,
      reverse: reverse !== flip,
    });
    let segs: Segment[];
    switch (family) {
      case 0: // C|C|C
        segs = [seg(a, t, false), seg(b, u, true), seg(a, v, false)];
        break;
      case 1: // C|CC
        segs = [seg(a, t, false), seg(b, u, true), seg(a, v, true)];
        break;
      case 2: // CC|CC
        segs = [seg(a, t, false), seg(b, u, false), seg(a, u, true), seg(b, v, true)];
        break;
      case 3: // C|CC|C
        segs = [seg(a, t, false), seg(b, u / 2, true), seg(a, u / 2, true), seg(b, v, false)];
        break;
      case 4: // C|C(pi/2)SC
        segs = [seg(a, t, false), seg(b, q, true), seg('S', s, true), seg(lastSame ? a : b, v, true)];
        break;
      case 5: // C|C(pi/2)SC(pi/2)|C
        segs = [seg(a, t, false), seg(b, q, true), seg('S', s, true), seg(a, q, true), seg(b, v, false)];
        break;
      default: // CSC, any directions
        segs = [seg(a, t, false), seg('S', s, lastSame), seg(lastSame ? a : b, v, false)];
    }
    return reversed ? segs.reverse() : segs;
  });
