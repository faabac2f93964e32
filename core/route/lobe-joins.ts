/**
 * Where a lobe of a headland pass leaves the driven ring and rejoins it: on
 * the pass's planned line where the ring runs on it. The ring follows the
 * planned line up to the bend it rounds (across a neck, or round a corner
 * it cannot follow) and the lobe goes on along the line from there, so an
 * operator drives on from the ring into the lobe along the line, working,
 * rather than leaving the ring a few turning radii earlier by a connector
 * that misses the planned line between.
 *
 *   ring  =====================q.            (the ring rounds off the line at q)
 *                                `.
 *   lobe  - - - - - - - - - - - - -p- - ->   (the lobe starts at p, on the planned line)
 *
 * From q to p: a forward path hardly longer than the gap (a straight where
 * both lie on one line), or the planned line itself with a corner turn at p
 * where the lobe turns off it (back up, arc forward, back up onto the apex,
 * as at a square corner of a pass: route/headland-corners.ts). The same,
 * reversed, from the lobe's end back onto the ring.
 */
import { Clipper } from 'clipper2-ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { TURN_REGION_SLACK } from '../geometry/turn-region.ts';
import { hypot } from '../geometry/vec.ts';
import type { Point, Pose } from '../types/index.ts';
import type { Connection } from './connect.ts';
import type { Leg, Lobe } from './drive-lobes.ts';
import { cornerTurn, keepsClear, reflexCornerTurn } from './headland-corners.ts';
import type { RingDirection, RingPath } from './ring-path.ts';
import { along, angleDiffRad, dist } from './route-geometry.ts';

/** The ring is on the planned line where it lies this close to it [m] (the audit's tolerance is 0.25 m). */
const ON_LINE = 0.05;
/** A worked leg runs straight on from the ring where it heads along it within this [rad]. */
const ALONG = (1 * Math.PI) / 180;
/** The planned line between ring and lobe is simplified within this [m] (as lobes are). */
const SIMPLIFY = 0.2;
/** Points along the ring are tried this far apart [m]. */
const STEP = 0.5;
/** At most this many joins are tried at each end. */
const TRIES = 6;
/** A forward join may be this much longer than the distance it spans [m]. */
const SLACK = 0.2;
/** Ends closer than this [m], heading the same within SAME_HEADING [rad], need no join. */
const SAME = 1e-3;
const SAME_HEADING = (0.5 * Math.PI) / 180;
/** Sharpest corner turned at between the planned line and a lobe [rad] (as at square corners). */
const MAX_CORNER = (150 * Math.PI) / 180;
/** Vertices of the planned line bending less than this [rad] are on a straight ... */
const STRAIGHT = 1e-5;
/** ... and those bending by up to this [rad] are driven through (heading continuity allows 2 degrees between parts). */
const STEP_BEND = (1.5 * Math.PI) / 180;
/**
 * Tight bends of the planned line at most this many turning radii apart
 * are one corner (an arc's vertices, simplified, lie a metre or two apart).
 */
const BEND_GAP = 0.5;
/** Corner turns on the way between ring and lobe, at most. */
const MAX_TURNS = 2;
/** Planned lines bending tighter than the turning radius times this are not driven as they are. */
const CURVATURE_SLACK = 1.01;

/** What the ring and lobe are driven in: the field and the turning radius. */
export interface JoinContext {
  region: EdgeIndex;
  R: number;
  swath: number;
  /** A forward path between two poses at most maxLength long, inside the field, or null. */
  forward: (from: Pose, to: Pose, maxLength: number) => Connection | null;
}

/** A piece of the way between ring and lobe: worked along the planned line, or a corner turn. */
export type JoinPiece = { work: Connection } | { turn: Connection };

export interface LobeEnd {
  /** Distance from the loop's start along it where the loop is left (or rejoined). */
  at: number;
  /** The way from the loop onto the lobe's first leg (or from its last leg back), in driving order. */
  pieces: JoinPiece[];
}

/** The planned rings of a pass, indexed for distance queries (built when first asked for). */
export class PlannedLines {
  private readonly rings: readonly (readonly Point[])[];
  private index: EdgeIndex | null = null;

  constructor(rings: readonly (readonly Point[])[]) {
    this.rings = rings;
  }

  /**
   * The planned line from a to b (both on one planned ring, within ON_LINE):
   * a, the ring's vertices between them the shorter way round, b. Null where
   * they are not on one ring.
   */
  between(a: Point, b: Point): Point[] | null {
    const pa = nearestOn(this.rings, a);
    const pb = nearestOn(this.rings, b);
    if (!pa || !pb || pa.ring !== pb.ring || pa.d > ON_LINE || pb.d > ON_LINE) return null;
    const ring = this.rings[pa.ring];
    const n = ring.length;
    // Vertices after a's segment start up to b's segment start going forwards; or backwards.
    const fwd: Point[] = [];
    for (let i = (pa.seg + 1) % n, k = 0; k < n; i = (i + 1) % n, k++) {
      if (i === (pb.seg + 1) % n) break;
      fwd.push(ring[i]);
    }
    const back: Point[] = [];
    for (let i = pa.seg, k = 0; k < n; i = (i - 1 + n) % n, k++) {
      if (i === pb.seg) break;
      back.push(ring[i]);
    }
    const mid = pa.seg === pb.seg ? [] : fwd.length <= back.length ? fwd : back;
    return [{ x: a.x, y: a.y }, ...mid, { x: b.x, y: b.y }];
  }

  /** True when p lies within tol of a planned ring. */
  near(p: Point, tol: number): boolean {
    this.index ??= new EdgeIndex(this.rings.map((r) => r.slice()));
    return this.index.clearance(p, tol) <= tol;
  }
}

/**
 * Where to leave a ring loop (started at s, driven in direction dir) for a
 * lobe whose first leg is `first`, its start projecting onto the ring at
 * `enter` (distance along the loop): the last point at most `reach` before
 * that where the ring lies on the planned line and a way along it leads
 * onto the leg. Null where there is none.
 */
export function lobeEntry(
  path: RingPath,
  s: number,
  dir: RingDirection,
  enter: number,
  first: Leg,
  planned: PlannedLines,
  reach: number,
  ctx: JoinContext,
): LobeEnd | null {
  const to: Pose = { x: first.a.x, y: first.a.y, heading: first.heading };
  return find(path, s, dir, enter, -1, to, planned, reach, (at) => {
    const from = path.arrivalPoseAt(s + dir * at, dir);
    const direct = joinPoses(from, to, ctx);
    if (direct) return direct;
    // Along the planned line onto the lobe's start, turning there onto its first leg.
    const line = plannedLine(from, to, planned);
    if (!line || Math.abs(angleDiffRad(heading(line[0], line[1]), from.heading)) > ALONG) return null;
    return alongLine(line, null, to.heading, ctx);
  });
}

/** The same for where the loop is rejoined after a lobe ending with leg `last` at `leave`. */
export function lobeExit(
  path: RingPath,
  s: number,
  dir: RingDirection,
  leave: number,
  last: Leg,
  planned: PlannedLines,
  reach: number,
  ctx: JoinContext,
): LobeEnd | null {
  const from: Pose = { x: last.b.x, y: last.b.y, heading: last.heading };
  return find(path, s, dir, leave, 1, from, planned, reach, (at) => {
    const to = path.poseAt(s + dir * at, dir);
    const direct = joinPoses(from, to, ctx);
    if (direct) return direct;
    // Turning at the lobe's end onto the planned line, along it onto the ring.
    const line = plannedLine(from, to, planned);
    const n = line?.length ?? 0;
    if (!line || Math.abs(angleDiffRad(heading(line[n - 2], line[n - 1]), to.heading)) > ALONG) return null;
    return alongLine(line, from.heading, null, ctx);
  });
}

/**
 * Walking along the loop from `from` back (way -1) or on (way 1), at most
 * `reach`: the first vertex (or point of a straight) on the planned line,
 * behind the lobe's end pose (way -1) or ahead of it (way 1), from which
 * `tryJoin` finds a way.
 */
function find(
  path: RingPath,
  s: number,
  dir: RingDirection,
  from: number,
  way: -1 | 1,
  end: Pose,
  planned: PlannedLines,
  reach: number,
  tryJoin: (at: number) => JoinPiece[] | null,
): LobeEnd | null {
  const ux = Math.cos(end.heading);
  const uy = Math.sin(end.heading);
  let tries = 0;
  let last = -1;
  for (let t = 0; t <= reach && tries < TRIES; t += STEP) {
    const raw = from + way * t;
    if (raw <= 0 || raw >= path.length) return null;
    // At a vertex of a curve (a cut inside an arc's chord curves tighter than the arc).
    const at = path.distance(s, path.snap(s + dir * raw), dir);
    if (at === last) continue;
    last = at;
    const q = path.pointAt(s + dir * at);
    const ahead = (q.x - end.x) * ux + (q.y - end.y) * uy;
    if (way * ahead < -SAME || !planned.near(q, ON_LINE)) continue;
    tries++;
    const pieces = tryJoin(at);
    if (pieces) return { at, pieces };
  }
  return null;
}

/** A forward path between two poses hardly longer than the gap: no pieces where they are one. */
function joinPoses(from: Pose, to: Pose, ctx: JoinContext): JoinPiece[] | null {
  const d = hypot(to.x - from.x, to.y - from.y);
  if (d < SAME) return Math.abs(angleDiffRad(to.heading, from.heading)) < SAME_HEADING ? [] : null;
  const c = ctx.forward(from, to, d + SLACK);
  return c ? [{ work: c }] : null;
}

/** The planned line from one point to the other, simplified; null where they are not on one planned ring. */
function plannedLine(from: Point, to: Point, planned: PlannedLines): Point[] | null {
  const line = planned.between(from, to);
  if (!line) return null;
  const pts = Clipper.simplifyPathD(line, SIMPLIFY, false);
  for (let i = 1; i < pts.length; i++)
    if (hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y) < 1e-3) return null;
  return pts.length >= 2 ? pts : null;
}

/**
 * Driving a line: worked straights, with a corner turn at each vertex where
 * it bends by more than STEP_BEND or tighter than the turning radius, and from heading hStart onto it at its
 * start and off it onto hEnd at its end (where given). Null where a corner
 * turn does not fit.
 */
function alongLine(
  line: readonly Point[],
  hStart: number | null,
  hEnd: number | null,
  ctx: JoinContext,
): JoinPiece[] | null {
  const pts = squareBends(line, hStart, hEnd, ctx.R);
  if (!pts) return null;
  const out: JoinPiece[] = [];
  const turnAt = (p: Point, h0: number, h1: number): boolean => {
    const turn = corner({ x: p.x, y: p.y, heading: h0 }, h1, ctx);
    if (turn === undefined) return false;
    if (turn) out.push({ turn });
    return true;
  };
  if (hStart !== null && !turnAt(pts[0], hStart, heading(pts[0], pts[1]))) return null;
  let cur: Point[] = [pts[0]];
  for (let i = 1; i < pts.length; i++) {
    cur.push(pts[i]);
    if (i + 1 >= pts.length) break;
    const h0 = heading(pts[i - 1], pts[i]);
    const h1 = heading(pts[i], pts[i + 1]);
    const bend = Math.abs(angleDiffRad(h1, h0));
    if (bend < STRAIGHT) continue;
    // Each straight a part of its own: the heading steps a little between them, or turns at a corner.
    out.push({ work: worked(cur) });
    cur = [pts[i]];
    if (bend <= STEP_BEND && circumradius(pts[i - 1], pts[i], pts[i + 1]) >= ctx.R * CURVATURE_SLACK)
      continue;
    if (!turnAt(pts[i], h0, h1)) return null;
  }
  out.push({ work: worked(cur) });
  const n = pts.length;
  if (hEnd !== null && !turnAt(pts[n - 1], heading(pts[n - 2], pts[n - 1]), hEnd)) return null;
  // Two corners at most: a line that bends at more (round a rounded corner of the field, say) is joined by a connector.
  return out.filter((p) => 'turn' in p).length <= MAX_TURNS ? out : null;
}

/**
 * The line with each run of tight bends (an arc of the planned line rounded
 * tighter than the turning radius: the inward offset of a reflex corner of
 * the field, say) replaced by the apex where its straight legs meet, so it
 * is turned at once, at a corner, as a square corner of a pass is. hStart
 * and hEnd, where given, are the headings on before the line's start and
 * after its end (a bend there joins the run). Null where a run's legs do
 * not meet ahead.
 */
function squareBends(
  line: readonly Point[],
  hStart: number | null,
  hEnd: number | null,
  R: number,
): Point[] | null {
  const n = line.length;
  const ext: Point[] = [
    ...(hStart === null ? [] : [along(line[0], hStart, -1)]),
    ...line,
    ...(hEnd === null ? [] : [along(line[n - 1], hEnd, 1)]),
  ];
  const first = hStart === null ? 0 : 1;
  const last = first + n - 1;
  const tight = (i: number) =>
    Math.abs(angleDiffRad(heading(ext[i], ext[i + 1]), heading(ext[i - 1], ext[i]))) > STEP_BEND ||
    circumradius(ext[i - 1], ext[i], ext[i + 1]) < R * CURVATURE_SLACK;
  const out: Point[] = [];
  let i = first;
  while (i <= last) {
    if (i === 0 || i === ext.length - 1 || !tight(i)) {
      out.push(ext[i]);
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < ext.length - 1 && tight(j + 1) && dist(ext[j], ext[j + 1]) <= BEND_GAP * R) j++;
    if (j === i) {
      out.push(ext[i]);
      i++;
      continue;
    }
    const apex = lineMeet(ext[i - 1], ext[i], ext[j], ext[j + 1]);
    if (!apex) return null;
    if (i === first) out.push(ext[i]);
    if (!out.length || dist(out[out.length - 1], apex) > 1e-3) out.push(apex);
    if (j === last && dist(apex, ext[j]) > 1e-3) out.push(ext[j]);
    i = j + 1;
  }
  return out.length >= 2 ? out : null;
}

/** Where the line through a0, a1 meets the line through b0, b1: ahead of a1 and behind b0, or null. */
function lineMeet(a0: Point, a1: Point, b0: Point, b1: Point): Point | null {
  const ux = a1.x - a0.x;
  const uy = a1.y - a0.y;
  const vx = b1.x - b0.x;
  const vy = b1.y - b0.y;
  const den = ux * vy - uy * vx;
  if (Math.abs(den) < 1e-12) return null;
  const t = ((b0.x - a0.x) * vy - (b0.y - a0.y) * vx) / den;
  const p = { x: a0.x + t * ux, y: a0.y + t * uy };
  const ahead = (p.x - a1.x) * ux + (p.y - a1.y) * uy;
  const behind = (b0.x - p.x) * vx + (b0.y - p.y) * vy;
  return ahead >= -1e-9 && behind >= -1e-9 ? p : null;
}

function heading(a: Point, b: Point): number {
  return Math.atan2(b.y - a.y, b.x - a.x);
}

/** A line as one worked stretch. */
function worked(points: Point[]): Connection {
  let length = 0;
  for (let i = 1; i < points.length; i++)
    length += hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y);
  return { pieces: [{ points, reverse: false }], length, kind: 'straight' };
}

/**
 * The corner turn at `at` onto heading hOut (none where the headings
 * differ by no more than STEP_BEND, a step heading continuity allows): inside the field with the implement clear of its edges;
 * undefined where none fits.
 */
function corner(at: Pose, hOut: number, ctx: JoinContext): Connection | null | undefined {
  const phi = Math.abs(angleDiffRad(hOut, at.heading));
  if (phi <= STEP_BEND) return null;
  if (phi > MAX_CORNER) return undefined;
  // Square where the bend turns away from the edge, else past the apex (a reflex bend).
  const clearance = ctx.swath / 2 - TURN_REGION_SLACK;
  for (const make of [cornerTurn, reflexCornerTurn]) {
    const turn = make(at, hOut, ctx.R, ctx.region);
    if (turn && keepsClear(at, turn, clearance, ctx.region)) return turn;
  }
  return undefined;
}

function circumradius(a: Point, b: Point, c: Point): number {
  const ab = hypot(b.x - a.x, b.y - a.y);
  const bc = hypot(c.x - b.x, c.y - b.y);
  const ca = hypot(a.x - c.x, a.y - c.y);
  const cross = Math.abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));
  return cross < 1e-12 ? Number.POSITIVE_INFINITY : (ab * bc * ca) / (2 * cross);
}

/** The segment of the rings nearest to p: ring, segment index and distance. */
function nearestOn(
  rings: readonly (readonly Point[])[],
  p: Point,
): { ring: number; seg: number; d: number } | null {
  let best: { ring: number; seg: number; d: number } | null = null;
  rings.forEach((r, j) => {
    const n = r.length;
    for (let i = 0; i < n; i++) {
      const a = r[i];
      const b = r[(i + 1) % n];
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const l2 = dx * dx + dy * dy;
      const t = l2 > 0 ? Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2)) : 0;
      const d = hypot(a.x + t * dx - p.x, a.y + t * dy - p.y);
      if (!best || d < best.d) best = { ring: j, seg: i, d };
    }
  });
  return best;
}

/**
 * Open lobes lengthened at each end along the planned line to where a
 * driven ring runs on it (within ON_LINE), at most `reach` farther: a lobe
 * ends where the ring comes within half a swath of the line, and between
 * there and where the ring meets the line (the ring rounding off it) the
 * line is otherwise worked by neither. Ends that reach no such point in
 * `reach`, or only round a bend, stay as they are. `driven` holds the rings of the lobes' pass.
 */
export function extendLobes(
  lobes: readonly Lobe[],
  planned: readonly (readonly Point[])[],
  driven: readonly (readonly Point[])[],
  reach: number,
): Lobe[] {
  if (!lobes.some((l) => !l.closed) || driven.length === 0) return lobes.slice();
  const rings = new EdgeIndex(driven.map((r) => r.slice()));
  const onRing = (p: Point) => rings.clearance(p, ON_LINE) <= ON_LINE;
  return lobes.map((l) => {
    if (l.closed || l.points.length < 2) return l;
    const first = l.points[0];
    const last = l.points[l.points.length - 1];
    const at0 = nearestOn(planned, first);
    const at1 = nearestOn(planned, last);
    if (!at0 || !at1 || at0.d > ON_LINE || at1.d > ON_LINE || at0.ring !== at1.ring) return l;
    const ring = planned[at0.ring];
    let head = onRing(first) ? [] : walk(ring, at0.seg, first, -1, reach, onRing).reverse();
    let tail = onRing(last) ? [] : walk(ring, at1.seg, last, 1, reach, onRing);
    // Only straight on from the lobe (a bend the lobe would turn at is joined from the ring: lobeEntry).
    if (head.length && !straight([...head, first, l.points[1]])) head = [];
    if (tail.length && !straight([l.points[l.points.length - 2], last, ...tail])) tail = [];
    if (!head.length && !tail.length) return l;
    return { ...l, points: [...head, ...l.points, ...tail] };
  });
}

/** True when the line bends by no more than STEP_BEND at any vertex. */
function straight(pts: readonly Point[]): boolean {
  let h: number | null = null;
  for (let i = 1; i < pts.length; i++) {
    if (hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y) < 1e-3) continue;
    const g = heading(pts[i - 1], pts[i]);
    if (h !== null && Math.abs(angleDiffRad(g, h)) > STEP_BEND) return false;
    h = g;
  }
  return true;
}

/**
 * From p (on segment seg of the closed ring) along the ring backwards (way
 * -1) or forwards (way 1), at most `reach`: the points passed up to the first
 * one (sampled every STEP) where `stop` holds, that one last; none where no
 * point within reach does.
 */
function walk(
  ring: readonly Point[],
  seg: number,
  p: Point,
  way: -1 | 1,
  reach: number,
  stop: (q: Point) => boolean,
): Point[] {
  const n = ring.length;
  const out: Point[] = [];
  let at = p;
  let travelled = 0;
  // The next vertex: the segment's start going backwards, its end going forwards.
  let v = way === 1 ? (seg + 1) % n : seg;
  for (let k = 0; k < n && travelled < reach; k++) {
    const to = ring[v];
    const len = hypot(to.x - at.x, to.y - at.y);
    const steps = Math.max(1, Math.ceil(len / STEP));
    for (let i = 1; i <= steps; i++) {
      const t = i / steps;
      const q = { x: at.x + (to.x - at.x) * t, y: at.y + (to.y - at.y) * t };
      if (travelled + len * t > reach) return [];
      if (stop(q)) {
        out.push(q);
        return out;
      }
    }
    out.push(to);
    travelled += len;
    at = to;
    v = (v + way + n) % n;
  }
  return [];
}
