/**
 * Sharp corners of a headland pass, driven square instead of round.
 *
 * A smoothed pass rounds every convex corner with an arc of at least the
 * turning radius, and the corner of the field outside that arc is never
 * worked: for a right-angled corner of the outer pass (rounded at
 * R + (N - 1) w) about 48 m^2 with a 6 m swath and radius, more for sharper
 * corners. An operator drives such a pass straight on into the corner
 * instead, to the point V where the two straight legs meet, and turns there
 * by reversing:
 *
 *        V <------ T1   1. drive the pass to V (working)
 *        |   .-'        2. back up straight along the leg just driven by d
 *        |  /           3. forward along the arc of radius R tangent to both legs
 *        | |            4. back up straight along the next leg by d, to V
 *        T2             5. drive on along the next leg from V (working)
 *
 * with d = R tan(phi / 2) for a corner turning by phi. The arc lies on the
 * field side of both legs, the two straights on the legs themselves, so the
 * manoeuvre stays where the pass already runs.
 *
 * Stopped at V, the swaths of the two legs leave the kite K outside V
 * unworked (h^2 tan(phi / 2), h = w / 2). Where asked to (extendTracks), a
 * pass runs on past V along the leg it arrives on until its swath has
 * covered K, and backs up from there:
 *
 *        <- V---->E            E = V + e u_in, e = h max(sin phi, tan(phi / 2))
 *           |K  |              (the kite's farthest point along the leg);
 *           +---+              the run-on keeps its centre line half a swath
 *                              inside the field, as extended tracks do
 *
 * On the outermost pass V is already half a swath from both edges and no
 * run-on is possible; inside it the run-on works the kite against the
 * outer pass (overlap, reported).
 */
import { EdgeIndex } from '../geometry/edge-index.ts';
import { TURN_REGION_SLACK } from '../geometry/turn-region.ts';
import { hypot } from '../geometry/vec.ts';
import { type HeadlandResult, ringSwaths } from '../headland/generate-headlands.ts';
import { samplePath, type TurnPath } from '../turn/path.ts';
import type { Point, Polygon, Pose } from '../types/index.ts';
import type { Connection } from './connect.ts';
import { type RingDirection, RingPath } from './ring-path.ts';

/** A rounded convex corner of a ring, by arc length, with the point where its straight legs meet. */
export interface RingCorner {
  /** Arc length positions where the rounding starts and ends (driving the ring forwards). */
  from: number;
  to: number;
  /** Where the straight legs before and after the rounding meet. */
  apex: Point;
  /** Heading along the ring into and out of the corner (driving forwards) [rad]. */
  headingIn: number;
  headingOut: number;
  /**
   * How far past the apex a stretch may run on to work the kite outside it
   * [m]: along the leg into the corner (driving forwards) and back along the
   * leg out of it (driving backwards), each at most `reach`, the run-on
   * that covers the whole kite.
   */
  runIn: number;
  runOut: number;
  reach: number;
  /** Indices of the ring's first and last vertex of the rounding. */
  first: number;
  last: number;
}

/** Smallest turn worth squaring [rad]: the area gained by flatter corners does not pay two cusps. */
const MIN_TURN = (40 * Math.PI) / 180;
/** Largest turn squared [rad]: sharper corners need reversing farther than a pass leg is long. */
const MAX_TURN = (150 * Math.PI) / 180;
/** Vertices of one rounding are at most this far apart [m] (arcs are sampled at 1 m or finer). */
const ARC_GAP = 1.05;
/** A run-on past a corner keeps this much [m] more than half a swath off the field edge (as extended tracks do). */
const RUN_ON_MARGIN = 0.02;

/**
 * The rounded convex corners of a counter-clockwise ring that can be driven
 * square inside the region: turn between MIN_TURN and MAX_TURN, where
 * squaring works clearly more of the field than it adds in overlap. With
 * `runOn` (the passes run on past the apex), the kite a run-on works is no
 * loss.
 */
export function squareCorners(
  path: RingPath,
  swath: number,
  radius: number,
  region: EdgeIndex,
  runOn = false,
  others?: EdgeIndex,
): RingCorner[] {
  const pts = path.pts;
  const n = pts.length;
  if (n < 4) return [];
  // The legs run on outside the rounding to the apex; one that crosses the
  // pass itself (a corner of a bend round an obstacle, whose legs meet far
  // off) or another pass would fold the pass into a spike.
  let own: EdgeIndex | undefined;
  const crossesPasses = (a: Point, b: Point) => {
    own ??= new EdgeIndex([pts]);
    return own.segmentCrosses(a, b) || (others?.segmentCrosses(a, b) ?? false);
  };
  const heading = (i: number) => {
    const a = pts[((i % n) + n) % n];
    const b = pts[(((i + 1) % n) + n) % n];
    return Math.atan2(b.y - a.y, b.x - a.x);
  };
  const segLen = (i: number) => {
    const a = pts[((i % n) + n) % n];
    const b = pts[(((i + 1) % n) + n) % n];
    return hypot(b.x - a.x, b.y - a.y);
  };
  const turn = new Float64Array(n);
  for (let i = 0; i < n; i++) turn[i] = wrap(heading(i) - heading(i - 1));
  const bending = (i: number) => turn[((i % n) + n) % n] > 1e-4;
  // Start the scan where no rounding runs through: after a long segment, or at a vertex that does not bend.
  let start = -1;
  for (let i = 0; i < n; i++) {
    if (!bending(i) || segLen(i - 1) > ARC_GAP) {
      start = i;
      break;
    }
  }
  if (start < 0) return [];
  const out: RingCorner[] = [];
  let i = start;
  while (i < start + n) {
    if (!bending(i)) {
      i++;
      continue;
    }
    // A run of left-bending vertices joined by short segments: one rounding.
    const i0 = i;
    let total = turn[i0 % n];
    let j = i0;
    while (j + 1 < start + n && bending(j + 1) && segLen(j) <= ARC_GAP) {
      j++;
      total += turn[j % n];
    }
    i = j + 1;
    if (total < MIN_TURN || total > MAX_TURN) continue;
    const t1 = pts[i0 % n];
    const t2 = pts[j % n];
    const hIn = heading(i0 - 1);
    const hOut = heading(j);
    const apex = lineMeet(t1, hIn, t2, hOut);
    if (!apex) continue;
    const legIn = (apex.x - t1.x) * Math.cos(hIn) + (apex.y - t1.y) * Math.sin(hIn);
    const legOut = (t2.x - apex.x) * Math.cos(hOut) + (t2.y - apex.y) * Math.sin(hOut);
    if (legIn <= 0.05 || legOut <= 0.05) continue;
    // Rounded, the swath misses the corner outside the arc of radius r + w/2;
    // square, it misses the kite beyond the apex and the two legs' swaths
    // overlap on the kite inside it (both h^2 tan(phi / 2), h = w / 2).
    // Square only where that works clearly more, at no more than twice the
    // area in overlap.
    const tanHalf = Math.tan(total / 2);
    const r = (legIn + legOut) / (2 * tanHalf);
    const h = swath / 2;
    const rho = r + h;
    const kite = h * h * tanHalf;
    const rounding = rho * rho * (tanHalf - total / 2);
    if (rounding - kite < (swath * swath) / 8 && !runOn) continue;
    if (!region.contains(apex) || region.segmentCrosses(t1, apex) || region.segmentCrosses(apex, t2))
      continue;
    if (crossesPasses(t1, apex) || crossesPasses(apex, t2)) continue;
    const reach = h * Math.max(Math.sin(total), tanHalf);
    const runIn = runOn ? room(apex, hIn, reach, h, region) : 0;
    const runOut = runOn ? room(apex, hOut + Math.PI, reach, h, region) : 0;
    // Where a run-on works the kite, squaring gains the whole rounding (the run-on's overlap is the price asked for).
    const worked = runOn && Math.max(runIn, runOut) >= reach - 0.01;
    const gain = worked ? rounding : rounding - kite;
    if (gain < (swath * swath) / 8 || (!worked && kite > 2 * gain)) continue;
    const kTurn = cornerTurn({ ...apex, heading: hIn }, hOut, radius, region);
    // The implement stays inside the field and off the obstacles all through the turn.
    if (!kTurn || !keepsClear(apex, kTurn, h - TURN_REGION_SLACK, region)) continue;
    const from = path.cum[i0 % n];
    const to = path.cum[j % n];
    out.push({
      from,
      to,
      apex,
      headingIn: hIn,
      headingOut: hOut,
      runIn,
      runOut,
      reach,
      first: i0 % n,
      last: j % n,
    });
  }
  return out;
}

/** True when the apex and every point of the turn lie at least `clearance` from the region's edges. */
export function keepsClear(apex: Point, turn: Connection, clearance: number, region: EdgeIndex): boolean {
  if (clearance <= 0) return true;
  if (region.clearance(apex, clearance) < clearance) return false;
  for (const pc of turn.pieces)
    for (const q of pc.points) if (region.clearance(q, clearance) < clearance) return false;
  return true;
}

/**
 * How far [m, at most `reach`] a centre line may run from p at heading h
 * keeping half a swath (hw) and a margin inside the region: 0 where p itself
 * is closer. Steps by the clearance left, which the distance (1-Lipschitz)
 * guarantees for the whole step.
 */
function room(p: Point, h: number, reach: number, hw: number, region: EdgeIndex): number {
  const ux = Math.cos(h);
  const uy = Math.sin(h);
  const limit = hw + RUN_ON_MARGIN;
  let t = 0;
  while (t < reach) {
    const q = { x: p.x + t * ux, y: p.y + t * uy };
    if (!region.contains(q)) return 0;
    const slack = region.clearance(q, limit + reach) - limit;
    if (slack < 1e-3) break;
    t += slack;
  }
  return Math.min(t, reach);
}

/**
 * The swaths of a zone's driven passes as the route drives them with
 * run-ons (RouteInput.runOnCorners): exterior passes square at their square
 * corners, with the kite outside each apex (worked by the run-on where there
 * is room, else too small for a track to reach), interior passes round.
 */
export function drivenPassSwaths(
  headlands: HeadlandResult,
  swath: number,
  radius: number,
  region: EdgeIndex,
  straightJoins: boolean,
): Polygon[] {
  const exterior = headlands.drivenExterior.map((r) => {
    const path = new RingPath(r.ring, straightJoins);
    return squaredRing(path, squareCorners(path, swath, radius, region, true));
  });
  return ringSwaths([...exterior, ...headlands.drivenInterior.map((r) => r.ring)], swath);
}

/** The ring as driven square: each of the corners' roundings replaced by the apex of its legs. */
export function squaredRing(path: RingPath, corners: readonly RingCorner[]): Point[] {
  const n = path.pts.length;
  const drop = new Uint8Array(n);
  const apexAt = new Map<number, Point>();
  for (const c of corners) {
    for (let k = c.first; ; k = (k + 1) % n) {
      drop[k] = 1;
      if (k === c.last) break;
    }
    apexAt.set(c.first, c.apex);
  }
  const out: Point[] = [];
  for (let i = 0; i < n; i++) {
    const a = apexAt.get(i);
    if (a) out.push(a);
    if (!drop[i]) out.push(path.pts[i]);
  }
  return out;
}

/**
 * The reversing turn at a square corner: from the apex heading `from.heading`
 * to the apex heading `headingOut` (back up, arc forward, back up), or null
 * when it does not fit inside the region. With run-ons it starts `before`
 * metres past the apex on the leg in and ends `after` metres back past the
 * apex on the leg out (both straights are that much longer).
 */
export function cornerTurn(
  from: Pose,
  headingOut: number,
  radius: number,
  region: EdgeIndex,
  before = 0,
  after = 0,
): Connection | null {
  const phi = wrap(headingOut - from.heading);
  const a = Math.abs(phi);
  if (a < 1e-6 || a >= Math.PI - 1e-6) return null;
  const d = radius * Math.tan(a / 2);
  const path: TurnPath = {
    segments: [
      { type: 'S', length: d + before, reverse: true },
      { type: phi > 0 ? 'L' : 'R', length: radius * a, reverse: false },
      { type: 'S', length: d + after, reverse: true },
    ],
    length: 2 * d + before + after + radius * a,
    word: phi > 0 ? 'S-L+S-' : 'S-R+S-',
  };
  const start = {
    x: from.x + before * Math.cos(from.heading),
    y: from.y + before * Math.sin(from.heading),
    heading: from.heading,
  };
  const pieces = samplePath(start, path, radius);
  for (const pc of pieces) if (region.polylineCrosses(pc.points)) return null;
  return { pieces, length: path.length, kind: 'K' };
}

/**
 * The turn at an apex where the line turns the other way, towards the
 * field edge (a reflex bend of the field, where the corner turn's arc,
 * inside the bend, would swing over the edge): on along the leg in past
 * the apex by d, back up round the arc on the outside of the bend, and on
 * forwards along the leg out to the apex. Null when it does not fit inside
 * the region.
 *
 *        V ------> A     1. on past V to A (d = R tan(phi / 2))
 *        ^       .'      2. back up round the arc from A to B
 *        |    .-'        3. forwards from B to V, on along the leg out
 *        B--'
 */
export function reflexCornerTurn(
  from: Pose,
  headingOut: number,
  radius: number,
  region: EdgeIndex,
): Connection | null {
  const phi = wrap(headingOut - from.heading);
  const a = Math.abs(phi);
  if (a < 1e-6 || a >= Math.PI - 1e-6) return null;
  const d = radius * Math.tan(a / 2);
  const path: TurnPath = {
    segments: [
      { type: 'S', length: d, reverse: false },
      { type: phi > 0 ? 'R' : 'L', length: radius * a, reverse: true },
      { type: 'S', length: d, reverse: false },
    ],
    length: 2 * d + radius * a,
    word: phi > 0 ? 'S+R-S+' : 'S+L-S+',
  };
  const pieces = samplePath(from, path, radius);
  for (const pc of pieces) if (region.polylineCrosses(pc.points)) return null;
  return { pieces, length: path.length, kind: 'K' };
}

export interface PassPiece {
  /** Working stretch of the pass, in driving order. */
  points: Point[];
  /** The reversing turn after this stretch (none after the last). */
  turn?: Connection;
}

/**
 * The whole loop of a ring from s0 in direction dir, cut at its square
 * corners: stretches run straight on to each corner's apex and a reversing
 * turn joins them there. A corner the loop starts or ends inside of stays
 * round. With `span`, only that far along the loop. With `runOn`, a stretch runs on past the apex to work the kite
 * outside it; where the leg it arrives on has no room for that, the next
 * stretch starts back past the apex on its own leg instead.
 */
export function loopWithCorners(
  path: RingPath,
  s0: number,
  dir: RingDirection,
  corners: readonly RingCorner[],
  radius: number,
  region: EdgeIndex,
  runOn = false,
  span = path.length,
): PassPiece[] {
  const L = span;
  // Each corner's entry and exit as distances along the loop from s0.
  const cuts: { enter: number; leave: number; corner: RingCorner }[] = [];
  for (const c of corners) {
    const a = dir === 1 ? c.from : c.to;
    const b = dir === 1 ? c.to : c.from;
    const enter = path.distance(s0, a, dir);
    const leave = path.distance(s0, b, dir);
    if (enter < 0.5 || leave <= enter || leave > L - 0.5) continue;
    cuts.push({ enter, leave, corner: c });
  }
  cuts.sort((p, q) => p.enter - q.enter);
  const pieces: PassPiece[] = [];
  let at = 0;
  let head: Point[] | null = null;
  for (const cut of cuts) {
    if (cut.enter < at) continue;
    const c = cut.corner;
    const hIn = dir === 1 ? c.headingIn : c.headingOut + Math.PI;
    const hOut = dir === 1 ? c.headingOut : c.headingIn + Math.PI;
    const apex = { x: c.apex.x, y: c.apex.y, heading: hIn };
    // Run on along the leg driven into the corner; back up past the apex on the leg out only where that falls short.
    let before = runOn ? (dir === 1 ? c.runIn : c.runOut) : 0;
    let after = runOn && before < c.reach - 0.01 ? (dir === 1 ? c.runOut : c.runIn) : 0;
    let turn = before + after > 0 ? cornerTurn(apex, hOut, radius, region, before, after) : null;
    if (!turn) {
      before = 0;
      after = 0;
      turn = cornerTurn(apex, hOut, radius, region);
    }
    if (!turn) continue;
    const pts = path.stretch(s0 + dir * at, cut.enter - at, dir);
    if (head) pts.unshift(...head);
    pts.push({ x: c.apex.x, y: c.apex.y });
    if (before > 0) pts.push({ x: c.apex.x + before * Math.cos(hIn), y: c.apex.y + before * Math.sin(hIn) });
    pieces.push({ points: pts, turn });
    head = [{ x: c.apex.x, y: c.apex.y }];
    if (after > 0)
      head.unshift({ x: c.apex.x - after * Math.cos(hOut), y: c.apex.y - after * Math.sin(hOut) });
    at = cut.leave;
  }
  const last = path.stretch(s0 + dir * at, L - at, dir);
  if (head) last.unshift(...head);
  pieces.push({ points: last });
  return pieces;
}

function lineMeet(p: Point, h1: number, q: Point, h2: number): Point | null {
  const ux = Math.cos(h1);
  const uy = Math.sin(h1);
  const vx = Math.cos(h2);
  const vy = Math.sin(h2);
  const den = ux * vy - uy * vx;
  if (Math.abs(den) < 1e-9) return null;
  const t = ((q.x - p.x) * vy - (q.y - p.y) * vx) / den;
  return { x: p.x + t * ux, y: p.y + t * uy };
}

function wrap(a: number): number {
  let d = a % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d < -Math.PI) d += 2 * Math.PI;
  return d;
}
