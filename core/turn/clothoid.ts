/**
 * Continuous-curvature paths: pieces along which the curvature changes
 * linearly with arc length (clothoids), or stays constant (arcs, straights).
 * A machine whose steering turns at a finite rate drives exactly these: its
 * curvature can change at most `sharpness` [1/m^2] per metre.
 *
 * Along a piece starting at heading phi (the direction of travel) with
 * curvature k0 and sharpness sigma, the travel direction after t metres is
 *
 *     theta(t) = phi + k0 t + sigma t^2 / 2
 *
 * and the position is the integral of (cos theta, sin theta) (Fresnel
 * integrals). They are integrated with 8-point Gauss-Legendre on intervals
 * over which theta changes by at most 0.25 rad: exact to about 1e-15 m per
 * metre, so end poses agree with the sampled points to rounding.
 *
 * A piece driven in reverse moves the machine backwards: its direction of
 * travel is the machine heading + pi, and its curvatures are those of the
 * curve as traced in the direction of travel (positive: bending left of
 * the direction of travel).
 */
import { PlanningError, type Point, type Pose } from '../types/index.ts';
import { ARC_STEP, leastSteps, type SampledPiece, type SampleOptions } from './path.ts';

export interface CurvePiece {
  /** Curvature at the start [1/m], positive to the left of the direction of travel. */
  k0: number;
  /** Rate of change of curvature along the piece [1/m^2]; 0 for arcs and straights. */
  sharpness: number;
  /** Length travelled [m], >= 0. */
  length: number;
  /** Driven backwards. */
  reverse: boolean;
}

export interface CurvePath {
  pieces: CurvePiece[];
  /** Sum of piece lengths [m]. */
  length: number;
  /** The word, e.g. 'LSL' (each letter one turn of clothoid, arc, clothoid). */
  word: string;
}

/** Pieces shorter than this [m] are dropped. */
export const MIN_PIECE_LENGTH = 1e-9;

// 8-point Gauss-Legendre nodes and weights on [-1, 1].
const GL_X = [
  -0.9602898564975363, -0.7966664774136267, -0.525532409916329, -0.1834346424956498, 0.1834346424956498,
  0.525532409916329, 0.7966664774136267, 0.9602898564975363,
];
const GL_W = [
  0.1012285362903763, 0.2223810344533745, 0.3137066661925477, 0.362683783378362, 0.362683783378362,
  0.3137066661925477, 0.2223810344533745, 0.1012285362903763,
];
/** Largest change of the travel direction per integration interval [rad]. */
const GL_SPAN = 0.25;

/** Result buffer of `step`: x, y, machine heading. Nothing here re-enters. */
const OUT = new Float64Array(3);

/**
 * Drive t metres (t >= 0) of a piece from (x, y) with machine heading h,
 * starting at curvature k0 with sharpness s; writes the pose into OUT.
 */
function step(x: number, y: number, h: number, k0: number, s: number, t: number, reverse: boolean): void {
  const phi = reverse ? h + Math.PI : h;
  const turn = k0 * t + (s * t * t) / 2;
  if (s === 0) {
    if (k0 === 0) {
      OUT[0] = x + t * Math.cos(phi);
      OUT[1] = y + t * Math.sin(phi);
    } else {
      // An arc: the chord 2 sin(k t / 2) / k at the mean direction.
      const chord = Math.abs(k0 * t) < 1e-9 ? t : (2 * Math.sin((k0 * t) / 2)) / k0;
      const m = phi + turn / 2;
      OUT[0] = x + chord * Math.cos(m);
      OUT[1] = y + chord * Math.sin(m);
    }
    OUT[2] = h + turn;
    return;
  }
  const bound = Math.abs(k0) * t + (Math.abs(s) * t * t) / 2;
  const n = Math.max(1, Math.ceil(bound / GL_SPAN));
  const dt = t / n;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    const mid = (i + 0.5) * dt;
    for (let j = 0; j < 8; j++) {
      const u = mid + (GL_X[j] * dt) / 2;
      const th = phi + k0 * u + (s * u * u) / 2;
      sx += GL_W[j] * Math.cos(th);
      sy += GL_W[j] * Math.sin(th);
    }
  }
  OUT[0] = x + (sx * dt) / 2;
  OUT[1] = y + (sy * dt) / 2;
  OUT[2] = h + turn;
}

/** Pose after driving one piece from p. */
export function pieceEnd(p: Pose, piece: CurvePiece): Pose {
  step(p.x, p.y, p.heading, piece.k0, piece.sharpness, piece.length, piece.reverse);
  return { x: OUT[0], y: OUT[1], heading: OUT[2] };
}

/** Pose at the end of a path (heading not wrapped). */
export function curveEndPose(from: Pose, path: CurvePath): Pose {
  let p = from;
  for (const piece of path.pieces) if (piece.length >= MIN_PIECE_LENGTH) p = pieceEnd(p, piece);
  return p;
}

/** Number of equal steps that keeps each within `max` (guarding the rounding of len / n). */
function stepsFor(len: number, max: number): number {
  let n = Math.ceil(len / max);
  if (n < 1) n = 1;
  if (len / n > max) n++;
  return n;
}

const MAX_STEPS_PER_PIECE = 10_000_000;

/**
 * Sample a path: at most maxStep [m] and maxAngleRad of heading change
 * between consecutive samples, and at least leastSteps(length) chords per
 * piece; one piece per run of equal driving direction, the cusp point
 * ending one piece and starting the next. The first point is `from`; each piece's end is computed from its start in one
 * integration, exactly as curveEndPose does.
 */
export function sampleCurvePath(from: Pose, path: CurvePath, opts: SampleOptions = {}): SampledPiece[] {
  const maxStep = opts.maxStep ?? 1;
  const maxAngle = opts.maxAngleRad ?? ARC_STEP;
  if (!(maxStep > 0) || !(maxAngle > 0))
    throw new PlanningError(
      'INVALID_OPTION',
      `sampling needs maxStep > 0 m and maxAngleRad > 0, got ${maxStep} and ${maxAngle}`,
      { path: 'opts' },
    );
  const out: SampledPiece[] = [];
  let x = from.x;
  let y = from.y;
  let h = from.heading;
  let pts: Point[] | null = null;
  let reverse = false;
  for (const pc of path.pieces) {
    const len = pc.length;
    if (!(len >= MIN_PIECE_LENGTH)) continue;
    if (pts === null || pc.reverse !== reverse) {
      pts = [{ x, y }];
      reverse = pc.reverse;
      out.push({ points: pts, reverse });
    }
    const kEnd = pc.k0 + pc.sharpness * len;
    const kMax = Math.max(Math.abs(pc.k0), Math.abs(kEnd));
    let n = Math.max(leastSteps(len), stepsFor(len, maxStep));
    if (kMax > 0) n = Math.max(n, stepsFor(kMax * len, maxAngle));
    if (n > MAX_STEPS_PER_PIECE)
      throw new PlanningError('INVALID_OPTION', `sampling a ${len} m piece needs ${n} points`, {
        path: 'opts',
      });
    const x0 = x;
    const y0 = y;
    const h0 = h;
    // Samples one step after another (each step integrated from the previous sample).
    const dt = len / n;
    let cx = x0;
    let cy = y0;
    let ch = h0;
    let last = pts[pts.length - 1];
    for (let k = 1; k < n; k++) {
      step(cx, cy, ch, pc.k0 + pc.sharpness * (k - 1) * dt, pc.sharpness, dt, pc.reverse);
      cx = OUT[0];
      cy = OUT[1];
      ch = OUT[2];
      if (cx !== last.x || cy !== last.y) {
        last = { x: cx, y: cy };
        pts.push(last);
      }
    }
    step(x0, y0, h0, pc.k0, pc.sharpness, len, pc.reverse);
    x = OUT[0];
    y = OUT[1];
    h = OUT[2];
    if (x !== last.x || y !== last.y) pts.push({ x, y });
  }
  return out.filter((pc) => pc.points.length >= 2);
}

/** Largest |curvature| along a path [1/m]. */
export function maxCurvature(path: CurvePath): number {
  let m = 0;
  for (const pc of path.pieces) m = Math.max(m, Math.abs(pc.k0), Math.abs(pc.k0 + pc.sharpness * pc.length));
  return m;
}

/** Largest |sharpness| along a path [1/m^2]. */
export function maxSharpness(path: CurvePath): number {
  let m = 0;
  for (const pc of path.pieces) m = Math.max(m, Math.abs(pc.sharpness));
  return m;
}
