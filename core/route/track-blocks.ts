/**
 * The tracks of a zone as the route sees them: a record per track (its
 * block, whether it is driven yet), the blocks they fall into, the poses at
 * which a track is entered and left, and a driving order given by the caller,
 * checked.
 */
import { endTangent, startTangent } from '../geometry/tangent.ts';
import type { Track } from '../tracks/generate-tracks.ts';
import type { Point, Pose } from '../types/index.ts';
import { PlanningError } from '../types/index.ts';
import type { Visit } from './optimize-order.ts';

export interface TrackRec {
  index: number;
  track: Track;
  block: number;
  done: boolean;
}

/** The pose where track `r` is entered, driven forward (a to b) or backward. */
export function trackStartPose(r: TrackRec, forward: boolean, heading: number): Pose {
  return r.track.path
    ? pathPose(r.track.path, forward, true)
    : forward
      ? { x: r.track.a.x, y: r.track.a.y, heading }
      : { x: r.track.b.x, y: r.track.b.y, heading: heading + Math.PI };
}

/** The pose where track `r` is left, driven forward (a to b) or backward. */
export function trackEndPose(r: TrackRec, forward: boolean, heading: number): Pose {
  return r.track.path
    ? pathPose(r.track.path, forward, false)
    : forward
      ? { x: r.track.b.x, y: r.track.b.y, heading }
      : { x: r.track.a.x, y: r.track.a.y, heading: heading + Math.PI };
}

/**
 * Pose where a curved track is entered (start) or left: at its first or last
 * point, heading along the track's curve there in the direction of driving.
 */
export function pathPose(path: readonly Point[], forward: boolean, start: boolean): Pose {
  const atA = forward === start;
  const p = atA ? path[0] : path[path.length - 1];
  // The line's direction at that end; driven backwards (b to a), its opposite.
  const h = atA ? startTangent(path) : endTangent(path);
  return { x: p.x, y: p.y, heading: forward ? h : h + Math.PI };
}

/**
 * Blocks: runs of scan lines where each line has one segment overlapping one
 * segment of the previous line and nothing else, so any two tracks of a block
 * can be joined by a turn at either end.
 */
export function buildBlocks(recs: TrackRec[], heading: number): TrackRec[][] {
  const c = Math.cos(heading);
  const s = Math.sin(heading);
  const u = (p: Point) => p.x * c + p.y * s;
  const byLine = new Map<number, TrackRec[]>();
  for (const r of recs) {
    const l = byLine.get(r.track.line);
    if (l) l.push(r);
    else byLine.set(r.track.line, [r]);
  }
  const lines = [...byLine.keys()].sort((a, b) => a - b);
  const blocks: TrackRec[][] = [];
  let prevLine = -2;
  let prev: TrackRec[] = [];
  for (const line of lines) {
    const cur = byLine.get(line)!;
    // Curved tracks overlap where their spans along the reference do.
    const lo = (t: Track) => (t.along ? t.along[0] : u(t.a));
    const hi = (t: Track) => (t.along ? t.along[1] : u(t.b));
    const overlaps = (a: TrackRec, b: TrackRec) =>
      Math.min(hi(a.track), hi(b.track)) - Math.max(lo(a.track), lo(b.track)) > 0;
    for (const r of cur) {
      if (line === prevLine + 1) {
        const ov = prev.filter((p) => overlaps(p, r));
        if (ov.length === 1 && cur.filter((q) => overlaps(ov[0], q)).length === 1) {
          r.block = ov[0].block;
          blocks[r.block].push(r);
          continue;
        }
      }
      r.block = blocks.length;
      blocks.push([r]);
    }
    prevLine = line;
    prev = cur;
  }
  return blocks;
}

/** A given driving order, checked: every track of 0..n-1 exactly once. */
export function checkedOrder(order: readonly Visit[], n: number): Visit[] {
  const seen = new Set<number>();
  for (const v of order) {
    if (!Number.isInteger(v.track) || v.track < 0 || v.track >= n || seen.has(v.track)) {
      throw new PlanningError(
        'INVALID_OPTION',
        `routeOptions.trackOrder names track ${v.track}${seen.has(v.track) ? ' twice' : ''}; the zone has ${n} tracks, numbered 0 to ${n - 1}, each to be named once.`,
        { path: 'routeOptions.trackOrder' },
      );
    }
    seen.add(v.track);
  }
  if (seen.size !== n) {
    throw new PlanningError(
      'INVALID_OPTION',
      `routeOptions.trackOrder names ${seen.size} of the zone's ${n} tracks; name every track once.`,
      { path: 'routeOptions.trackOrder' },
    );
  }
  return order.map((v) => ({ track: v.track, forward: v.forward }));
}
