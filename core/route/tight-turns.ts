/**
 * Turns held to the turn area (the field shrunk by half the working width)
 * where its edge leaves little room: round an inside corner of the field
 * edge, and turning round at the end of a narrow tip, backing up along the
 * lines in and out to where the turn area is wide enough. Both keep the
 * whole implement inside the field; each is null where none fits.
 */
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { hypot, polylineLength } from '../geometry/vec.ts';
import { samplePath } from '../turn/path.ts';
import type { Point, Pose } from '../types/index.ts';
import { backedPieces } from './clear-turns.ts';
import { type Connection, connectPoses as connectWith, cornerTurnPath } from './connect.ts';
import { staysInside } from './connect-inside.ts';
import { multiPointTurn } from './multi-point-turn.ts';

/** Reversing of a turn or connector: at most this many turning radii. */
export const MAX_REVERSE_RADII = 5;

/** Straight reversing tried before and after a turn round in a tip [turning radii]. */
const TIP_BACKS_RADII = [0, 1, 2, 3, 4, 5];
/** The straights of a turn round an inside corner are checked this often where they run outside the turn area [m]. */
const CORNER_STEP = 0.25;
/** ... and may come this much nearer the edge than their end there [m] (the audit's rounding). */
const CORNER_SLACK = 0.005;

/** An end of a way this near the edge lies on it (a track driven up to it) [m]. */
const ON_EDGE = 1e-3;

export interface TightTurnSetup {
  /** The field's edges (the zone's, with its obstacles). */
  region: EdgeIndex;
  /** The turn area, if the zone has one. */
  turnArea: EdgeIndex | null;
  radius: number;
  /** Curvature-rate limit [1/m^2], if any: these turns do not follow it (none is found). */
  curvatureRate: number | undefined;
  swathWidth: number;
}

export class TightTurns {
  private readonly region: EdgeIndex;
  private readonly turnArea: EdgeIndex | null;
  private readonly R: number;
  private readonly sigma: number | undefined;
  private readonly w: number;

  constructor(s: TightTurnSetup) {
    this.region = s.region;
    this.turnArea = s.turnArea;
    this.R = s.radius;
    this.sigma = s.curvatureRate;
    this.w = s.swathWidth;
  }

  /**
   * A turn round an inside corner of the edge (cornerTurnPath) whose arc
   * keeps to the turn area `t` and whose straights keep to it but where they
   * leave or join the ends, which may lie a little outside it on a pass
   * pulled round the corner: there they draw no nearer the edge than the
   * end they run from or into. Null where none fits.
   */
  cornerTurn(from: Pose, to: Pose): Connection | null {
    const t = this.turnArea;
    if (!t || this.sigma !== undefined) return null;
    const r = this.R;
    const path = cornerTurnPath(from, to, r, MAX_REVERSE_RADII * r);
    if (!path) return null;
    const pieces = samplePath(from, path, r);
    if (pieces.length !== 3 || pieces[1].points.length < 2) return null;
    const arc = pieces[1].points;
    if (t.polylineCrosses(arc) || !arc.every((q) => t.contains(q))) return null;
    const ins = pieces[0].points;
    const outs = pieces[2].points;
    const end = outs[outs.length - 1];
    if (hypot(end.x - to.x, end.y - to.y) > 1e-6) return null;
    if (!this.straightInside(ins[0], ins[ins.length - 1], t) || !this.straightInside(end, outs[0], t))
      return null;
    const c: Connection = { pieces, length: path.length, kind: 'K' };
    return staysInside(c, this.region) ? c : null;
  }

  /**
   * True when the straight from the end `p` to `q` (in the turn area `t`)
   * keeps to t, but for a stretch from p outside it where it draws no
   * nearer the field edge than p.
   */
  straightInside(p: Point, q: Point, t: EdgeIndex): boolean {
    if (!t.contains(q) || this.region.segmentCrosses(p, q)) return false;
    if (t.contains(p)) return !t.segmentCrosses(p, q);
    const L = hypot(q.x - p.x, q.y - p.y);
    const d0 = this.region.distance(p, this.w);
    const n = Math.ceil(L / CORNER_STEP);
    for (let i = 1; i <= n; i++) {
      const f = i / n;
      const m = { x: p.x + f * (q.x - p.x), y: p.y + f * (q.y - p.y) };
      if (t.contains(m)) return !t.segmentCrosses(m, q);
      if (this.region.distance(m, this.w) < d0 - CORNER_SLACK) return false;
    }
    return false;
  }

  /**
   * Turning round at the end of a narrow tip with the whole implement
   * inside the field: back up straight along the way in (at most `maxIn`)
   * until the turn area is wide enough, turn there (a turn with little
   * reversing, else several moves), and back up straight along the way out
   * onto `to` (coming from at most `maxOut` along it). The straights run on
   * the lines the machine drives in and out on. An end on the edge (a
   * track driven up to it) is backed away from the edge; with `fromBand`,
   * any end in the band along the edge outside the turn area (a headland
   * pass pulled round a corner) whose straight draws no nearer the edge.
   * Null where no such turn fits the turn area (or with a curvature-rate limit).
   */
  tipTurn(from: Pose, to: Pose, maxIn: number, maxOut: number, fromBand = false): Connection | null {
    const t = this.turnArea;
    if (!t || this.sigma !== undefined) return null;
    const R = this.R;
    const opts = { maxReverse: MAX_REVERSE_RADII * R };
    const inside = (a: Point, b: Point) =>
      fromBand || t.contains(a) || this.region.clearance(a, 2 * ON_EDGE) < ON_EDGE
        ? this.straightInside(a, b, t)
        : false;
    const pairs: [number, number][] = [];
    // Backed out about as far as backed in (the tip is about as wide either side).
    for (const d of TIP_BACKS_RADII)
      for (const e of TIP_BACKS_RADII) if (Math.abs(d - e) <= 1) pairs.push([d * R, e * R]);
    pairs.sort((p, q) => p[0] + p[1] - (q[0] + q[1]) || Math.abs(p[0] - p[1]) - Math.abs(q[0] - q[1]));
    for (const several of [false, true]) {
      for (const [d, e] of pairs) {
        if (d > maxIn + 1e-9 || e > maxOut + 1e-9) continue;
        if (several && (d !== e || d === 0)) continue;
        const b = {
          x: from.x - d * Math.cos(from.heading),
          y: from.y - d * Math.sin(from.heading),
          heading: from.heading,
        };
        const c = {
          x: to.x + e * Math.cos(to.heading),
          y: to.y + e * Math.sin(to.heading),
          heading: to.heading,
        };
        if (d > 0 ? !inside(from, b) : !t.contains(b)) continue;
        if (e > 0 ? !inside(to, c) : !t.contains(c)) continue;
        const middle = several
          ? multiPointTurn(b, c, R, t, (p, q) => connectWith(p, q, R, t, opts))
          : connectWith(b, c, R, t, opts);
        if (!middle || !staysInside(middle, this.region)) continue;
        // The straights join the middle's reversing pieces they run on into.
        const pieces = backedPieces(d > 0 ? [from, b] : null, middle, e > 0 ? [c, to] : null);
        // No run backwards longer than a turn needs.
        if (pieces.some((pc) => pc.reverse && polylineLength(pc.points) > opts.maxReverse + 1e-6)) continue;
        return { pieces, length: d + middle.length + e, kind: 'K' };
      }
    }
    return null;
  }
}
