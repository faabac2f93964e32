/**
 * Where a lobe of a headland pass leaves the driven ring and rejoins it: on
 * the pass's planned line where the ring runs on it. The ring follows the
 * planned line up to the bend it rounds (across a neck, or round a corner
 * it cannot follow) and the lobe goes on along the line from there, so an
 * operator drives straight on from the ring into the lobe, working, rather
 * than leaving the ring a few turning radii earlier by a connector that
 * misses the planned line between.
 *
 *   ring  =====================q.            (the ring rounds off the line at q)
 *                                `.
 *   lobe  - - - - - - - - - - - - -p- - ->   (the lobe starts at p, on the planned line)
 *
 * The join from q to p is a forward path hardly longer than the distance
 * between them (a straight where the two lie on one line), worked.
 */
import { EdgeIndex } from '../geometry/edge-index.ts';
import type { Point, Pose } from '../types/index.ts';
import type { Connection } from './connect.ts';
import type { Leg } from './drive-lobes.ts';
import type { RingDirection, RingPath } from './ring-path.ts';
import { angleDiffRad } from './route-geometry.ts';

/** The ring is on the planned line where it lies this close to it [m] (the audit's tolerance is 0.25 m). */
const ON_LINE = 0.05;
/** Points along the ring are tried this far apart [m]. */
const STEP = 0.5;
/** At most this many joins are tried at each end. */
const TRIES = 6;
/** A join may be this much longer than the distance it spans [m]. */
const SLACK = 0.2;
/** Ends closer than this [m], heading the same within SAME_HEADING [rad], need no join. */
const SAME = 1e-3;
const SAME_HEADING = (0.5 * Math.PI) / 180;

/** A forward path between two poses at most maxLength long, inside the field, or null. */
export type ForwardJoin = (from: Pose, to: Pose, maxLength: number) => Connection | null;

export interface LobeEnd {
  /** Distance from the loop's start along it where the loop is left (or rejoined). */
  at: number;
  /** The worked way from the loop onto the lobe (or back), null where none is needed. */
  join: Connection | null;
}

/** The planned rings of a pass, indexed for distance queries (built when first asked for). */
export class PlannedLines {
  private readonly rings: readonly (readonly Point[])[];
  private index: EdgeIndex | null = null;

  constructor(rings: readonly (readonly Point[])[]) {
    this.rings = rings;
  }

  /** True when p lies within tol of a planned ring. */
  near(p: Point, tol: number): boolean {
    this.index ??= new EdgeIndex(this.rings.map((r) => r.slice()));
    return this.index.distance(p, tol) <= tol;
  }
}

/**
 * Where to leave a ring loop (started at s, driven in direction dir) for a
 * lobe whose first leg is `first`, its start projecting onto the ring at
 * `enter` (distance along the loop): the last point at most `reach` before
 * that where the ring lies on the planned line and a forward path hardly
 * longer than the gap leads onto the leg. Null where there is none.
 */
export function lobeEntry(
  path: RingPath,
  s: number,
  dir: RingDirection,
  enter: number,
  first: Leg,
  planned: PlannedLines,
  reach: number,
  join: ForwardJoin,
): LobeEnd | null {
  const to: Pose = { x: first.a.x, y: first.a.y, heading: first.heading };
  return find(path, s, dir, enter, -1, to, planned, reach, (q) => {
    const from = path.arrivalPoseAt(s + dir * q, dir);
    return joinPoses(from, to, join);
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
  join: ForwardJoin,
): LobeEnd | null {
  const from: Pose = { x: last.b.x, y: last.b.y, heading: last.heading };
  return find(path, s, dir, leave, 1, from, planned, reach, (q) => {
    const to = path.poseAt(s + dir * q, dir);
    return joinPoses(from, to, join);
  });
}

/**
 * Walking along the loop from `from` back (way -1) or on (way 1), at most
 * `reach`: the first point on the planned line, behind the lobe's end pose
 * (way -1) or ahead of it (way 1), from which `tryJoin` finds a way.
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
  tryJoin: (at: number) => Connection | null | undefined,
): LobeEnd | null {
  const ux = Math.cos(end.heading);
  const uy = Math.sin(end.heading);
  let tries = 0;
  for (let t = 0; t <= reach && tries < TRIES; t += STEP) {
    const raw = from + way * t;
    if (raw <= 0 || raw >= path.length) return null;
    // At a vertex of a curve (a cut inside an arc's chord curves tighter than the arc).
    const at = path.distance(s, path.snap(s + dir * raw), dir);
    const q = path.pointAt(s + dir * at);
    const ahead = (q.x - end.x) * ux + (q.y - end.y) * uy;
    if (way * ahead < -SAME || !planned.near(q, ON_LINE)) continue;
    tries++;
    const c = tryJoin(at);
    if (c !== undefined) return { at, join: c };
  }
  return null;
}

/** The join between two poses: null where they are one, undefined where no forward path fits. */
function joinPoses(from: Pose, to: Pose, join: ForwardJoin): Connection | null | undefined {
  const d = Math.hypot(to.x - from.x, to.y - from.y);
  if (d < SAME) return Math.abs(angleDiffRad(to.heading, from.heading)) < SAME_HEADING ? null : undefined;
  return join(from, to, d + SLACK) ?? undefined;
}
