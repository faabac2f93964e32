/**
 * Driving the headland passes: each pass joined where the way onto it is
 * shortest (or anywhere along the headland, or through the field), driven
 * once round with its sharp corners squared, back where it started.
 */
import type { HeadlandRing } from '../headland/generate-headlands.ts';
import type { Pose } from '../types/index.ts';
import type { Connection } from './connect.ts';
import { driveLobe, undrivenLobes } from './drive-lobes.ts';
import { loopWithCorners, type RingCorner, squareCorners } from './headland-corners.ts';
import type { RingDirection, RingPath } from './ring-path.ts';
import type { RouteBuilder } from './route-builder.ts';
import { dist } from './route-geometry.ts';
import type { RouteRing } from './route-links.ts';

export class HeadlandDriver {
  private readonly b: RouteBuilder;
  private readonly cornerCache = new Map<RingPath, RingCorner[]>();

  constructor(b: RouteBuilder) {
    this.b = b;
  }

  /** Drive headland passes: interior rings nearest first, exterior rings in the given order. */
  driveRings(order: readonly RouteRing[]): void {
    const b = this.b;
    const pending = order.slice();
    while (pending.length) {
      let idx = 0;
      const pose = b.pose;
      if (!pending[0].exterior && pose) {
        let bd = Number.POSITIVE_INFINITY;
        pending.forEach((r, i) => {
          if (r.exterior) return;
          const d = dist(r.path.pointAt(r.path.project(pose)), pose);
          if (d < bd) {
            bd = d;
            idx = i;
          }
        });
      }
      const r = pending.splice(idx, 1)[0];
      if (!this.driveRing(r.path, r.ring, r.exterior)) {
        b.failures++;
        b.undriven.push(r.ring);
      }
      // After the last ring of an exterior pass, the stretches of it no ring follows.
      const k = r.ring.passNumber;
      if (r.exterior && !pending.some((q) => q.exterior && q.ring.passNumber === k)) this.driveLobes(k);
    }
  }

  /** The lobes of exterior pass k (stretches no driven ring follows), nearest first. */
  private driveLobes(k: number): void {
    const b = this.b;
    const driven = b.rings.filter((r) => r.exterior && !b.undriven.includes(r.ring));
    const lobes = undrivenLobes(b.input.headlands.exterior, driven, k, b.w, 4 * Math.max(b.R, b.w));
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
    if (!pose) {
      chosen = { s: 0, dir: dirs[0], conn: null };
    } else {
      const s0 = path.project(pose);
      let bestLen = Number.POSITIVE_INFINITY;
      for (const dir of dirs) {
        for (const la of [2 * R, 3 * R, 5 * R, 8 * R]) {
          if (la > path.length / 2) continue;
          const s = path.snap(s0 + dir * la);
          const c = b.links.connectPoses(pose, path.poseAt(s, dir), R, input.region);
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
            const via = input.headlandDrivethrough ? null : b.links.viaRing(pose, target, true);
            if (via) {
              for (const [c, t] of via.legs) b.pushConnection(c, t);
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
        const legs = b.links.fieldTravel().connect(pose, target);
        if (legs) {
          for (const c of legs) b.pushConnection(c, 'Connector');
          chosen = { s, dir: dirs[0], conn: null };
          break;
        }
      }
    }
    if (!chosen && pose) {
      // Else a way on that reverses farther than a turn needs.
      const s0 = path.project(pose);
      let bestLen = Number.POSITIVE_INFINITY;
      for (const dir of dirs) {
        for (const la of [2 * R, 3 * R, 5 * R, 8 * R]) {
          if (la > path.length / 2) continue;
          const s = path.snap(s0 + dir * la);
          const c = b.links.connectPoses(pose, path.poseAt(s, dir), R, input.region, {
            maxReverse: Number.POSITIVE_INFINITY,
          });
          if (c && c.length < bestLen) {
            bestLen = c.length;
            chosen = { s, dir, conn: c };
          }
        }
      }
    }
    if (!chosen) return false;
    if (chosen.conn) b.pushConnection(chosen.conn, 'HeadlandConnector');
    // Sharp corners of an exterior pass are driven square, with a reversing
    // turn at each (the field corner beyond a rounding is worked). Around an
    // obstacle the outside of a corner is the track area: no gain there.
    const corners = exterior ? this.cornersOf(path) : [];
    const pieces = loopWithCorners(path, chosen.s, chosen.dir, corners, R, input.region, input.runOnCorners);
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
    // Round the whole loop, back where it started.
    b.pose = path.arrivalPoseAt(chosen.s + chosen.dir * path.length, chosen.dir);
    return true;
  }

  private cornersOf(path: RingPath): RingCorner[] {
    let c = this.cornerCache.get(path);
    if (!c) {
      const b = this.b;
      c = squareCorners(path, b.w, b.R, b.input.region, b.input.runOnCorners === true);
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
