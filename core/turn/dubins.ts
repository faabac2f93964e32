/**
 * Dubins paths: the shortest forward-only paths between two poses with a
 * minimum turning radius (Dubins 1957). The optimum is one of six words,
 * CSC (LSL, RSR, LSR, RSL) or CCC (RLR, LRL); each has a closed form from
 * the circles the path starts and ends on (Shkel and Lumelsky 2001).
 *
 * Work in the start's frame, scaled by the radius: the start is the origin
 * heading +x, its left circle is centred at (0, 1) and its right circle at
 * (0, -1); the goal (x, y, phi) has its left circle at (x - sin phi,
 * y + cos phi) and its right circle at (x + sin phi, y - cos phi). On a left
 * circle the point at polar angle a (from the centre) has heading a + pi/2,
 * on a right circle a - pi/2.
 *
 *   CSC, same sides (LSL): the straight is the outer tangent, heading along
 *   the centre line:      psi = atan2(C2 - C1)            |C2 - C1| = u
 *   CSC, other sides (LSR): the inner tangent, with D = |C2 - C1| >= 2:
 *                         u = sqrt(D^2 - 4), psi = atan2(C2 - C1) + atan2(2, u)
 *   CCC (LRL): the middle circle touches both, its centre 2 from each:
 *                         C1 -> C2 at atan2(C3 - C1) +- acos(D / 4)
 * and the arcs are the heading changes between the tangent points.
 */
import { PlanningError, type Pose } from '../types/index.ts';
import { MIN_SEGMENT_LENGTH, type Segment, type SegmentType, type TurnPath } from './path.ts';

const PI = Math.PI;
const TAU = 2 * PI;
const HALF_PI = PI / 2;

/** Arcs this close to a full turn [rad] are rounding noise around zero turn. */
const FULL_TURN_SNAP = 1e-10;

/** Heading change in [0, 2 pi) of a forward left turn from 0 to a. */
function mod2pi(a: number): number {
  let r = a % TAU;
  if (r < 0) r += TAU;
  return r > TAU - FULL_TURN_SNAP ? 0 : r;
}

const WORDS = ['LSL', 'RSR', 'LSR', 'RSL', 'RLR', 'LRL'] as const;
const LETTERS: SegmentType[][] = WORDS.map((w) => w.split('') as SegmentType[]);

/**
 * Lengths of the three segments of each word [m], 0 where dropped; TOTAL is
 * their sum, as the built path's length, NaN when the word has no solution.
 */
const LEN = new Float64Array(18);
const TOTAL = new Float64Array(6);
/** Radius of the current problem [m]. */
const RADIUS = new Float64Array(1);

function validate(from: Pose, to: Pose, radius: number): void {
  if (!(radius > 0) || !Number.isFinite(radius))
    throw new PlanningError('INVALID_OPTION', `turning radius must be a finite number > 0 m, got ${radius}`, {
      path: 'radius',
    });
  if (!Number.isFinite(from.x + from.y + from.heading) || !Number.isFinite(to.x + to.y + to.heading))
    throw new PlanningError('INVALID_OPTION', 'turn poses must have finite x, y and heading', {
      path: 'pose',
    });
}

/** Store word w from its lengths [radius units], dropping segments shorter than MIN_SEGMENT_LENGTH. */
function set(w: number, t: number, u: number, v: number): void {
  const r = RADIUS[0];
  let total = 0;
  let l = t * r;
  if (l < MIN_SEGMENT_LENGTH) l = 0;
  LEN[3 * w] = l;
  total += l;
  l = u * r;
  if (l < MIN_SEGMENT_LENGTH) l = 0;
  LEN[3 * w + 1] = l;
  total += l;
  l = v * r;
  if (l < MIN_SEGMENT_LENGTH) l = 0;
  LEN[3 * w + 2] = l;
  TOTAL[w] = total + l;
}

/** Fill LEN and TOTAL for all six words. */
function solveAll(from: Pose, to: Pose, r: number): void {
  RADIUS[0] = r;
  const c = Math.cos(from.heading);
  const s = Math.sin(from.heading);
  const dx = (to.x - from.x) / r;
  const dy = (to.y - from.y) / r;
  const x = dx * c + dy * s;
  const y = dy * c - dx * s;
  const phi = to.heading - from.heading;
  const sp = Math.sin(phi);
  const cp = Math.cos(phi);
  // A straight shorter than this [radius units] is dropped; its direction is then free.
  const tiny = MIN_SEGMENT_LENGTH / r;

  // Goal left circle seen from the start's left circle (LSL, LRL) and right circle (RSL).
  const llx = x - sp;
  const lly = y + cp - 1;
  // Goal right circle seen from the start's right circle (RSR, RLR) and left circle (LSR).
  const rrx = x + sp;
  const rry = y - cp + 1;
  const ll = Math.sqrt(llx * llx + lly * lly);
  const rr = Math.sqrt(rrx * rrx + rry * rry);
  const llTh = Math.atan2(lly, llx);
  const rrTh = Math.atan2(rry, rrx);

  // LSL
  {
    const psi = ll > tiny ? llTh : 0;
    set(0, mod2pi(psi), ll, mod2pi(phi - psi));
  }
  // RSR
  {
    const psi = rr > tiny ? rrTh : 0;
    set(1, mod2pi(-psi), rr, mod2pi(psi - phi));
  }
  // LSR: start left circle (0, 1) to goal right circle.
  {
    const vx = x + sp;
    const vy = y - cp - 1;
    const q = vx * vx + vy * vy - 4;
    if (q >= -4e-12) {
      const u = q > 0 ? Math.sqrt(q) : 0;
      const psi = Math.atan2(vy, vx) + Math.atan2(2, u);
      set(2, mod2pi(psi), u, mod2pi(psi - phi));
    } else TOTAL[2] = Number.NaN;
  }
  // RSL: start right circle (0, -1) to goal left circle.
  {
    const vx = x - sp;
    const vy = y + cp + 1;
    const q = vx * vx + vy * vy - 4;
    if (q >= -4e-12) {
      const u = q > 0 ? Math.sqrt(q) : 0;
      const psi = Math.atan2(vy, vx) - Math.atan2(2, u);
      set(3, mod2pi(-psi), u, mod2pi(phi - psi));
    } else TOTAL[3] = Number.NaN;
  }
  // RLR: right circles 4 apart at most; the middle (left) circle on either side of their centre line.
  TOTAL[4] = Number.NaN;
  if (rr <= 4 + 4e-12) {
    let best = Number.POSITIVE_INFINITY;
    const a = Math.acos(Math.min(1, rr / 4));
    for (let k = -1; k <= 1; k += 2) {
      const psi1 = rrTh + k * a - HALF_PI;
      const psi2 = rrTh - k * a + HALF_PI;
      const t = mod2pi(-psi1);
      const u = mod2pi(psi2 - psi1);
      const v = mod2pi(psi2 - phi);
      if (!(t + u + v >= best)) {
        best = t + u + v;
        set(4, t, u, v);
      }
    }
  }
  // LRL
  TOTAL[5] = Number.NaN;
  if (ll <= 4 + 4e-12) {
    let best = Number.POSITIVE_INFINITY;
    const a = Math.acos(Math.min(1, ll / 4));
    for (let k = -1; k <= 1; k += 2) {
      const psi1 = llTh + k * a + HALF_PI;
      const psi2 = llTh - k * a - HALF_PI;
      const t = mod2pi(psi1);
      const u = mod2pi(psi1 - psi2);
      const v = mod2pi(phi - psi2);
      if (!(t + u + v >= best)) {
        best = t + u + v;
        set(5, t, u, v);
      }
    }
  }
}

function build(w: number): TurnPath {
  const letters = LETTERS[w];
  const o = 3 * w;
  const n = (LEN[o] > 0 ? 1 : 0) + (LEN[o + 1] > 0 ? 1 : 0) + (LEN[o + 2] > 0 ? 1 : 0);
  const segments: Segment[] = new Array(n);
  let k = 0;
  for (let i = 0; i < 3; i++) {
    const len = LEN[o + i];
    if (len > 0) segments[k++] = { type: letters[i], length: len, reverse: false };
  }
  return { segments, length: TOTAL[w], word: WORDS[w] };
}

const ORDER = new Uint8Array(6);

/**
 * All Dubins words that connect the poses (LSL and RSR always; LSR and RSL
 * when their circles are at least 2R apart; RLR and LRL when at most 4R
 * apart), shortest first. `word` names the family; segments shorter than
 * MIN_SEGMENT_LENGTH are left out, so a word may have fewer than three.
 */
export function dubinsPaths(from: Pose, to: Pose, radius: number): TurnPath[] {
  validate(from, to, radius);
  solveAll(from, to, radius);
  let n = 0;
  for (let w = 0; w < 6; w++) {
    if (Number.isNaN(TOTAL[w])) continue;
    // Insertion by length; ties keep the word order.
    let j = n++;
    while (j > 0 && TOTAL[ORDER[j - 1]] > TOTAL[w]) {
      ORDER[j] = ORDER[j - 1];
      j--;
    }
    ORDER[j] = w;
  }
  const out: TurnPath[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = build(ORDER[i]);
  return out;
}

/** The length of the shortest Dubins path [m] (dubinsShortest's, without building it); Infinity where none is. */
export function dubinsShortestLength(from: Pose, to: Pose, radius: number): number {
  validate(from, to, radius);
  solveAll(from, to, radius);
  let best = -1;
  for (let w = 0; w < 6; w++) if (!Number.isNaN(TOTAL[w]) && (best < 0 || TOTAL[w] < TOTAL[best])) best = w;
  return best < 0 ? Number.POSITIVE_INFINITY : TOTAL[best];
}

/** The shortest Dubins path; null only for input with no path (never for finite poses). */
export function dubinsShortest(from: Pose, to: Pose, radius: number): TurnPath | null {
  validate(from, to, radius);
  solveAll(from, to, radius);
  let best = -1;
  for (let w = 0; w < 6; w++) if (!Number.isNaN(TOTAL[w]) && (best < 0 || TOTAL[w] < TOTAL[best])) best = w;
  return best < 0 ? null : build(best);
}
