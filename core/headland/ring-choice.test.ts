import { describe, expect, it } from 'vitest';
import type { Point } from '../types/index.ts';
import { RingChoice } from './ring-choice.ts';

const box = (x0: number, y0: number, x1: number, y1: number): Point[] => [
  { x: x0, y: y0 },
  { x: x1, y: y0 },
  { x: x1, y: y1 },
  { x: x0, y: y1 },
];

describe('RingChoice', () => {
  it('drives the ring on the planned line, not one pulled in all round', () => {
    const c = new RingChoice([box(0, 0, 100, 60)], 6);
    c.add([box(2, 2, 98, 58)]);
    c.add([box(0, 0, 100, 60)]);
    expect(c.choose()).toEqual([box(0, 0, 100, 60)]);
  });

  it('keeps the pieces on both sides of a neck on the line rather than one ring pulled in', () => {
    // Two blocks joined by a neck: the planned pass goes round both.
    const planned: Point[] = [
      { x: 0, y: 0 },
      { x: 50, y: 0 },
      { x: 50, y: 27 },
      { x: 60, y: 27 },
      { x: 60, y: 0 },
      { x: 110, y: 0 },
      { x: 110, y: 60 },
      { x: 60, y: 60 },
      { x: 60, y: 33 },
      { x: 50, y: 33 },
      { x: 50, y: 60 },
      { x: 0, y: 60 },
    ];
    const c = new RingChoice([planned], 6);
    // One ring through the neck, 2 m inside the line everywhere.
    c.add([
      [
        { x: 2, y: 2 },
        { x: 48, y: 2 },
        { x: 48, y: 29 },
        { x: 62, y: 29 },
        { x: 62, y: 2 },
        { x: 108, y: 2 },
        { x: 108, y: 58 },
        { x: 62, y: 58 },
        { x: 62, y: 31 },
        { x: 48, y: 31 },
        { x: 48, y: 58 },
        { x: 2, y: 58 },
      ],
    ]);
    // The two blocks, on the line but for the neck.
    c.add([box(0, 0, 50, 60), box(60, 0, 110, 60)]);
    expect(c.choose()).toEqual([box(0, 0, 50, 60), box(60, 0, 110, 60)]);
    expect(c.followsAll([box(0, 0, 50, 60), box(60, 0, 110, 60)])).toBe(true);
    expect(c.followsAll([box(0, 0, 50, 60)])).toBe(false);
  });

  it('adds a ring of another set along a part no chosen ring follows, never one crossing or inside a chosen one', () => {
    const c = new RingChoice([box(0, 0, 100, 60), box(200, 0, 240, 40)], 6);
    c.add([box(0, 0, 100, 60)]);
    c.add([box(3, 3, 97, 57), box(202, 2, 238, 38)]);
    const chosen = c.choose();
    expect(chosen).toEqual([box(0, 0, 100, 60), box(202, 2, 238, 38)]);
  });
});
