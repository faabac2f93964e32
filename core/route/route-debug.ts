/**
 * What the route optimizer works from, laid open: per zone the route nodes
 * (both ends of every track), the distance matrix between them, each node's
 * demand, and what the optimizer made of it, with the time each stage took.
 *
 *   node 2t   = end a of track t     (entered there, the track is driven a -> b)
 *   node 2t+1 = end b of track t     (entered there, the track is driven b -> a)
 *
 *   matrix[i][j] = length [m] of the shortest drivable connection (a turn or
 *   connector of the machine's turning radius, reversing where needed) that
 *   stays inside the field, from leaving the track at node i to entering
 *   the track at node j; null on the diagonal of a track (i and j ends of
 *   the same track) and where no such connection exists (the route then
 *   travels along a headland pass).
 *
 * The optimizer is the planner's own (optimize-order.ts) on this matrix,
 * started from the plain boustrophedon order. The planner reads no clock:
 * the caller's `clock` times the stages.
 */
import { prepareField } from '../field/prepare-field.ts';
import { difference, intersection } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { multiPolygonArea } from '../geometry/polygon.ts';
import { hypot } from '../geometry/vec.ts';
import { generateHeadlands } from '../headland/generate-headlands.ts';
import { resolveOptions } from '../plan-options.ts';
import { generateTracks } from '../tracks/generate-tracks.ts';
import { type MetricFrame, PlanningError, type PlanRequest, type Point, type Pose } from '../types/index.ts';
import { connectPoses } from './connect.ts';
import { optimizeOrder, orderCost, type Visit } from './optimize-order.ts';

export interface RouteDebugOptions {
  /** The caller's clock [ms], for the stage times (default: none, times are 0). */
  clock?: () => number;
  /** True when the optimizer must stop. */
  shouldStopOptimizer?: () => boolean;
  /** Most tracks over all zones (the matrix grows with their square); more is PLAN_TOO_COMPLEX. */
  maxTracks?: number;
}

export interface RouteDebugNode {
  nodeIndex: number;
  trackIndex: number;
  end: 'a' | 'b';
  /** [lon, lat] */
  position: [number, number];
  /** Area worked by driving the track entered here [m^2]. */
  demandArea: number;
  /** Volume applied on it [l]; with an application rate only. */
  demandVolume?: number;
}

export interface RouteDebugZone {
  zoneIndex: number;
  trackBearing: number;
  nodes: RouteDebugNode[];
  /** [m], rounded to mm; null where no drivable connection exists. */
  distanceMatrix: (number | null)[][];
  unreachablePairs: number;
  optimizer: {
    /** Cost of each starting order [m]. */
    constructions: Record<string, number>;
    /** The best order found: node indices in driving order (the node each track is entered at). */
    order: number[];
    cost: number;
    evaluations: number;
    improvements: number;
    kicks: number;
    converged: boolean;
  };
}

export interface RouteDebugResult {
  zones: RouteDebugZone[];
  statistics: {
    zones: number;
    tracks: number;
    nodes: number;
    connectionsMeasured: number;
    /** Time per stage [ms]. */
    timesMs: {
      prepare: number;
      headlands: number;
      tracks: number;
      matrix: number;
      optimizer: number;
      total: number;
    };
  };
}

/** Default most tracks of a debug request (a 200 x 200 matrix of measured connections, about 40,000 connections). */
export const ROUTE_DEBUG_MAX_TRACKS = 100;

const round3 = (v: number) => Math.round(v * 1000) / 1000;

export function routeDebug(req: PlanRequest, opts: RouteDebugOptions = {}): RouteDebugResult {
  const clock = opts.clock ?? (() => 0);
  const times = { prepare: 0, headlands: 0, tracks: 0, matrix: 0, optimizer: 0, total: 0 };
  const t0 = clock();
  let t = t0;
  const lap = (k: keyof typeof times) => {
    const now = clock();
    times[k] += now - t;
    t = now;
  };
  const options = resolveOptions(req);
  const { field, frame } = prepareField(req.boundary);
  lap('prepare');
  const m = options.machine;
  const R = m.minTurningRadius;
  const w = m.swathWidth;
  const maxTracks = opts.maxTracks ?? ROUTE_DEBUG_MAX_TRACKS;
  const zones: RouteDebugZone[] = [];
  let tracksTotal = 0;
  let measured = 0;
  field.parts.forEach((zone, zoneIndex) => {
    const headlands = generateHeadlands(zone, {
      swathWidth: w,
      exteriorPasses: options.exteriorHeadlandPasses,
      interiorPasses: options.interiorHeadlandPasses,
      turningRadius: R,
    });
    const zonePassable = field.passable.length ? intersection(field.passable, [zone]) : [];
    const workable = zonePassable.length ? difference(headlands.workable, zonePassable) : headlands.workable;
    lap('headlands');
    if (multiPolygonArea(workable) < 1e-3) return;
    const set = generateTracks(workable, { swathWidth: w, preferredBearingDeg: options.preferredBearingDeg });
    lap('tracks');
    const n = set.tracks.length;
    if (n === 0) return;
    tracksTotal += n;
    if (tracksTotal > maxTracks) {
      throw new PlanningError(
        'PLAN_TOO_COMPLEX',
        `The field has more than ${maxTracks} tracks at this swath width (the distance matrix grows with their square); route debugging takes at most ${maxTracks}. Use a smaller field or a wider swath.`,
        { maxTracks },
      );
    }
    const region = new EdgeIndex([zone.outer, ...zone.holes]);
    const h = set.heading;
    // Node 2t: end a (enter forward a -> b, leave at b); node 2t+1: end b (enter backward, leave at a).
    const enter = (node: number): Pose => {
      const tr = set.tracks[node >> 1];
      return node % 2 === 0 ? { ...tr.a, heading: h } : { ...tr.b, heading: h + Math.PI };
    };
    const leave = (node: number): Pose => {
      const tr = set.tracks[node >> 1];
      return node % 2 === 0 ? { ...tr.b, heading: h } : { ...tr.a, heading: h + Math.PI };
    };
    const size = 2 * n;
    const matrix: (number | null)[][] = [];
    let unreachable = 0;
    for (let i = 0; i < size; i++) {
      const row: (number | null)[] = [];
      for (let j = 0; j < size; j++) {
        if (i >> 1 === j >> 1) {
          row.push(null);
          continue;
        }
        const c = connectPoses(leave(i), enter(j), R, region);
        measured++;
        if (!c) unreachable++;
        row.push(c ? round3(c.length) : null);
      }
      matrix.push(row);
    }
    lap('matrix');
    const nodeOf = (v: Visit) => 2 * v.track + (v.forward ? 0 : 1);
    const cost = (from: Visit | null, to: Visit): number => {
      if (!from) return 0;
      const d = matrix[nodeOf(from)]?.[nodeOf(to)];
      if (d !== null && d !== undefined) return d;
      // No turn fits: the route goes round by a headland; count it dear, as the planner does.
      const a = leave(nodeOf(from));
      const b = enter(nodeOf(to));
      return 3 * hypot(b.x - a.x, b.y - a.y) + 4 * Math.PI * R;
    };
    const boustrophedon = Array.from({ length: n }, (_, i) => ({ track: i, forward: i % 2 === 0 }));
    const res = optimizeOrder(
      { count: n, a: set.tracks.map((x) => x.a), b: set.tracks.map((x) => x.b), cost, hasStart: false },
      { boustrophedon },
      { shouldStop: opts.shouldStopOptimizer },
    );
    lap('optimizer');
    const volumeRate = m.applicationRate;
    const nodes: RouteDebugNode[] = [];
    for (let node = 0; node < size; node++) {
      const tr = set.tracks[node >> 1];
      const p: Point = node % 2 === 0 ? tr.a : tr.b;
      const area = hypot(tr.b.x - tr.a.x, tr.b.y - tr.a.y) * w;
      nodes.push({
        nodeIndex: node,
        trackIndex: node >> 1,
        end: node % 2 === 0 ? 'a' : 'b',
        position: lonLat(frame, p),
        demandArea: round3(area),
        ...(volumeRate !== undefined ? { demandVolume: round3(area * volumeRate) } : {}),
      });
    }
    zones.push({
      zoneIndex,
      trackBearing: round3(set.bearingDeg),
      nodes,
      distanceMatrix: matrix,
      unreachablePairs: unreachable,
      optimizer: {
        constructions: Object.fromEntries(Object.entries(res.constructions).map(([k, v]) => [k, round3(v)])),
        order: res.order.map(nodeOf),
        cost: round3(orderCost({ count: n, a: [], b: [], cost, hasStart: false }, res.order)),
        evaluations: res.evaluations,
        improvements: res.improvements,
        kicks: res.kicks,
        converged: res.converged,
      },
    });
  });
  if (zones.length === 0) {
    throw new PlanningError(
      'HEADLAND_EXHAUSTS_FIELD',
      `No field part has a track left inside ${options.exteriorHeadlandPasses} headland pass(es) of ${w} m.`,
      {},
    );
  }
  times.total = clock() - t0;
  for (const k of Object.keys(times) as (keyof typeof times)[]) times[k] = round3(times[k]);
  return {
    zones,
    statistics: {
      zones: zones.length,
      tracks: tracksTotal,
      nodes: 2 * tracksTotal,
      connectionsMeasured: measured,
      timesMs: times,
    },
  };
}

function lonLat(frame: MetricFrame, p: Point): [number, number] {
  const [lon, lat] = frame.toLonLat(p);
  return [Math.round(lon * 1e9) / 1e9, Math.round(lat * 1e9) / 1e9];
}
