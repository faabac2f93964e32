/**
 * Micro benchmark of the turn library: median time per call over 10,000
 * seeded random pose pairs (after a warm-up).
 *
 *   ./node_modules/.bin/node core/turn/turn.bench.ts
 */
import type { Pose } from '../types/index.ts';
import { dubinsPaths, dubinsShortest } from './dubins.ts';
import { samplePath } from './path.ts';
import { reedsSheppPaths, reedsSheppShortest } from './reeds-shepp.ts';

const N = 10_000;
const ROUNDS = 7;

/** mulberry32: a tiny seeded generator in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rnd = prng(20240601);
const from: Pose[] = [];
const to: Pose[] = [];
const radius: number[] = [];
for (let i = 0; i < N; i++) {
  // Turns at field scale: targets within 60 m, radii 3..15 m.
  const a = { x: rnd() * 1000 - 500, y: rnd() * 1000 - 500, heading: (rnd() * 2 - 1) * Math.PI };
  from.push(a);
  to.push({ x: a.x + rnd() * 120 - 60, y: a.y + rnd() * 120 - 60, heading: (rnd() * 2 - 1) * Math.PI });
  radius.push(3 + rnd() * 12);
}

let sink = 0;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Median over rounds of the median per-call time [us], each call timed on its own. */
function bench(name: string, f: (i: number) => number): void {
  for (let i = 0; i < N; i++) sink += f(i); // warm-up
  const medians: number[] = [];
  const times = new Float64Array(N);
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      sink += f(i);
      times[i] = performance.now() - t0;
    }
    medians.push(median(Array.from(times)) * 1000);
  }
  // Whole-loop mean as a cross-check of the per-call timing.
  const t0 = performance.now();
  for (let i = 0; i < N; i++) sink += f(i);
  const mean = ((performance.now() - t0) / N) * 1000;
  console.log(
    `${name.padEnd(20)} median ${median(medians).toFixed(3)} us/call   mean ${mean.toFixed(3)} us/call`,
  );
}

bench('dubinsPaths', (i) => dubinsPaths(from[i], to[i], radius[i]).length);
bench('dubinsShortest', (i) => dubinsShortest(from[i], to[i], radius[i])?.length ?? 0);
bench('reedsSheppPaths', (i) => reedsSheppPaths(from[i], to[i], radius[i]).length);
bench('reedsSheppShortest', (i) => reedsSheppShortest(from[i], to[i], radius[i])?.length ?? 0);
bench('samplePath (RS best)', (i) => {
  const p = reedsSheppShortest(from[i], to[i], radius[i]);
  return p ? samplePath(from[i], p, radius[i]).length : 0;
});
if (sink === -1) console.log(sink);
