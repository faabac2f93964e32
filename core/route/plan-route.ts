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
import type { EdgeIndex } from '../geometry/edge-index.ts';
import type { HeadlandResult, HeadlandRing } from '../headland/generate-headlands.ts';
import type { Track, TrackSet } from '../tracks/generate-tracks.ts';
import { dubinsShortest } from '../turn/dubins.ts';
import type { Machine, PathPart, Point, Polygon, Pose } from '../types/index.ts';
import { type Connection, connectPoses } from './connect.ts';
import { FieldTravel } from './field-travel.ts';
import { type RingDirection, RingPath } from './ring-path.ts';

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
}

interface TrackRec {
  index: number;
  track: Track;
  block: number;
  done: boolean;
}

export function planRoute(input: RouteInput): RouteResult {
  const R = input.machine.minTurningRadius;
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
    ...input.headlands.drivenInterior.map((r) => ({ ring: r, path: new RingPath(r.ring), exterior: false })),
    ...input.headlands.drivenExterior.map((r) => ({ ring: r, path: new RingPath(r.ring), exterior: true })),
  ];
  const innermostPass = input.headlands.drivenExterior.reduce((m, r) => Math.max(m, r.passNumber), 0);
  const travelRings = rings.filter((r) => !r.exterior || r.ring.passNumber === innermostPass);
  const parts: PathPart[] = [];
  /** Tracks no drivable path inside the field reaches. */
  const skipped: number[] = [];
  let failures = 0;
  let pose: Pose | null = null;
  let routeStart: Point | undefined;
  const skip = Math.max(1, Math.ceil((2 * R) / w - 1e-9));
  /** The start pose chooseNext connected to, so link can reuse its connection. */
  let nextPose: Pose | null = null;

  const startPoseOf = (r: TrackRec, forward: boolean): Pose =>
    forward
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
    travel ??= new FieldTravel(input.zone, input.region, R);
    return travel;
  };

  /** A connection already found for the next link (from chooseNext). */
  let known: { to: Pose; conn: Connection } | null = null;

  /** Connect the current pose to `to`, directly or along a headland ring; false if impossible. */
  const link = (to: Pose, type: PathPart['type']): boolean => {
    if (!pose) {
      pose = to;
      return true;
    }
    const cached = known && known.to === to ? known.conn : null;
    known = null;
    // Forward paths first (direct, then along a headland ring); reversing only when neither fits.
    let direct = cached ?? connectPoses(pose, to, R, input.region, { allowReverse: false });
    let via = direct && direct.length < 6 * R + dist(pose, to) ? null : viaRing(pose, to, false);
    if (!direct && !via) {
      direct = connectPoses(pose, to, R, input.region);
      via = direct ? null : (viaRing(pose, to, true) ?? viaTwoRings(pose, to));
    }
    const best = pickShorter(direct, via);
    if (!best) {
      // Last resort: through the field along straight legs between waypoints.
      const legs = fieldTravel().connect(pose, to);
      if (!legs) return false;
      for (const c of legs) pushConnection(c, 'Connector');
      pose = to;
      return true;
    }
    if (best === direct) pushConnection(direct, type);
    else for (const [c, t] of (best as RingTravel).legs) pushConnection(c, t);
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
    const onA = A.stretch(a0, A.distance(a0, a1, da), da);
    const onB = B.stretch(b0, B.distance(b0, b1, db), db);
    if (onA.length < 2 || onB.length < 2) return null;
    const c1 = connectPoses(from, startPose(onA), R, input.region);
    if (!c1) return null;
    const c2 = connectPoses(endPose(onA), startPose(onB), R, input.region);
    if (!c2) return null;
    const c3 = connectPoses(endPose(onB), to, R, input.region);
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
          if (pts.length < 2) continue;
          const c1 = connectPoses(from, startPose(pts), R, input.region, opts);
          if (!c1) continue;
          const c2 = connectPoses(endPose(pts), to, R, input.region, opts);
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
    parts.push({
      type: 'RouteTrack',
      points: forward ? [t.a, t.b] : [t.b, t.a],
      working: true,
      trackIndex: r.index,
      bearingDeg: input.tracks.bearingDeg,
    });
    r.done = true;
    pose = forward ? { x: t.b.x, y: t.b.y, heading } : { x: t.a.x, y: t.a.y, heading: heading + Math.PI };
  };

  // Where to begin: the requested start node, else the first end of the first line.
  let forward = true;
  if (recs.length) {
    let first = recs[0];
    if (input.start) {
      let bd = Number.POSITIVE_INFINITY;
      for (const b of blocks) {
        for (const r of [b[0], b[b.length - 1]]) {
          for (const f of [true, false]) {
            const p = startPoseOf(r, f);
            const d = dist(p, input.start);
            if (d < bd) {
              bd = d;
              first = r;
              forward = f;
            }
          }
        }
      }
      routeStart = input.start;
      pose = entryPose(input.start, startPoseOf(first, forward));
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

  // Headland passes: obstacles first, then the exterior passes inner to outer.
  const order = [
    ...rings.filter((r) => !r.exterior),
    ...rings.filter((r) => r.exterior).sort((a, b) => b.ring.passNumber - a.ring.passNumber),
  ];
  const pending = order.slice();
  while (pending.length) {
    // Interior rings: nearest first; exterior rings in pass order.
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
    const ok = driveRing(r.path, r.ring, r.exterior);
    if (!ok) failures++;
  }

  let routeEnd: Point | undefined = pose ? { x: (pose as Pose).x, y: (pose as Pose).y } : undefined;
  if (input.end && pose) {
    const target = entryPose(input.end, pose, true);
    if (!link(target, 'HeadlandConnector')) failures++;
    routeEnd = input.end;
  }
  return { parts, start: routeStart, end: routeEnd, failures, skippedTracks: skipped };

  function driveRing(path: RingPath, ring: HeadlandRing, exterior: boolean): boolean {
    const type = exterior ? 'ExteriorHeadlandPass' : 'InteriorHeadlandPass';
    let chosen: { s: number; dir: RingDirection; conn: Connection | null } | null = null;
    if (!pose) {
      chosen = { s: 0, dir: 1, conn: null };
    } else {
      const s0 = path.project(pose);
      let bestLen = Number.POSITIVE_INFINITY;
      for (const dir of [1, -1] as RingDirection[]) {
        for (const la of [2 * R, 3 * R, 5 * R, 8 * R]) {
          if (la > path.length / 2) continue;
          const s = path.snap(s0 + dir * la);
          const c = connectPoses(pose, startPose(path.stretch(s, path.length, dir)), R, input.region);
          if (c && c.length < bestLen) {
            bestLen = c.length;
            chosen = { s, dir, conn: c };
          }
        }
      }
      if (!chosen) {
        // Join anywhere on the ring along the headland.
        for (const frac of [0, 0.25, 0.5, 0.75]) {
          for (const dir of [1, -1] as RingDirection[]) {
            const s = path.snap(s0 + frac * path.length);
            const target = startPose(path.stretch(s, path.length, dir));
            const via = viaRing(pose, target, true);
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
        const target = startPose(path.stretch(s, path.length, 1));
        const legs = fieldTravel().connect(pose, target);
        if (legs) {
          for (const c of legs) pushConnection(c, 'Connector');
          chosen = { s, dir: 1, conn: null };
          break;
        }
      }
    }
    if (!chosen) return false;
    if (chosen.conn) pushConnection(chosen.conn, 'HeadlandConnector');
    const pts = path.stretch(chosen.s, path.length, chosen.dir);
    parts.push({
      type,
      points: pts,
      working: true,
      passNumber: ring.passNumber,
      ...(ring.obstacleIndex !== undefined ? { obstacleIndex: ring.obstacleIndex } : {}),
    });
    pose = endPose(pts);
    return true;
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

/** Pose at the start of a polyline, heading along its first segment. */
function startPose(pts: readonly Point[]): Pose {
  return { x: pts[0].x, y: pts[0].y, heading: Math.atan2(pts[1].y - pts[0].y, pts[1].x - pts[0].x) };
}

/** Pose at the end of a polyline, heading along its last segment. */
function endPose(pts: readonly Point[]): Pose {
  const a = pts[pts.length - 2];
  const b = pts[pts.length - 1];
  return { x: b.x, y: b.y, heading: Math.atan2(b.y - a.y, b.x - a.x) };
}

/** A pose at p heading towards target (used where a route node starts or ends the route). */
function entryPose(p: Point, target: Pose, arriving = false): Pose {
  const h = Math.atan2(target.y - p.y, target.x - p.x);
  return { x: p.x, y: p.y, heading: arriving ? Math.atan2(p.y - target.y, p.x - target.x) : h };
}

function pickShorter<T extends { length: number }, U extends { length: number }>(
  a: T | null,
  b: U | null,
): T | U | null {
  if (!a) return b;
  if (!b) return a;
  return b.length < a.length ? b : a;
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
    const overlaps = (a: TrackRec, b: TrackRec) =>
      Math.min(u(a.track.b), u(b.track.b)) - Math.max(u(a.track.a), u(b.track.a)) > 0;
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
