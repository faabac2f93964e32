/**
 * A simulated drive for field operation tests: positions sampled along route
 * parts at a fixed rate and speed, with seeded Gaussian noise on each axis,
 * as a GNSS receiver would log them.
 */
import type { Point } from '../../core/types/index.ts';

export interface DrivePart {
  points: readonly Point[];
  working: boolean;
}

export interface DrivenPoint extends Point {
  /** Seconds from the start. */
  t: number;
  working: boolean;
}

/** mulberry32: a small seeded generator in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Samples the parts one after another at `hz`, moving at `speed` [m/s], with noise of `sigma` [m] per axis. */
export function simulateDrive(
  parts: readonly DrivePart[],
  opts: { hz?: number; speed?: number; sigma?: number; seed?: number } = {},
): DrivenPoint[] {
  const hz = opts.hz ?? 10;
  const step = (opts.speed ?? 2.5) / hz;
  const sigma = opts.sigma ?? 0.3;
  const rnd = seededRandom(opts.seed ?? 1);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const out: DrivenPoint[] = [];
  let t = 0;
  for (const part of parts) {
    const p = part.points;
    let carry = 0;
    for (let i = 1; i < p.length; i++) {
      const dx = p[i].x - p[i - 1].x;
      const dy = p[i].y - p[i - 1].y;
      const l = Math.hypot(dx, dy);
      let s = carry;
      for (; s < l; s += step) {
        out.push({
          x: p[i - 1].x + (dx * s) / l + sigma * gauss(),
          y: p[i - 1].y + (dy * s) / l + sigma * gauss(),
          t,
          working: part.working,
        });
        t += 1 / hz;
      }
      carry = s - l;
    }
    // The part's end, so a working part is logged to its end.
    const end = p[p.length - 1];
    out.push({ x: end.x + sigma * gauss(), y: end.y + sigma * gauss(), t, working: part.working });
    t += 1 / hz;
  }
  return out;
}
