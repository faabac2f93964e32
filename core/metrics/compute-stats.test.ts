import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EdgeIndex } from '../geometry/edge-index.ts';
import type { Machine, PathPart, Point, Polygon } from '../types/index.ts';
import { computeStats } from './compute-stats.ts';

const machine: Machine = {
  swathWidth: 6,
  minTurningRadius: 6,
  workingSpeed: 3,
  turningSpeed: 2,
  trackWidths: [],
  tireWidths: [],
};

/**
 * A 120 x 60 m field worked by one headland loop 3 m inside the edge and
 * straight tracks one swath apart across the rest, some of them ending
 * short of the headland (missed area) and one doubled (overlap).
 */
function plan(): { field: Polygon[]; parts: PathPart[] } {
  const field: Polygon[] = [
    {
      outer: [
        { x: 0, y: 0 },
        { x: 120, y: 0 },
        { x: 120, y: 60 },
        { x: 0, y: 60 },
      ],
      holes: [],
    },
  ];
  const parts: PathPart[] = [];
  let sequence = 0;
  // Begun halfway along a side, so that it is one band all round.
  const loop = [
    { x: 60, y: 3 },
    { x: 117, y: 3 },
    { x: 117, y: 57 },
    { x: 3, y: 57 },
    { x: 3, y: 3 },
    { x: 60, y: 3 },
  ];
  parts.push({
    type: 'ExteriorHeadlandPass',
    points: loop,
    working: true,
    sequence: sequence++,
    passNumber: 1,
  });
  for (let k = 0; k < 8; k++) {
    const y = 9 + 6 * k;
    // Tracks 1 and 5 stop 10 m short of the headland; track 6 is driven twice.
    const x1 = k === 1 || k === 5 ? 100 : 114;
    parts.push({
      type: 'RouteTrack',
      points: [
        { x: 6, y },
        { x: x1, y },
      ],
      working: true,
      sequence: sequence++,
    });
    if (k === 6)
      parts.push({
        type: 'RouteTrack',
        points: [
          { x: 114, y },
          { x: 6, y },
        ],
        working: true,
        sequence: sequence++,
      });
  }
  return { field, parts };
}

function statsOf(field: Polygon[], parts: PathPart[]) {
  return computeStats({
    field,
    fieldIndex: new EdgeIndex(field.flatMap((p) => [p.outer, ...p.holes])),
    workable: field,
    parts,
    machine,
  });
}

describe('computeStats', () => {
  it('measures covered, missed and overlapping area of the swaths', () => {
    const { field, parts } = plan();
    const s = statsOf(field, parts);
    expect(s.fieldArea).toBeCloseTo(7200, 6);
    // The loop's band covers the outer 6 m ring (7200 - 108 x 48); the tracks the
    // 108 x 48 m inside, less the two 14 x 6 m track ends left short.
    const missed = 2 * 14 * 6;
    expect(s.missedArea).toBeCloseTo(missed, 3);
    expect(s.coveredArea).toBeCloseTo(7200 - missed, 3);
    // The tracks end where the loop's band begins; only the doubled track is covered twice.
    expect(s.overlapArea).toBeCloseTo(108 * 6, 3);
    expect(s.trackCount).toBe(9);
  });

  it('measures a loop begun at a corner with its two ends there', () => {
    const { field, parts } = plan();
    // Begun at the corner (3, 3) heading east, ended there heading south: the
    // implement, across its heading at each end, leaves the 3 x 3 m corner
    // outside both ends unworked.
    const corner = [
      { x: 3, y: 3 },
      { x: 117, y: 3 },
      { x: 117, y: 57 },
      { x: 3, y: 57 },
      { x: 3, y: 3 },
    ];
    const s = statsOf(field, [{ ...parts[0], points: corner }, ...parts.slice(1)]);
    expect(s.missedArea).toBeCloseTo(2 * 14 * 6 + 9, 3);
    expect(s.coveredArea).toBeCloseTo(7200 - 2 * 14 * 6 - 9, 3);
  });

  it('measures a lane driven out and back to where it began with its two ends there', () => {
    const field: Polygon[] = [
      {
        outer: [
          { x: 0, y: 0 },
          { x: 100, y: 0 },
          { x: 100, y: 20 },
          { x: 0, y: 20 },
        ],
        holes: [],
      },
    ];
    // Out along y = 10 and back on the same line to where it began, facing
    // back the way it began: its swath is the 80 x 6 m strip, with no band
    // closing round its ends.
    const lane: PathPart = {
      type: 'RouteTrack',
      points: [
        { x: 10, y: 10 },
        { x: 50, y: 10 },
        { x: 90, y: 10 },
        { x: 50, y: 10 },
        { x: 10, y: 10 },
      ],
      working: true,
      sequence: 0,
    };
    const s = statsOf(field, [lane]);
    // (The cusp where it turns back at x = 90 is squared off 3 m beyond it.)
    expect(s.coveredArea).toBeCloseTo(80 * 6 + 3 * 6, 3);
    expect(s.missedArea).toBeCloseTo(2000 - 80 * 6 - 3 * 6, 3);
  });

  it('gives the same figures however the field is turned (property)', () => {
    const { field, parts } = plan();
    const base = statsOf(field, parts);
    fc.assert(
      fc.property(
        fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
        fc.double({ min: -5e5, max: 5e5, noNaN: true }),
        (angle, far) => {
          const c = Math.cos(angle);
          const s = Math.sin(angle);
          const turn = (q: Point) => ({ x: far + q.x * c - q.y * s, y: far + q.x * s + q.y * c });
          const f = field.map((p) => ({ outer: p.outer.map(turn), holes: p.holes.map((h) => h.map(turn)) }));
          const ps = parts.map((p) => ({ ...p, points: p.points.map(turn) }));
          const r = statsOf(f, ps);
          expect(r.coveredArea).toBeCloseTo(base.coveredArea, 2);
          expect(r.overlapArea).toBeCloseTo(base.overlapArea, 2);
          expect(r.missedArea).toBeCloseTo(base.missedArea, 2);
        },
      ),
      { numRuns: 40 },
    );
  });
});
