/**
 * Connect two poses with a drivable path that stays inside the field: the
 * shortest forward path that fits; else, with reversing, a path with cusps:
 * back up straight along the current heading, then a forward path, or
 * reverse along a path (a K-turn or fishtail), then forward. Every
 * candidate is checked against the field edges (a sampled path that crosses
 * no edge and starts inside stays inside).
 *
 * The turn model follows the machine: arcs of the minimum turning radius
 * joined abruptly to straights (Dubins, Reeds-Shepp-style reversing), or,
 * with a curvature-rate limit, continuous-curvature paths whose clothoids
 * change curvature at most that fast (CC-Dubins turns, the same reversing
 * shapes with cusps at curvature 0).
 *
 * The kind reported: 'U' (turn-straight-turn), 'bulb' (three turns: the
 * omega that bulges sideways when twice the radius exceeds the spacing),
 * 'fishtail' (reversing, ending on the opposite heading), 'K' (another
 * reversing manoeuvre), 'straight'.
 */
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { mixNumber } from '../geometry/number-hash.ts';
import { hypot } from '../geometry/vec.ts';
import { ccDubinsShortest, ccDubinsWays, ccTurn, ccTurnGeometry } from '../turn/cc-dubins.ts';
import {
  type CurvePath,
  type CurvePiece,
  curveEndPose,
  pieceEnd,
  sampleCurvePath,
} from '../turn/clothoid.ts';
import { dubinsPaths } from '../turn/dubins.ts';
import {
  ARC_STEP,
  appendSegmentSamples,
  MIN_SEGMENT_LENGTH,
  SampleBuffer,
  type SampledPiece,
  type Segment,
  sampleSegmentInto,
  segmentEndInto,
  type TurnPath,
} from '../turn/path.ts';
import { reedsSheppPaths } from '../turn/reeds-shepp.ts';
import type { Point, Pose } from '../types/index.ts';

export interface Connection {
  pieces: SampledPiece[];
  length: number;
  /** 'U' | 'bulb' | 'fishtail' | 'K' | 'straight' | ... for reporting. */
  kind: string;
}

export interface ConnectOptions {
  /** Allow reversing (Reeds-Shepp) when no forward path fits. Default true. */
  allowReverse?: boolean;
  /** Give up on paths longer than this [m]. */
  maxLength?: number;
  /** Reversing paths: at most this much driven backwards [m] (default no limit). */
  maxReverse?: number;
  /**
   * Curvature-rate limit [1/m^2]: turns are continuous-curvature paths
   * (clothoid, arc, clothoid). Undefined: arcs start abruptly.
   */
  curvatureRate?: number;
}

/**
 * The long searches made so far in each region, by their ends and options:
 * a route asks for the same way more than once (its links are looked for
 * again as the route grows and the search widens), and the answer is the
 * same every time. Kept in buckets by a hash of the ends. Only ways that
 * reverse and ways not found are kept: a forward way is found again at
 * once (the first Dubins path that fits), and keeping every way found, with
 * its samples, costs the garbage collector more than finding those again.
 */
const found = new WeakMap<EdgeIndex, Map<number, KnownWay[]>>();

interface KnownWay {
  from: Pose;
  to: Pose;
  radius: number;
  opts: ConnectOptions;
  connection: Connection | null;
}

function sameWay(k: KnownWay, from: Pose, to: Pose, radius: number, opts: ConnectOptions): boolean {
  const o = k.opts;
  return (
    k.from.x === from.x &&
    k.from.y === from.y &&
    k.from.heading === from.heading &&
    k.to.x === to.x &&
    k.to.y === to.y &&
    k.to.heading === to.heading &&
    k.radius === radius &&
    o.allowReverse === opts.allowReverse &&
    o.maxLength === opts.maxLength &&
    o.maxReverse === opts.maxReverse &&
    o.curvatureRate === opts.curvatureRate
  );
}

export function connectPoses(
  from: Pose,
  to: Pose,
  radius: number,
  region: EdgeIndex,
  opts: ConnectOptions = {},
): Connection | null {
  let known = found.get(region);
  if (!known) {
    known = new Map();
    found.set(region, known);
  }
  let h = mixNumber(mixNumber(mixNumber(0x811c9dc5, from.x), from.y), from.heading);
  h = mixNumber(mixNumber(mixNumber(mixNumber(h, to.x), to.y), to.heading), radius);
  const bucket = known.get(h);
  if (bucket) for (const k of bucket) if (sameWay(k, from, to, radius, opts)) return k.connection;
  const c = search(from, to, radius, region, opts);
  if (c && !c.pieces.some((pc) => pc.reverse)) return c;
  const entry: KnownWay = {
    from: { x: from.x, y: from.y, heading: from.heading },
    to: { x: to.x, y: to.y, heading: to.heading },
    radius,
    opts: {
      allowReverse: opts.allowReverse,
      maxLength: opts.maxLength,
      maxReverse: opts.maxReverse,
      curvatureRate: opts.curvatureRate,
    },
    connection: c,
  };
  if (bucket) bucket.push(entry);
  else known.set(h, [entry]);
  return c;
}

function search(
  from: Pose,
  to: Pose,
  radius: number,
  region: EdgeIndex,
  opts: ConnectOptions,
): Connection | null {
  const maxLength = opts.maxLength ?? Number.POSITIVE_INFINITY;
  if (hypot(to.x - from.x, to.y - from.y) < 1e-6 && Math.abs(angleDiff(to.heading, from.heading)) < 1e-6) {
    return { pieces: [], length: 0, kind: 'none' };
  }
  const sigma = opts.curvatureRate;
  if (sigma !== undefined) {
    for (const p of ccDubinsWays(from, to, radius, sigma)) {
      if (p.length > maxLength) break;
      const c = tryCurve(from, p, region);
      if (c) return c;
    }
    if (opts.allowReverse === false) return null;
    return reversingCurve(
      from,
      to,
      radius,
      sigma,
      region,
      maxLength,
      opts.maxReverse ?? Number.POSITIVE_INFINITY,
    );
  }
  for (const p of dubinsPaths(from, to, radius)) {
    if (p.length > maxLength) break;
    const c = tryPath(from, p, radius, region);
    if (c) return c;
  }
  if (opts.allowReverse === false) return null;
  return reversingConnection(
    from,
    to,
    radius,
    region,
    maxLength,
    opts.maxReverse ?? Number.POSITIVE_INFINITY,
  );
}

/**
 * Candidate paths with cusps, shortest first among those tried: back up
 * straight then turn forward; reverse along a Dubins path to an
 * intermediate pose behind the target, then drive forward into it; and
 * every Reeds-Shepp path with a cusp.
 */
function reversingConnection(
  from: Pose,
  to: Pose,
  radius: number,
  region: EdgeIndex,
  maxLength: number,
  maxReverse: number,
): Connection | null {
  const candidates: TurnPath[] = [];
  for (const back of BACKS.map((k) => k * radius)) {
    const start = behind(from, back);
    for (const p of dubinsPaths(start, to, radius).slice(0, 3)) {
      candidates.push({
        segments: [{ type: 'S', length: back, reverse: true }, ...p.segments],
        length: back + p.length,
        word: `S-${p.word}`,
      });
    }
  }
  // Reverse to a pose behind the target (a K-turn), then forward along the target heading.
  for (const back of ENDS.map((k) => k * radius)) {
    const mid = behind(to, back);
    for (const p of dubinsPaths(flip(from), flip(mid), radius).slice(0, 3)) {
      // Driving a forward path of the flipped machine is reversing: mirror the arc sides.
      const rev = p.segments.map((sg) => ({
        type: (sg.type === 'L' ? 'R' : sg.type === 'R' ? 'L' : 'S') as Segment['type'],
        length: sg.length,
        reverse: true,
      }));
      candidates.push({
        segments: [...rev, { type: 'S', length: back, reverse: false }],
        length: p.length + back,
        word: `${p.word}-S+`,
      });
    }
  }
  // Every Reeds-Shepp word (C|C|C fishtails and the rest), shortest first.
  for (const p of reedsSheppPaths(from, to, radius))
    if (p.segments.some((s) => s.reverse)) candidates.push(p);
  candidates.sort((a, b) => a.length - b.length);
  for (const c of candidates) {
    if (c.length > maxLength) break;
    if (reversed(c.segments) > maxReverse) continue;
    const conn = tryPath(from, c, radius, region);
    if (conn) return conn;
  }
  return null;
}

/** Corner turns: the lines in and out cross at this much turn at least [rad] (else they run nearly parallel). */
const MIN_CORNER_TURN = (10 * Math.PI) / 180;
/** ... and at most (else the lines meet far away). */
const MAX_CORNER_TURN = (170 * Math.PI) / 180;

/**
 * A turn at a corner where the lines in and out cross (a headland pass round
 * an inside corner of the field edge, which no forward turn follows inside
 * it): drive on along the line in past where the lines cross, back round an
 * arc of the turning radius onto the line out, behind the crossing, and
 * drive on along it. The arc lies on the outer side of the corner, away
 * from the edge the forward turn would cut. The path only, unchecked; null
 * where it runs backwards farther than `maxReverse`, is longer than
 * `maxLength`, or where `from` lies beyond the arc's start or `to` before
 * its end.
 */
export function cornerTurnPath(
  from: Pose,
  to: Pose,
  radius: number,
  maxReverse = Number.POSITIVE_INFINITY,
  maxLength = Number.POSITIVE_INFINITY,
): TurnPath | null {
  const phi = angleDiff(to.heading, from.heading);
  if (Math.abs(phi) < MIN_CORNER_TURN || Math.abs(phi) > MAX_CORNER_TURN) return null;
  const ux = Math.cos(from.heading);
  const uy = Math.sin(from.heading);
  const vx = Math.cos(to.heading);
  const vy = Math.sin(to.heading);
  // The crossing M = from + s u = to + t v.
  const den = ux * vy - uy * vx;
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const s = (dx * vy - dy * vx) / den;
  const t = (dx * uy - dy * ux) / den;
  // The arc's tangent points lie this far from M: ahead of it on the line in, behind it on the line out.
  const d = radius * Math.tan(Math.abs(phi) / 2);
  const a = s + d;
  const b = d - t;
  if (a < 0 || b < 0) return null;
  const arc = radius * Math.abs(phi);
  if (arc > maxReverse || a + arc + b > maxLength) return null;
  // Backwards, steering right turns the heading left.
  return {
    segments: [
      { type: 'S', length: a, reverse: false },
      { type: phi > 0 ? 'R' : 'L', length: arc, reverse: true },
      { type: 'S', length: b, reverse: false },
    ],
    length: a + arc + b,
    word: 'S+C-S+',
  };
}

/** Length driven backwards [m]. */
function reversed(pieces: readonly { length: number; reverse: boolean }[]): number {
  let s = 0;
  for (const p of pieces) if (p.reverse) s += p.length;
  return s;
}

/** Straight reversing distances tried before a forward turn [radii]. */
const BACKS = [0.5, 1, 2, 3, 5];
/** Distances behind the target reached in reverse [radii]. */
const ENDS = [1, 2, 3];

/** Heading changes of the forward turns of a fishtail [rad]. */
const FISHTAIL_TURNS = [Math.PI / 4, Math.PI / 2, (3 * Math.PI) / 4];

function curveEndPoseOf(from: Pose, pieces: CurvePiece[]): Pose {
  return curveEndPose(from, { pieces, length: 0, word: '' });
}

function behind(p: Pose, back: number): Pose {
  return { x: p.x - back * Math.cos(p.heading), y: p.y - back * Math.sin(p.heading), heading: p.heading };
}

function flip(p: Pose): Pose {
  return { x: p.x, y: p.y, heading: p.heading + Math.PI };
}

/** The reversing shapes of reversingConnection with continuous-curvature turns. */
function reversingCurve(
  from: Pose,
  to: Pose,
  radius: number,
  sigma: number,
  region: EdgeIndex,
  maxLength: number,
  maxReverse: number,
): Connection | null {
  const candidates: CurvePath[] = [];
  // Candidates whose first move from `from` crosses an edge fail whatever
  // follows it (tryCurve tests it from the same pose): they are not built.
  for (const back of BACKS.map((k) => k * radius)) {
    const backUp: CurvePiece = { k0: 0, sharpness: 0, length: back, reverse: true };
    if (clearEnd(from, [backUp], region) === null) continue;
    for (const p of ccDubinsWays(behind(from, back), to, radius, sigma, 3)) {
      candidates.push({
        pieces: [backUp, ...p.pieces],
        length: back + p.length,
        word: `S-${p.word}`,
      });
    }
  }
  for (const back of ENDS.map((k) => k * radius)) {
    const mid = behind(to, back);
    for (const p of ccDubinsWays(flip(from), flip(mid), radius, sigma, 3)) {
      // The flipped machine's forward path, driven backwards: the same curve, the same curvatures.
      const rev: CurvePiece[] = p.pieces.map((pc) => ({ ...pc, reverse: true }));
      candidates.push({
        pieces: [...rev, { k0: 0, sharpness: 0, length: back, reverse: false }],
        length: p.length + back,
        word: `${p.word}-S+`,
      });
    }
  }
  // Fishtails (three-point turns): a forward CC turn, a reversing CC path,
  // a forward CC turn into the goal; cusps at curvature 0.
  const g = ccTurnGeometry(radius, sigma);
  // The last forward turns, each with where it ends from the origin at heading 0.
  const O: Pose = { x: 0, y: 0, heading: 0 };
  const lastTurns: { s3: 1 | -1; d3: number; t3: CurvePiece[]; e: Pose }[] = [];
  for (const s3 of [1, -1] as const)
    for (const d3 of FISHTAIL_TURNS) {
      const t3 = ccTurn(g, d3, s3);
      lastTurns.push({ s3, d3, t3, e: curveEndPoseOf(O, t3) });
    }
  for (const s1 of [1, -1] as const) {
    for (const d1 of FISHTAIL_TURNS) {
      const t1 = ccTurn(g, d1, s1);
      // Where the first turn ends, when it crosses no edge (its pieces are all long enough to count).
      const mid = clearEnd(from, t1, region);
      if (mid === null) continue;
      for (const { s3, d3, t3, e } of lastTurns) {
        const h = to.heading - s3 * d3;
        const pre: Pose = {
          x: to.x - (Math.cos(h) * e.x - Math.sin(h) * e.y),
          y: to.y - (Math.sin(h) * e.x + Math.cos(h) * e.y),
          heading: h,
        };
        const back = ccDubinsShortest(flip(mid), flip(pre), radius, sigma);
        if (!back) continue;
        const pieces = [...t1, ...back.pieces.map((pc) => ({ ...pc, reverse: true })), ...t3];
        const length = pieces.reduce((a, pc) => a + pc.length, 0);
        candidates.push({ pieces, length, word: `C+${back.word}-C+` });
      }
    }
  }
  candidates.sort((a, b) => a.length - b.length);
  for (const c of candidates) {
    if (c.length > maxLength) break;
    if (reversed(c.pieces) > maxReverse) continue;
    const conn = tryCurve(from, c, region);
    if (conn) return conn;
  }
  return null;
}

/** Scratch for the samples of the arcs tested against the edges near them (one per arc of a path), kept for its points. */
const ARC_SAMPLES: SampleBuffer[] = [];

/**
 * Scratch of tryPath (which nothing it calls enters again): the start pose
 * of each segment tested (x, y, heading), the arcs some edge comes near
 * (their index among the tested segments) with those edges, and poses and
 * points for the tests that take them.
 */
let STARTS = new Float64Array(3 * 8);
const NEAR_AT: number[] = [];
const NEAR_EDGES: Int32Array[] = [];
const SEGS: Segment[] = [];
const END_AT = new Float64Array(3);
const AT_POSE: Pose = { x: 0, y: 0, heading: 0 };
const AT_END: Point = { x: 0, y: 0 };

function tryPath(from: Pose, path: TurnPath, radius: number, region: EdgeIndex): Connection | null {
  // The quick tests first, segment by segment, so a path that leaves the
  // field is mostly dropped before any arc is sampled: each straight as the
  // one segment it is, each arc against the edges near its circle.
  let px = from.x;
  let py = from.y;
  let ph = from.heading;
  let m = 0;
  NEAR_AT.length = 0;
  NEAR_EDGES.length = 0;
  SEGS.length = 0;
  for (const seg of path.segments) {
    if (!(seg.length >= MIN_SEGMENT_LENGTH)) continue;
    segmentEndInto(px, py, ph, seg, radius, END_AT);
    AT_POSE.x = px;
    AT_POSE.y = py;
    AT_POSE.heading = ph;
    if (seg.type === 'S') {
      AT_END.x = END_AT[0];
      AT_END.y = END_AT[1];
      if (region.segmentCrosses(AT_POSE, AT_END)) return null;
    } else {
      const edges = arcEdges(region, AT_POSE, seg, radius);
      if (edges) {
        NEAR_AT.push(m);
        NEAR_EDGES.push(edges);
      }
    }
    if (3 * m + 3 > STARTS.length) {
      const grown = new Float64Array(2 * STARTS.length);
      grown.set(STARTS);
      STARTS = grown;
    }
    STARTS[3 * m] = px;
    STARTS[3 * m + 1] = py;
    STARTS[3 * m + 2] = ph;
    SEGS.push(seg);
    m++;
    px = END_AT[0];
    py = END_AT[1];
    ph = END_AT[2];
  }
  // The chords of the arcs near an edge, sampled as the path will be (as
  // coordinates: most paths tested are not taken).
  for (let i = 0; i < NEAR_AT.length; i++) {
    const k = NEAR_AT[i];
    if (i === ARC_SAMPLES.length) ARC_SAMPLES.push(new SampleBuffer());
    const arc = ARC_SAMPLES[i];
    sampleSegmentInto(arc, STARTS[3 * k], STARTS[3 * k + 1], STARTS[3 * k + 2], SEGS[k], radius);
    if (region.chordsCrossXY(arc.xs, arc.ys, arc.n, NEAR_EDGES[i])) return null;
  }
  const pieces = joinSamples(m, radius);
  if (slipsThrough(region, pieces)) return null;
  const reverse = path.segments.some((s) => s.reverse);
  const arcs = path.segments.filter((s) => s.type !== 'S' && s.length >= 1e-9).length;
  return {
    pieces,
    length: path.length,
    kind: classify(from, ph, reverse, arcs),
  };
}

/**
 * The path sampled as samplePath samples it whole, from the samples of its
 * m segments tested by tryPath (each from its own start, as samplePath
 * reaches it): one piece per run of equal driving direction.
 */
function joinSamples(m: number, radius: number): SampledPiece[] {
  const pieces: SampledPiece[] = [];
  let cur: SampledPiece | null = null;
  // The arcs sampled for their test (NEAR_AT lists them in order).
  let near = 0;
  for (let k = 0; k < m; k++) {
    const seg = SEGS[k];
    const x = STARTS[3 * k];
    const y = STARTS[3 * k + 1];
    if (cur === null || seg.reverse !== cur.reverse) {
      cur = { points: [{ x, y }], reverse: seg.reverse };
      pieces.push(cur);
    }
    // One segment, one direction: at most one piece, starting where this one is.
    if (near < NEAR_AT.length && NEAR_AT[near] === k) {
      const arc = ARC_SAMPLES[near++];
      for (let i = 1; i < arc.n; i++) cur.points.push({ x: arc.xs[i], y: arc.ys[i] });
    } else appendSegmentSamples(cur.points, x, y, STARTS[3 * k + 2], seg, radius);
  }
  return pieces.every((pc) => pc.points.length >= 2) ? pieces : pieces.filter((pc) => pc.points.length >= 2);
}

/** Chords of an arc farther than this [m] from every edge need no crossing test. */
const ARC_CLEARANCE = 0.01;

/** Rounding allowed for in the bounds of an arc's samples [m]. */
const ARC_ROUNDING = 1e-6;

/** How far in from its circle an arc's chords may come, per metre of radius (samples ARC_STEP apart). */
const COS_HALF_ARC_STEP = Math.cos(ARC_STEP / 2);

/**
 * The edges of the region that come near the arc of `seg` from `p`: within
 * ARC_CLEARANCE of the ring its samples and chords lie in (samples at most
 * ARC_STEP apart on the circle), inside the arc's box; null where none do.
 * An arc with none crosses no edge however it is sampled; any edge one of
 * its chords meets is among them (EdgeIndex.chordsCross).
 */
export function arcEdges(region: EdgeIndex, p: Pose, seg: Segment, radius: number): Int32Array | null {
  const side = seg.type === 'L' ? 1 : -1;
  const cx = p.x - side * radius * Math.sin(p.heading);
  const cy = p.y + side * radius * Math.cos(p.heading);
  const sweep = (side * (seg.reverse ? -seg.length : seg.length)) / radius;
  const a0 = Math.atan2(p.y - cy, p.x - cx);
  const lo = Math.min(a0, a0 + sweep);
  const hi = Math.max(a0, a0 + sweep);
  const cl = Math.cos(lo);
  const ch = Math.cos(hi);
  const sl = Math.sin(lo);
  const sh = Math.sin(hi);
  let x0 = cx + radius * Math.min(cl, ch);
  let x1 = cx + radius * Math.max(cl, ch);
  let y0 = cy + radius * Math.min(sl, sh);
  let y1 = cy + radius * Math.max(sl, sh);
  // The circle's extreme points the arc passes.
  const quarter = Math.PI / 2;
  const last = Math.min(Math.floor(hi / quarter), Math.ceil(lo / quarter) + 4);
  for (let k = Math.ceil(lo / quarter); k <= last; k++) {
    const q = ((k % 4) + 4) % 4;
    if (q === 0) x1 = cx + radius;
    else if (q === 1) y1 = cy + radius;
    else if (q === 2) x0 = cx - radius;
    else y0 = cy - radius;
  }
  const m = ARC_CLEARANCE + ARC_ROUNDING;
  return region.edgesNearRing(
    cx,
    cy,
    radius * COS_HALF_ARC_STEP - m,
    radius + m,
    x0 - m,
    y0 - m,
    x1 + m,
    y1 + m,
  );
}

/**
 * The edges of the region that come near a piece `length` metres long from
 * p to q: within ARC_CLEARANCE of the disc of half that radius round the
 * middle of pq, which holds all its samples and chords (a point of it lies
 * no farther from p and q together than the piece is long); null where none
 * do. A piece with none crosses no edge; any edge one of its chords meets
 * is among them.
 */
function pieceEdges(region: EdgeIndex, p: Point, q: Point, length: number): Int32Array | null {
  const r = length / 2 + ARC_CLEARANCE + ARC_ROUNDING;
  const cx = (p.x + q.x) / 2;
  const cy = (p.y + q.y) / 2;
  return region.edgesNearRing(cx, cy, 0, r, cx - r, cy - r, cx + r, cy + r);
}

/**
 * Where `pieces` driven from `from` end, or null where one of them crosses
 * an edge: each straight tested as the one segment it is, each curved piece
 * by its samples, and those only where an edge comes within reach of it.
 */
function clearEnd(from: Pose, pieces: readonly CurvePiece[], region: EdgeIndex): Pose | null {
  let p = from;
  for (const pc of pieces) {
    const end = pieceEnd(p, pc);
    if (pc.sharpness === 0 && pc.k0 === 0) {
      if (region.segmentCrosses(p, end)) return null;
    } else {
      const edges = pieceEdges(region, p, end, pc.length);
      if (edges) {
        const piece = sampleCurvePath(p, { pieces: [pc], length: pc.length, word: '' });
        for (const sp of piece) if (region.chordsCross(sp.points, edges)) return null;
      }
    }
    p = end;
  }
  return p;
}

function tryCurve(from: Pose, path: CurvePath, region: EdgeIndex): Connection | null {
  const p = clearEnd(from, path.pieces, region);
  if (p === null) return null;
  const reverse = path.pieces.some((s) => s.reverse);
  // Turns of the word: runs of curved pieces bending one way.
  let turns = 0;
  let lastSide = 0;
  for (const pc of path.pieces) {
    const k = pc.k0 !== 0 ? pc.k0 : pc.sharpness;
    const side = Math.sign(k);
    if (side !== 0 && side !== lastSide) turns++;
    lastSide = side;
  }
  const pieces = sampleCurvePath(from, path);
  if (slipsThrough(region, pieces)) return null;
  return { pieces, length: path.length, kind: classify(from, p.heading, reverse, turns) };
}

/** Samples this close to an edge [m] count as touching it in the crossing test. */
const TOUCH = 1e-3;
/** Edges are looked for this far round a sample [m]: farther ones need no test of the samples near it. */
const CLEAR_REACH = 8;

/**
 * True when a sample of the path lies outside the region (outside the field
 * or in an obstacle) by more than the 1 mm the crossing test counts as
 * touching. The crossing test alone misses a path that leaves through a
 * sample lying on an edge, or that starts on the edge heading out.
 */
function slipsThrough(region: EdgeIndex, pieces: SampledPiece[]): boolean {
  // A sample is tested in full only outside the edge-free disc round the
  // last sample tested inside: every point of the disc is inside as its
  // centre is (a sample within a hair of its rim lies within a hair of an
  // edge, which is no slip either), so the samples outside by more than a
  // touch are all tested.
  let cx = 0;
  let cy = 0;
  // The disc's radius squared (a little less, for rounding); 0: none.
  let r2 = 0;
  for (const pc of pieces)
    for (const q of pc.points) {
      const dx = q.x - cx;
      const dy = q.y - cy;
      if (dx * dx + dy * dy < r2) continue;
      const d = region.clearance(q, CLEAR_REACH);
      if (!region.contains(q)) {
        if (d >= TOUCH) return true;
        // On the edge, outside by a hair: the next sample is tested in full.
        r2 = 0;
      } else {
        const r = Math.min(d, CLEAR_REACH);
        cx = q.x;
        cy = q.y;
        r2 = r * r * (1 - 1e-9);
      }
    }
  return false;
}

/** The turn's shape from its ends and its make-up. */
function classify(from: Pose, toHeading: number, reverse: boolean, turns: number): string {
  if (reverse)
    return Math.abs(Math.abs(angleDiff(toHeading, from.heading)) - Math.PI) < 0.1 ? 'fishtail' : 'K';
  if (turns === 0) return 'straight';
  if (turns >= 3) return 'bulb';
  return 'U';
}

export function angleDiff(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d < -Math.PI) d += 2 * Math.PI;
  return d;
}

export function poseAt(p: Point, heading: number): Pose {
  return { x: p.x, y: p.y, heading };
}
