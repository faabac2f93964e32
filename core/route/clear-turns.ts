/**
 * Turns re-chosen to keep the implement inside the field where the turn
 * area (turn-region.ts) cannot hold them: a track or pass that itself runs
 * nearer the edge than half the working width (the last track of a narrow
 * strip, a pass pulled into a tip) starts its turn outside the turn area,
 * and the turn found in the field then swings the implement over the edge.
 * Here the turn is looked for in the field with straight reversing along
 * the lines in and out, swung off the line in or onto the line out on a
 * reversing arc where they run near the edge, and taken only where the plan audit's own measure
 * (metrics/turn-overhang.ts) finds it clear of the edge: leaving and
 * joining the passes it drives between no nearer the edge than they run.
 */
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { polylineLength } from '../geometry/vec.ts';
import { meterOf } from '../metrics/turn-overhang.ts';
import type { SampledPiece } from '../turn/path.ts';
import type { PathPart, Point, Polygon, Pose } from '../types/index.ts';
import { type Connection, connectPoses } from './connect.ts';
import { staysInside } from './connect-inside.ts';

/** Straight reversing tried before and after the turn [turning radii] (pairs at most one radius apart). */
const BACKS_RADII = [0, 0.5, 1, 1.5, 2];
/** At most this many turns are looked for between the lines in and out per turn re-chosen (each costs a search). */
const MAX_TRIES = 120;
/** ... of them at most this many anywhere in the field (where the ends lie outside the turn area: a far costlier search). */
const MAX_FIELD_TRIES = 24;

/** A way with this much overhang or less [m] is clear. */
const CLEAR = 1e-9;

/** Pairs of straight reversing [m] before and after, shortest first. */
function backPairs(R: number): [number, number][] {
  const pairs: [number, number][] = [];
  for (const d of BACKS_RADII)
    for (const e of BACKS_RADII) if (Math.abs(d - e) <= 1 && d + e > 0) pairs.push([d * R, e * R]);
  return pairs.sort((p, q) => p[0] + p[1] - (q[0] + q[1]) || Math.abs(p[0] - p[1]) - Math.abs(q[0] - q[1]));
}

const pairsByRadius = new Map<number, [number, number][]>();

/**
 * The way from `from` to `to` as driven parts between the working parts it
 * leaves and joins, for the overhang measure.
 */
function asParts(from: Pose, to: Pose, c: Connection): PathPart[] {
  const parts: PathPart[] = [
    {
      type: 'RouteTrack',
      working: true,
      sequence: 0,
      points: [{ x: from.x - Math.cos(from.heading), y: from.y - Math.sin(from.heading) }, from],
    },
  ];
  for (const pc of c.pieces)
    if (pc.points.length >= 2)
      parts.push({
        type: 'Turn',
        working: false,
        sequence: parts.length,
        points: pc.points,
        reverse: pc.reverse,
      });
  parts.push({
    type: 'RouteTrack',
    working: true,
    sequence: parts.length,
    points: [to, { x: to.x + Math.cos(to.heading), y: to.y + Math.sin(to.heading) }],
  });
  return parts;
}

/** The way's overhang as the plan audit measures it, between working parts [m]. */
export function wayOverhang(zone: Polygon, hw: number, from: Pose, to: Pose, c: Connection): number {
  return meterOf(zone, hw)
    .measure(asParts(from, to, c))
    .reduce((a, o) => a + o.length, 0);
}

/**
 * The overhang of driven parts as the plan audit measures it [m]: of their
 * turns and connectors, between the working parts they leave and join (the
 * parts driven in their order).
 */
export function partsOverhang(zone: Polygon, hw: number, parts: readonly PathPart[]): number {
  const driven = parts.map((p, i) => ({ ...p, sequence: i }));
  return meterOf(zone, hw)
    .measure(driven)
    .reduce((a, o) => a + o.length, 0);
}

/**
 * The pieces of a turn: the reversing `before` it (from the pose it leaves),
 * the middle, and the reversing `after` it (onto the pose it joins), each
 * joined with the middle's reversing pieces it runs on into.
 */
export function backedPieces(
  before: readonly Point[] | null,
  middle: Connection,
  after: readonly Point[] | null,
) {
  return joinedPieces(
    before ? { points: before, reverse: true } : null,
    middle,
    after ? { points: after, reverse: true } : null,
  );
}

/**
 * The pieces of `middle` with a straight driven before it and one after it
 * (each forwards or backwards), each joined with the middle's piece it runs
 * on into where driven the same way.
 */
export function joinedPieces(
  before: { points: readonly Point[]; reverse: boolean } | null,
  middle: Connection,
  after: { points: readonly Point[]; reverse: boolean } | null,
): SampledPiece[] {
  const pieces: SampledPiece[] = [];
  const add = (pc: SampledPiece) => {
    const last = pieces[pieces.length - 1];
    if (last && last.reverse === pc.reverse) last.points.push(...pc.points.slice(1));
    else pieces.push({ points: pc.points.slice(), reverse: pc.reverse });
  };
  const straight = (st: { points: readonly Point[]; reverse: boolean }) =>
    add({ points: st.points.map((q) => ({ x: q.x, y: q.y })), reverse: st.reverse });
  if (before) straight(before);
  for (const pc of middle.pieces) if (pc.points.length >= 2) add(pc);
  if (after) straight(after);
  return pieces;
}

/** Arcs swung reversing off the line in (or onto the line out) before the turn [rad], both ways. */
const SWING_ANGLES = [Math.PI / 6, Math.PI / 3, Math.PI / 2];
/** ... tried with at most this much straight reversing [turning radii]. */
const SWING_BACK_RADII = 1.5;
/** Arcs are drawn in steps of at most this angle [rad]. */
const ARC_STEP = Math.PI / 36;

/**
 * The points of an arc of radius R driven from `p` (forward or backward,
 * steering left for side 1, right for -1) through `angle`, and the pose at its end.
 */
function arc(
  p: Pose,
  R: number,
  angle: number,
  side: 1 | -1,
  backward: boolean,
): { pts: Point[]; end: Pose } {
  const cx = p.x - side * R * Math.sin(p.heading);
  const cy = p.y + side * R * Math.cos(p.heading);
  const turn = (backward ? -1 : 1) * side * angle;
  const n = Math.max(1, Math.ceil(angle / ARC_STEP));
  const pts: Point[] = [];
  for (let i = 0; i <= n; i++) {
    const h = p.heading + (turn * i) / n;
    pts.push({ x: cx + side * R * Math.sin(h), y: cy - side * R * Math.cos(h) });
  }
  const last = pts[n];
  return { pts, end: { x: last.x, y: last.y, heading: p.heading + turn } };
}

export interface ClearSetup {
  zone: Polygon;
  /** Edges of the zone and its obstacles. */
  region: EdgeIndex;
  /** The turn area (turn-region.ts). */
  turnArea: EdgeIndex;
  R: number;
  hw: number;
}

/**
 * The turn `c` from `from` to `to`, or where the audit finds it swinging
 * the implement over the edge, a turn that does not (clearTurn) when at
 * most `detour` longer.
 */
export function clearOr(
  s: ClearSetup,
  from: Pose,
  to: Pose,
  c: Connection,
  maxReverse: number,
  reach: number,
  detour: number,
): Connection {
  if (wayOverhang(s.zone, s.hw, from, to, c) <= CLEAR) return c;
  return clearTurn(s, from, to, maxReverse, reach, reach, c.length + detour) ?? c;
}

/**
 * A turn inside the field between two poses, held to the turn area where
 * both lie in it, else (with `field`) anywhere in the field; null where none fits.
 */
function connectIn(s: ClearSetup, a: Pose, b: Pose, maxReverse: number, field: boolean): Connection | null {
  const { R, region, turnArea: t } = s;
  const held = t.contains(a) && t.contains(b);
  if (!held && !field) return null;
  const h = held ? connectPoses(a, b, R, t, { maxReverse }) : null;
  if (h && staysInside(h, region)) return h;
  const m = field ? connectPoses(a, b, R, region, { maxReverse }) : null;
  return m && staysInside(m, region) ? m : null;
}

/**
 * The way reversing `before` onto `b`, turning to `c` (held to the turn
 * area, or with `field` anywhere in the field) and reversing `after` onto
 * `to`, where the audit finds it clear.
 */
function tryWay(
  s: ClearSetup,
  from: Pose,
  to: Pose,
  before: Point[] | null,
  b: Pose,
  c: Pose,
  after: Point[] | null,
  extra: number,
  maxReverse: number,
  maxLength: number,
  tries: { left: number; field: number },
): Connection | null {
  if (extra > maxLength || tries.left <= 0) return null;
  tries.left--;
  const field = tries.field > 0 && !(s.turnArea.contains(b) && s.turnArea.contains(c));
  if (field) tries.field--;
  const middle = connectIn(s, b, c, maxReverse, field);
  if (!middle || extra + middle.length > maxLength) return null;
  const pieces = backedPieces(before, middle, after);
  if (pieces.some((pc) => pc.reverse && polylineLength(pc.points) > maxReverse + 1e-6)) return null;
  const way: Connection = { pieces, length: extra + middle.length, kind: 'K' };
  return wayOverhang(s.zone, s.hw, from, to, way) <= CLEAR ? way : null;
}

/**
 * A turn from `from` to `to` that the audit finds clear of the edge:
 * straight reversing along the line in and the line out (each at most
 * `maxIn`, `maxOut`) round a turn found in the field, shortest first, at
 * most `maxLength` long; null where none is clear.
 */
export function clearTurn(
  s: ClearSetup,
  from: Pose,
  to: Pose,
  maxReverse: number,
  maxIn: number,
  maxOut: number,
  maxLength: number,
): Connection | null {
  const { R, region } = s;
  let pairs = pairsByRadius.get(R);
  if (!pairs) {
    pairs = backPairs(R);
    pairsByRadius.set(R, pairs);
  }
  const tries = { left: MAX_TRIES, field: MAX_FIELD_TRIES };
  for (const [d, e] of pairs) {
    if (tries.left <= 0) break;
    if (d > maxIn + 1e-9 || e > maxOut + 1e-9 || d + e > maxLength) continue;
    const b = {
      x: from.x - d * Math.cos(from.heading),
      y: from.y - d * Math.sin(from.heading),
      heading: from.heading,
    };
    const c = { x: to.x + e * Math.cos(to.heading), y: to.y + e * Math.sin(to.heading), heading: to.heading };
    if (d > 0 && (!region.contains(b) || region.segmentCrosses(from, b))) continue;
    if (e > 0 && (!region.contains(c) || region.segmentCrosses(c, to))) continue;
    const before = d > 0 ? [from, b] : null;
    const after = e > 0 ? [c, to] : null;
    const way = tryWay(s, from, to, before, b, c, after, d + e, maxReverse, maxLength, tries);
    if (way) return way;
    if (d > SWING_BACK_RADII * R + 1e-9 || e > SWING_BACK_RADII * R + 1e-9) continue;
    // Swung off the line in reversing, or onto the line out: a three-point turn where the lines run near the edge.
    for (const angle of SWING_ANGLES) {
      for (const side of [1, -1] as const) {
        const off = arc(b, R, angle, side, true);
        if (!region.contains(off.end) || region.polylineCrosses(off.pts)) continue;
        const swung = tryWay(
          s,
          from,
          to,
          [...(before ?? [from]), ...off.pts.slice(1)],
          off.end,
          c,
          after,
          d + e + R * angle,
          maxReverse,
          maxLength,
          tries,
        );
        if (swung) return swung;
      }
      for (const side of [1, -1] as const) {
        const on = arc(c, R, angle, side, false);
        if (!region.contains(on.end) || region.polylineCrosses(on.pts)) continue;
        const pts = on.pts.reverse();
        const swung = tryWay(
          s,
          from,
          to,
          before,
          b,
          on.end,
          after ? [...pts, ...after.slice(1)] : pts,
          d + e + R * angle,
          maxReverse,
          maxLength,
          tries,
        );
        if (swung) return swung;
      }
    }
  }
  return null;
}
