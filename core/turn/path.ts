/**
 * Paths made of arcs of one radius and straight segments, driven forwards
 * or in reverse: the words of Dubins and Reeds-Shepp paths. Integration and
 * sampling are in closed form from each segment's start, so samples never
 * drift and arcs are sampled exactly on their circle.
 *
 * One step along a segment, from heading h by a signed distance d (negative
 * when reversing), is the chord of the arc:
 *
 *          end
 *          .-'            chord = 2 r sin(d / 2r)     (signed)
 *       .-'  dh/2         direction = h + dh/2,  dh = +d/r (L), -d/r (R)
 *   start ----------> h
 *
 * which is exact for every d and keeps full precision for short steps.
 */
import { PlanningError, type Point, type Pose } from '../types/index.ts';

export type SegmentType = 'L' | 'S' | 'R';

/**
 * Heading change between arc samples [rad]: 5 degrees (0.52 m chords at a
 * 6 m radius; arcs of more than 11.5 m radius are drawn at the 1 m step).
 * A chord is then up to 2.5 degrees off the arc's tangent at its ends, so
 * where paths meet the tangent is read from the last three samples
 * (core/geometry/tangent.ts), which every segment provides: see leastSteps.
 */
export const ARC_STEP = (5 * Math.PI) / 180;

/**
 * Heading change between samples of rounded tracks [rad]: 4.9 degrees. Tracks
 * are clipped to the area and rounded to the micrometre after sampling, which
 * can add a few millionths of a degree to a full 5-degree step.
 */
export const TRACK_ARC_STEP = ARC_STEP * 0.98;

/**
 * Segments at least this long [m] are drawn with two chords or more, so the
 * first and last three samples of a sampled path lie on one straight or arc
 * and give its tangent there exactly. A shorter segment drawn as one chord
 * puts the reading off by at most half its turning (0.5 degrees at a 6 m
 * radius), and its samples stay far enough apart (5 cm) for coordinates
 * rounded to the micrometre to keep their three-point curvature.
 */
export const TWO_CHORDS_FROM = 0.1;

/** The fewest chords a segment of length len [m] is drawn with. */
export function leastSteps(len: number): number {
  return len >= TWO_CHORDS_FROM ? 2 : 1;
}

/** Segments shorter than this [m] are dropped from returned paths and produce no samples. */
export const MIN_SEGMENT_LENGTH = 1e-9;

export interface Segment {
  type: SegmentType;
  /** Length travelled [m], >= 0 (arc length for arcs). */
  length: number;
  /** Driven backwards. */
  reverse: boolean;
}

export interface TurnPath {
  segments: Segment[];
  /** Sum of segment lengths [m]. */
  length: number;
  /** The word, e.g. 'LSL', or 'L+R-L+' with directions. */
  word: string;
}

export interface SampledPiece {
  points: Point[];
  reverse: boolean;
}

export interface SampleOptions {
  /** Largest distance between consecutive samples [m]; default 1. */
  maxStep?: number;
  /** Largest heading change between consecutive samples [rad]; default ARC_STEP (5 degrees). */
  maxAngleRad?: number;
}

/** More samples than this in one segment means the options are unreasonable. */
const MAX_STEPS_PER_SEGMENT = 10_000_000;

/** Result of `advance`: x, y, heading. One buffer, reused (nothing here re-enters). */
const END = new Float64Array(3);

/** Pose after driving the signed distance d [m] (negative: reversing) along one segment type. */
function advance(x: number, y: number, h: number, type: SegmentType, d: number, r: number): void {
  if (type === 'S') {
    END[0] = x + d * Math.cos(h);
    END[1] = y + d * Math.sin(h);
    END[2] = h;
    return;
  }
  const half = d / (2 * r);
  const chord = 2 * r * Math.sin(half);
  const dh = type === 'L' ? 2 * half : -2 * half;
  const m = h + dh / 2;
  END[0] = x + chord * Math.cos(m);
  END[1] = y + chord * Math.sin(m);
  END[2] = h + dh;
}

function checkRadius(r: number): void {
  if (!(r > 0) || !Number.isFinite(r))
    throw new PlanningError('INVALID_OPTION', `turning radius must be a finite number > 0 m, got ${r}`, {
      path: 'radius',
    });
}

/** Sample coordinates, xs[i] and ys[i] for i < n, in arrays that grow as samples are added. */
export class SampleBuffer {
  xs = new Float64Array(64);
  ys = new Float64Array(64);
  n = 0;

  /** Room for `more` samples after the n held. */
  reserve(more: number): void {
    if (this.n + more <= this.xs.length) return;
    const size = Math.max(2 * this.xs.length, this.n + more);
    const xs = new Float64Array(size);
    const ys = new Float64Array(size);
    xs.set(this.xs.subarray(0, this.n));
    ys.set(this.ys.subarray(0, this.n));
    this.xs = xs;
    this.ys = ys;
  }

  /** Empty, and back to its first size where it grew past `keep` samples (a scratch buffer holds no more than it must). */
  clear(keep: number): void {
    this.n = 0;
    if (this.xs.length <= keep) return;
    this.xs = new Float64Array(64);
    this.ys = new Float64Array(64);
  }
}

/**
 * The samples of one segment driven from (x0, y0) at heading h0, after the
 * sample (lastX, lastY) where it starts, added to buf as samplePath samples
 * them (a sample equal to the one before it is left out); END then holds
 * the segment's end pose.
 */
function fillSegment(
  buf: SampleBuffer,
  lastX: number,
  lastY: number,
  x0: number,
  y0: number,
  h0: number,
  seg: Segment,
  radius: number,
  maxStep: number,
  maxAngle: number,
): void {
  const len = seg.length;
  const d = seg.reverse ? -len : len;
  let n = Math.max(leastSteps(len), stepsFor(len, maxStep));
  if (seg.type !== 'S') n = Math.max(n, stepsFor(len / radius, maxAngle));
  if (n > MAX_STEPS_PER_SEGMENT)
    throw new PlanningError(
      'INVALID_OPTION',
      `sampling a ${len} m segment with maxStep ${maxStep} m and maxAngleRad ${maxAngle} needs ${n} points`,
      { path: 'opts' },
    );
  // At most n samples after the start: written straight into the buffer.
  buf.reserve(n);
  const xs = buf.xs;
  const ys = buf.ys;
  let m = buf.n;
  let lx = lastX;
  let ly = lastY;
  if (seg.type === 'S') {
    // As advance computes them, with the heading's cosine and sine taken once.
    const c = Math.cos(h0);
    const s = Math.sin(h0);
    for (let k = 1; k < n; k++) {
      const t = (d * k) / n;
      const px = x0 + t * c;
      const py = y0 + t * s;
      if (px !== lx || py !== ly) {
        lx = px;
        ly = py;
        xs[m] = px;
        ys[m++] = py;
      }
    }
  } else {
    // As advance computes them (the chord from the segment's start), inline.
    const left = seg.type === 'L';
    for (let k = 1; k < n; k++) {
      const half = (d * k) / n / (2 * radius);
      const chord = 2 * radius * Math.sin(half);
      const dh = left ? 2 * half : -2 * half;
      const mid = h0 + dh / 2;
      const px = x0 + chord * Math.cos(mid);
      const py = y0 + chord * Math.sin(mid);
      if (px !== lx || py !== ly) {
        lx = px;
        ly = py;
        xs[m] = px;
        ys[m++] = py;
      }
    }
  }
  // The segment end exactly as endPose computes it.
  advance(x0, y0, h0, seg.type, d, radius);
  if (END[0] !== lx || END[1] !== ly) {
    xs[m] = END[0];
    ys[m++] = END[1];
  }
  buf.n = m;
}

/** Scratch for the samples of one segment on their way into points. */
const SEGMENT = new SampleBuffer();

/** The samples in SEGMENT pushed onto pts as points; SEGMENT is emptied for the next segment. */
function pushSamples(pts: Point[]): void {
  const { xs, ys, n } = SEGMENT;
  for (let i = 0; i < n; i++) pts.push({ x: xs[i], y: ys[i] });
  SEGMENT.clear(SCRATCH_KEEP);
}

/** Scratch buffers keep room for this many samples at most between uses. */
const SCRATCH_KEEP = 1 << 16;

/**
 * The samples samplePath gives for one segment driven from (x, y) at
 * `heading` alone (that point first), as coordinates in buf (which they
 * replace); only that point for a segment shorter than MIN_SEGMENT_LENGTH.
 */
export function sampleSegmentInto(
  buf: SampleBuffer,
  x: number,
  y: number,
  heading: number,
  seg: Segment,
  radius: number,
): void {
  checkRadius(radius);
  buf.n = 0;
  buf.reserve(1);
  buf.xs[0] = x;
  buf.ys[0] = y;
  buf.n = 1;
  if (seg.length >= MIN_SEGMENT_LENGTH) fillSegment(buf, x, y, x, y, heading, seg, radius, 1, ARC_STEP);
}

/**
 * The samples of one segment driven from (x, y) at `heading` (not that
 * point itself), pushed onto pts: those samplePath gives for the segment
 * alone, after its first point. A segment shorter than MIN_SEGMENT_LENGTH
 * pushes none.
 */
export function appendSegmentSamples(
  pts: Point[],
  x: number,
  y: number,
  heading: number,
  seg: Segment,
  radius: number,
): void {
  checkRadius(radius);
  if (!(seg.length >= MIN_SEGMENT_LENGTH)) return;
  fillSegment(SEGMENT, x, y, x, y, heading, seg, radius, 1, ARC_STEP);
  pushSamples(pts);
}

/** Pose after driving one segment from p with turning radius r [m]. */
export function segmentEnd(p: Pose, seg: Segment, r: number): Pose {
  advance(p.x, p.y, p.heading, seg.type, seg.reverse ? -seg.length : seg.length, r);
  return { x: END[0], y: END[1], heading: END[2] };
}

/** The pose segmentEnd gives for the segment driven from (x, y) at `heading`, written to out as x, y, heading. */
export function segmentEndInto(
  x: number,
  y: number,
  heading: number,
  seg: Segment,
  r: number,
  out: Float64Array,
): void {
  advance(x, y, heading, seg.type, seg.reverse ? -seg.length : seg.length, r);
  out[0] = END[0];
  out[1] = END[1];
  out[2] = END[2];
}

/**
 * Pose at the end of a path, integrated in closed form segment by segment.
 * The heading is from.heading plus the net turning (not wrapped). Segments
 * shorter than MIN_SEGMENT_LENGTH count as none, as in samplePath (returned
 * paths never have them).
 */
export function endPose(from: Pose, path: TurnPath, radius: number): Pose {
  checkRadius(radius);
  let x = from.x;
  let y = from.y;
  let h = from.heading;
  for (const seg of path.segments) {
    if (!(seg.length >= MIN_SEGMENT_LENGTH)) continue;
    advance(x, y, h, seg.type, seg.reverse ? -seg.length : seg.length, radius);
    x = END[0];
    y = END[1];
    h = END[2];
  }
  return { x, y, heading: h };
}

/** Number of equal steps that keeps each step within `max` (guarding the rounding of len / n). */
function stepsFor(len: number, max: number): number {
  let n = Math.ceil(len / max);
  if (n < 1) n = 1;
  if (len / n > max) n++;
  return n;
}

/**
 * Sample a path: at most maxStep [m] and at most maxAngleRad of heading
 * change between consecutive samples; one piece per run of equal driving
 * direction, the cusp point ending one piece and starting the next. Each
 * sample is computed in closed form from its segment's start, so arc
 * samples lie on the circle of the given radius; the first point is `from`
 * and the last is exactly endPose(from, path, radius). A segment gets at
 * least leastSteps(length) chords. Segments shorter than
 * MIN_SEGMENT_LENGTH count as none; a path with no longer segment gives no
 * pieces.
 */
export function samplePath(
  from: Pose,
  path: TurnPath,
  radius: number,
  opts: SampleOptions = {},
): SampledPiece[] {
  checkRadius(radius);
  const maxStep = opts.maxStep ?? 1;
  const maxAngle = opts.maxAngleRad ?? ARC_STEP;
  if (!(maxStep > 0) || !(maxAngle > 0))
    throw new PlanningError(
      'INVALID_OPTION',
      `sampling needs maxStep > 0 m and maxAngleRad > 0, got ${maxStep} and ${maxAngle}`,
      { path: 'opts' },
    );
  const pieces: SampledPiece[] = [];
  let x = from.x;
  let y = from.y;
  let h = from.heading;
  let pts: Point[] | null = null;
  let reverse = false;
  for (const seg of path.segments) {
    const len = seg.length;
    if (!(len >= MIN_SEGMENT_LENGTH)) continue;
    if (pts === null || seg.reverse !== reverse) {
      // The first point is `from`; a cusp point is the end of the previous piece.
      pts = [{ x, y }];
      reverse = seg.reverse;
      pieces.push({ points: pts, reverse });
    }
    const last = pts[pts.length - 1];
    fillSegment(SEGMENT, last.x, last.y, x, y, h, seg, radius, maxStep, maxAngle);
    pushSamples(pts);
    x = END[0];
    y = END[1];
    h = END[2];
  }
  // A piece of one point only arises when a segment's end rounds onto its start.
  return pieces.every((pc) => pc.points.length >= 2) ? pieces : pieces.filter((pc) => pc.points.length >= 2);
}
