/**
 * Reeds-Shepp paths: the shortest paths between two poses for a car that
 * drives forwards and backwards with a minimum turning radius (Reeds and
 * Shepp 1990). The optimum is a word of at most five segments from a few
 * families: CSC, CCC (C|C|C, C|CC, CC|C), CC|CC, C|CC|C, C|C(pi/2)SC and
 * its reverse CSC(pi/2)|C, and C|C(pi/2)SC(pi/2)|C ('|' a cusp).
 *
 * Work in the start's frame, scaled by the radius: start at the origin
 * heading +x, its left circle centred at C1 = (0, 1); the goal (x, y, phi)
 * has its left circle at (x - sin phi, y + cos phi) and its right circle at
 * (x + sin phi, y - cos phi). Arc lengths are signed (negative: reversing);
 * a left arc of signed length a turns the heading by +a, a right arc by -a.
 * On a left circle the point at polar angle a has heading a + pi/2, on a
 * right circle a - pi/2, whatever the direction of travel.
 *
 * Every family is a chain of circles of radius 1 whose centres touch (are 2
 * apart) or are joined by a tangent. The chain fixes the middle arcs; the
 * first and last arcs (and every arc of CSC and CCC) only have to reach a
 * tangent point, so each is driven the shorter way round, forwards or
 * backwards ("free" arcs, |a| <= pi). That covers every sign pattern of
 * CSC and CCC at once, with both tangents and both middle circles.
 *
 * The other families are solved for a start on its left circle and mapped
 * to the rest by the three symmetries of the problem:
 *   time-flip  (x, y, phi) -> (-x, y, -phi):  every length negated;
 *   reflection (x, y, phi) -> (x, -y, -phi):  L and R swapped;
 *   backwards  (x, y, phi) -> (x cos phi + y sin phi, x sin phi - y cos phi, phi):
 *              the word read in reverse order (the goal-to-start path, time-flipped).
 *
 * Chains, with d1 the direction from C1 to the second centre:
 *   CC|CC   L+ R+u L-u R-:   |C1 C4| = 2 |2 cos u - 1|, C1 -> C4 at d1 - u (+pi if 2 cos u < 1)
 *   C|CC|C  L+ R-u L-u R+:   |C1 C4|^2 = 4 (5 - 4 cos u), C1 -> C4 at d1 - atan2(sin u, 2 - cos u)
 *   C|C(pi/2)SC:  L+ R-(pi/2) S-u L-:  C1 -> C4 = (2 + u, -2) turned by d1
 *                 L+ R-(pi/2) S-u R-:  C1 -> C4 = (2 + u, 0) turned by d1
 *   C|C(pi/2)SC(pi/2)|C  L+ R-(pi/2) S-u L-(pi/2) R+:  C1 -> C5 = (4 + u, -2) turned by d1
 * and the first arc ends where the start circle touches the chain, at heading d1 + pi/2.
 */
import { PlanningError, type Pose } from '../types/index.ts';
import { MIN_SEGMENT_LENGTH, type Segment, type SegmentType, type TurnPath } from './path.ts';

const PI = Math.PI;
const TAU = 2 * PI;
const HALF_PI = PI / 2;

/** Slack on the existence conditions [radius units]; a path found this far out misses by about as much. */
const SLACK = 1e-12;

// Segment kinds.
const L = 0;
const S = 1;
const R = 2;
const LETTER: SegmentType[] = ['L', 'S', 'R'];

// Canonical words (start on a left circle), as kinds.
const LSL = 0;
const LSR = 1;
const LRL = 2;
const LRLR = 3;
const LRSL = 4;
const LRSR = 5;
const LRSLR = 6;
const PATTERNS = [
  [L, S, L],
  [L, S, R],
  [L, R, L],
  [L, R, L, R],
  [L, R, S, L],
  [L, R, S, R],
  [L, R, S, L, R],
];
const MAX_SEGMENTS = 5;
const PATTERN_KIND = new Uint8Array(PATTERNS.length * MAX_SEGMENTS);
const PATTERN_SIZE = new Uint8Array(PATTERNS.length);
PATTERNS.forEach((p, i) => {
  PATTERN_SIZE[i] = p.length;
  p.forEach((k, j) => {
    PATTERN_KIND[i * MAX_SEGMENTS + j] = k;
  });
});

// Symmetry flags of a candidate.
const TIME_FLIP = 1;
const REFLECT = 2;
const BACKWARDS = 4;

const MAX_CANDIDATES = 64;

/*
 * Candidate store, flat and reused: signed lengths [radius units] in the
 * canonical frame, word, symmetry flags, total length. COUNT[0] is the
 * number stored; MIN_LEN[0] the length [radius units] below which a segment
 * is dropped.
 */
const cLen = new Float64Array(MAX_CANDIDATES * MAX_SEGMENTS);
const cPattern = new Uint8Array(MAX_CANDIDATES);
const cFlags = new Uint8Array(MAX_CANDIDATES);
const cTotal = new Float64Array(MAX_CANDIDATES);
const COUNT = new Int32Array(1);
const MIN_LEN = new Float64Array(1);

/** Signed arc in (-pi, pi] with the same end as a: the shorter way round. */
function free(a: number): number {
  // Arguments are sums of a few angles: a step or two, cheaper than %.
  while (a > PI) a -= TAU;
  while (a <= -PI) a += TAU;
  return a;
}

/** |a| if the segment is kept, else 0. */
function kept(a: number): number {
  const m = a < 0 ? -a : a;
  return m < MIN_LEN[0] ? 0 : m;
}

function put3(flags: number, pattern: number, a: number, b: number, c: number): void {
  const i = COUNT[0]++;
  const o = i * MAX_SEGMENTS;
  cLen[o] = a;
  cLen[o + 1] = b;
  cLen[o + 2] = c;
  cPattern[i] = pattern;
  cFlags[i] = flags;
  cTotal[i] = kept(a) + kept(b) + kept(c);
}

function put4(flags: number, pattern: number, a: number, b: number, c: number, d: number): void {
  const i = COUNT[0]++;
  const o = i * MAX_SEGMENTS;
  cLen[o] = a;
  cLen[o + 1] = b;
  cLen[o + 2] = c;
  cLen[o + 3] = d;
  cPattern[i] = pattern;
  cFlags[i] = flags;
  cTotal[i] = kept(a) + kept(b) + kept(c) + kept(d);
}

/**
 * CSC with a left start circle, every tangent: to the goal's left circle
 * (outer tangents: forwards along the centre line, or backwards along the
 * other side) and to its right circle (inner tangents, centres >= 2 apart).
 */
function csc(f: number, phi: number, lRho: number, lTh: number, rRho: number, rTh: number): void {
  // When the circles coincide (the straight is dropped) the direction of the centre line is noise:
  // take the start heading, so the word is the single arc it should be.
  let psi = lRho < MIN_LEN[0] ? 0 : lTh;
  put3(f, LSL, free(psi), lRho, free(phi - psi));
  psi += PI;
  put3(f, LSL, free(psi), -lRho, free(phi - psi));
  const q = rRho * rRho - 4;
  if (q >= -4 * SLACK) {
    const u = q > 0 ? Math.sqrt(q) : 0;
    const a = Math.atan2(2, u);
    psi = rTh + a;
    put3(f, LSR, free(psi), u, free(psi - phi));
    psi = rTh + PI - a;
    put3(f, LSR, free(psi), -u, free(psi - phi));
  }
}

/** CCC, left-right-left: the middle circle touches both, on either side of their centre line. */
function ccc(f: number, phi: number, lRho: number, lTh: number): void {
  if (lRho > 4 + SLACK) return;
  const a = Math.acos(Math.min(1, lRho / 4));
  for (let k = -1; k <= 1; k += 2) {
    const psi1 = lTh + k * a + HALF_PI;
    const psi2 = lTh - k * a - HALF_PI;
    put3(f, LRL, free(psi1), free(psi1 - psi2), free(phi - psi2));
  }
}

/** CC|CC: L R+u L-u R, both roots of 2 cos u - 1 = +-|C1 C4| / 2. */
function ccCc(f: number, phi: number, rRho: number, rTh: number): void {
  for (let k = 1; k >= -1; k -= 2) {
    const cu = (2 + k * rRho) / 4;
    if (cu > 1 + SLACK || cu < -1 - SLACK) continue;
    const u = Math.acos(Math.max(-1, Math.min(1, cu)));
    const psi1 = rTh + u + (k > 0 ? HALF_PI : -HALF_PI);
    put4(f, LRLR, free(psi1), u, -u, free(psi1 - 2 * u - phi));
  }
}

/** C|CC|C: L R-u L-u R. */
function cCcC(f: number, phi: number, rRho: number, rTh: number): void {
  const cu = (20 - rRho * rRho) / 16;
  if (cu > 1 + SLACK || cu < -1 - SLACK) return;
  const c = Math.max(-1, Math.min(1, cu));
  const u = Math.acos(c);
  const psi1 = rTh + Math.atan2(Math.sqrt(1 - c * c), 2 - c) + HALF_PI;
  put4(f, LRLR, free(psi1), -u, -u, free(psi1 - phi));
}

/** C|C(pi/2)SC, ending on the goal's left circle (L R- S- L) or right circle (L R- S- R). */
function ccsc(f: number, phi: number, lRho: number, lTh: number, rRho: number, rTh: number): void {
  const q = lRho * lRho - 4;
  if (q > 0) {
    let u = Math.sqrt(q) - 2;
    if (u >= -SLACK) {
      if (u < 0) u = 0;
      const psi1 = lTh + Math.atan2(2, u + 2) + HALF_PI;
      put4(f, LRSL, free(psi1), -HALF_PI, -u, free(phi - psi1 - HALF_PI));
    }
  }
  let u = rRho - 2;
  if (u >= -SLACK) {
    if (u < 0) u = 0;
    const psi1 = rTh + HALF_PI;
    put4(f, LRSR, free(psi1), -HALF_PI, -u, free(psi1 + HALF_PI - phi));
  }
}

/** C|C(pi/2)SC(pi/2)|C: L R-(pi/2) S-u L-(pi/2) R. */
function ccscc(f: number, phi: number, rRho: number, rTh: number): void {
  const q = rRho * rRho - 4;
  if (q <= 0) return;
  let u = Math.sqrt(q) - 4;
  if (u < -SLACK) return;
  if (u < 0) u = 0;
  const psi1 = rTh + Math.atan2(2, u + 4) + HALF_PI;
  const i = COUNT[0]++;
  const o = i * MAX_SEGMENTS;
  const a = free(psi1);
  const e = free(psi1 - phi);
  cLen[o] = a;
  cLen[o + 1] = -HALF_PI;
  cLen[o + 2] = -u;
  cLen[o + 3] = -HALF_PI;
  cLen[o + 4] = e;
  cPattern[i] = LRSLR;
  cFlags[i] = f;
  cTotal[i] = kept(a) + PI + kept(u) + kept(e);
}

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

/** Fill the candidate store with every family under every symmetry it needs. */
function collect(from: Pose, to: Pose, r: number): void {
  validate(from, to, r);
  COUNT[0] = 0;
  MIN_LEN[0] = MIN_SEGMENT_LENGTH / r;
  const c = Math.cos(from.heading);
  const s = Math.sin(from.heading);
  const dx = (to.x - from.x) / r;
  const dy = (to.y - from.y) / r;
  const x = dx * c + dy * s;
  const y = dy * c - dx * s;
  const phi = free(to.heading - from.heading);
  const sp = Math.sin(phi);
  const cp = Math.cos(phi);
  for (let b = 0; b < 2; b++) {
    const gx = b ? x * cp + y * sp : x;
    const gy = b ? x * sp - y * cp : y;
    // The goal's left/right circle seen from the start's left/right circle (0, +-1).
    const llx = gx - sp;
    const lly = gy + cp - 1;
    const lrx = gx + sp;
    const lry = gy - cp - 1;
    const rlx = gx - sp;
    const rly = gy + cp + 1;
    const rrx = gx + sp;
    const rry = gy - cp + 1;
    const ll = Math.sqrt(llx * llx + lly * lly);
    const lr = Math.sqrt(lrx * lrx + lry * lry);
    const rl = Math.sqrt(rlx * rlx + rly * rly);
    const rr = Math.sqrt(rrx * rrx + rry * rry);
    const llTh = Math.atan2(lly, llx);
    const lrTh = Math.atan2(lry, lrx);
    const rlTh = Math.atan2(rly, rlx);
    const rrTh = Math.atan2(rry, rrx);
    for (let v = 0; v < 4; v++) {
      const f = v | (b ? BACKWARDS : 0);
      // The symmetric goal's circles seen from the start's left circle: time-flip mirrors x,
      // reflection swaps the sides and mirrors y.
      let lRho: number;
      let lTh: number;
      let rRho: number;
      let rTh: number;
      let gphi = phi;
      if (v === 0) {
        lRho = ll;
        lTh = llTh;
        rRho = lr;
        rTh = lrTh;
      } else if (v === TIME_FLIP) {
        lRho = ll;
        lTh = PI - llTh;
        rRho = lr;
        rTh = PI - lrTh;
        gphi = -phi;
      } else if (v === REFLECT) {
        lRho = rr;
        lTh = -rrTh;
        rRho = rl;
        rTh = -rlTh;
        gphi = -phi;
      } else {
        lRho = rr;
        lTh = rrTh + PI;
        rRho = rl;
        rTh = rlTh + PI;
      }
      if (!b) {
        // CSC and CCC cover every direction already; only their mirror image is new.
        if (!(v & TIME_FLIP)) {
          csc(f, gphi, lRho, lTh, rRho, rTh);
          ccc(f, gphi, lRho, lTh);
        }
        // These read the same backwards (up to the other symmetries).
        ccCc(f, gphi, rRho, rTh);
        cCcC(f, gphi, rRho, rTh);
        ccscc(f, gphi, rRho, rTh);
      }
      ccsc(f, gphi, lRho, lTh, rRho, rTh);
    }
  }
}

// Candidates in the frame of the problem: kinds and signed lengths [radius units], word codes.
const nKind = new Uint8Array(MAX_CANDIDATES * MAX_SEGMENTS);
const nLen = new Float64Array(MAX_CANDIDATES * MAX_SEGMENTS);
const nCount = new Uint8Array(MAX_CANDIDATES);
const nCode = new Uint32Array(MAX_CANDIDATES);
/** Length [m] of the normalized candidate, summed as the built path's length. */
const nMetres = new Float64Array(MAX_CANDIDATES);

/**
 * Map candidate i back from its canonical frame: order reversed (backwards),
 * sides swapped (reflection), lengths negated (time-flip); segments below
 * the minimum dropped and neighbours of equal kind and direction merged.
 */
function normalize(i: number, r: number): void {
  const f = cFlags[i];
  const p = cPattern[i];
  const n = PATTERN_SIZE[p];
  const src = i * MAX_SEGMENTS;
  const kinds = p * MAX_SEGMENTS;
  const minLen = MIN_LEN[0];
  let m = 0;
  let code = 0;
  for (let s = 0; s < n; s++) {
    const j = f & BACKWARDS ? n - 1 - s : s;
    const len = f & TIME_FLIP ? -cLen[src + j] : cLen[src + j];
    if ((len < 0 ? -len : len) < minLen) continue;
    let k = PATTERN_KIND[kinds + j];
    if (f & REFLECT) k = 2 - k;
    const last = src + m - 1;
    if (m > 0 && nKind[last] === k && nLen[last] < 0 === len < 0) {
      nLen[last] += len;
    } else {
      nKind[src + m] = k;
      nLen[src + m] = len;
      m++;
    }
  }
  // Word code: base 7, a digit per segment: 1 + 2 kind + (reversing ? 1 : 0).
  let metres = 0;
  for (let s = 0; s < m; s++) {
    const l = nLen[src + s];
    code = code * 7 + 1 + 2 * nKind[src + s] + (l < 0 ? 1 : 0);
    metres += (l < 0 ? -l : l) * r;
  }
  nCount[i] = m;
  nCode[i] = code;
  nMetres[i] = metres;
}

/** Same word and the same lengths within rounding (both normalized). */
function same(a: number, b: number): boolean {
  if (nCode[a] !== nCode[b]) return false;
  const ba = a * MAX_SEGMENTS;
  const bb = b * MAX_SEGMENTS;
  for (let i = 0; i < nCount[a]; i++) if (Math.abs(nLen[ba + i] - nLen[bb + i]) > 1e-9) return false;
  return true;
}

const wordCache = new Map<number, string>();

function wordOf(i: number): string {
  let w = wordCache.get(nCode[i]);
  if (w === undefined) {
    w = '';
    const base = i * MAX_SEGMENTS;
    for (let k = 0; k < nCount[i]; k++) w += LETTER[nKind[base + k]] + (nLen[base + k] < 0 ? '-' : '+');
    wordCache.set(nCode[i], w);
  }
  return w;
}

/** TurnPath of normalized candidate i. */
function build(i: number, r: number): TurnPath {
  const n = nCount[i];
  const base = i * MAX_SEGMENTS;
  const segments: Segment[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const l = nLen[base + k];
    segments[k] = { type: LETTER[nKind[base + k]], length: (l < 0 ? -l : l) * r, reverse: l < 0 };
  }
  return { segments, length: nMetres[i], word: wordOf(i) };
}

const ORDER = new Uint8Array(MAX_CANDIDATES);

/** Candidate a comes before b: shorter, or as long and generated first. */
function before(a: number, b: number): boolean {
  return nMetres[a] < nMetres[b] || (nMetres[a] === nMetres[b] && a < b);
}

/**
 * Every candidate Reeds-Shepp path between the poses, shortest first,
 * without duplicates (equal words with equal lengths). Words carry the
 * driving direction of each segment, e.g. 'L+R-L+'; a zero-length path
 * (from equals to) has no segments and the word ''.
 */
export function reedsSheppPaths(from: Pose, to: Pose, radius: number): TurnPath[] {
  collect(from, to, radius);
  const count = COUNT[0];
  // Insertion sort by length.
  for (let i = 0; i < count; i++) {
    normalize(i, radius);
    let j = i;
    while (j > 0 && before(i, ORDER[j - 1])) {
      ORDER[j] = ORDER[j - 1];
      j--;
    }
    ORDER[j] = i;
  }
  const out: TurnPath[] = [];
  // Same within 1e-9 per segment [radius units] is a duplicate; their lengths then differ by less than this [m].
  const tol = 1.01e-9 * MAX_SEGMENTS * radius;
  for (let a = 0; a < count; a++) {
    const i = ORDER[a];
    let dup = false;
    // Duplicates have equal lengths, so they sit together in the order.
    for (let b = a - 1; b >= 0 && nMetres[i] - nMetres[ORDER[b]] <= tol; b--) {
      if (same(i, ORDER[b])) {
        dup = true;
        break;
      }
    }
    if (!dup) out.push(build(i, radius));
  }
  return out;
}

/**
 * The shortest Reeds-Shepp path (the first of reedsSheppPaths); null only
 * for input with no path (never for finite poses).
 */
export function reedsSheppShortest(from: Pose, to: Pose, radius: number): TurnPath | null {
  collect(from, to, radius);
  const count = COUNT[0];
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < count; i++) if (cTotal[i] < min) min = cTotal[i];
  // Only candidates within rounding of the shortest can be first once lengths are in metres.
  let best = -1;
  for (let i = 0; i < count; i++) {
    if (cTotal[i] - min > 1e-9) continue;
    normalize(i, radius);
    if (best < 0 || before(i, best)) best = i;
  }
  return best < 0 ? null : build(best, radius);
}
