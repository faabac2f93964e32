/**
 * Short lists of numbers sorted ascending in place, as
 * `xs.sort((a, b) => a - b)` sorts them (stably: equal numbers, +0 and -0
 * among them, keep their order), without the copy the builtin sort makes
 * of every list it is given: the scan of a field sorts thousands of lists
 * of two to a few crossings.
 */

/** Lists longer than this go to the builtin sort. */
const INSERTION_MAX = 24;

export function sortNumbers(xs: number[]): number[] {
  const n = xs.length;
  if (n > INSERTION_MAX) return xs.sort((a, b) => a - b);
  for (let i = 1; i < n; i++) {
    const x = xs[i];
    let j = i - 1;
    while (j >= 0 && xs[j] - x > 0) {
      xs[j + 1] = xs[j];
      j--;
    }
    xs[j + 1] = x;
  }
  return xs;
}
