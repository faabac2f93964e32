/**
 * Driving the headland passes: each pass joined where the way onto it is
 * shortest (or anywhere along the headland, or through the field), driven
 * once round with its sharp corners squared, back where it started.
 */
import { pointInPolygon, pointInRing } from '../geometry/polygon.ts';
import { turnRegionPolygons } from '../geometry/turn-region.ts';
import type { HeadlandRing } from '../headland/generate-headlands.ts';
import { OFF_LINE } from '../metrics/plan-audit.ts';
import type { PathPart, Point, Polygon, Pose } from '../types/index.ts';
import type { Connection } from './connect.ts';
import {
  clearerLobe,
  driveLobe,
  edgeClearance,
  type Leg,
  type Lobe,
  lobeOverhang,
  lobeParts,
  openLegs,
  undrivenLobes,
} from './drive-lobes.ts';
import { loopWithCorners, type RingCorner, squareCorners } from './headland-corners.ts';
import {
  extendLobes,
  type JoinContext,
  type LobeEnd,
  lobeEntry,
  lobeExit,
  PlannedLines,
} from './lobe-joins.ts';
import type { RingDirection, RingPath } from './ring-path.ts';
import type { RouteBuilder } from './route-builder.ts';
import { dist, ringPlaces, shortestOf } from './route-geometry.ts';
import type { RouteRing } from './route-links.ts';

/** Where a way onto a pass is looked for: this many turning radii on from the machine, either way round. */
const WAYS_ON_RADII = [2, 3, 5, 8];

/** A way on that swings the implement over the edge counts this much longer [m]. */
const OVERHANG_PENALTY = 1e6;
/** Places round a pass a route may start on it at. */
const START_PLACES = 16;
/** A join where the pass runs nearer the edge than half the working width counts this much longer [m]. */
const EDGE_JOIN_PENALTY = 1e4;
/** A way on that keeps the implement inside is taken over one that does not when at most this many turning radii longer. */
const INSIDE_DETOUR_RADII = 20;
/** Where round a pass (fractions of its length from the nearest point) a way along the headland or through the field joins it. */
const JOIN_PLACES = [0, 0.25, 0.5, 0.75];

/** A way onto a pass at s (driving direction dir): its legs, not yet driven. */
interface RingWay {
  s: number;
  dir: RingDirection;
  legs: [Connection, PathPart['type']][];
  length: number;
}

export class HeadlandDriver {
  private readonly b: RouteBuilder;
  private readonly cornerCache = new Map<RingPath, RingCorner[]>();
  /** Lobes driven from the ring they leave. */
  private readonly drivenLobes = new Set<string>();
  /** Lobes of each pass (by pass and how many rings were left undriven when found). */
  private readonly lobeCache = new Map<string, Lobe[]>();
  private readonly planned = new Map<number, PlannedLines>();
  /** The pieces of the zone's turn region (see piecesOf), and the piece of each ring. */
  private pieces?: Polygon[];
  private readonly ringPieces = new Map<RouteRing, number>();
  /** Exterior passes whose lobes were driven in some pieces of the field only (see driveBeforeLeaving). */
  private readonly lobesLeft = new Set<number>();

  constructor(b: RouteBuilder) {
    this.b = b;
  }

  /**
   * Drive headland passes: interior rings nearest first, exterior rings in
   * the given order; but while passes are left in the piece of the field the
   * route is in (the field parts joined only by necks narrower than the
   * implement: pieces of the turn region), those come first, in the same
   * order (an exterior ring waiting only for the rings before it that it
   * goes round or that go round it). So the passes at the far end of a long
   * arm are driven while the route is there, not from the far side after a
   * trip back through the arm and out again.
   */
  driveRings(order: readonly RouteRing[]): void {
    this.drivePending(order.slice());
  }

  /**
   * Where the route is about to leave a piece of the field (one that only
   * necks narrower than the implement join to the rest) with no track left
   * to work in it, the passes of `pending` (the rings to be driven after
   * the tracks, in driveRings' order) that lie in it, and the lobes in it
   * of the passes with no ring left there, are driven first (the rings
   * taken off `pending`); true when any was. The route then crosses each
   * neck once, not out and back again for the headland passes at the end.
   */
  driveBeforeLeaving(pending: RouteRing[], openTracks: readonly Pose[]): boolean {
    const b = this.b;
    if (!b.pose) return false;
    const { pieceOf } = this.piecesOf(pending);
    const here = pieceOf(b.pose);
    if (here < 0 || openTracks.some((p) => pieceOf(p) === here)) return false;
    const before = b.parts.length;
    this.drivePending(pending, here);
    return b.parts.length > before;
  }

  /** The pieces of the zone's turn region, and which of them a point and a ring lie in (-1: none, or one piece only). */
  private piecesOf(order: readonly RouteRing[]): {
    pieceOf: (p: Point) => number;
    ringPiece: (r: RouteRing) => number;
  } {
    const b = this.b;
    this.pieces ??= turnRegionPolygons(b.input.zone, b.w / 2);
    const pieces = this.pieces;
    const pieceOf = (p: Point) => (pieces.length > 1 ? pieces.findIndex((q) => pointInPolygon(p, q)) : -1);
    for (const r of order)
      if (!this.ringPieces.has(r))
        this.ringPieces.set(r, pieces.length > 1 ? mostOf(r.ring.ring, pieceOf) : -1);
    return { pieceOf, ringPiece: (r) => this.ringPieces.get(r) ?? -1 };
  }

  /**
   * Drives the rings of `pending` by driveRings' rule, taking each off it;
   * with `only`, those of that piece alone (and the lobes of their passes
   * that lie in it), as long as any is ready.
   */
  private drivePending(pending: RouteRing[], only?: number): void {
    const b = this.b;
    const { pieceOf, ringPiece } = this.piecesOf(pending);
    const waitsFor =
      this.pieces && this.pieces.length > 1 ? ringWaits(pending) : new Map<RouteRing, Set<RouteRing>>();
    const inPiece = (l: Lobe) => mostOf(l.points, pieceOf) === only;
    const ready = (q: RouteRing, piece: number) => {
      if (ringPiece(q) !== piece) return false;
      const waits = waitsFor.get(q);
      return !waits || !pending.some((x) => waits.has(x));
    };
    /** The next of `rings` by the order's rule: the nearest interior ring, else the first. */
    const next = (rings: readonly RouteRing[], pose: Pose | null): RouteRing => {
      if (rings[0].exterior || !pose) return rings[0];
      let best = rings[0];
      let bd = Number.POSITIVE_INFINITY;
      for (const r of rings) {
        if (r.exterior) continue;
        const d = dist(r.path.pointAt(r.path.project(pose)), pose);
        if (d < bd) {
          bd = d;
          best = r;
        }
      }
      return best;
    };
    while (pending.length) {
      const pose = b.pose;
      let r: RouteRing;
      if (only !== undefined) {
        const mine = pending.filter((q) => ready(q, only));
        if (mine.length === 0) break;
        r = next(mine, pose);
      } else {
        r = next(pending, pose);
        const here = pose ? pieceOf(pose) : -1;
        if (here >= 0 && ringPiece(r) !== here) {
          const mine = pending.filter((q) => ready(q, here));
          if (mine.length) r = next(mine, pose);
        }
      }
      pending.splice(pending.indexOf(r), 1);
      if (!this.driveRing(r.path, r.ring, r.exterior)) {
        b.failures++;
        b.undriven.push(r.ring);
      }
      // After the last ring of an exterior pass, the stretches of it no ring follows.
      const k = r.ring.passNumber;
      if (!r.exterior) continue;
      if (only === undefined) {
        if (!pending.some((q) => q.exterior && q.ring.passNumber === k)) this.driveLobes(k);
      } else if (!pending.some((q) => q.exterior && q.ring.passNumber === k && ringPiece(q) === only)) {
        this.driveLobes(k, inPiece);
      }
    }
    // The lobes of the passes no ring is left of: in the piece, inner passes
    // first; at the end, those elsewhere of passes some were driven of early.
    const passes = [...new Set(b.rings.filter((q) => q.exterior).map((q) => q.ring.passNumber))].sort(
      (x, y) => y - x,
    );
    for (const k of passes) {
      if (
        pending.some(
          (q) => q.exterior && q.ring.passNumber === k && (only === undefined || ringPiece(q) === only),
        )
      )
        continue;
      if (only !== undefined) {
        this.driveLobes(k, inPiece);
        this.lobesLeft.add(k);
      } else if (this.lobesLeft.delete(k)) this.driveLobes(k);
    }
  }

  /** The lobes of exterior pass k (stretches no driven ring follows), nearest first. */
  private driveLobes(k: number, where?: (l: Lobe) => boolean): void {
    const b = this.b;
    // A shallow lobe is driven only from the ring it leaves, along the planned line.
    const lobes = this.lobes(k).filter(
      (l) => !l.shallow && !this.drivenLobes.has(lobeKey(l)) && (!where || where(l)),
    );
    for (const l of lobes) this.drivenLobes.add(lobeKey(l));
    // Closed lobes (no ring follows any of it) are driven from a tip of another lobe they begin near, where one does.
    const closed = lobes.filter((l) => l.closed);
    while (lobes.length) {
      // Open lobes first (a closed one is driven from a tip of one of them where it can be).
      const pose = b.pose;
      const d = (l: (typeof lobes)[number]) =>
        (l.closed ? 1e9 : 0) +
        (pose ? Math.min(dist(pose, l.points[0]), dist(pose, l.points[l.points.length - 1])) : 0);
      let idx = 0;
      lobes.forEach((l, i) => {
        if (d(l) < d(lobes[idx])) idx = i;
      });
      const lobe = lobes.splice(idx, 1)[0];
      const ci = closed.indexOf(lobe);
      if (ci >= 0) closed.splice(ci, 1);
      driveLobe(b, lobe, closed);
      // Those driven from its tips are done.
      for (let i = lobes.length - 1; i >= 0; i--)
        if (lobes[i].closed && !closed.includes(lobes[i])) lobes.splice(i, 1);
    }
  }

  private driveRing(path: RingPath, ring: HeadlandRing, exterior: boolean): boolean {
    const b = this.b;
    const R = b.R;
    const input = b.input;
    const type = exterior ? 'ExteriorHeadlandPass' : 'InteriorHeadlandPass';
    let chosen: { s: number; dir: RingDirection; conn: Connection | null } | null = null;
    const dirs = this.ringDirections(path);
    const pose: Pose | null = b.pose;
    // The places round the pass where a way on is looked for (the same for both searches below).
    const places = pose
      ? ringPlaces(
          pose,
          path,
          path.project(pose),
          dirs,
          WAYS_ON_RADII.map((k) => k * R),
          R,
        )
      : [];
    if (!pose) {
      // The route starts on this pass: where the way off it, after the loop, can keep the implement inside.
      chosen = { s: exterior ? 0 : this.startOn(path, dirs[0]), dir: dirs[0], conn: null };
    } else {
      // The shortest way on that keeps the implement inside the field, else
      // the shortest; joined where the way off, after the loop, can keep it
      // inside too (not where the pass runs nearer the edge, round a sharp
      // corner of an obstacle, say).
      const on = shortestOf(places, ({ to: at }) => {
        const c = b.links.connectPoses(pose, at, R, input.region);
        return c
          ? {
              c,
              length:
                c.length +
                (b.links.overhangs(c) ? OVERHANG_PENALTY : 0) +
                (b.links.inTurnArea(at) ? 0 : EDGE_JOIN_PENALTY),
            }
          : null;
      });
      if (on) chosen = { s: on.place.s, dir: on.place.dir, conn: on.way.c };
      // A way on that keeps the implement inside, at a detour of a few turning
      // radii at most, joined no farther round the pass than where a lobe
      // leaves or rejoins it (the loop from there takes in the same lobes; a
      // shallow lobe is worked only where the loop can take it in, and holds
      // no join back) and not inside a corner driven square (the corner would
      // stay round).
      if (chosen?.conn && b.links.overhangs(chosen.conn)) {
        const marks: number[] = [];
        if (exterior) {
          for (const l of this.lobes(ring.passNumber)) {
            if (l.shallow || this.drivenLobes.has(lobeKey(l))) continue;
            marks.push(path.project(l.points[0]), path.project(l.points[l.points.length - 1]));
          }
        }
        const square = exterior ? this.cornersOf(path) : [];
        const s1 = chosen.s;
        const margin = 2 * R + 1;
        // Lobe ends within the margin of the nearest join are passed by it already: they hold no join back.
        const far = marks.filter((m) => Math.min(path.distance(s1, m, 1), path.distance(m, s1, 1)) > margin);
        const usable = (s: number) => {
          const ahead = path.distance(s1, s, 1);
          const [a, span] = ahead <= path.length / 2 ? [s1, ahead] : [s, path.length - ahead];
          return (
            far.every((m) => path.distance(a - margin, m, 1) > span + 2 * margin) &&
            !square.some((c) => path.distance(c.from - 1, s, 1) <= path.distance(c.from - 1, c.to + 1, 1))
          );
        };
        const inside = b.links.joinInside(
          pose,
          path,
          dirs,
          chosen.conn.length + INSIDE_DETOUR_RADII * R,
          usable,
        );
        if (inside) {
          for (const [c, t] of inside.legs) b.pushConnection(c, t);
          chosen = { s: inside.s, dir: inside.dir, conn: null };
        }
      }
      if (!chosen) {
        // Join anywhere on the ring along the headland or through the field:
        // where the way keeps the implement inside first (every travel but
        // the last is held to the turn area).
        const travels = b.links.fieldTravels();
        const free = () =>
          this.joinAlong(path, pose, dirs, exterior, false) ??
          this.joinThrough(path, pose, dirs[0], exterior, travels[travels.length - 1]);
        let join = this.joinAlong(path, pose, dirs, exterior, true);
        if (!join) {
          for (const travel of travels.slice(0, -1))
            join ??= this.joinThrough(path, pose, dirs[0], exterior, travel);
          // Travel held to the turn area may go a long way round (through a
          // strip barely wider than the working width, to a far place on the
          // pass): a way not held to it that is shorter by more than that
          // allowance and still keeps the implement inside is taken instead.
          if (join && join.length > INSIDE_DETOUR_RADII * R) {
            const other = free();
            if (
              other &&
              other.length + INSIDE_DETOUR_RADII * R < join.length &&
              b.links.keepsInside(other.legs.map(([c]) => c))
            )
              join = other;
          }
        }
        join ??= free();
        if (join) {
          for (const [c, t] of join.legs) b.pushConnection(c, t);
          chosen = { s: join.s, dir: join.dir, conn: null };
        }
      }
    }
    if (!chosen && pose) {
      // Else a way on that reverses farther than a turn needs.
      const on = shortestOf(places, ({ to: at }) =>
        b.links.connectPoses(pose, at, R, input.region, { maxReverse: Number.POSITIVE_INFINITY }),
      );
      if (on) chosen = { s: on.place.s, dir: on.place.dir, conn: on.way };
    }
    if (!chosen) return false;
    if (chosen.conn) b.pushConnection(chosen.conn, 'HeadlandConnector');
    // Sharp corners of an exterior pass are driven square, with a reversing
    // turn at each (the field corner beyond a rounding is worked). Around an
    // obstacle the outside of a corner is the track area: no gain there.
    const corners = exterior ? this.cornersOf(path) : [];
    const { s, dir } = chosen;
    const stretch = (from: number, span: number) => {
      const pieces = loopWithCorners(
        path,
        s + dir * from,
        dir,
        corners,
        R,
        input.region,
        input.runOnCorners,
        span,
      );
      for (const piece of pieces) {
        b.parts.push({
          type,
          points: piece.points,
          working: true,
          passNumber: ring.passNumber,
          ...(ring.obstacleIndex !== undefined ? { obstacleIndex: ring.obstacleIndex } : {}),
        });
        if (piece.turn) b.pushConnection(piece.turn, 'HeadlandTurn');
      }
    };
    // The lobes that leave this pass are driven where they leave it: out of
    // the loop into the lobe, along it, and back onto the loop past its neck.
    let at = 0;
    const joins: JoinContext = {
      region: input.region,
      R,
      swath: b.w,
      forward: (from, to, maxLength) =>
        b.links.connectPoses(from, to, R, input.region, { allowReverse: false, maxLength }, 'field'),
    };
    for (const lobe of exterior ? this.lobesOf(path, ring.passNumber, s, dir) : []) {
      const line = { ...lobe.lobe, points: lobe.points };
      const plain = openLegs(line, null);
      if (!plain.length) continue;
      // On from the loop into the lobe (and back) along the planned line where the loop runs on
      // it, else off and back onto the loop at its vertices (on straights where the machine
      // steers smoothly) by a connector.
      const ends = (legs: Leg[]) => {
        const into = lobeEntry(
          path,
          s,
          dir,
          lobe.enter,
          legs[0],
          this.plannedLines(ring.passNumber),
          3 * R,
          joins,
        );
        const outOf = lobeExit(
          path,
          s,
          dir,
          lobe.leave,
          legs[legs.length - 1],
          this.plannedLines(ring.passNumber),
          3 * R,
          joins,
        );
        const enter = into?.at ?? path.distance(s, path.snap(s + dir * (lobe.enter - 2 * R)), dir);
        const leave = outOf?.at ?? path.distance(s, path.snap(s + dir * (lobe.leave + 2 * R)), dir);
        const fits = !(lobe.lobe.shallow && !(into && outOf)) && !(enter < at + 1 || leave > path.length - 1);
        return { into, outOf, enter, leave, fits };
      };
      // Closed lobes near its tips are driven from there.
      const closed = this.lobes(ring.passNumber).filter((l) => l.closed && !this.drivenLobes.has(lobeKey(l)));
      const drive = (legs: Leg[]) => {
        const pending = closed.slice();
        const seen = { overhang: false };
        const inner = lobeParts(b, legs, ring.passNumber, pending, seen);
        return { legs, pending, seen, inner };
      };
      let way = ends(plain);
      if (!way.fits) continue;
      let pick = drive(plain);
      if (pick.inner && lobeOverhang(b, pick.inner.parts) > 0) {
        // Where a turn swings the implement over the edge, the legs kept off it as the planned line is (simplifiedLine).
        const fine = openLegs(line, null, edgeClearance(b));
        if (fine.length !== plain.length) {
          const other = drive(fine);
          const otherWay =
            other.inner && clearerLobe(b, pick.inner.parts, other.inner.parts) ? ends(fine) : null;
          if (otherWay?.fits) {
            pick = other;
            way = otherWay;
          }
        }
      }
      const { legs, pending, seen, inner } = pick;
      const { into, outOf, enter, leave } = way;
      if (!inner) continue;
      // A shallow lobe is worth driving only where the implement stays inside the field all the way.
      if (lobe.lobe.shallow && seen.overhang) continue;
      const first = legs[0];
      const onto =
        into ??
        this.join(path.arrivalPoseAt(s + dir * enter, dir), {
          x: first.a.x,
          y: first.a.y,
          heading: first.heading,
        });
      const back = onto && (outOf ?? this.join(inner.end, path.poseAt(s + dir * leave, dir)));
      if (!onto || !back) continue;
      stretch(at, enter - at);
      this.pushJoin(onto, ring.passNumber);
      b.parts.push(...inner.parts);
      this.pushJoin(back, ring.passNumber);
      this.drivenLobes.add(lobeKey(lobe.lobe));
      for (const l of closed) if (!pending.includes(l)) this.drivenLobes.add(lobeKey(l));
      at = leave;
    }
    stretch(at, path.length - at);
    // Round the whole loop, back where it started.
    b.pose = path.arrivalPoseAt(chosen.s + chosen.dir * path.length, chosen.dir);
    return true;
  }

  /**
   * Onto the pass along a headland ring, at one of four places round it
   * (with `held`, only by ways that keep the implement inside), the ways
   * driven; null where none is found.
   */
  private joinAlong(
    path: RingPath,
    pose: Pose,
    dirs: readonly RingDirection[],
    exterior: boolean,
    held: boolean,
  ): RingWay | null {
    const b = this.b;
    if (b.input.headlandDrivethrough) return null;
    const s0 = path.project(pose);
    for (const frac of JOIN_PLACES) {
      for (const dir of dirs) {
        const s = this.clearPlace(path, s0 + frac * path.length, dir, !exterior);
        const via = b.links.viaRing(pose, path.poseAt(s, dir), true, held);
        if (via) return { s, dir, legs: via.legs, length: via.length };
      }
    }
    return null;
  }

  /**
   * Onto the pass through the field by `travel`, at the first of four
   * places round it a way is found to; where that way is long, at a later
   * place whose way is less than half as long and shorter by more than
   * INSIDE_DETOUR_RADII (the nearest place on the pass may lie across an
   * edge from the machine, the way to it round the field far longer than
   * to another). Null where none is found.
   */
  private joinThrough(
    path: RingPath,
    pose: Pose,
    dir: RingDirection,
    exterior: boolean,
    travel: { connect(from: Pose, to: Pose): Connection[] | null },
  ): RingWay | null {
    const s0 = path.project(pose);
    const allowance = INSIDE_DETOUR_RADII * this.b.R;
    let best: RingWay | null = null;
    for (const frac of JOIN_PLACES) {
      if (best && best.length <= allowance) break;
      const s = this.clearPlace(path, s0 + frac * path.length, dir, !exterior);
      const legs = travel.connect(pose, path.poseAt(s, dir));
      if (!legs) continue;
      const length = legs.reduce((a, c) => a + c.length, 0);
      if (!best || (length + allowance < best.length && 2 * length < best.length))
        best = { s, dir, legs: legs.map((c) => [c, 'Connector']), length };
    }
    return best;
  }

  /**
   * A place to join a pass at near s: s itself where the pass runs in the
   * turn area (the way off it, after the loop, can keep the implement
   * inside), else, round an obstacle (no lobes, no corners driven square),
   * the nearest such place within a few turning radii, else s.
   */
  private clearPlace(path: RingPath, s: number, dir: RingDirection, interior: boolean): number {
    const links = this.b.links;
    const R = this.b.R;
    const at = path.snap(s);
    if (!interior || links.inTurnArea(path.poseAt(at, dir))) return at;
    for (const k of [1, -1, 2, -2, 3, -3]) {
      if (Math.abs(k) * R > path.length / 4) break;
      const t = path.snap(s + k * R);
      if (links.inTurnArea(path.poseAt(t, dir))) return t;
    }
    return at;
  }

  /**
   * Where a route that starts on a pass round an obstacle joins it: its
   * start, else the first of a few places round it where the pass runs in
   * the turn area.
   */
  private startOn(path: RingPath, dir: RingDirection): number {
    const links = this.b.links;
    for (let k = 0; k < START_PLACES; k++) {
      const s = path.snap((k * path.length) / START_PLACES);
      if (links.inTurnArea(path.poseAt(s, dir))) return s;
    }
    return 0;
  }

  /** A way between a ring and a lobe: along the planned line (a LobeEnd: worked, with a corner turn), else a connector. */
  private pushJoin(j: LobeEnd | Connection, passNumber: number): void {
    const b = this.b;
    if (!('at' in j)) {
      b.pushConnection(j, 'HeadlandConnector');
      return;
    }
    for (const piece of j.pieces) {
      if ('turn' in piece) b.pushConnection(piece.turn, 'HeadlandTurn');
      else
        for (const pc of piece.work.pieces)
          if (pc.points.length >= 2)
            b.parts.push({ type: 'ExteriorHeadlandPass', points: pc.points, working: true, passNumber });
    }
  }

  /** The planned rings of exterior pass k. */
  private plannedLines(k: number): PlannedLines {
    let p = this.planned.get(k);
    if (!p) {
      p = new PlannedLines(
        this.b.input.headlands.exterior.filter((r) => r.passNumber === k).map((r) => r.ring),
      );
      this.planned.set(k, p);
    }
    return p;
  }

  /** A short way between two poses near each other: a turn with little reversing, else turning round in several moves. */
  private join(from: Pose, to: Pose): Connection | null {
    const links = this.b.links;
    const { R, input } = this.b;
    return (
      links.connectPoses(from, to, R, input.region, {}, 'turnArea') ??
      links.tipTurn(from, to, 2 * R, 2 * R, true) ??
      links.cornerTurn(from, to) ??
      links.clearOf(
        from,
        to,
        links.connectPoses(from, to, R, input.region, {}, 'field') ?? links.turnRound(from, to),
      )
    );
  }

  /**
   * The open lobes of pass k whose both ends are near this ring, by where
   * they leave and rejoin it driving from s in direction dir (the lobe's
   * points in that order).
   */
  private lobesOf(
    path: RingPath,
    k: number,
    s: number,
    dir: RingDirection,
  ): { lobe: Lobe; points: Point[]; enter: number; leave: number }[] {
    const b = this.b;
    const near = b.w + b.R;
    const out: { lobe: Lobe; points: Point[]; enter: number; leave: number }[] = [];
    for (const lobe of this.lobes(k)) {
      if (lobe.closed || this.drivenLobes.has(lobeKey(lobe))) continue;
      const p0 = lobe.points[0];
      const p1 = lobe.points[lobe.points.length - 1];
      const s0 = path.project(p0);
      const s1 = path.project(p1);
      if (dist(path.pointAt(s0), p0) > near || dist(path.pointAt(s1), p1) > near) continue;
      const t0 = path.distance(s, s0, dir);
      const t1 = path.distance(s, s1, dir);
      out.push(
        t0 <= t1
          ? { lobe, points: lobe.points, enter: t0, leave: t1 }
          : { lobe, points: lobe.points.slice().reverse(), enter: t1, leave: t0 },
      );
    }
    return out.filter((l) => l.leave - l.enter < path.length / 2).sort((x, y) => x.enter - y.enter);
  }

  /** The lobes of exterior pass k against every ring of that pass the route drives. */
  private lobes(k: number): Lobe[] {
    const b = this.b;
    const key = `${k}:${b.undriven.length}`;
    let l = this.lobeCache.get(key);
    if (l) return l;
    const driven = b.rings.filter((r) => r.exterior && !b.undriven.includes(r.ring));
    // Every route of the zone finds the same lobes for the same rings driven.
    let known = lobesByHeadlands.get(b.input.headlands);
    if (!known) {
      known = new Map();
      lobesByHeadlands.set(b.input.headlands, known);
    }
    const sharedKey = `${k} ${b.w} ${b.R} ${b.input.machine.maxCurvatureRate} ${driven
      .map((r) => b.rings.indexOf(r))
      .join(',')}`;
    l = known.get(sharedKey);
    if (!l) {
      l = undrivenLobes(b.input.headlands.exterior, driven, k, b.w, 4 * Math.max(b.R, b.w), {
        reach: OFF_LINE * b.w,
        minLength: 2 * Math.max(b.R, b.w),
      });
      // Each worked up to where a ring runs on its line.
      const planned = b.input.headlands.exterior.filter((r) => r.passNumber === k).map((r) => r.ring);
      const rings = driven.filter((r) => r.ring.passNumber === k).map((r) => r.path.pts);
      l = extendLobes(l, planned, rings, 2 * b.R);
      known.set(sharedKey, l);
    }
    this.lobeCache.set(key, l);
    return l;
  }

  private cornersOf(path: RingPath): RingCorner[] {
    let c = this.cornerCache.get(path);
    if (!c) {
      const b = this.b;
      // The same pass in another route of the zone has the same corners.
      const ring = b.rings.find((r) => r.path === path)?.ring.ring;
      let byRing = ring ? cornersByRegion.get(b.input.region) : undefined;
      if (ring && !byRing) {
        byRing = new WeakMap();
        cornersByRegion.set(b.input.region, byRing);
      }
      let known = ring ? byRing?.get(ring) : undefined;
      if (ring && !known) {
        known = new Map();
        byRing?.set(ring, known);
      }
      const key = `${b.w} ${b.R} ${path.straightJoins} ${b.input.runOnCorners === true}`;
      c = known?.get(key);
      if (!c) {
        c = squareCorners(path, b.w, b.R, b.input.region, b.input.runOnCorners === true);
        known?.set(key, c);
      }
      this.cornerCache.set(path, c);
    }
    return c;
  }

  /** The directions a headland pass may be driven in: both, or the one that winds as forced. */
  private ringDirections(path: RingPath): RingDirection[] {
    const forced = this.b.input.forcedDirection;
    if (!forced) return [1, -1];
    let area = 0;
    const pts = path.pts;
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++)
      area += pts[j].x * pts[i].y - pts[i].x * pts[j].y;
    const ccw: RingDirection = area > 0 ? 1 : -1;
    return [forced === 'CCW' ? ccw : (-ccw as RingDirection)];
  }
}

/**
 * The lobes found for each zone's headlands, by pass, turn model and the
 * rings driven: a zone is routed several times over the same headlands
 * (the optimizer's order and the plain one, with run-ons or corridor passes).
 * Shared between those routes: not to be changed.
 */
const lobesByHeadlands = new WeakMap<object, Map<string, Lobe[]>>();

/** The squared corners of each pass (by its ring's points), by region and settings; shared likewise. */
const cornersByRegion = new WeakMap<object, WeakMap<readonly Point[], Map<string, RingCorner[]>>>();

function lobeKey(l: Lobe): string {
  const p = l.points[0];
  return `${l.passNumber}:${p.x},${p.y}:${l.points.length}`;
}

/**
 * For each exterior ring, the exterior rings before it in `order` it must
 * wait for: those nested with it (one lies inside the other).
 */
function ringWaits(order: readonly RouteRing[]): Map<RouteRing, Set<RouteRing>> {
  const waits = new Map<RouteRing, Set<RouteRing>>();
  const exterior = order.filter((r) => r.exterior);
  for (let j = 1; j < exterior.length; j++) {
    const r = exterior[j];
    for (let i = 0; i < j; i++) {
      const q = exterior[i];
      if (q.ring.passNumber === r.ring.passNumber) continue;
      if (!pointInRing(r.ring.ring[0], q.ring.ring) && !pointInRing(q.ring.ring[0], r.ring.ring)) continue;
      let set = waits.get(r);
      if (!set) {
        set = new Set();
        waits.set(r, set);
      }
      set.add(q);
    }
  }
  return waits;
}

/** Vertices of a ring looked at for the piece of the field it lies in. */
const PIECE_SAMPLES = 24;

/**
 * The piece most of the ring's vertices (some of them, spread round it) lie
 * in; -1 where none does. A pass round an obstacle near the edge may run
 * nearer it than half the width where it squeezes through.
 */
function mostOf(ring: readonly Point[], pieceOf: (p: Point) => number): number {
  const votes = new Map<number, number>();
  const step = Math.max(1, Math.floor(ring.length / PIECE_SAMPLES));
  for (let i = 0; i < ring.length; i += step) {
    const k = pieceOf(ring[i]);
    if (k >= 0) votes.set(k, (votes.get(k) ?? 0) + 1);
  }
  let best = -1;
  let most = 0;
  for (const [k, n] of votes)
    if (n > most) {
      best = k;
      most = n;
    }
  return best;
}
