/**
 * Working passes down the middle of corridors: lanes, arms and necks of the
 * zone too narrow for the headland passes and the tracks, left unworked by
 * the route (core/tracks/centre-line-passes.ts finds them and their centre
 * lines). A farmer works such a lane with one pass down its middle.
 *
 * Where the route already drives through a corridor on a connector, that
 * stretch of the connector becomes a working pass; the rest of each centre
 * line is driven as passes of its own, joined to the route by the usual
 * links (nearest first), after the headland passes. A pass no link reaches
 * is left (its area shows as missed, and the audit names it).
 *
 * Each pass is a RouteTrack with a guidance track of its own, numbered on
 * from the zone's tracks.
 */
import { bufferLines, difference, union } from '../geometry/clip.ts';
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { distToPolygonBoundary, pointInPolygon } from '../geometry/polygon.ts';
import { type Corridor, corridorCentreLines, lineLength } from '../tracks/centre-line-passes.ts';
import type { PathPart, PlanStats, Point, Polygon, Pose } from '../types/index.ts';
import type { RouteBuilder } from './route-builder.ts';
import type { RouteResult } from './route-types.ts';

export interface CorridorPasses {
  /** Guidance lines of the corridor passes; the i-th is track `firstIndex + i`. */
  guidance: Point[][];
  /** The corridors worked (pieces of the unworked area), for the zone's workable area. */
  areas: Polygon[];
}

/** A connector stretch through a corridor shorter than this many swaths stays a connector. */
const MIN_CONVERTED = 2;
/** A new pass shorter than this many swaths is not driven. */
const MIN_PASS = 2.5;
/** Links tried per pass before the rest are left. */
const TRIES = 6;
/** The way to a new pass may be at most this many times its length ... */
const LINK_BUDGET = 3;
/** ... plus this many swaths. */
const LINK_SLACK = 10;
/** A pass may lie over worked ground by at most this many swaths on either side. */
const WASTE = 0.2;
/** Sampling step along the centre lines and connectors [m]. */
const STEP = 1;

interface Sample {
  p: Point;
  covered: boolean;
}

/**
 * Find the corridors the route leaves unworked and work them: connectors
 * through them become working passes, and passes down the rest are driven.
 * Call when the route is otherwise complete (before it is led to its end).
 */
export function driveCorridorPasses(b: RouteBuilder, firstIndex: number): CorridorPasses {
  const w = b.w;
  const none: CorridorPasses = { guidance: [], areas: [] };
  const lines: Point[][] = [];
  for (const p of b.parts) if (p.working && p.points.length >= 2) lines.push(p.points);
  const unworked = lines.length
    ? difference([b.input.zone], bufferLines(lines, w / 2, 'butt'))
    : [b.input.zone];
  const corridors = corridorCentreLines(unworked, {
    swathWidth: w,
    turningRadius: b.R,
    region: b.input.region,
  });
  if (corridors.length === 0) return none;
  const out: CorridorPasses = { guidance: [], areas: [] };
  const centre = corridors.flatMap((c) =>
    c.lines.map((l) => ({ corridor: c, samples: sample(l, c.piece, b.input.region, w) })),
  );
  convertConnectors(b, centre, out, firstIndex);
  // The uncovered runs of each centre line, driven nearest first.
  const todo: { line: Point[]; corridor: Corridor }[] = [];
  for (const c of centre) {
    let run: Point[] = [];
    const flush = () => {
      if (run.length >= 2 && lineLength(run) >= MIN_PASS * w) todo.push({ line: run, corridor: c.corridor });
      run = [];
    };
    for (const s of c.samples) {
      if (s.covered) flush();
      else run.push(s.p);
    }
    flush();
  }
  const worked = new Set<Corridor>();
  for (const c of centre) if (c.samples.some((s) => s.covered)) worked.add(c.corridor);
  while (todo.length) {
    const here = b.pose;
    const options: { k: number; forward: boolean; d: number }[] = [];
    todo.forEach(({ line: l }, k) => {
      for (const forward of [true, false]) {
        const s = forward ? l[0] : l[l.length - 1];
        options.push({ k, forward, d: here ? Math.hypot(s.x - here.x, s.y - here.y) : 0 });
      }
    });
    options.sort((x, y) => x.d - y.d);
    let done = -1;
    for (const o of options.slice(0, TRIES)) {
      const line = o.forward ? todo[o.k].line : todo[o.k].line.slice().reverse();
      if (!linkWithin(b, startPose(line), LINK_BUDGET * lineLength(line) + LINK_SLACK * w)) continue;
      const index = firstIndex + out.guidance.length;
      out.guidance.push(line);
      b.parts.push({ type: 'RouteTrack', points: line, working: true, trackIndex: index });
      b.pose = endPose(line);
      done = o.k;
      break;
    }
    if (done < 0) break;
    worked.add(todo[done].corridor);
    todo.splice(done, 1);
  }
  for (const c of worked) out.areas.push(c.piece);
  return out;
}

/**
 * Connector stretches (forward, not reversing) that run down a corridor,
 * within half a swath of its centre line where it is not worked yet, become
 * working passes; the centre line there is marked covered.
 */
function convertConnectors(
  b: RouteBuilder,
  centre: { corridor: Corridor; samples: Sample[] }[],
  out: CorridorPasses,
  firstIndex: number,
): void {
  const w = b.w;
  for (let i = 0; i < b.parts.length; i++) {
    const part = b.parts[i];
    if (part.working || part.reverse || part.points.length < 2) continue;
    if (lineLength(part.points) < MIN_CONVERTED * w) continue;
    const pts = densify(part.points, STEP);
    // For each point: the centre-line samples it covers, if it lies in a corridor.
    const hits: (Sample[] | null)[] = pts.map((p) => {
      for (const c of centre) {
        if (!pointInPolygon(p, c.corridor.piece)) continue;
        const near = c.samples.filter((s) => !s.covered && Math.hypot(s.p.x - p.x, s.p.y - p.y) <= w / 2);
        if (near.length) return near;
      }
      return null;
    });
    const runs: [number, number][] = [];
    let from = -1;
    for (let k = 0; k <= pts.length; k++) {
      const on = k < pts.length && hits[k] !== null;
      if (on && from < 0) from = k;
      if (!on && from >= 0) {
        if (lineLength(pts.slice(from, k)) >= MIN_CONVERTED * w) runs.push([from, k - 1]);
        from = -1;
      }
    }
    if (runs.length === 0) continue;
    const pieces: PathPart[] = [];
    let at = 0;
    const rest = (a: number, z: number) => {
      if (z > a) pieces.push({ ...part, points: pts.slice(a, z + 1) });
    };
    for (const [a, z] of runs) {
      rest(at, a);
      const line = pts.slice(a, z + 1);
      const index = firstIndex + out.guidance.length;
      out.guidance.push(line);
      pieces.push({ type: 'RouteTrack', points: line, working: true, trackIndex: index });
      for (let k = a; k <= z; k++) for (const s of hits[k] as Sample[]) s.covered = true;
      at = z;
    }
    rest(at, pts.length - 1);
    b.parts.splice(i, 1, ...pieces);
    i += pieces.length - 1;
  }
}

/**
 * Points along a centre line every metre. Where the swath there would lie
 * over much worked ground (a sliver between worked areas rather than a lane
 * of the field, whose edges take the overhang), the point is taken as
 * covered: no pass is driven for it.
 */
/** Link the route to `to` by the usual ways if one is at most `budget` long. */
function linkWithin(b: RouteBuilder, to: Pose, budget: number): boolean {
  if (!b.pose) {
    b.pose = to;
    return true;
  }
  if (Math.hypot(to.x - b.pose.x, to.y - b.pose.y) > budget) return false;
  const found = b.links.findLink(b.pose, to, 'Connector', true);
  if (!found || found.length > budget) return false;
  for (const [c, t] of found.legs) b.pushConnection(c, t);
  b.pose = to;
  return true;
}

function sample(line: readonly Point[], piece: Polygon, region: EdgeIndex, w: number): Sample[] {
  const pts = densify(line, STEP);
  // Half the width of the unworked strip: the distance to its edge, the
  // most within half a swath along the line (near an end of the line, the
  // nearest edge is the strip's end, not its side).
  const edge = pts.map((p) => distToPolygonBoundary(p, piece));
  const reach = Math.ceil(w / 2 / STEP);
  return pts.map((p, i) => {
    let unworked = 0;
    for (let k = Math.max(0, i - reach); k <= Math.min(pts.length - 1, i + reach); k++)
      unworked = Math.max(unworked, edge[k]);
    const field = region.distance(p, w / 2);
    return { p, covered: Math.min(w / 2, field) - unworked > WASTE * w };
  });
}

function startPose(line: readonly Point[]): Pose {
  const a = line[0];
  const b = line[1];
  return { x: a.x, y: a.y, heading: Math.atan2(b.y - a.y, b.x - a.x) };
}

function endPose(line: readonly Point[]): Pose {
  const a = line[line.length - 2];
  const b = line[line.length - 1];
  return { x: b.x, y: b.y, heading: Math.atan2(b.y - a.y, b.x - a.x) };
}

function densify(pts: readonly Point[], step: number): Point[] {
  const out: Point[] = [pts[0]];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    const n = Math.max(1, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / step));
    for (let k = 1; k <= n; k++) out.push({ x: a.x + ((b.x - a.x) * k) / n, y: a.y + ((b.y - a.y) * k) / n });
  }
  return out;
}

/** Routes covering less than this share of the zone [%] are looked at for corridors. */
const CORRIDOR_COVERED_PERCENT = 98;

export interface ZoneCorridorInput {
  route: RouteResult;
  /** The zone's parts: guidance first, the route's driven parts (with sequence) last; changed in place. */
  parts: PathPart[];
  workable: Polygon[];
  /** Number of the zone's tracks (corridor passes are numbered on from it). */
  firstIndex: number;
  stats: PlanStats;
  statsOf: (parts: readonly PathPart[], workable: readonly Polygon[]) => PlanStats;
}

/**
 * Where the route leaves much of the zone unworked, the route with its
 * corridors worked (withCorridors), taken when it drives some: the zone's
 * parts gain the passes' guidance tracks and the route's new parts, the
 * workable area the corridors, and the statistics are measured again.
 */
export function withZoneCorridors(z: ZoneCorridorInput): {
  route: RouteResult;
  workable: Polygon[];
  stats: PlanStats;
} {
  const same = { route: z.route, workable: z.workable, stats: z.stats };
  if (!z.route.withCorridors || z.stats.coveredPercent >= CORRIDOR_COVERED_PERCENT) return same;
  const route = z.route.withCorridors();
  const c = route.corridors;
  if (!c || route.failures > z.route.failures) return same;
  const driven = z.parts.findIndex((p) => p.sequence !== undefined);
  z.parts.splice(
    driven < 0 ? z.parts.length : driven,
    z.parts.length,
    ...c.guidance.map(
      (line, k): PathPart => ({
        type: 'GuidanceTrack',
        points: line.slice(),
        working: false,
        trackIndex: z.firstIndex + k,
      }),
    ),
    ...route.parts.map((p) => ({ ...p, sequence: 0 })),
  );
  const workable = union(z.workable, c.areas);
  return { route, workable, stats: z.statsOf(z.parts, workable) };
}
