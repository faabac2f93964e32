/**
 * The route of one zone: the order in which the machine drives the tracks
 * and headland passes, and the turns and connectors that join them.
 *
 * Tracks are grouped into blocks (runs of adjacent scan lines whose segments
 * overlap, so neighbours can be joined by a turn at either end). Within a
 * block the next track is chosen greedily by the real length of the turn
 * that fits inside the field, from a window at the sweep front: when twice
 * the turning radius exceeds the track spacing this yields skip-row orders
 * whose turns are plain U-turns. Blocks are chained nearest first. A turn
 * that does not fit inside the field is replaced by travel along a headland
 * pass. The headland passes are driven last, inner to outer, so the route
 * ends on the outermost pass, near the field edge.
 */
import { offset } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { endTangent, startTangent } from '../geometry/tangent.ts';
import type { HeadlandResult, HeadlandRing } from '../headland/generate-headlands.ts';
import type { Track, TrackSet } from '../tracks/generate-tracks.ts';
import { dubinsShortest } from '../turn/dubins.ts';
import type {
  Machine,
  OptimizerObjective,
  OptimizerReport,
  PathPart,
  Point,
  Polygon,
  Pose,
  RouteAlgorithm,
} from '../types/index.ts';
import { PlanningError } from '../types/index.ts';
import { type Connection, type ConnectOptions, connectPoses as connectWith } from './connect.ts';
import { staysInside } from './connect-inside.ts';
import { FieldTravel } from './field-travel.ts';
import { loopWithCorners, type RingCorner, squareCorners } from './headland-corners.ts';
import { optimizeOrder, orderCost, skipPattern, snakePattern, type Visit } from './optimize-order.ts';
import { type RingDirection, RingPath } from './ring-path.ts';

/**
 * How the tracks are ordered:
 * - 'auto': greedy, per block, the next track by the real length of the turn that fits (the default);
 * - 'boustrophedon': every line in turn, back and forth;
 * - 'snake': every other line out, the lines between on the way back;
 * - 'clusteredSpiral': clusters of 2s+1 lines driven i, i+s+1, i+1, i+s+2, ... (s = skipCount);
 * - 'optimized': the anytime optimizer of order and direction (optimize-order.ts).
 */
export type RouteOrderAlgorithm = RouteAlgorithm;

export interface RouteOrderOptions {
  algorithm: RouteOrderAlgorithm;
  /** Lines skipped per turn for 'clusteredSpiral'; default the fewest that make each turn a U-turn. */
  skipCount?: number;
  /** For 'optimized' (default 'distance'). */
  objective?: OptimizerObjective;
  /** The caller's deadline for 'optimized': true when it must stop. */
  shouldStop?: () => boolean;
  /** Cap on the optimizer's move evaluations (the deadline of a caller without a clock). */
  maxEvaluations?: number;
  /** Drive the tracks in exactly this order (every track once; overrides `algorithm`). */
  fixed?: readonly Visit[];
}

/** Stop, shift and start again at a reversing cusp [s]. */
const CUSP_TIME = 4;
/** Fuel use while turning and travelling on the headland [l/s] (15 l/h). */
const TURN_FUEL_RATE = 15 / 3600;

export interface RouteInput {
  tracks: TrackSet;
  headlands: HeadlandResult;
  /** Edges of the zone boundary and its obstacles. */
  region: EdgeIndex;
  /** The zone polygon (its holes are obstacles). */
  zone: Polygon;
  machine: Machine;
  /** Where the route should start / end (route nodes), if the request names them. */
  start?: Point;
  end?: Point;
  /** Ordering of the tracks; default 'auto'. */
  order?: RouteOrderOptions;
  /** Drive the exterior headland passes first (outermost first), then the tracks. */
  headlandsFirst?: boolean;
  /** Winding of every headland pass: clockwise or counter-clockwise; default either, whichever joins best. */
  forcedDirection?: 'CW' | 'CCW';
  /**
   * Continue from this pose: where the route of the previous cell of a
   * decomposed field part ended (position and heading).
   */
  startPose?: Pose;
  /** Drive the headland passes (default true); false leaves them to another call, their rings still serve for travel. */
  driveHeadlands?: boolean;
  /** Connectors straight through the headland, never along a headland pass. */
  headlandDrivethrough?: boolean;
  /**
   * Exterior passes run on past each square corner to work the kite outside
   * it, half a swath inside the field (with extendTracks; overlap, reported).
   */
  runOnCorners?: boolean;
}

export interface RouteResult {
  /** Driven parts in driving order (sequence numbers are assigned by the composer). */
  parts: PathPart[];
  start?: Point;
  end?: Point;
  /** Connections that could not be made inside the field (0 on a valid plan). */
  failures: number;
  /** Indices of tracks left out because no drivable path inside the field reaches them. */
  skippedTracks: number[];
  /** Headland rings asked for but not driven (no drivable way onto them inside the field). */
  undrivenRings: HeadlandRing[];
  /** Set when the order was optimized. */
  optimizer?: OptimizerReport;
}

interface TrackRec {
  index: number;
  track: Track;
  block: number;
  done: boolean;
}

export function planRoute(input: RouteInput): RouteResult {
  const R = input.machine.minTurningRadius;
  const sigma = input.machine.maxCurvatureRate;
  // Turns and connectors keep half the machine's width off obstacles (less
  // 5 cm: the first interior headland pass runs at exactly half a swath).
  const clearance = input.tracks.swathWidth / 2 - 0.05;
  const holes = input.zone.holes.map((h) => ({
    outer: ringArea(h) < 0 ? h.slice().reverse() : h,
    holes: [],
  }));
  const buffered =
    holes.length && clearance > 0
      ? new EdgeIndex([input.zone.outer, ...offset(holes, clearance).flatMap((p) => [p.outer, ...p.holes])])
      : input.region;
  // Every connection follows the machine's turn model (continuous curvature with a rate limit),
  // and none leaves the field from a pass that runs along its edge.
  const connectPoses = (
    from: Pose,
    to: Pose,
    r: number,
    region: EdgeIndex,
    opts: ConnectOptions = {},
  ): Connection | null => {
    const o = sigma === undefined ? opts : { ...opts, curvatureRate: sigma };
    // Keep the obstacle margin where the ends allow it; where no path keeps it (ends
    // in an obstacle's margin, a gap between obstacles narrower than the machine
    // needs to turn), hold the path to the obstacles themselves.
    if (region === input.region && buffered !== region && buffered.contains(from) && buffered.contains(to)) {
      const c = connectWith(from, to, r, buffered, o);
      if (c && staysInside(c, region)) return c;
    }
    const c = connectWith(from, to, r, region, o);
    return c && staysInside(c, region) ? c : null;
  };
  const w = input.tracks.swathWidth;
  const heading = input.tracks.heading;
  const recs: TrackRec[] = input.tracks.tracks.map((track, index) => ({
    index,
    track,
    block: -1,
    done: false,
  }));
  const blocks = buildBlocks(recs, heading);
  const rings = [
    ...input.headlands.drivenInterior.map((r) => ({
      ring: r,
      path: new RingPath(r.ring, sigma !== undefined),
      exterior: false,
    })),
    ...input.headlands.drivenExterior.map((r) => ({
      ring: r,
      path: new RingPath(r.ring, sigma !== undefined),
      exterior: true,
    })),
  ];
  const innermostPass = input.headlands.drivenExterior.reduce((m, r) => Math.max(m, r.passNumber), 0);
  const travelRings = rings.filter((r) => !r.exterior || r.ring.passNumber === innermostPass);
  const parts: PathPart[] = [];
  /** Tracks no drivable path inside the field reaches. */
  const skipped: number[] = [];
  const undriven: HeadlandRing[] = [];
  let failures = 0;
  const cornerCache = new Map<RingPath, RingCorner[]>();
  let pose: Pose | null = input.startPose ?? null;
  let routeStart: Point | undefined = input.startPose
    ? { x: input.startPose.x, y: input.startPose.y }
    : undefined;
  const skip = Math.max(1, Math.ceil((2 * R) / w - 1e-9));
  /** The start pose chooseNext connected to, so link can reuse its connection. */
  let nextPose: Pose | null = null;

  const startPoseOf = (r: TrackRec, forward: boolean): Pose =>
    r.track.path
      ? pathPose(r.track.path, forward, true)
      : forward
        ? { x: r.track.a.x, y: r.track.a.y, heading }
        : { x: r.track.b.x, y: r.track.b.y, heading: heading + Math.PI };

  const pushConnection = (c: Connection, type: PathPart['type']) => {
    for (const piece of c.pieces) {
      if (piece.points.length < 2) continue;
      const part: PathPart = { type, points: piece.points, working: false, turnKind: c.kind };
      if (piece.reverse) part.reverse = true;
      parts.push(part);
    }
  };

  let travel: FieldTravel | null = null;
  const fieldTravel = () => {
    travel ??= new FieldTravel(input.zone, input.region, R, sigma);
    return travel;
  };

  /** A connection already found for the next link (from chooseNext). */
  let known: { to: Pose; conn: Connection } | null = null;

  interface Found {
    length: number;
    legs: [Connection, PathPart['type']][];
  }

  /**
   * The shortest way found from `from` to `to`: a direct path (forward
   * first), along a headland ring, or (with `anywhere`) through the field
   * along straight legs; null if none fits inside the field.
   */
  const findLink = (
    from: Pose,
    to: Pose,
    type: PathPart['type'],
    anywhere: boolean,
    cached: Connection | null = null,
  ): Found | null => {
    if (input.headlandDrivethrough) {
      // Straight through the headland: a direct path (forward first), else straight legs across the field.
      const d =
        cached ??
        connectPoses(from, to, R, input.region, { allowReverse: false }) ??
        connectPoses(from, to, R, input.region);
      if (d) return { length: d.length, legs: [[d, type]] };
      if (!anywhere) return null;
      const legs = fieldTravel().connect(from, to);
      if (!legs) return null;
      return { length: legs.reduce((a, c) => a + c.length, 0), legs: legs.map((c) => [c, 'Connector']) };
    }
    // Forward paths first (direct, then along a headland ring); reversing only when neither fits.
    let direct = cached ?? connectPoses(from, to, R, input.region, { allowReverse: false });
    let via = direct && direct.length < 6 * R + dist(from, to) ? null : viaRing(from, to, false);
    if (!direct && !via) {
      direct = connectPoses(from, to, R, input.region);
      via = direct ? null : (viaRing(from, to, true) ?? viaTwoRings(from, to));
    }
    const best = pickShorter(direct, via);
    if (best)
      return best === direct ? { length: direct.length, legs: [[direct, type]] } : (best as RingTravel);
    if (!anywhere) return null;
    // Last resort: through the field along straight legs between waypoints.
    const legs = fieldTravel().connect(from, to);
    if (!legs) return null;
    return { length: legs.reduce((a, c) => a + c.length, 0), legs: legs.map((c) => [c, 'Connector']) };
  };

  /** Connect the current pose to `to`, directly or along a headland ring; false if impossible. */
  const link = (to: Pose, type: PathPart['type']): boolean => {
    if (!pose) {
      pose = to;
      return true;
    }
    const cached = known && known.to === to ? known.conn : null;
    known = null;
    const found = findLink(pose, to, type, true, cached);
    if (!found) return false;
    for (const [c, t] of found.legs) pushConnection(c, t);
    pose = to;
    return true;
  };

  interface RingTravel {
    length: number;
    legs: [Connection, PathPart['type']][];
  }

  /**
   * From the ring near one end to the ring near the other (an obstacle ring
   * and the exterior pass, say), changing rings where they come closest.
   */
  const viaTwoRings = (from: Pose, to: Pose): RingTravel | null => {
    const reach = 4 * R + 2 * w;
    const near = (p: Point) =>
      travelRings.filter(
        (r) => r.path.length >= 8 * R && dist(r.path.pointAt(r.path.project(p)), p) <= reach,
      );
    let best: RingTravel | null = null;
    for (const A of near(from)) {
      for (const B of near(to)) {
        if (A === B) continue;
        // Where A and B come closest (A sampled every few metres).
        let sa = 0;
        let sb = 0;
        let bd = Number.POSITIVE_INFINITY;
        for (let s = 0; s < A.path.length; s += 3) {
          const p = A.path.pointAt(s);
          const t = B.path.project(p);
          const d = dist(p, B.path.pointAt(t));
          if (d < bd) {
            bd = d;
            sa = s;
            sb = t;
          }
        }
        if (bd > reach * 2) continue;
        for (const da of [1, -1] as RingDirection[]) {
          for (const db of [1, -1] as RingDirection[]) {
            const legs = chain(from, to, A.path, da, sa, B.path, db, sb);
            if (legs && (!best || legs.length < best.length)) best = legs;
          }
        }
      }
    }
    return best;
  };

  function chain(
    from: Pose,
    to: Pose,
    A: RingPath,
    da: RingDirection,
    sa: number,
    B: RingPath,
    db: RingDirection,
    sb: number,
  ): RingTravel | null {
    const a0 = A.snap(A.project(from) + da * 2 * R);
    const a1 = A.snap(sa);
    const b0 = B.snap(sb + db * 3 * R);
    const b1 = B.snap(B.project(to) - db * 2 * R);
    const la = A.distance(a0, a1, da);
    const lb = B.distance(b0, b1, db);
    const onA = A.stretch(a0, la, da);
    const onB = B.stretch(b0, lb, db);
    if (onA.length < 2 || onB.length < 2 || singleChord(onA) || singleChord(onB)) return null;
    const c1 = connectPoses(from, A.poseAt(a0, da), R, input.region);
    if (!c1) return null;
    const c2 = connectPoses(A.arrivalPoseAt(a0 + da * la, da), B.poseAt(b0, db), R, input.region);
    if (!c2) return null;
    const c3 = connectPoses(B.arrivalPoseAt(b0 + db * lb, db), to, R, input.region);
    if (!c3) return null;
    const ta = polyLen(onA);
    const tb = polyLen(onB);
    const leg = (pts: Point[], length: number): Connection => ({
      pieces: [{ points: pts, reverse: false }],
      length,
      kind: 'headland',
    });
    return {
      length: c1.length + ta + c2.length + tb + c3.length,
      legs: [
        [c1, 'HeadlandConnector'],
        [leg(onA, ta), 'HeadlandConnector'],
        [c2, 'HeadlandConnector'],
        [leg(onB, tb), 'HeadlandConnector'],
        [c3, 'HeadlandConnector'],
      ],
    };
  }

  const viaRing = (from: Pose, to: Pose, allowReverse: boolean): RingTravel | null => {
    const opts = { allowReverse };
    let best: RingTravel | null = null;
    for (const r of travelRings) {
      const p = r.path;
      if (p.length < 8 * R) continue;
      // Only rings that pass near both ends are worth a try.
      const reach = 4 * R + 2 * w;
      const s0 = p.project(from);
      if (dist(p.pointAt(s0), from) > reach) continue;
      const s1 = p.project(to);
      if (dist(p.pointAt(s1), to) > reach) continue;
      for (const dir of [1, -1] as RingDirection[]) {
        for (const la of [2 * R, 4 * R]) {
          const a = p.snap(s0 + dir * la);
          const b = p.snap(s1 - dir * la);
          const travel = p.distance(a, b, dir);
          const pts = p.stretch(a, travel, dir);
          if (pts.length < 2 || singleChord(pts)) continue;
          const c1 = connectPoses(from, p.poseAt(a, dir), R, input.region, opts);
          if (!c1) continue;
          const c2 = connectPoses(p.arrivalPoseAt(a + dir * travel, dir), to, R, input.region, opts);
          if (!c2) continue;
          const length = c1.length + travel + c2.length;
          if (!best || length < best.length) {
            const travelConn: Connection = {
              pieces: [{ points: pts, reverse: false }],
              length: travel,
              kind: 'headland',
            };
            best = {
              length,
              legs: [
                [c1, 'HeadlandConnector'],
                [travelConn, 'HeadlandConnector'],
                [c2, 'HeadlandConnector'],
              ],
            };
          }
        }
      }
    }
    return best;
  };

  const driveTrack = (r: TrackRec, forward: boolean) => {
    const t = r.track;
    const line = t.path ?? [t.a, t.b];
    parts.push({
      type: 'RouteTrack',
      points: forward ? line.slice() : line.slice().reverse(),
      working: true,
      trackIndex: r.index,
      ...(t.path ? {} : { bearingDeg: input.tracks.bearingDeg }),
    });
    r.done = true;
    pose = t.path
      ? pathPose(t.path, forward, false)
      : forward
        ? { x: t.b.x, y: t.b.y, heading }
        : { x: t.a.x, y: t.a.y, heading: heading + Math.PI };
  };

  const driveHeadlands = input.driveHeadlands !== false;
  if (input.headlandsFirst && driveHeadlands) {
    const exterior = rings.filter((r) => r.exterior).sort((a, b) => a.ring.passNumber - b.ring.passNumber);
    if (exterior.length && input.start) {
      // From the start node onto the outermost pass, heading along it.
      const path = exterior[0].path;
      const q = path.pointAt(path.project(input.start));
      routeStart = input.start;
      pose = entryPose(input.start, { x: q.x, y: q.y, heading: 0 });
    }
    driveRings(exterior);
    if (exterior.length && !input.start) routeStart = parts.find((p) => p.working)?.points[0];
  }
  const algorithm = input.order?.algorithm ?? 'auto';
  let optimizer: OptimizerReport | undefined;
  // Where to begin: the requested start node, else the first end of the first line.
  let forward = true;
  if (recs.length && (algorithm !== 'auto' || input.order?.fixed)) {
    optimizer = driveOrdered();
  } else if (recs.length) {
    let first = recs[0];
    // Begin near where the machine is (after the headland passes), else near the start node.
    const near: Point | undefined = pose ? (pose as Pose) : input.start;
    if (near) {
      let bd = Number.POSITIVE_INFINITY;
      for (const b of blocks) {
        for (const r of [b[0], b[b.length - 1]]) {
          for (const f of [true, false]) {
            const p = startPoseOf(r, f);
            const d = dist(p, near);
            if (d < bd) {
              bd = d;
              first = r;
              forward = f;
            }
          }
        }
      }
      if (!pose && input.start) {
        routeStart = input.start;
        pose = entryPose(input.start, startPoseOf(first, forward));
      }
      if (!link(startPoseOf(first, forward), 'HeadlandConnector')) failures++;
    } else {
      routeStart = first.track.a;
    }
    let current = first;
    let remaining: number;
    for (;;) {
      if (!pose || dist(pose, startPoseOf(current, forward)) > 1e-6) {
        if (!link(startPoseOf(current, forward), 'HeadlandConnector')) failures++;
      }
      driveTrack(current, forward);
      remaining = recs.filter((r) => !r.done).length;
      if (remaining === 0) break;
      const next = chooseNext(current, !forward);
      if (next && link(nextPose ?? startPoseOf(next, !forward), 'Turn')) {
        forward = !forward;
        current = next;
        // driveTrack at loop top sees the pose already there.
        continue;
      }
      // Block finished (or its next turn impossible): the nearest reachable entry,
      // any open track of this block or an end of another block.
      let reached = false;
      while (!reached) {
        const entries = chooseEntries(current.block);
        if (entries.length === 0) break;
        for (const e of entries.slice(0, 8)) {
          if (link(startPoseOf(e.rec, e.forward), 'HeadlandConnector')) {
            current = e.rec;
            forward = e.forward;
            reached = true;
            break;
          }
        }
        if (!reached) {
          // No drivable way into the nearest block inside the field: its tracks
          // cannot be worked and are left out of the plan (their area is missed).
          for (const r of blocks[entries[0].rec.block]) {
            if (!r.done) {
              r.done = true;
              skipped.push(r.index);
            }
          }
        }
      }
      if (!reached) break;
    }
  }

  // Headland passes: obstacles first, then the exterior passes inner to outer
  // (with headlandsFirst, the exterior passes were driven before the tracks).
  if (driveHeadlands) {
    driveRings(
      input.headlandsFirst
        ? rings.filter((r) => !r.exterior)
        : [
            ...rings.filter((r) => !r.exterior),
            ...rings.filter((r) => r.exterior).sort((a, b) => b.ring.passNumber - a.ring.passNumber),
          ],
    );
  }

  let routeEnd: Point | undefined = pose ? { x: (pose as Pose).x, y: (pose as Pose).y } : undefined;
  if (input.end && pose) {
    const target = entryPose(input.end, pose, true);
    if (!link(target, 'HeadlandConnector')) failures++;
    routeEnd = input.end;
  }
  return {
    parts,
    start: routeStart,
    end: routeEnd,
    failures,
    skippedTracks: skipped,
    undrivenRings: undriven,
    ...(optimizer ? { optimizer } : {}),
  };

  /**
   * Drive the tracks in the order of the chosen pattern (or the optimized
   * order): each transition is the shortest drivable way that fits inside
   * the field, a headland ring or the field itself when no turn fits. A
   * track no drivable path reaches is left out (its area shows as missed).
   */
  function driveOrdered(): OptimizerReport | undefined {
    const n = recs.length;
    const endPoseOf = (r: TrackRec, fwd: boolean): Pose =>
      r.track.path
        ? pathPose(r.track.path, fwd, false)
        : fwd
          ? { x: r.track.b.x, y: r.track.b.y, heading }
          : { x: r.track.a.x, y: r.track.a.y, heading: heading + Math.PI };
    const objective = input.order?.objective ?? 'distance';
    const turnSpeed = input.machine.turningSpeed;
    const cache = new Map<number, number>();
    const vid = (v: Visit) => 2 * v.track + (v.forward ? 0 : 1);
    const measure = (f: Found): number => {
      if (objective === 'distance') return f.length;
      let cusps = 0;
      let last: boolean | null = null;
      for (const [c] of f.legs) {
        for (const piece of c.pieces) {
          if (last !== null && piece.reverse !== last) cusps++;
          last = piece.reverse;
        }
      }
      const time = f.length / turnSpeed + cusps * CUSP_TIME;
      return objective === 'time' ? time : time * TURN_FUEL_RATE;
    };
    // Where the tracks begin from: after the headland passes, or at the start node.
    const here: Pose | null = pose;
    const startEntry = (to: Pose): Pose => here ?? entryPose(input.start as Point, to);
    const hasStart = here !== null || input.start !== undefined;
    const cost = (from: Visit | null, to: Visit): number => {
      if (!from && !hasStart) return 0;
      const key = (from ? vid(from) : 2 * n) * (2 * n + 1) + vid(to);
      let c = cache.get(key);
      if (c === undefined) {
        const target = startPoseOf(recs[to.track], to.forward);
        const origin = from ? endPoseOf(recs[from.track], from.forward) : startEntry(target);
        const same = from && from.track === to.track;
        const found = same ? null : probeLink(origin, target);
        // No turn or headland way: the real route crosses the field; count it dear.
        const far = dist(origin, target);
        c = found ? measure(found) : measure({ length: 3 * far + 4 * Math.PI * R, legs: [] });
        cache.set(key, c);
      }
      return c;
    };
    const boundCache = new Map<number, number>();
    const bound = (from: Visit | null, to: Visit): number => {
      if (!from && !hasStart) return 0;
      const key = (from ? vid(from) : 2 * n) * (2 * n + 1) + vid(to);
      let c = boundCache.get(key);
      if (c === undefined) {
        const target = startPoseOf(recs[to.track], to.forward);
        const origin = from ? endPoseOf(recs[from.track], from.forward) : startEntry(target);
        const d = dubinsShortest(origin, target, R);
        c = measure({ length: d ? d.length : dist(origin, target), legs: [] });
        boundCache.set(key, c);
      }
      return c;
    };
    const problem = {
      bound,
      count: n,
      a: recs.map((r) => r.track.a),
      b: recs.map((r) => r.track.b),
      cost,
      hasStart,
    };
    const minSkip = Math.max(1, Math.ceil((2 * R) / w - 1e-9));
    const sequence = (pattern: (m: number) => number[]) => chainBlocks(pattern);
    let order: Visit[];
    let report: OptimizerReport | undefined;
    const fixed = input.order?.fixed;
    if (fixed) order = checkedOrder(fixed, n);
    else if (algorithm === 'boustrophedon') order = sequence((m) => Array.from({ length: m }, (_, i) => i));
    else if (algorithm === 'snake') order = sequence(snakePattern);
    else if (algorithm === 'clusteredSpiral') {
      const s = input.order?.skipCount ?? minSkip;
      order = sequence((m) => skipPattern(m, s));
    } else {
      const baseline = sequence((m) => Array.from({ length: m }, (_, i) => i));
      // Constructions, cheapest first; each costs transitions to measure, so the deadline counts here too.
      const stopNow = () => input.order?.shouldStop?.() ?? false;
      const constructions: Record<string, Visit[]> = { boustrophedon: baseline };
      const more: [string, () => Visit[]][] = [
        [`skip${minSkip}`, () => sequence((m) => skipPattern(m, minSkip))],
        ['snake', () => sequence(snakePattern)],
        [`skip${minSkip + 1}`, () => sequence((m) => skipPattern(m, minSkip + 1))],
        ['greedy', () => greedyOrder(cost)],
      ];
      orderCost(problem, baseline);
      for (const [name, make] of more) {
        if (stopNow()) break;
        const o = make();
        orderCost(problem, o);
        constructions[name] = o;
      }
      const res = optimizeOrder(problem, constructions, {
        shouldStop: input.order?.shouldStop,
        maxEvaluations: input.order?.maxEvaluations,
      });
      order = res.order;
      const baselineCost = orderCost(problem, baseline);
      report = {
        objective,
        baselineCost,
        cost: res.cost,
        gainPercent: baselineCost > 0 ? 100 * (1 - res.cost / baselineCost) : 0,
        evaluations: res.evaluations,
        improvements: res.improvements,
        converged: res.converged,
      };
    }
    // Drive the order.
    const first = order[0];
    const firstPose = startPoseOf(recs[first.track], first.forward);
    if (!pose) {
      if (input.start) {
        routeStart = input.start;
        pose = startEntry(firstPose);
      } else routeStart = firstPose;
    }
    let prev: Visit | null = null;
    // Tracks no way reached in their turn, tried again from later on the route.
    const deferred: Visit[] = [];
    for (const v of order) {
      const r = recs[v.track];
      const to = startPoseOf(r, v.forward);
      if (pose && (dist(pose, to) > 1e-6 || Math.abs(angleDiffRad(pose.heading, to.heading)) > 1e-9)) {
        // A turn joins neighbouring tracks of one block at one end; anything else is a connector.
        const turn = prev !== null && r.block === recs[prev.track].block && v.forward !== prev.forward;
        if (!link(to, turn ? 'Turn' : 'HeadlandConnector')) {
          // Into the track from its other end, else later.
          const back = startPoseOf(r, !v.forward);
          if (!link(back, 'HeadlandConnector')) {
            deferred.push(v);
            continue;
          }
          driveTrack(r, !v.forward);
          prev = { track: v.track, forward: !v.forward };
          continue;
        }
      }
      pose = to;
      driveTrack(r, v.forward);
      prev = v;
    }
    driveDeferred(deferred);
    return report;
  }

  /**
   * Tracks the pattern could not reach in their turn (behind a neck, say):
   * from where the route has got to, the nearest one a way reaches, either
   * end first, again and again; the rest are left out. Each track is tried
   * once more after every track driven, at most.
   */
  function driveDeferred(deferred: Visit[]): void {
    let left = deferred.slice();
    let progress = true;
    while (left.length && progress && pose) {
      progress = false;
      const here = pose as Pose;
      left.sort(
        (a, b) =>
          dist(here, startPoseOf(recs[a.track], a.forward)) -
          dist(here, startPoseOf(recs[b.track], b.forward)),
      );
      for (const v of left) {
        const r = recs[v.track];
        const fwd = [v.forward, !v.forward].find((f) => link(startPoseOf(r, f), 'HeadlandConnector'));
        if (fwd === undefined) continue;
        driveTrack(r, fwd);
        left = left.filter((x) => x !== v);
        progress = true;
        break;
      }
    }
    for (const v of left) {
      recs[v.track].done = true;
      skipped.push(recs[v.track].index);
    }
  }

  /**
   * A cheaper findLink for the optimizer's costs: a forward turn, the
   * headland ring, or a reversing turn; no search across several rings or
   * through the field (those transitions are rare and priced as a crossing).
   */
  function probeLink(from: Pose, to: Pose): Found | null {
    if (input.headlandDrivethrough) return findLink(from, to, 'Turn', false);
    const direct = connectPoses(from, to, R, input.region, { allowReverse: false });
    if (direct && direct.length < 6 * R + dist(from, to))
      return { length: direct.length, legs: [[direct, 'Turn']] };
    const via = viaRing(from, to, false);
    const best = pickShorter(direct, via);
    if (best) return best === direct ? { length: direct.length, legs: [[direct, 'Turn']] } : (best as Found);
    return findLink(from, to, 'Turn', false);
  }

  /**
   * Greedy construction with the optimizer's costs: blocks nearest first;
   * inside a block, from the sweep front, the next line whose turn is
   * cheapest (lines within twice the skip that makes a U-turn).
   */
  function greedyOrder(costOf: (from: Visit, to: Visit) => number): Visit[] {
    const out: Visit[] = [];
    const done = new Set<number>();
    const minSkip = Math.max(1, Math.ceil((2 * R) / w - 1e-9));
    const base = chainBlocks((m) => Array.from({ length: m }, (_, i) => i));
    // Walk the blocks in the plain chain's order and entry; reorder lines inside each.
    let k = 0;
    while (k < base.length) {
      const block = recs[base[k].track].block;
      let fwd = base[k].forward;
      let cur = recs[base[k].track];
      const members = blocks[block];
      const entryLast = cur === members[members.length - 1] && members.length > 1;
      const sign = entryLast ? -1 : 1;
      out.push({ track: cur.index, forward: fwd });
      done.add(cur.index);
      for (;;) {
        const open = members.filter((r) => !done.has(r.index));
        if (open.length === 0) break;
        const front =
          sign > 0 ? Math.min(...open.map((r) => r.track.line)) : Math.max(...open.map((r) => r.track.line));
        const window = open.filter((r) => Math.abs(r.track.line - front) <= 2 * minSkip + 1);
        const from: Visit = { track: cur.index, forward: fwd };
        let bestR = window[0];
        let bestC = Number.POSITIVE_INFINITY;
        for (const r of window) {
          const c = costOf(from, { track: r.index, forward: !fwd });
          if (c < bestC) {
            bestC = c;
            bestR = r;
          }
        }
        fwd = !fwd;
        cur = bestR;
        out.push({ track: cur.index, forward: fwd });
        done.add(cur.index);
      }
      while (k < base.length && recs[base[k].track].block === block) k++;
    }
    return out;
  }

  /**
   * The blocks one after another, each driven in the given line pattern:
   * from the end of one block to the nearest entry (first or last line,
   * either end) of the next unvisited block; directions alternate inside a
   * block, so each turn stays at one end.
   */
  function chainBlocks(pattern: (m: number) => number[]): Visit[] {
    const out: Visit[] = [];
    const used = new Set<number>();
    let at: Point | null = pose ?? input.start ?? null;
    for (let k = 0; k < blocks.length; k++) {
      let bi = -1;
      let fromLast = false;
      let fwd = true;
      let bd = Number.POSITIVE_INFINITY;
      for (const [i, b] of blocks.entries()) {
        if (used.has(i)) continue;
        if (!at) {
          bi = i;
          break;
        }
        for (const [last, r] of [
          [false, b[0]],
          [true, b[b.length - 1]],
        ] as [boolean, TrackRec][]) {
          for (const f of [true, false]) {
            const d = dist(at, startPoseOf(r, f));
            if (d < bd) {
              bd = d;
              bi = i;
              fromLast = last;
              fwd = f;
            }
          }
        }
      }
      used.add(bi);
      const b = blocks[bi];
      const m = b.length;
      const lines = pattern(m).map((i) => (fromLast ? m - 1 - i : i));
      for (const li of lines) {
        out.push({ track: b[li].index, forward: fwd });
        fwd = !fwd;
      }
      const lastVisit = out[out.length - 1];
      const end = recs[lastVisit.track].track;
      at = lastVisit.forward ? end.b : end.a;
    }
    return out;
  }

  /** Drive headland passes: interior rings nearest first, exterior rings in the given order. */
  function driveRings(order: typeof rings) {
    const pending = order.slice();
    while (pending.length) {
      let idx = 0;
      if (!pending[0].exterior && pose) {
        let bd = Number.POSITIVE_INFINITY;
        pending.forEach((r, i) => {
          if (r.exterior) return;
          const d = dist(r.path.pointAt(r.path.project(pose as Pose)), pose as Pose);
          if (d < bd) {
            bd = d;
            idx = i;
          }
        });
      }
      const r = pending.splice(idx, 1)[0];
      if (!driveRing(r.path, r.ring, r.exterior)) {
        failures++;
        undriven.push(r.ring);
      }
    }
  }

  function driveRing(path: RingPath, ring: HeadlandRing, exterior: boolean): boolean {
    const type = exterior ? 'ExteriorHeadlandPass' : 'InteriorHeadlandPass';
    let chosen: { s: number; dir: RingDirection; conn: Connection | null } | null = null;
    const dirs = ringDirections(path);
    if (!pose) {
      chosen = { s: 0, dir: dirs[0], conn: null };
    } else {
      const s0 = path.project(pose);
      let bestLen = Number.POSITIVE_INFINITY;
      for (const dir of dirs) {
        for (const la of [2 * R, 3 * R, 5 * R, 8 * R]) {
          if (la > path.length / 2) continue;
          const s = path.snap(s0 + dir * la);
          const c = connectPoses(pose, path.poseAt(s, dir), R, input.region);
          if (c && c.length < bestLen) {
            bestLen = c.length;
            chosen = { s, dir, conn: c };
          }
        }
      }
      if (!chosen) {
        // Join anywhere on the ring along the headland.
        for (const frac of [0, 0.25, 0.5, 0.75]) {
          for (const dir of dirs) {
            const s = path.snap(s0 + frac * path.length);
            const target = path.poseAt(s, dir);
            const via = input.headlandDrivethrough ? null : viaRing(pose, target, true);
            if (via) {
              for (const [c, t] of via.legs) pushConnection(c, t);
              chosen = { s, dir, conn: null };
              break;
            }
          }
          if (chosen) break;
        }
      }
    }
    if (!chosen && pose) {
      const s0 = path.project(pose);
      for (const frac of [0, 0.25, 0.5, 0.75]) {
        const s = path.snap(s0 + frac * path.length);
        const target = path.poseAt(s, dirs[0]);
        const legs = fieldTravel().connect(pose, target);
        if (legs) {
          for (const c of legs) pushConnection(c, 'Connector');
          chosen = { s, dir: dirs[0], conn: null };
          break;
        }
      }
    }
    if (!chosen) return false;
    if (chosen.conn) pushConnection(chosen.conn, 'HeadlandConnector');
    // Sharp corners of an exterior pass are driven square, with a reversing
    // turn at each (the field corner beyond a rounding is worked). Around an
    // obstacle the outside of a corner is the track area: no gain there.
    const corners = exterior ? cornersOf(path) : [];
    const pieces = loopWithCorners(path, chosen.s, chosen.dir, corners, R, input.region, input.runOnCorners);
    for (const piece of pieces) {
      parts.push({
        type,
        points: piece.points,
        working: true,
        passNumber: ring.passNumber,
        ...(ring.obstacleIndex !== undefined ? { obstacleIndex: ring.obstacleIndex } : {}),
      });
      if (piece.turn) pushConnection(piece.turn, 'HeadlandTurn');
    }
    // Round the whole loop, back where it started.
    pose = path.arrivalPoseAt(chosen.s + chosen.dir * path.length, chosen.dir);
    return true;
  }

  function cornersOf(path: RingPath): RingCorner[] {
    let c = cornerCache.get(path);
    if (!c) {
      c = squareCorners(path, w, R, input.region, input.runOnCorners === true);
      cornerCache.set(path, c);
    }
    return c;
  }

  /** The directions a headland pass may be driven in: both, or the one that winds as forced. */
  function ringDirections(path: RingPath): RingDirection[] {
    if (!input.forcedDirection) return [1, -1];
    let area = 0;
    const pts = path.pts;
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++)
      area += pts[j].x * pts[i].y - pts[i].x * pts[j].y;
    const ccw: RingDirection = area > 0 ? 1 : -1;
    return [input.forcedDirection === 'CCW' ? ccw : (-ccw as RingDirection)];
  }

  function chooseNext(cur: TrackRec, forward: boolean): TrackRec | null {
    const block = blocks[cur.block];
    const open = block.filter((r) => !r.done);
    if (open.length === 0) return null;
    const lo = Math.min(...open.map((r) => r.track.line));
    const window = open.filter((r) => r.track.line <= lo + 2 * skip + 1);
    const from = pose as Pose;
    const scored = window
      .map((r) => {
        const to = startPoseOf(r, forward);
        const p = dubinsShortest(from, to, R);
        return { r, cost: p ? p.length : Number.POSITIVE_INFINITY };
      })
      .sort((a, b) => a.cost - b.cost);
    for (const s of scored.slice(0, 4)) {
      const to = startPoseOf(s.r, forward);
      const conn = connectPoses(from, to, R, input.region, { allowReverse: false });
      if (conn) {
        known = { to, conn };
        nextPose = to;
        return s.r;
      }
    }
    nextPose = null;
    return scored.length ? scored[0].r : null;
  }

  /** Entries of the unfinished blocks (first or last open track, either end), nearest first. */
  function chooseEntries(currentBlock: number): { rec: TrackRec; forward: boolean }[] {
    const from = pose as Pose;
    const out: { rec: TrackRec; forward: boolean; d: number }[] = [];
    for (const [bi, b] of blocks.entries()) {
      const open = b.filter((r) => !r.done);
      if (open.length === 0) continue;
      const ends = bi === currentBlock || open.length === 1 ? open : [open[0], open[open.length - 1]];
      for (const r of ends)
        for (const f of [true, false]) out.push({ rec: r, forward: f, d: dist(from, startPoseOf(r, f)) });
    }
    return out.sort((a, b) => a.d - b.d);
  }
}

/**
 * Pose where a curved track is entered (start) or left: at its first or last
 * point, heading along the track's curve there in the direction of driving.
 */
function pathPose(path: readonly Point[], forward: boolean, start: boolean): Pose {
  const atA = forward === start;
  const p = atA ? path[0] : path[path.length - 1];
  // The line's direction at that end; driven backwards (b to a), its opposite.
  const h = atA ? startTangent(path) : endTangent(path);
  return { x: p.x, y: p.y, heading: forward ? h : h + Math.PI };
}

/** A pose at p heading towards target (used where a route node starts or ends the route). */
function entryPose(p: Point, target: Pose, arriving = false): Pose {
  const h = Math.atan2(target.y - p.y, target.x - p.x);
  return { x: p.x, y: p.y, heading: arriving ? Math.atan2(p.y - target.y, p.x - target.x) : h };
}

function angleDiffRad(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d < -Math.PI) d += 2 * Math.PI;
  return d;
}

function pickShorter<T extends { length: number }, U extends { length: number }>(
  a: T | null,
  b: U | null,
): T | U | null {
  if (!a) return b;
  if (!b) return a;
  return b.length < a.length ? b : a;
}

/** Signed area of a ring [m^2] (positive: counter-clockwise). */
function ringArea(r: readonly Point[]): number {
  let a = 0;
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) a += r[j].x * r[i].y - r[i].x * r[j].y;
  return a / 2;
}

function polyLen(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += dist(pts[i - 1], pts[i]);
  return s;
}

function dist(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/**
 * Blocks: runs of scan lines where each line has one segment overlapping one
 * segment of the previous line and nothing else, so any two tracks of a block
 * can be joined by a turn at either end.
 */
function buildBlocks(recs: TrackRec[], heading: number): TrackRec[][] {
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
function checkedOrder(order: readonly Visit[], n: number): Visit[] {
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

/**
 * A stretch of a ring shorter than a sample step of its curves, one chord:
 * as a part of its own it reads as a straight, its ends off the headings of
 * the turns before and after it (tangent to the ring's curve there) by half a
 * sampling step. Travel along a ring is kept at least two samples long.
 */
function singleChord(pts: readonly Point[]): boolean {
  return pts.length === 2 && Math.hypot(pts[1].x - pts[0].x, pts[1].y - pts[0].y) < 1.05;
}
