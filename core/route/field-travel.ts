/**
 * Travel through the field between two poses that no single turn or
 * headland ring connects (two parts of a field joined by a neck, blocks on
 * either side of an obstacle).
 *
 * Shrink the field by a clearance, take the vertices of what is left as
 * waypoints, find the shortest chain of straight legs (a visibility graph
 * and Dijkstra), then drive it: a Dubins path from each waypoint to the
 * next, each heading along its leg. Waypoints keep the clearance from every
 * edge, so the turns at them have room; every path is still checked.
 */
import { Clipper } from 'clipper2-ts';
import { offset } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { hypot } from '../geometry/vec.ts';
import type { Point, Polygon, Pose } from '../types/index.ts';
import { backedPieces } from './clear-turns.ts';
import type { Connection } from './connect.ts';
import { connectInside } from './connect-inside.ts';
import { multiPointTurn } from './multi-point-turn.ts';
import { along } from './route-geometry.ts';

interface Level {
  pts: Point[];
  index: EdgeIndex;
  /** Visibility between waypoints, asked once per pair: 0 unknown, 1 visible, 2 blocked. */
  seen: Uint8Array | Map<number, number>;
  /**
   * Sets of waypoints found closed (no leg leaves them: a search that
   * reached none of the ends' legs went through all of one), by a number
   * per set; -1 for a waypoint in none found yet.
   */
  closed: Int32Array;
  closedSets: number;
  /**
   * The legs from an end to each waypoint (1 there, 0 not) and from each
   * waypoint onto an end (0 unknown, 1 there, 2 not), by the end's
   * coordinates: travel from one pose is asked for to many others, and on
   * to one from many.
   */
  fromLegs: Map<string, Uint8Array>;
  toLegs: Map<string, Uint8Array>;
}

/** The clearances waypoints keep from the edge of the area they are held to, tried in turn [turning radii]. */
const CLEARANCES = [2, 1, 0.5, 0.25, 0.1];
/** ... and last, for travel held to the turn area (strips of it a few decimetres wide) [turning radii]. */
const NARROW_CLEARANCE = 0.02;

/** Corners either side along the ring of one beyond the coarser level's area that are waypoints too. */
const LEAD_IN = 3;

/**
 * How travel turns round where no turn with a cusp or two fits: not at
 * all; in several moves where a leg starts (travel held to the turn area);
 * or at its ends, out of a dead end the way comes from or before one it
 * leads into, backing up along the end's line to or from where there is room.
 */
type Manoeuvre = 'none' | 'onSpot' | 'atEnds';

/** Distances backed up along an end's line to or from a turn round at it, tried in turn [turning radii]. */
const END_BACKS_RADII = [0, 1, 2, 3, 4, 6, 8, 11, 15, 20, 26, 33];

/** Waypoint counts up to this keep their visibility in a flat table (n^2 bytes). */
const FLAT_VISIBILITY = 3000;

export class FieldTravel {
  /** The area waypoints keep their clearance in (the zone, or the zone less half the working width). */
  private readonly zone: readonly Polygon[];
  private readonly region: EdgeIndex;
  private readonly radius: number;
  /** Curvature-rate limit of the turns [1/m^2], if any. */
  private readonly curvatureRate: number | undefined;
  /** A leg no turn with a cusp or two fits is driven as a turn of several moves where it starts. */
  private readonly turnsOnSpot: boolean;
  /** The clearances waypoints keep from the edge of `zone`, tried in turn [turning radii]. */
  private readonly clearances: readonly number[];
  private readonly levels = new Map<number, Level | null>();

  /**
   * `zone` the area the waypoints keep their clearances in (the zone, or
   * its turn area, so that they keep half the working width more), `region`
   * the edges every leg is held to. With `narrowStrips` (travel held to
   * the turn area, whose narrow strips leave no room for a loop), a leg
   * that no turn with a cusp or two fits, turning round at the end of a
   * track in a strip or round a tight corner, is driven as a turn of
   * several moves where it starts, then a turn onto its end (not with a
   * curvature-rate limit, whose turns the moves do not follow); and
   * waypoints come as near as a fiftieth of the turning radius to the edge
   * of the area, so that travel leads through strips of it only a few
   * decimetres wide.
   */
  constructor(
    zone: Polygon | readonly Polygon[],
    region: EdgeIndex,
    radius: number,
    curvatureRate?: number,
    narrowStrips = false,
  ) {
    this.zone = 'outer' in zone ? [zone] : zone;
    this.region = region;
    this.radius = radius;
    this.curvatureRate = curvatureRate;
    this.turnsOnSpot = narrowStrips && curvatureRate === undefined;
    this.clearances = narrowStrips ? [...CLEARANCES, NARROW_CLEARANCE] : CLEARANCES;
  }

  /**
   * The waypoints keeping `clearance` from the edge of the zone, and the
   * edges their legs keep to. With `coarser` (a greater clearance, whose
   * level is built already), only the corners of this level's rings that
   * lie well beyond that level's area (in strips too narrow for it) are
   * waypoints of their own; elsewhere that level's are: the same ways,
   * and more room to turn at them, from far fewer waypoints.
   */
  private level(clearance: number, coarser?: number) {
    let l = this.levels.get(clearance);
    if (l === undefined) {
      const shrunk = offset(this.zone, -clearance, 'miter');
      // Simplified within a quarter of the clearance, so no waypoint comes
      // closer to the field edge than three quarters of it.
      const rings = shrunk
        .flatMap((p) => [p.outer, ...p.holes])
        .map((r) => Clipper.simplifyPathD(r, Math.min(0.5, clearance / 4), true));
      const wide = coarser === undefined ? null : this.levels.get(coarser);
      let pts: Point[];
      if (!wide || coarser === undefined) pts = rings.flat().filter((q) => this.region.contains(q));
      else {
        // The rings of the two levels lie about the difference of the
        // clearances apart along a straight edge, farther at corners. The
        // corners beyond that, and a few either side of each along the
        // ring, where the way leads into the narrow strip.
        const beyond = 1.5 * (coarser - clearance) + 0.05;
        const own: Point[] = [];
        for (const ring of rings) {
          const m = ring.length;
          const far = ring.map((q) => !wide.index.contains(q) && wide.index.distance(q, beyond) > beyond);
          for (let i = 0; i < m; i++) {
            let near = false;
            for (let d = -LEAD_IN; d <= LEAD_IN && !near; d++) near = far[(i + d + m) % m];
            if (near && this.region.contains(ring[i])) own.push(ring[i]);
          }
        }
        pts = [...wide.pts, ...own];
      }
      const n = pts.length;
      l = n
        ? {
            pts,
            index: new EdgeIndex(rings),
            seen: n <= FLAT_VISIBILITY ? new Uint8Array(n * n) : new Map(),
            closed: new Int32Array(n).fill(-1),
            closedSets: 0,
            fromLegs: new Map(),
            toLegs: new Map(),
          }
        : null;
      this.levels.set(clearance, l);
    }
    return l;
  }

  /**
   * Legs through the field from one pose to the other, each reversing at
   * most as far as turning round needs (a few turning radii); where none
   * are found and turns of several moves are allowed, the shortest such
   * legs with them; else (without a curvature-rate limit) the shortest
   * that turn round in several moves at an end, backing up out of a dead
   * end or onto one; only where none of these is found, legs that reverse
   * farther.
   */
  connect(from: Pose, to: Pose): Connection[] | null {
    const R = this.radius;
    const chains: (Point[] | null)[] = [];
    const passes: [number, Manoeuvre][] = [[5 * R, 'none']];
    if (this.turnsOnSpot) passes.push([5 * R, 'onSpot']);
    if (this.curvatureRate === undefined) passes.push([5 * R, 'atEnds']);
    passes.push([Number.POSITIVE_INFINITY, 'none']);
    for (const [maxReverse, manoeuvre] of passes) {
      let k = 0;
      let best: Connection[] | null = null;
      let bestLength = Number.POSITIVE_INFINITY;
      for (const [j, radii] of this.clearances.entries()) {
        const clearance = radii * R;
        const i = k++;
        if (chains.length <= i) {
          // The narrow strips' level on the waypoints of the level before.
          const l = this.level(
            clearance,
            radii === NARROW_CLEARANCE && j > 0 ? this.clearances[j - 1] * R : undefined,
          );
          chains.push(l ? this.shortestChain(from, to, l) : null);
        }
        const route = chains[i];
        if (!route) continue;
        const legs = this.drive(from, to, route, maxReverse, manoeuvre);
        if (!legs) continue;
        // Turns of several moves differ in length much more than the chains do.
        if (manoeuvre === 'none') return legs;
        const length = legs.reduce((a, c) => a + c.length, 0);
        if (length < bestLength) {
          best = legs;
          bestLength = length;
        }
      }
      if (best) return best;
    }
    return null;
  }

  /**
   * Waypoints from `from` to `to` along straight legs inside the field: A*
   * over the visibility graph (the straight-line distance to `to` as the
   * heuristic), with visibility between waypoints remembered across calls.
   */
  private shortestChain(from: Point, to: Point, level: Level): Point[] | null {
    const { pts, index: inner, seen, closed } = level;
    const n = pts.length;
    const nodes = [...pts, from, to];
    const src = n;
    const dst = n + 1;
    // Legs to the ends keep only to the field.
    const endLeg = (p: Point, q: Point): boolean =>
      !this.region.segmentCrosses(p, q) && this.region.contains({ x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 });
    // The legs from \`from\` (the search asks for every one first: 1 there, 0 not)
    // and those onto \`to\` (as asked: 0 unknown, 1 there, 2 not).
    const fromKey = `${from.x} ${from.y}`;
    let fromSees = level.fromLegs.get(fromKey);
    if (!fromSees) {
      fromSees = new Uint8Array(n);
      for (let i = 0; i < n; i++) fromSees[i] = endLeg(from, pts[i]) ? 1 : 0;
      level.fromLegs.set(fromKey, fromSees);
    }
    const toKey = `${to.x} ${to.y}`;
    let toSees = level.toLegs.get(toKey);
    if (!toSees) {
      toSees = new Uint8Array(n);
      level.toLegs.set(toKey, toSees);
    }
    let known = true;
    for (let i = 0; i < n; i++) if (fromSees[i] && closed[i] < 0) known = false;
    const seesTo = (i: number): boolean => {
      if (toSees[i] === 0) toSees[i] = endLeg(pts[i], to) ? 1 : 2;
      return toSees[i] === 1;
    };
    if (known) {
      // Every waypoint \`from\` sees lies in a closed set: no way unless a waypoint of these sees \`to\`.
      const sets = new Set<number>();
      for (let i = 0; i < n; i++) if (fromSees[i]) sets.add(closed[i]);
      let any = false;
      for (let i = 0; i < n && !any; i++) if (sets.has(closed[i]) && seesTo(i)) any = true;
      if (!any) return null;
    }
    const waypointsVisible = (a: number, b: number): boolean => {
      const p = nodes[a];
      const q = nodes[b];
      if (inner.segmentCrosses(p, q)) return false;
      const mid = { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
      return inner.contains(mid) || inner.clearance(mid, 0.1) < 0.05;
    };
    const visible = (a: number, b: number): boolean => {
      if (a === src) return fromSees[b] === 1;
      if (b === dst) return seesTo(a);
      // Legs between waypoints stay in the shrunk field.
      const key = a < b ? a * n + b : b * n + a;
      let v = seen instanceof Uint8Array ? seen[key] : (seen.get(key) ?? 0);
      if (v === 0) {
        v = waypointsVisible(a, b) ? 1 : 2;
        if (seen instanceof Uint8Array) seen[key] = v;
        else seen.set(key, v);
      }
      return v === 1;
    };
    const h = new Float64Array(n + 2);
    const xs = new Float64Array(n + 2);
    const ys = new Float64Array(n + 2);
    for (let i = 0; i < n + 2; i++) {
      xs[i] = nodes[i].x;
      ys[i] = nodes[i].y;
      const dx = nodes[i].x - to.x;
      const dy = nodes[i].y - to.y;
      h[i] = Math.sqrt(dx * dx + dy * dy);
    }
    const dist = new Float64Array(n + 2).fill(Number.POSITIVE_INFINITY);
    const prev = new Int32Array(n + 2).fill(-1);
    const done = new Uint8Array(n + 2);
    dist[src] = 0;
    // Open nodes by dist + h, the lower index first among equals; an entry
    // whose node has been reached more cheaply since is passed over.
    const open = new MinHeap();
    open.push(h[src], src);
    for (;;) {
      let u = -1;
      while (open.size) {
        const f = open.topKey();
        const i = open.pop();
        if (!done[i] && f === dist[i] + h[i]) {
          u = i;
          break;
        }
      }
      if (u < 0 || u === dst) break;
      done[u] = 1;
      const ux = xs[u];
      const uy = ys[u];
      const du = dist[u];
      for (let v = 0; v < n + 2; v++) {
        if (done[v] || v === src) continue;
        if (u === src && v === dst) continue;
        const dx = ux - xs[v];
        const dy = uy - ys[v];
        const d = du + Math.sqrt(dx * dx + dy * dy);
        if (d >= dist[v]) continue;
        // No way on through v can be shorter than the way to \`to\` found already.
        if (d + h[v] > dist[dst]) continue;
        if (!visible(u, v)) continue;
        dist[v] = d;
        prev[v] = u;
        open.push(d + h[v], v);
      }
    }
    if (!Number.isFinite(dist[dst])) {
      // The search went through every waypoint it could reach: a closed set.
      const k = level.closedSets++;
      for (let i = 0; i < n; i++) if (done[i]) closed[i] = k;
      return null;
    }
    const chain: Point[] = [];
    for (let v = prev[dst]; v !== src && v >= 0; v = prev[v]) chain.push(nodes[v]);
    return chain.reverse();
  }

  private drive(
    from: Pose,
    to: Pose,
    waypoints: Point[],
    maxReverse: number,
    manoeuvre: Manoeuvre,
  ): Connection[] | null {
    const R = this.radius;
    const poses: Pose[] = waypoints.map((p, i) => {
      const q = i + 1 < waypoints.length ? waypoints[i + 1] : to;
      return { x: p.x, y: p.y, heading: Math.atan2(q.y - p.y, q.x - p.x) };
    });
    const legs: Connection[] = [];
    const opts =
      this.curvatureRate === undefined ? { maxReverse } : { maxReverse, curvatureRate: this.curvatureRate };
    const leg = (a: Pose, b: Pose) => connectInside(a, b, R, this.region, opts);
    const targets = [...poses, to];
    let cur = from;
    for (const [i, p] of targets.entries()) {
      let c = leg(cur, p) ?? (manoeuvre === 'onSpot' ? multiPointTurn(cur, p, R, this.region, leg) : null);
      if (!c && manoeuvre === 'atEnds') {
        // Out of a dead end the way came into: backing up to where there
        // is room, turning round there; into one it leads on: turning
        // round where there is room before it, backing up onto its end.
        if (i === 0) c = this.backedOut(cur, p, leg);
        if (!c && i === targets.length - 1) {
          const onto = this.backedIn(cur, p, leg);
          if (onto) {
            legs.push(...onto);
            return legs;
          }
        }
      }
      if (!c) return null;
      legs.push(c);
      cur = p;
    }
    return legs;
  }

  /**
   * From `from` onto `p`: backing up straight along the line of `from`
   * (as little as will do), turning round there in several moves, then
   * on onto p. Null where none of the distances tried gives such a way.
   */
  private backedOut(from: Pose, p: Pose, leg: (a: Pose, b: Pose) => Connection | null): Connection | null {
    const R = this.radius;
    for (const d of END_BACKS_RADII) {
      const b = { ...along(from, from.heading, -d * R), heading: from.heading };
      if (d > 0 && !this.straightClear(from, b)) return null;
      const turn = multiPointTurn(b, p, R, this.region, leg);
      if (!turn) continue;
      return {
        pieces: backedPieces(d > 0 ? [from, b] : null, turn, null),
        length: d * R + turn.length,
        kind: 'K',
      };
    }
    return null;
  }

  /**
   * From `from` onto `to`: on along the way to a point on the line of
   * `to` ahead of it (as near as will do), turning round there in several
   * moves, then backing up straight onto `to`. Null where none of the
   * distances tried gives such a way.
   */
  private backedIn(from: Pose, to: Pose, leg: (a: Pose, b: Pose) => Connection | null): Connection[] | null {
    const R = this.radius;
    for (const e of END_BACKS_RADII) {
      const c = { ...along(to, to.heading, e * R), heading: to.heading };
      if (e > 0 && !this.straightClear(c, to)) return null;
      const arrive = { x: c.x, y: c.y, heading: Math.atan2(c.y - from.y, c.x - from.x) };
      if (hypot(c.x - from.x, c.y - from.y) < R) continue;
      const reach = leg(from, arrive);
      if (!reach) continue;
      const turn = multiPointTurn(arrive, c, R, this.region, leg);
      if (!turn) continue;
      return [
        reach,
        { pieces: backedPieces(null, turn, e > 0 ? [c, to] : null), length: turn.length + e * R, kind: 'K' },
      ];
    }
    return null;
  }

  /** True where the straight from p to q keeps inside the field. */
  private straightClear(p: Point, q: Point): boolean {
    return this.region.contains(q) && !this.region.segmentCrosses(p, q);
  }
}

/** A binary heap of node indices by key, ties to the lower index. */
class MinHeap {
  private keys: number[] = [];
  private items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  topKey(): number {
    return this.keys[0];
  }

  private less(i: number, j: number): boolean {
    const a = this.keys[i];
    const b = this.keys[j];
    return a < b || (a === b && this.items[i] < this.items[j]);
  }

  private swap(i: number, j: number): void {
    const k = this.keys[i];
    this.keys[i] = this.keys[j];
    this.keys[j] = k;
    const t = this.items[i];
    this.items[i] = this.items[j];
    this.items[j] = t;
  }

  push(key: number, item: number): void {
    this.keys.push(key);
    this.items.push(item);
    let i = this.items.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  /** Removes the least entry and returns its item. */
  pop(): number {
    const top = this.items[0];
    const lastKey = this.keys.pop() as number;
    const lastItem = this.items.pop() as number;
    const n = this.items.length;
    if (n > 0) {
      this.keys[0] = lastKey;
      this.items[0] = lastItem;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < n && this.less(l, m)) m = l;
        if (r < n && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }
}
