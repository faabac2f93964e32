/** Hashing of numbers by their bits, for caches keyed by exact coordinates. */

const BITS = new Float64Array(1);
const WORDS = new Int32Array(BITS.buffer);

/** Mixes a number's bits into the hash h (0 and -0 alike). */
export function mixNumber(h: number, v: number): number {
  BITS[0] = v + 0;
  h = Math.imul(h ^ WORDS[0], 0x9e3779b1);
  return Math.imul(h ^ WORDS[1], 0x85ebca6b);
}
