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
 */
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { samplePath, type TurnPath } from '../turn/path.ts';
import type { Point, Pose } from '../types/index.ts';
import type { Connection } from './connect.ts';
import type { RingDirection, RingPath } from './ring-path.ts';

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
}

/** Smallest turn worth squaring [rad]: the area gained by flatter corners does not pay two cusps. */
const MIN_TURN = (40 * Math.PI) / 180;
/** Largest turn squared [rad]: sharper corners need reversing farther than a pass leg is long. */
const MAX_TURN = (150 * Math.PI) / 180;
/** Vertices of one rounding are at most this far apart [m] (arcs are sampled at 1 m or finer). */
const ARC_GAP = 1.05;

/**
 * The rounded convex corners of a counter-clockwise ring that can be driven
 * square inside the region: turn between MIN_TURN and MAX_TURN, where
 * squaring works clearly more of the field than it adds in overlap.
 */
export function squareCorners(
  path: RingPath,
  swath: number,
  radius: number,
  region: EdgeIndex,
): RingCorner[] {
  const pts = path.pts;
  const n = pts.length;
  if (n < 4) return [];
  const heading = (i: number) => {
    const a = pts[((i % n) + n) % n];
    const b = pts[(((i + 1) % n) + n) % n];
    return Math.atan2(b.y - a.y, b.x - a.x);
  };
  const segLen = (i: number) => {
    const a = pts[((i % n) + n) % n];
    const b = pts[(((i + 1) % n) + n) % n];
    return Math.hypot(b.x - a.x, b.y - a.y);
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
    const gain = rho * rho * (tanHalf - total / 2) - kite;
    if (gain < (swath * swath) / 8 || kite > 2 * gain) continue;
    if (!region.contains(apex) || region.segmentCrosses(t1, apex) || region.segmentCrosses(apex, t2))
      continue;
    if (!cornerTurn({ ...apex, heading: hIn }, hOut, radius, region)) continue;
    const from = path.cum[i0 % n];
    const to = path.cum[j % n];
    out.push({ from, to, apex, headingIn: hIn, headingOut: hOut });
  }
  return out;
}

/**
 * The reversing turn at a square corner: from the apex heading `from.heading`
 * to the apex heading `headingOut` (back up, arc forward, back up), or null
 * when it does not fit inside the region.
 */
export function cornerTurn(
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
      { type: 'S', length: d, reverse: true },
      { type: phi > 0 ? 'L' : 'R', length: radius * a, reverse: false },
      { type: 'S', length: d, reverse: true },
    ],
    length: 2 * d + radius * a,
    word: phi > 0 ? 'S-L+S-' : 'S-R+S-',
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
 * round.
 */
export function loopWithCorners(
  path: RingPath,
  s0: number,
  dir: RingDirection,
  corners: readonly RingCorner[],
  radius: number,
  region: EdgeIndex,
): PassPiece[] {
  const L = path.length;
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
  let head: Point | null = null;
  for (const cut of cuts) {
    if (cut.enter < at) continue;
    const c = cut.corner;
    const hIn = dir === 1 ? c.headingIn : c.headingOut + Math.PI;
    const hOut = dir === 1 ? c.headingOut : c.headingIn + Math.PI;
    const turn = cornerTurn({ x: c.apex.x, y: c.apex.y, heading: hIn }, hOut, radius, region);
    if (!turn) continue;
    const pts = path.stretch(s0 + dir * at, cut.enter - at, dir);
    if (head) pts.unshift(head);
    pts.push({ x: c.apex.x, y: c.apex.y });
    pieces.push({ points: pts, turn });
    head = { x: c.apex.x, y: c.apex.y };
    at = cut.leave;
  }
  const last = path.stretch(s0 + dir * at, L - at, dir);
  if (head) last.unshift(head);
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
