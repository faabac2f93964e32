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
 * from the zone's tracks. Only ways that keep the implement inside the
 * field lead to a pass; with a curvature-rate limit only connectors are
 * converted (the centre lines bend in arcs, not clothoids).
 */
import { Clipper } from 'clipper2-ts';
import { bufferLines, difference } from '../geometry/clip.ts';
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { type BBox, distToPolygonBoundary, pointInPolygon, ringBBox } from '../geometry/polygon.ts';
import { endTangent, startTangent } from '../geometry/tangent.ts';
import { distToSegment, hypot } from '../geometry/vec.ts';
import { type Corridor, corridorCentreLines, lineLength } from '../tracks/centre-line-passes.ts';
import type { PathPart, Point, Polygon, Pose } from '../types/index.ts';
import type { RouteBuilder } from './route-builder.ts';
import type { Found } from './route-links.ts';

export interface CorridorPasses {
  /** Guidance lines of the corridor passes; the i-th is track `firstIndex + i`. */
  guidance: Point[][];
  /** The corridors worked (pieces of the unworked area), for the zone's workable area. */
  areas: Polygon[];
}

/** A connector stretch through a corridor shorter than this many swaths stays a connector. */
const MIN_CONVERTED = 2;
/** A new pass shorter than this many swaths is not driven; ... */
const MIN_PASS = 1.5;
/** ... one shorter than this many is driven after the longer ones. */
const MIN_LONG_PASS = 2.5;
/** Links tried per pass before the rest are left. */
const TRIES = 6;
/** The way to a new pass may be at most this many times its length ... */
const LINK_BUDGET = 3;
/** ... plus this many swaths. */
const LINK_SLACK = 10;
/** A pass may lie over worked ground by at most this many swaths on either side. */
const WASTE = 0.2;
/** Passes of a corridor keep more than this many swaths apart. */
const DUPLICATE = 0.3;
/** Sampling step along the centre lines and connectors [m]. */
const STEP = 1;

interface Sample extends Dense {
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
  const unworked = unworkedArea(b.input.zone, lines, w);
  const corridors = corridorCentreLines(unworked, {
    swathWidth: w,
    turningRadius: b.R,
    region: b.input.region,
  });
  if (corridors.length === 0) return none;
  const out: CorridorPasses = { guidance: [], areas: [] };
  const centre = corridors.flatMap((c) =>
    c.lines.map((l) => ({
      corridor: c,
      box: ringBBox(c.piece.outer),
      samples: sample(l, c.piece, b.input.region, w),
    })),
  );
  convertConnectors(b, centre, out, firstIndex);
  // The uncovered runs of each centre line, driven nearest first.
  const pending: { line: Point[]; corridor: Corridor }[] = [];
  for (const c of centre) {
    // Not along a pass of the same corridor (where its one and two passes meet).
    const mine = pending.filter((t) => t.corridor === c.corridor).map((t) => t.line);
    for (const s of c.samples)
      if (!s.covered && mine.some((l) => nearLine(l, s.p, DUPLICATE * w))) s.covered = true;
    let from = -1;
    for (let k = 0; k <= c.samples.length; k++) {
      const open = k < c.samples.length && !c.samples[k].covered;
      if (open && from < 0) from = k;
      if (open || from < 0) continue;
      const run = piece(c.samples, from, k - 1);
      from = -1;
      if (run && lineLength(run.points) >= MIN_PASS * w)
        pending.push({ line: intoOpenGround(run.points, b.input.region, w), corridor: c.corridor });
    }
  }
  // Centre lines bend in arcs: with a curvature-rate limit (clothoid
  // turns), only the connectors through corridors are worked.
  if (b.input.machine.maxCurvatureRate !== undefined) pending.length = 0;
  const worked = new Set<Corridor>();
  for (const c of centre) if (c.samples.some((s) => s.covered)) worked.add(c.corridor);
  // Ways to and from the passes keep the whole implement inside the field:
  // a pass starts where the machine is clear of the edge; one that ends
  // where it is not (a dead end) is driven last, when the route has no end
  // node to reach. Only a long lane (LONG_PASS) may be reached by a way that
  // swings the implement over the edge (reported as overhang).
  const region = b.input.region;
  const clear = (p: Point) => region.clearance(p, w / 2) >= w / 2 - CLEAR_SLACK;
  const clearWay = (f: Found) =>
    f.legs.every(
      ([c]) => !b.links.overhangs(c) && c.pieces.every((q) => densifyPoints(q.points).every(clear)),
    );
  // Passes of a normal length first, then the short ones (wedges and
  // strips a swath and a half long): a short pass no way reaches, or one
  // that ends in a dead end, never keeps a longer one from being driven.
  const long = pending.filter((t) => lineLength(t.line) >= MIN_LONG_PASS * w);
  const short = pending.filter((t) => lineLength(t.line) < MIN_LONG_PASS * w);
  pending.splice(0, pending.length, ...long);
  let last = drivePending();
  if (!last && short.length) {
    pending.splice(0, pending.length, ...short);
    last = drivePending();
  }
  for (const c of worked) out.areas.push(c.piece);
  return out;

  /** Drive the passes of pending, nearest first; true when the last one driven ends in a dead end. */
  function drivePending(): boolean {
    let last = false;
    while (pending.length && !last) {
      const here = b.pose;
      const options: { k: number; forward: boolean; d: number; dead: boolean }[] = [];
      pending.forEach(({ line: l }, k) => {
        // A long lane is worth a way in that swings the implement over its edges.
        const strict = lineLength(l) < LONG_PASS * w;
        for (const forward of [true, false]) {
          const s = forward ? l[0] : l[l.length - 1];
          const e = forward ? l[l.length - 1] : l[0];
          if (strict && !clear(s)) continue;
          const dead = strict && !clear(e);
          if (dead && b.input.end) continue;
          options.push({
            k,
            forward,
            dead,
            d: (here ? hypot(s.x - here.x, s.y - here.y) : 0) + (dead ? DEAD_END : 0),
          });
        }
      });
      options.sort((x, y) => x.d - y.d);
      // The nearest start a way inside the field reaches, dead ends last
      // (a pass no such way reaches is left).
      let best: { k: number; line: Point[]; found: Found | null; dead: boolean } | null = null;
      for (const o of options.slice(0, TRIES)) {
        const line = o.forward ? pending[o.k].line : pending[o.k].line.slice().reverse();
        const found = linkWithin(b, startPose(line), LINK_BUDGET * lineLength(line) + LINK_SLACK * w);
        if (found === undefined || (found && lineLength(line) < LONG_PASS * w && !clearWay(found))) continue;
        best = { k: o.k, line, found, dead: o.dead };
        break;
      }
      if (!best) break;
      const { k: done, line, found, dead } = best;
      if (found) for (const [c, t] of found.legs) b.pushConnection(c, t);
      else b.routeStart ??= line[0];
      out.guidance.push(line);
      b.parts.push({
        type: 'RouteTrack',
        points: line.slice(),
        working: true,
        trackIndex: firstIndex + out.guidance.length - 1,
      });
      b.pose = endPose(line);
      worked.add(pending[done].corridor);
      pending.splice(done, 1);
      last = dead;
    }
    return last;
  }
}

/**
 * Connector stretches (forward, not reversing) that run down a corridor,
 * within half a swath of its centre line where it is not worked yet, become
 * working passes; the centre line there is marked covered.
 */
function convertConnectors(
  b: RouteBuilder,
  centre: { corridor: Corridor; box: BBox; samples: Sample[] }[],
  out: CorridorPasses,
  firstIndex: number,
): void {
  const w = b.w;
  for (let i = 0; i < b.parts.length; i++) {
    const part = b.parts[i];
    // Not the moves of a turn made back and forth.
    if (part.working || part.reverse || part.turnKind === 'K' || part.points.length < 2) continue;
    const box = ringBBox(part.points);
    const near = centre.some(
      ({ box: c }) => box.minX <= c.maxX && box.maxX >= c.minX && box.minY <= c.maxY && box.maxY >= c.minY,
    );
    if (!near || lineLength(part.points) < MIN_CONVERTED * w) continue;
    const pts = densify(part.points, STEP);
    // For each point: the centre-line samples it covers, if it lies in a corridor.
    const hits: (Sample[] | null)[] = pts.map(({ p }) => {
      for (const c of centre) {
        const box = c.box;
        if (p.x < box.minX || p.x > box.maxX || p.y < box.minY || p.y > box.maxY) continue;
        if (!pointInPolygon(p, c.corridor.piece)) continue;
        const near = c.samples.filter((s) => !s.covered && hypot(s.p.x - p.x, s.p.y - p.y) <= w / 2);
        if (near.length) return near;
      }
      return null;
    });
    const last = pts.length - 1;
    const runs: [number, number][] = [];
    let from = -1;
    for (let k = 0; k <= pts.length; k++) {
      const on = k < pts.length && hits[k] !== null;
      if (on && from < 0) from = k;
      if (on || from < 0) continue;
      runs.push([from, k - 1]);
      from = -1;
    }
    const pieces: PathPart[] = [];
    let at = 0;
    for (const [a, z] of runs) {
      const run = piece(pts, a, z);
      if (!run || lineLength(run.points) < MIN_CONVERTED * w) continue;
      // No stub of connector is left before or after the pass.
      const before = piece(pts, at, run.from);
      const start = before && isStub(before.points) ? at : run.from;
      const after = piece(pts, run.to, last);
      const end = after && isStub(after.points) ? last : run.to;
      const pass = piece(pts, start, end);
      if (!pass) continue;
      const lead = piece(pts, at, pass.from);
      if (lead) pieces.push({ ...part, points: lead.points });
      const index = firstIndex + out.guidance.length;
      out.guidance.push(pass.points);
      pieces.push({ type: 'RouteTrack', points: pass.points.slice(), working: true, trackIndex: index });
      for (let j = pass.from; j <= pass.to; j++) for (const s of hits[j] ?? []) s.covered = true;
      at = pass.to;
    }
    if (pieces.length === 0) continue;
    const tail = piece(pts, at, last);
    if (tail) pieces.push({ ...part, points: tail.points });
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
/**
 * The way from where the route is to `to` by the usual links, if one is at
 * most `budget` long: null where the route has not begun (nothing to
 * drive), undefined where there is none.
 */
function linkWithin(b: RouteBuilder, to: Pose, budget: number): Found | null | undefined {
  if (!b.pose) return null;
  if (hypot(to.x - b.pose.x, to.y - b.pose.y) > budget) return undefined;
  const found = b.links.findLink(b.pose, to, 'Connector', true);
  return found && found.length <= budget ? found : undefined;
}

/**
 * The zone less the swaths of the working lines, their centre lines
 * simplified within a few centimetres first (headland passes and arcs are
 * dense).
 */
function unworkedArea(zone: Polygon, lines: readonly Point[][], w: number): Polygon[] {
  if (lines.length === 0) return [zone];
  const simple = lines.map((l) => (l.length > 8 ? Clipper.simplifyPathD(l, SIMPLIFY, false) : l));
  return difference([zone], bufferLines(simple, w / 2, 'butt'));
}

/**
 * The line run on straight from either end, where that end lies closer to
 * the field edge than half a swath, to the first point at least that far
 * from it (within two swaths; else the end stays): the machine starts and
 * ends working where it can come and go without swinging the implement over
 * the edge.
 */
function intoOpenGround(line: Point[], region: EdgeIndex, w: number): Point[] {
  const clear = w / 2 - CLEAR_SLACK;
  const runOn = (p: Point, heading: number): Point | null => {
    if (region.clearance(p, clear) >= clear) return null;
    const dx = Math.cos(heading);
    const dy = Math.sin(heading);
    for (let s = RUN_ON_STEP; s <= 2 * w; s += RUN_ON_STEP) {
      const q = { x: p.x + dx * s, y: p.y + dy * s };
      if (!region.contains(q) || region.segmentCrosses(p, q)) return null;
      if (region.clearance(q, clear) >= clear) return q;
    }
    return null;
  };
  const before = runOn(line[0], startTangent(line, MAX_CHORD) + Math.PI);
  const after = runOn(line[line.length - 1], endTangent(line, MAX_CHORD));
  return [...(before ? [before] : []), ...line, ...(after ? [after] : [])];
}

/** The polyline's points with more added so none is over a metre from the next. */
function densifyPoints(pts: readonly Point[]): Point[] {
  return densify(pts, STEP).map((d) => d.p);
}

/** True where p lies within r of the polyline. */
function nearLine(line: readonly Point[], p: Point, r: number): boolean {
  for (let i = 1; i < line.length; i++) if (distToSegment(p, line[i - 1], line[i]) <= r) return true;
  return false;
}

/** A piece of connector too short to leave on its own (the pass takes it in). */
function isStub(points: readonly Point[]): boolean {
  return points.length < 3 || lineLength(points) < STRAIGHT;
}

function sample(line: readonly Point[], strip: Polygon, region: EdgeIndex, w: number): Sample[] {
  const pts = densify(line, STEP);
  // Half the width of the unworked strip: the distance to its edge, the
  // most within half a swath along the line (near an end of the line, the
  // nearest edge is the strip's end, not its side).
  const edge = pts.map(({ p }) => distToPolygonBoundary(p, strip));
  const reach = Math.ceil(w / 2 / STEP);
  return pts.map((d, i) => {
    let unworked = 0;
    for (let k = Math.max(0, i - reach); k <= Math.min(pts.length - 1, i + reach); k++)
      unworked = Math.max(unworked, edge[k]);
    const field = region.clearance(d.p, w / 2);
    return { ...d, covered: Math.min(w / 2, field) - unworked > WASTE * w };
  });
}

function startPose(line: readonly Point[]): Pose {
  return { x: line[0].x, y: line[0].y, heading: startTangent(line, MAX_CHORD) };
}

function endPose(line: readonly Point[]): Pose {
  const b = line[line.length - 1];
  return { x: b.x, y: b.y, heading: endTangent(line, MAX_CHORD) };
}

/**
 * A point of a densified line: `vertex` where it is one of the line's own
 * vertices, `cut` where the line may be cut there without its pieces
 * bending tighter than the line does (a vertex, or a point along a chord
 * long enough to be a straight; a cut inside an arc's chord would).
 */
interface Dense {
  p: Point;
  vertex: boolean;
  cut: boolean;
}

/** Curves are drawn with chords at most this long [m] (tangent.ts). */
const MAX_CHORD = 1 + 1e-6;
/** Simplification of working lines before buffering them [m]. */
const SIMPLIFY = 0.05;
/** Passes at least this many swaths long may be reached over the field edge. */
const LONG_PASS = 8;
/** A dead-end pass is chosen as if this much farther away [m] (it ends the passes). */
const DEAD_END = 1e6;
/** Pass ends are run on in steps of this [m] ... */
const RUN_ON_STEP = 0.5;
/** ... to where half a swath less this [m] is clear of the field edge. */
const CLEAR_SLACK = 0.05;
/** Chords at least this long [m] are straights (arcs are sampled finer). */
const STRAIGHT = 2;

function densify(pts: readonly Point[], step: number): Dense[] {
  const out: Dense[] = [{ p: pts[0], vertex: true, cut: true }];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    const l = hypot(b.x - a.x, b.y - a.y);
    const n = l > step * 1.05 ? Math.ceil(l / step) : 1;
    for (let k = 1; k < n; k++)
      out.push({
        p: { x: a.x + ((b.x - a.x) * k) / n, y: a.y + ((b.y - a.y) * k) / n },
        vertex: false,
        cut: l >= STRAIGHT,
      });
    out.push({ p: b, vertex: true, cut: true });
  }
  return out;
}

/**
 * The piece of a densified line from about index a to about index z: its
 * ends moved inwards to points where it may be cut, its own vertices
 * between (null where nothing is left).
 */
function piece(
  d: readonly Dense[],
  a: number,
  z: number,
): { from: number; to: number; points: Point[] } | null {
  let from = a;
  while (from < z && !d[from].cut) from++;
  let to = z;
  while (to > from && !d[to].cut) to--;
  if (to <= from) return null;
  const points = [d[from].p];
  for (let k = from + 1; k < to; k++) if (d[k].vertex) points.push(d[k].p);
  // Three points at least: a guidance line of two is a straight track of the pattern's grid.
  // (With no vertex between, the piece lies along one chord: its middle is on it.)
  if (points.length === 1)
    points.push({ x: (d[from].p.x + d[to].p.x) / 2, y: (d[from].p.y + d[to].p.y) / 2 });
  points.push(d[to].p);
  return { from, to, points };
}
