import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortNumbers } from './sort-numbers.ts';

describe('sortNumbers', () => {
  it('orders a list as the builtin sort with (a, b) => a - b does, +0 and -0 in place', () => {
    const number = fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -0, 1, -1, 0.5));
    fc.assert(
      fc.property(fc.array(number, { maxLength: 60 }), (xs) => {
        const want = xs.slice().sort((a, b) => a - b);
        const got = sortNumbers(xs.slice());
        expect(got.length).toBe(want.length);
        for (let i = 0; i < want.length; i++) expect(Object.is(got[i], want[i])).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('sorts in place and returns the list', () => {
    const xs = [3, -1, 2];
    expect(sortNumbers(xs)).toBe(xs);
    expect(xs).toEqual([-1, 2, 3]);
  });
});
