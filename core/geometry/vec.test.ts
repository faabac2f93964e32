import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dist, hypot } from './vec.ts';

describe('hypot', () => {
  it('is Math.hypot to the bit, for every pair of doubles', () => {
    fc.assert(
      fc.property(fc.double(), fc.double(), (x, y) => {
        expect(Object.is(hypot(x, y), Math.hypot(x, y))).toBe(true);
      }),
      { numRuns: 20000 },
    );
  });

  it('follows the Infinity, NaN and zero rules of Math.hypot', () => {
    const special = [0, -0, 1, -1, 5e-324, 1e-310, 1.7976931348623157e308, Infinity, -Infinity, NaN];
    for (const x of special)
      for (const y of special) expect(Object.is(hypot(x, y), Math.hypot(x, y)), `${x}, ${y}`).toBe(true);
    // Infinity wins over NaN, as in the builtin.
    expect(hypot(Number.NaN, Number.NEGATIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
  });

  it('neither overflows nor underflows where the squares would', () => {
    expect(hypot(3e200, 4e200) / 5e200).toBeCloseTo(1, 14);
    expect(hypot(3e-200, 4e-200) / 5e-200).toBeCloseTo(1, 14);
    expect(dist({ x: 1e-200, y: 0 }, { x: 0, y: 0 })).toBe(1e-200);
  });
});
