/**
 * The route of a zone under construction: the parts driven so far, where
 * the machine is, and what could not be driven. Tracks are driven and
 * joined to the route here; the order modules decide which comes next.
 */
import type { HeadlandRing } from '../headland/generate-headlands.ts';
import type { PathPart, Point, Pose } from '../types/index.ts';
import type { Connection } from './connect.ts';
import type { RouteLinks, RouteRing } from './route-links.ts';
import type { RouteInput } from './route-types.ts';
import { type TrackRec, trackEndPose, trackStartPose } from './track-blocks.ts';

export class RouteBuilder {
  readonly input: RouteInput;
  /** Minimum turning radius [m]. */
  readonly R: number;
  /** Swath width [m]. */
  readonly w: number;
  /** Heading of the straight tracks [rad]. */
  readonly heading: number;
  readonly recs: TrackRec[];
  readonly blocks: TrackRec[][];
  /** Headland passes to drive: interior first, then exterior. */
  readonly rings: RouteRing[];
  readonly links: RouteLinks;

  /** Driven parts in driving order. */
  readonly parts: PathPart[] = [];
  /** Where the machine is (null before the route begins). */
  pose: Pose | null;
  routeStart: Point | undefined;
  /** Connections that could not be made inside the field. */
  failures = 0;
  /** Tracks no drivable path inside the field reaches. */
  readonly skipped: number[] = [];
  readonly undriven: HeadlandRing[] = [];
  /** A connection already found for the next link (by the order that chose it). */
  known: { to: Pose; conn: Connection } | null = null;

  constructor(
    input: RouteInput,
    recs: TrackRec[],
    blocks: TrackRec[][],
    rings: RouteRing[],
    links: RouteLinks,
  ) {
    this.input = input;
    this.R = input.machine.minTurningRadius;
    this.w = input.tracks.swathWidth;
    this.heading = input.tracks.heading;
    this.recs = recs;
    this.blocks = blocks;
    this.rings = rings;
    this.links = links;
    this.pose = input.startPose ?? null;
    this.routeStart = input.startPose ? { x: input.startPose.x, y: input.startPose.y } : undefined;
  }

  startPoseOf(r: TrackRec, forward: boolean): Pose {
    return trackStartPose(r, forward, this.heading);
  }

  endPoseOf(r: TrackRec, forward: boolean): Pose {
    return trackEndPose(r, forward, this.heading);
  }

  pushConnection(c: Connection, type: PathPart['type']): void {
    for (const piece of c.pieces) {
      if (piece.points.length < 2) continue;
      const part: PathPart = { type, points: piece.points, working: false, turnKind: c.kind };
      if (piece.reverse) part.reverse = true;
      this.parts.push(part);
    }
  }

  /** Connect the current pose to `to`, directly or along a headland ring; false if impossible. */
  link(to: Pose, type: PathPart['type']): boolean {
    if (!this.pose) {
      this.pose = to;
      return true;
    }
    const cached = this.known && this.known.to === to ? this.known.conn : null;
    this.known = null;
    const found = this.links.findLink(this.pose, to, type, true, cached);
    if (!found) return false;
    for (const [c, t] of found.legs) this.pushConnection(c, t);
    this.pose = to;
    return true;
  }

  driveTrack(r: TrackRec, forward: boolean): void {
    const t = r.track;
    const line = t.path ?? [t.a, t.b];
    this.parts.push({
      type: 'RouteTrack',
      points: forward ? line.slice() : line.slice().reverse(),
      working: true,
      trackIndex: r.index,
      ...(t.path ? {} : { bearingDeg: this.input.tracks.bearingDeg }),
    });
    r.done = true;
    this.pose = this.endPoseOf(r, forward);
  }
}
