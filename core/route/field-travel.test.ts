import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EdgeIndex } from '../geometry/edge-index.ts';
import type { Polygon, Pose } from '../types/index.ts';
import { FieldTravel } from './field-travel.ts';

/**
 * Two 60 m squares joined by a neck 8 m wide and 30 m long, a slot 4 m wide
 * reaching from the western square's north edge 36 m into it. With a
 * turning radius of 4 m the waypoints kept 8 m off the edge lie in two
 * pieces the neck does not join, so the first searches between the squares
 * find no way; within the western square a way from one side of the slot
 * to the other goes round its end, on waypoints out of sight of both ends.
 */
const R = 4;
const field: Polygon = {
  outer: [
    [0, 0],
    [60, 0],
    [60, 26],
    [90, 26],
    [90, 0],
    [150, 0],
    [150, 60],
    [90, 60],
    [90, 34],
    [60, 34],
    [60, 60],
    [32, 60],
    [32, 24],
    [28, 24],
    [28, 60],
    [0, 60],
  ].map(([x, y]) => ({ x, y })),
  holes: [],
};
const region = new EdgeIndex([field.outer]);
const fresh = () => new FieldTravel(field, region, R);

const pose = (x: number, y: number, heading: number): Pose => ({ x, y, heading });
/** East of the slot, west of it, and in the eastern square. */
const eastOfSlot = pose(50, 50, -Math.PI / 2);
const westOfSlot = pose(10, 50, Math.PI / 2);
const below = pose(40, 8, 0);
const east = pose(120, 30, -Math.PI / 2);
const east2 = pose(110, 50, Math.PI);

function lengths(legs: ReturnType<FieldTravel['connect']>) {
  return legs?.map((c) => c.length) ?? null;
}

describe('travel through the field', () => {
  it('crosses a neck narrower than the larger clearances, keeping inside the field', () => {
    const legs = fresh().connect(westOfSlot, east);
    expect(legs).not.toBeNull();
    for (const c of legs ?? [])
      for (const piece of c.pieces) expect(region.polylineCrosses(piece.points)).toBe(false);
    const last = legs?.[legs.length - 1].pieces.at(-1)?.points.at(-1);
    expect(Math.hypot((last?.x ?? 0) - east.x, (last?.y ?? 0) - east.y)).toBeLessThan(1e-6);
  });

  it('finds the same ways when asked again as a new travel does, after searches that found none', () => {
    const travel = fresh();
    // A search across the neck goes through every waypoint of the western
    // square it can reach; the way round the slot is then asked for from the
    // same pose, which sees none of the waypoints west of the slot.
    const asked: [Pose, Pose][] = [
      [eastOfSlot, east],
      [eastOfSlot, westOfSlot],
      [east, westOfSlot],
      [below, east2],
      [westOfSlot, below],
      [east2, eastOfSlot],
      [east, east2],
    ];
    for (const [a, b] of asked) expect(lengths(travel.connect(a, b))).toEqual(lengths(fresh().connect(a, b)));
  });

  it('property: a travel asked many times answers each pair of poses as a new one does', () => {
    const inField = fc
      .tuple(fc.double({ min: 6, max: 144, noNaN: true }), fc.double({ min: 6, max: 54, noNaN: true }))
      .filter(([x, y]) => (x < 56 && (y < 20 || x < 24 || x > 36)) || x > 94 || (y > 28 && y < 32));
    const poses = fc
      .tuple(inField, fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }))
      .map(([[x, y], h]) => pose(x, y, h));
    fc.assert(
      fc.property(fc.array(fc.tuple(poses, poses), { minLength: 2, maxLength: 5 }), (pairs) => {
        const travel = fresh();
        for (const [a, b] of pairs)
          expect(lengths(travel.connect(a, b))).toEqual(lengths(fresh().connect(a, b)));
      }),
      { numRuns: 15 },
    );
  });

  it('into a dead-end strip too narrow for a loop or a three-point turn: turns round in several moves where there is room and backs up onto the end, no long reverse', () => {
    // A strip 9 m wide and 240 m long off a 60 m square, turning radius 6 m:
    // no loop, nor a turn with a cusp or two, fits in the strip. From near the strip's mouth heading in,
    // onto a pose 160 m farther in heading out.
    const r = 6;
    const strip: Polygon = {
      outer: [
        [0, 0],
        [60, 0],
        [60, 25.5],
        [300, 25.5],
        [300, 34.5],
        [60, 34.5],
        [60, 60],
        [0, 60],
      ].map(([x, y]) => ({ x, y })),
      holes: [],
    };
    const edges = new EdgeIndex([strip.outer]);
    const from = pose(90, 30, 0);
    const to = pose(250, 30, Math.PI);
    const legs = new FieldTravel(strip, edges, r).connect(from, to);
    expect(legs).not.toBeNull();
    let backwards = 0;
    let longest = 0;
    for (const c of legs ?? [])
      for (const piece of c.pieces) {
        expect(edges.polylineCrosses(piece.points)).toBe(false);
        if (!piece.reverse) continue;
        let L = 0;
        for (let i = 1; i < piece.points.length; i++)
          L += Math.hypot(
            piece.points[i].x - piece.points[i - 1].x,
            piece.points[i].y - piece.points[i - 1].y,
          );
        backwards += L;
        longest = Math.max(longest, L);
      }
    // Turning round in the square and backing 160 m onto the end is the way without turning round in the strip.
    expect(longest).toBeLessThanOrEqual(5 * r + 1e-6);
    expect(backwards).toBeLessThan(60);
    const last = legs?.[legs.length - 1].pieces.at(-1)?.points.at(-1);
    expect(Math.hypot((last?.x ?? 0) - to.x, (last?.y ?? 0) - to.y)).toBeLessThan(1e-6);
  });
});
