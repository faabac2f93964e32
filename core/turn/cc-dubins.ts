/**
 * Continuous-curvature Dubins paths (CC-Dubins, after Fraichard and Scheuer,
 * IEEE T-RO 20(6), 2004): forward paths whose curvature is continuous, at
 * most kmax = 1 / radius, and changes at most sigma [1/m^2] per metre.
 * Every turn is a CC turn: a clothoid from curvature 0 up to kmax, an arc of
 * radius 1/kmax, a clothoid back to 0; turns too small for two full
 * clothoids are two symmetric clothoids of a smaller sharpness.
 *
 * The key fact: a left CC turn starting at pose q (curvature 0) ends, for
 * every deflection, on the circle of radius rO around the centre
 *
 *     O = q + rot(heading) (xO, yO)    (xO, yO: end of the first clothoid
 *                                       moved 1/kmax to its left)
 *
 * with its heading at the angle mu = atan2(xO, yO) to that circle's tangent:
 *
 *          end (heading h + delta)
 *           \  mu
 *            .----.             the start sits at angle h - pi/2 - mu from
 *         .-'      `-.          O, the end at h + delta - pi/2 + mu: the
 *        /     O      \         turn sweeps delta + 2 mu around O
 *        \            /
 *  start  `-.______.-'
 *
 * So the Dubins constructions carry over with circles of radius rO and the
 * tangent headings offset by mu:
 *   LSL, RSR: the straight is parallel to the centre line, its length
 *             |O2 - O1| - 2 rO sin mu;
 *   LSR, RSL: L = sqrt(D^2 - 4 rO^2 cos^2 mu) - 2 rO sin mu,
 *             psi = atan2(O2 - O1) +- atan2(2 rO cos mu, L + 2 rO sin mu);
 *   LRL, RLR: the middle circle's centre is 2 rO from both others, the
 *             turns meet at curvature 0 with heading atan2(O3 - O1) +- (pi/2 - mu).
 * Each path found is integrated once more and kept only when it ends on the
 * goal (1e-6 m, 1e-9 rad).
 */

import { hypot } from '../geometry/vec.ts';
import { PlanningError, type Pose } from '../types/index.ts';
import { type CurvePath, type CurvePiece, MIN_PIECE_LENGTH, pieceEnd } from './clothoid.ts';

const PI = Math.PI;
const TAU = 2 * PI;
const HALF_PI = PI / 2;

/** Heading change in [0, 2 pi) of a left turn from 0 to a; values a rounding from 2 pi count as 0. */
function mod2pi(a: number): number {
  let r = a % TAU;
  if (r < 0) r += TAU;
  return r > TAU - 1e-10 ? 0 : r;
}

/** The geometry of CC turns for one radius and sharpness. */
export interface CCTurnGeometry {
  kmax: number;
  sigma: number;
  /** Length of a full clothoid from 0 to kmax [m]. */
  clothoidLength: number;
  /** Heading change of one full clothoid [rad] (kmax^2 / 2 sigma). */
  clothoidDeflection: number;
  /** Radius of the CC circle [m]. */
  rO: number;
  /** Angle between the heading at a turn's ends and the CC circle's tangent [rad]. */
  mu: number;
  /** Centre of a left turn's CC circle in the start frame [m]. */
  xO: number;
  yO: number;
  /**
   * Where a full clothoid of a left turn ends in its start frame [m]: the
   * one from curvature 0 up to kmax (rise) and the one back down (fall).
   */
  rise: { x: number; y: number };
  fall: { x: number; y: number };
}

const geometryCache = new Map<string, CCTurnGeometry>();

export function ccTurnGeometry(radius: number, sigma: number): CCTurnGeometry {
  if (!(radius > 0) || !Number.isFinite(radius))
    throw new PlanningError('INVALID_OPTION', `turning radius must be a finite number > 0 m, got ${radius}`, {
      path: 'radius',
    });
  if (!(sigma > 0) || !Number.isFinite(sigma))
    throw new PlanningError(
      'INVALID_OPTION',
      `curvature rate must be a finite number > 0 1/m^2, got ${sigma}`,
      { path: 'maxCurvatureRate' },
    );
  const key = `${radius}/${sigma}`;
  const hit = geometryCache.get(key);
  if (hit) return hit;
  const kmax = 1 / radius;
  const lc = kmax / sigma;
  const e = pieceEnd({ x: 0, y: 0, heading: 0 }, { k0: 0, sharpness: sigma, length: lc, reverse: false });
  const xO = e.x - Math.sin(e.heading) / kmax;
  const yO = e.y + Math.cos(e.heading) / kmax;
  const g: CCTurnGeometry = {
    kmax,
    sigma,
    clothoidLength: lc,
    clothoidDeflection: (kmax * kmax) / (2 * sigma),
    rO: hypot(xO, yO),
    mu: Math.atan2(xO, yO),
    xO,
    yO,
    rise: { x: e.x, y: e.y },
    fall: pieceEnd({ x: 0, y: 0, heading: 0 }, { k0: kmax, sharpness: -sigma, length: lc, reverse: false }),
  };
  if (geometryCache.size > 64) geometryCache.clear();
  geometryCache.set(key, g);
  return g;
}

/**
 * The pieces of a CC turn of deflection delta >= 0 [rad], to the left
 * (side 1) or right (side -1). A zero deflection is the straight chord
 * 2 rO sin mu, so every turn ends on its CC circle.
 */
export function ccTurn(g: CCTurnGeometry, delta: number, side: 1 | -1, reverse = false): CurvePiece[] {
  if (delta < 1e-12) return [{ k0: 0, sharpness: 0, length: 2 * g.rO * Math.sin(g.mu), reverse }];
  const dc = g.clothoidDeflection;
  if (delta >= 2 * dc) {
    const arc = (delta - 2 * dc) / g.kmax;
    const out: CurvePiece[] = [{ k0: 0, sharpness: side * g.sigma, length: g.clothoidLength, reverse }];
    if (arc >= MIN_PIECE_LENGTH) out.push({ k0: side * g.kmax, sharpness: 0, length: arc, reverse });
    out.push({ k0: side * g.kmax, sharpness: -side * g.sigma, length: g.clothoidLength, reverse });
    return out;
  }
  // Two clothoids of sharpness s, each turning delta / 2, whose chord is the
  // CC circle's chord over delta + 2 mu. At sharpness 1 the pair has chord c1;
  // chords scale with 1 / sqrt(s).
  const l1 = Math.sqrt(delta);
  const a = pieceEnd({ x: 0, y: 0, heading: 0 }, { k0: 0, sharpness: 1, length: l1, reverse: false });
  const b = pieceEnd(a, { k0: l1, sharpness: -1, length: l1, reverse: false });
  const c1 = hypot(b.x, b.y);
  const target = 2 * g.rO * Math.sin((delta + 2 * g.mu) / 2);
  const s = (c1 / target) ** 2;
  const l = Math.sqrt(delta / s);
  return [
    { k0: 0, sharpness: side * s, length: l, reverse },
    { k0: side * s * l, sharpness: -side * s, length: l, reverse },
  ];
}

/** Length of a CC turn of deflection delta [m]. */
function turnLength(g: CCTurnGeometry, delta: number): number {
  let l = 0;
  for (const p of ccTurn(g, delta, 1)) l += p.length;
  return l;
}

function centre(g: CCTurnGeometry, p: Pose, side: 1 | -1): { x: number; y: number } {
  const c = Math.cos(p.heading);
  const s = Math.sin(p.heading);
  const y = side * g.yO;
  return { x: p.x + c * g.xO - s * y, y: p.y + s * g.xO + c * y };
}

/** Centre of the CC circle of a turn ending at p (left: side 1). */
function endCentre(g: CCTurnGeometry, p: Pose, side: 1 | -1): { x: number; y: number } {
  const a = side === 1 ? p.heading - HALF_PI + g.mu : p.heading + HALF_PI - g.mu;
  return { x: p.x - g.rO * Math.cos(a), y: p.y - g.rO * Math.sin(a) };
}

type Word = 'LSL' | 'RSR' | 'LSR' | 'RSL' | 'LRL' | 'RLR';

function build(g: CCTurnGeometry, word: Word, turns: [1 | -1, number][], straight: number | null): CurvePath {
  const pieces: CurvePiece[] = [];
  pieces.push(...ccTurn(g, turns[0][1], turns[0][0]));
  if (straight !== null && straight >= MIN_PIECE_LENGTH)
    pieces.push({ k0: 0, sharpness: 0, length: straight, reverse: false });
  for (const [side, d] of turns.slice(1)) pieces.push(...ccTurn(g, d, side));
  const kept = pieces.filter((p) => p.length >= MIN_PIECE_LENGTH);
  return { pieces: kept, length: kept.reduce((a, p) => a + p.length, 0), word };
}

/**
 * The CC-Dubins words from `from` to `to` as the closed forms give them,
 * shortest first (equal lengths in the order built), not yet checked
 * against the goal (ccReaches).
 */
function ccDubinsCandidates(from: Pose, to: Pose, radius: number, sigma: number): CurvePath[] {
  if (!Number.isFinite(from.x + from.y + from.heading) || !Number.isFinite(to.x + to.y + to.heading))
    throw new PlanningError('INVALID_OPTION', 'turn poses must have finite x, y and heading', {
      path: 'pose',
    });
  const g = ccTurnGeometry(radius, sigma);
  const rO = g.rO;
  const sm = Math.sin(g.mu);
  const cm = Math.cos(g.mu);
  const ts = from.heading;
  const te = to.heading;
  const out: CurvePath[] = [];
  // Straight ahead on the same heading: one straight (the turn words need at least 4 rO sin mu).
  const ch = Math.cos(ts);
  const sh = Math.sin(ts);
  const ahead = (to.x - from.x) * ch + (to.y - from.y) * sh;
  const side = -(to.x - from.x) * sh + (to.y - from.y) * ch;
  if (
    ahead > 0 &&
    Math.abs(side) < 1e-9 &&
    Math.abs(Math.atan2(Math.sin(te - ts), Math.cos(te - ts))) < 1e-12
  )
    out.push({ pieces: [{ k0: 0, sharpness: 0, length: ahead, reverse: false }], length: ahead, word: 'S' });
  const L1 = centre(g, from, 1);
  const R1 = centre(g, from, -1);
  const L2 = endCentre(g, to, 1);
  const R2 = endCentre(g, to, -1);
  // Same sides: straight parallel to the centre line.
  for (const [side, c1, c2] of [
    [1, L1, L2],
    [-1, R1, R2],
  ] as const) {
    const vx = c2.x - c1.x;
    const vy = c2.y - c1.y;
    const d = hypot(vx, vy);
    const straight = d - 2 * rO * sm;
    if (straight < -1e-9) continue;
    const psi = Math.atan2(vy, vx);
    const d1 = side === 1 ? mod2pi(psi - ts) : mod2pi(ts - psi);
    const d2 = side === 1 ? mod2pi(te - psi) : mod2pi(psi - te);
    out.push(
      build(
        g,
        side === 1 ? 'LSL' : 'RSR',
        [
          [side, d1],
          [side, d2],
        ],
        Math.max(0, straight),
      ),
    );
  }
  // Opposite sides: the inner tangent.
  for (const [side, c1, c2] of [
    [1, L1, R2],
    [-1, R1, L2],
  ] as const) {
    const vx = c2.x - c1.x;
    const vy = c2.y - c1.y;
    const d2 = vx * vx + vy * vy;
    const q = d2 - 4 * rO * rO * cm * cm;
    if (q < 0) continue;
    const straight = Math.sqrt(q) - 2 * rO * sm;
    if (straight < -1e-9) continue;
    const s = Math.max(0, straight);
    const off = Math.atan2(2 * rO * cm, s + 2 * rO * sm);
    const psi = Math.atan2(vy, vx) + side * off;
    const a = side === 1 ? mod2pi(psi - ts) : mod2pi(ts - psi);
    const b = side === 1 ? mod2pi(psi - te) : mod2pi(te - psi);
    out.push(
      build(
        g,
        side === 1 ? 'LSR' : 'RSL',
        [
          [side, a],
          [side === 1 ? -1 : 1, b],
        ],
        s,
      ),
    );
  }
  // Three turns: the middle circle touches both.
  for (const [side, c1, c2] of [
    [1, L1, L2],
    [-1, R1, R2],
  ] as const) {
    const vx = c2.x - c1.x;
    const vy = c2.y - c1.y;
    const d = hypot(vx, vy);
    if (d > 4 * rO) continue;
    const base = Math.atan2(vy, vx);
    const spread = Math.acos(Math.min(1, d / (4 * rO)));
    for (const sgn of [1, -1]) {
      const a = base + sgn * spread;
      const c3 = { x: c1.x + 2 * rO * Math.cos(a), y: c1.y + 2 * rO * Math.sin(a) };
      const a2 = Math.atan2(c2.y - c3.y, c2.x - c3.x);
      let t1: [1 | -1, number];
      let t2: [1 | -1, number];
      let t3: [1 | -1, number];
      if (side === 1) {
        const p1 = a + HALF_PI - g.mu;
        const p2 = a2 - HALF_PI + g.mu;
        t1 = [1, mod2pi(p1 - ts)];
        t2 = [-1, mod2pi(p1 - p2)];
        t3 = [1, mod2pi(te - p2)];
      } else {
        const p1 = a - HALF_PI + g.mu;
        const p2 = a2 + HALF_PI - g.mu;
        t1 = [-1, mod2pi(ts - p1)];
        t2 = [1, mod2pi(p2 - p1)];
        t3 = [-1, mod2pi(p2 - te)];
      }
      out.push(build(g, side === 1 ? 'LRL' : 'RLR', [t1, t2, t3], null));
    }
  }
  return out.sort((a, b) => a.length - b.length);
}

/**
 * True when `path` (forward, its turns of geometry g) driven from `from`
 * ends on `to`: a guard against the degenerate cases of the closed forms.
 * Full clothoids move the pose by g's rise and fall turned to the heading;
 * other pieces are integrated as curveEndPose does.
 */
function ccReaches(g: CCTurnGeometry, from: Pose, to: Pose, path: CurvePath): boolean {
  let x = from.x;
  let y = from.y;
  let h = from.heading;
  for (const pc of path.pieces) {
    const len = pc.length;
    if (!(len >= MIN_PIECE_LENGTH)) continue;
    const full =
      !pc.reverse && len === g.clothoidLength && Math.abs(pc.sharpness) === g.sigma
        ? pc.k0 === 0
          ? g.rise
          : Math.abs(pc.k0) === g.kmax && pc.k0 * pc.sharpness < 0
            ? g.fall
            : null
        : null;
    if (full === null) {
      const e = pieceEnd({ x, y, heading: h }, pc);
      x = e.x;
      y = e.y;
      h = e.heading;
      continue;
    }
    // The right turn's clothoids are the left's mirrored.
    const side = pc.k0 === 0 ? Math.sign(pc.sharpness) : Math.sign(pc.k0);
    const c = Math.cos(h);
    const sn = Math.sin(h);
    const fy = side * full.y;
    x += c * full.x - sn * fy;
    y += sn * full.x + c * fy;
    h += pc.k0 * len + (pc.sharpness * len * len) / 2;
  }
  const dh = Math.abs(Math.atan2(Math.sin(h - to.heading), Math.cos(h - to.heading)));
  return hypot(x - to.x, y - to.y) < 1e-6 && dh < 1e-9;
}

/**
 * Every CC-Dubins path from `from` to `to` (forward only), shortest first.
 * Start and goal are at curvature 0.
 */
export function ccDubinsPaths(from: Pose, to: Pose, radius: number, sigma: number): CurvePath[] {
  const g = ccTurnGeometry(radius, sigma);
  return ccDubinsCandidates(from, to, radius, sigma).filter((p) => ccReaches(g, from, to, p));
}

/**
 * The first `n` paths of ccDubinsPaths (all of them for n Infinity), each
 * integrated to check it only when the caller comes to it: a caller that
 * takes the first path that suits it integrates no more.
 */
export function* ccDubinsWays(
  from: Pose,
  to: Pose,
  radius: number,
  sigma: number,
  n = Number.POSITIVE_INFINITY,
): Generator<CurvePath> {
  const g = ccTurnGeometry(radius, sigma);
  let given = 0;
  for (const p of ccDubinsCandidates(from, to, radius, sigma)) {
    if (given >= n) return;
    if (!ccReaches(g, from, to, p)) continue;
    given++;
    yield p;
  }
}

/** The shortest CC-Dubins path, or null when none reaches the goal. */
export function ccDubinsShortest(from: Pose, to: Pose, radius: number, sigma: number): CurvePath | null {
  for (const p of ccDubinsWays(from, to, radius, sigma, 1)) return p;
  return null;
}

/** Length of the shortest CC turn of the given deflection [m] (for cost estimates). */
export function ccTurnLength(radius: number, sigma: number, delta: number): number {
  return turnLength(ccTurnGeometry(radius, sigma), Math.abs(delta));
}

/**
 * The corner of a polyline turned by `delta` (signed, left positive) as a
 * CC curve, symmetric about the corner's bisector: its pieces and its
 * tangent length (from the corner vertex back to where the curve leaves the
 * incoming edge, and on to where it meets the outgoing edge) [m]. Small
 * corners are two clothoids of the full sharpness.
 */
export function ccCorner(
  radius: number,
  sigma: number,
  delta: number,
): { pieces: CurvePiece[]; tangent: number } {
  const g = ccTurnGeometry(radius, sigma);
  const side: 1 | -1 = delta >= 0 ? 1 : -1;
  const d = Math.abs(delta);
  let pieces: CurvePiece[];
  if (d < 1e-12) return { pieces: [], tangent: 0 };
  if (d >= 2 * g.clothoidDeflection) pieces = ccTurn(g, d, side);
  else {
    const l = Math.sqrt(d / sigma);
    pieces = [
      { k0: 0, sharpness: side * sigma, length: l, reverse: false },
      { k0: side * sigma * l, sharpness: -side * sigma, length: l, reverse: false },
    ];
  }
  let p: Pose = { x: 0, y: 0, heading: 0 };
  for (const pc of pieces) p = pieceEnd(p, pc);
  // Where the outgoing line (through p at heading delta) meets the x axis.
  const tangent = p.x - (Math.abs(p.y) * Math.cos(d)) / Math.sin(d);
  return { pieces, tangent };
}
