/**
 * Connect two poses with a drivable path that stays inside the field: the
 * shortest Dubins path that fits; else, with reversing, a path with cusps:
 * back up straight along the current heading, then a forward Dubins path,
 * or reverse along a Dubins path (a K-turn), then forward. Every candidate
 * is checked against the field edges (a sampled path that crosses no edge
 * and starts inside stays inside).
 */
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { dubinsPaths } from '../turn/dubins.ts';
import { type SampledPiece, type Segment, samplePath, segmentEnd, type TurnPath } from '../turn/path.ts';
import type { Point, Pose } from '../types/index.ts';

export interface Connection {
  pieces: SampledPiece[];
  length: number;
  /** 'U' | 'bulb' | 'K' | 'straight' | ... for reporting. */
  kind: string;
}

export interface ConnectOptions {
  /** Allow reversing (Reeds-Shepp) when no forward path fits. Default true. */
  allowReverse?: boolean;
  /** Give up on paths longer than this [m]. */
  maxLength?: number;
}

export function connectPoses(
  from: Pose,
  to: Pose,
  radius: number,
  region: EdgeIndex,
  opts: ConnectOptions = {},
): Connection | null {
  const maxLength = opts.maxLength ?? Number.POSITIVE_INFINITY;
  if (
    Math.hypot(to.x - from.x, to.y - from.y) < 1e-6 &&
    Math.abs(angleDiff(to.heading, from.heading)) < 1e-6
  ) {
    return { pieces: [], length: 0, kind: 'none' };
  }
  for (const p of dubinsPaths(from, to, radius)) {
    if (p.length > maxLength) break;
    const c = tryPath(from, p, radius, region);
    if (c) return c;
  }
  if (opts.allowReverse === false) return null;
  return reversingConnection(from, to, radius, region, maxLength);
}

/**
 * Candidate paths with cusps, shortest first among those tried: back up
 * straight then turn forward; or reverse along a Dubins path to an
 * intermediate pose behind the target, then drive forward into it.
 */
function reversingConnection(
  from: Pose,
  to: Pose,
  radius: number,
  region: EdgeIndex,
  maxLength: number,
): Connection | null {
  const candidates: TurnPath[] = [];
  for (const back of [radius * 0.5, radius, 2 * radius, 3 * radius, 5 * radius]) {
    const start: Pose = {
      x: from.x - back * Math.cos(from.heading),
      y: from.y - back * Math.sin(from.heading),
      heading: from.heading,
    };
    for (const p of dubinsPaths(start, to, radius).slice(0, 3)) {
      candidates.push({
        segments: [{ type: 'S', length: back, reverse: true }, ...p.segments],
        length: back + p.length,
        word: `S-${p.word}`,
      });
    }
  }
  // Reverse to a pose behind the target (a K-turn), then forward along the target heading.
  for (const back of [radius, 2 * radius, 3 * radius]) {
    const mid: Pose = {
      x: to.x - back * Math.cos(to.heading),
      y: to.y - back * Math.sin(to.heading),
      heading: to.heading,
    };
    const flipFrom: Pose = { x: from.x, y: from.y, heading: from.heading + Math.PI };
    const flipMid: Pose = { x: mid.x, y: mid.y, heading: mid.heading + Math.PI };
    for (const p of dubinsPaths(flipFrom, flipMid, radius).slice(0, 3)) {
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
  candidates.sort((a, b) => a.length - b.length);
  for (const c of candidates) {
    if (c.length > maxLength) break;
    const conn = tryPath(from, c, radius, region);
    if (conn) return conn;
  }
  return null;
}

function tryPath(from: Pose, path: TurnPath, radius: number, region: EdgeIndex): Connection | null {
  // Check segment by segment so a path that leaves the field early is dropped early.
  let p = from;
  for (const seg of path.segments) {
    if (seg.length < 1e-9) continue;
    const end = segmentEnd(p, seg, radius);
    if (seg.type === 'S') {
      // A straight is checked as the one segment it is.
      if (region.segmentCrosses(p, end)) return null;
    } else {
      const piece = samplePath(p, { segments: [seg], length: seg.length, word: seg.type }, radius);
      for (const pc of piece) if (region.polylineCrosses(pc.points)) return null;
    }
    p = end;
  }
  return { pieces: samplePath(from, path, radius), length: path.length, kind: classify(path) };
}

function classify(path: TurnPath): string {
  if (path.segments.some((s) => s.reverse)) return 'K';
  const arcs = path.segments.filter((s) => s.type !== 'S');
  if (arcs.length === 0) return 'straight';
  if (path.word === 'LRL' || path.word === 'RLR') return 'bulb';
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
