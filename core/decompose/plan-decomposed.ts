/**
 * Plan one field part as several zones: the cells of its decomposition,
 * each with straight tracks in its own best direction, and the headland of
 * the whole part as a zone of its own.
 *
 *   +-----------------------------+   zone 0: cell A, tracks east-west
 *   | +-----------------------+   |   zone 1: cell B, tracks north-south
 *   | |  A   ==============   |   |   zone 2: the headland band (passes
 *   | +------+----------------+   |           around the whole part)
 *   | |  B ||||               |   |
 *   | |    ||||               |   |   One continuous route: cell after
 *   | +------+                |   |   cell, then the headland passes
 *   +--------+                +---+   (or the passes first).
 *
 * The route is one: each cell's route continues from the pose where the
 * previous one ended, so the connectors between cells are ordinary route
 * connections (turns, headland travel or travel through the field), inside
 * the field and at the machine's radius. Turns at a cut between cells may
 * use the neighbouring cell; they never leave the field part.
 *
 * The zones partition the part: the cells partition its workable area, and
 * the headland zone is the rest.
 */
import { difference } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { multiPolygonArea } from '../geometry/polygon.ts';
import { endTangent } from '../geometry/tangent.ts';
import { hypot } from '../geometry/vec.ts';
import type { HeadlandResult } from '../headland/generate-headlands.ts';
import { computeStats, sumStats } from '../metrics/compute-stats.ts';
import { drivenPassSwaths } from '../route/headland-corners.ts';
import { leftOutWarnings } from '../route/left-out.ts';
import { planRoute, type RouteResult } from '../route/plan-route.ts';
import { extendTracks } from '../tracks/extend-tracks.ts';
import { generateTracks, type TrackSet } from '../tracks/generate-tracks.ts';
import type {
  DecompositionReport,
  GeometryGroup,
  PathPart,
  PlanHooks,
  PlanOptions,
  Point,
  Polygon,
  Pose,
  Zone,
} from '../types/index.ts';
import { type Cell, decompose, worthDecomposing } from './decompose.ts';

export interface DecomposedPartInput {
  /** The field part (holes are obstacles). */
  part: Polygon;
  headlands: HeadlandResult;
  /** Workable area less passable obstacles. */
  workable: Polygon[];
  /** Passable obstacles inside the part (not worked). */
  passable: Polygon[];
  region: EdgeIndex;
  options: PlanOptions;
  start?: Point;
  end?: Point;
  hooks: PlanHooks;
  /** The undecomposed plan of the part: decomposition must beat it by a clear margin. */
  single: Zone;
}

/** The decomposed plan must save at least this fraction of the single plan's non-working distance ... */
export const MIN_NON_WORKING_SAVING = 0.1;
/** ... and at least this fraction of its total time, ... */
export const MIN_TIME_SAVING = 0.01;
/**
 * ... and cover as much, within this fraction of the field area (wedges
 * where tracks meet a slanted cut are missed; they are not worth a longer route).
 */
export const MAX_COVERAGE_LOSS = 0.005;

/**
 * The zones of the decomposed part (indices to be set by the composer), or
 * null when the part is better planned as one zone.
 */
export function planDecomposedPart(input: DecomposedPartInput): Zone[] | null {
  const zones = decomposedCandidate(input);
  if (!zones) return null;
  const stats = sumStats(zones.map((z) => z.stats));
  const s = input.single.stats;
  const gaps = zones.reduce((a, z) => a + (z.routeFailures ?? 0), 0);
  const failures = zones.reduce((a, z) => a + (z.routeFailures ?? 0) + (z.skippedTracks ?? 0), 0);
  const singleGaps = input.single.routeFailures ?? 0;
  const singleFailures = singleGaps + (input.single.skippedTracks ?? 0);
  // A connection the route could not make leaves a gap the machine cannot
  // drive; a track left out is only less area worked (and reported). So the
  // decomposition may trade neither for more gaps.
  const better =
    gaps <= singleGaps &&
    failures <= singleFailures &&
    stats.coveredArea >= s.coveredArea - MAX_COVERAGE_LOSS * s.fieldArea &&
    stats.nonWorkingDistance <= (1 - MIN_NON_WORKING_SAVING) * s.nonWorkingDistance &&
    stats.totalTime <= (1 - MIN_TIME_SAVING) * s.totalTime;
  if (!better) return null;
  const report: DecompositionReport = {
    cells: zones.filter((z) => z.decomposition?.role === 'cell').length,
    baseline: {
      turnCount: s.turnCount,
      nonWorkingDistance: s.nonWorkingDistance,
      totalTime: s.totalTime,
      coveredArea: s.coveredArea,
    },
  };
  for (const z of zones) if (z.decomposition) z.decomposition.report = report;
  return zones;
}

/** The zones of the decomposition the estimate proposes, planned; null when it proposes none. */
export function decomposedCandidate(input: DecomposedPartInput): Zone[] | null {
  const { options } = input;
  const m = options.machine;
  if (options.preferredBearingDeg !== undefined) return null;
  if (!worthDecomposing(input.workable, m.swathWidth)) return null;
  const d = decompose(input.workable, { swathWidth: m.swathWidth, turningRadius: m.minTurningRadius });
  if (!d.decomposed) return null;
  // The cells one after another from an end of the chain, and (without a
  // start node) the same chain the other way round: where the route leaves
  // the last cell decides the way to the headland passes. The shorter wins.
  const order = orderCells(d.cells, input.start);
  let best = planCells(input, order);
  if (!input.start && order.length <= MAX_CELLS_REVERSED) {
    const back = planCells(input, order.slice().reverse());
    if (back && (!best || nonWorking(back) < nonWorking(best))) best = back;
  }
  return best;
}

/** Chains of at most this many cells are also tried in reverse. */
const MAX_CELLS_REVERSED = 4;

function nonWorking(zones: readonly Zone[]): number {
  return zones.reduce((s, z) => s + z.stats.nonWorkingDistance, 0);
}

/** Cells in driving order: from an end of the part (or the start node), then nearest next. */
function orderCells(cells: Cell[], start: Point | undefined): Cell[] {
  const centre = (c: Cell) => centroid(c.polygon.outer);
  const cs = cells.map((c) => ({ c, p: centre(c) }));
  const all = centroid(cs.map((x) => x.p));
  let first = 0;
  let bd = -1;
  cs.forEach((x, i) => {
    // Nearest to the start node, else farthest from the middle (an end of the chain).
    const d = start ? -hypot(x.p.x - start.x, x.p.y - start.y) : hypot(x.p.x - all.x, x.p.y - all.y);
    if (bd === -1 || d > bd) {
      bd = d;
      first = i;
    }
  });
  const out = [cs[first]];
  const left = cs.filter((_, i) => i !== first);
  while (left.length) {
    const at = out[out.length - 1].p;
    let k = 0;
    for (let i = 1; i < left.length; i++) {
      if (hypot(left[i].p.x - at.x, left[i].p.y - at.y) < hypot(left[k].p.x - at.x, left[k].p.y - at.y))
        k = i;
    }
    out.push(left.splice(k, 1)[0]);
  }
  return out.map((x) => x.c);
}

function planCells(input: DecomposedPartInput, cells: Cell[]): Zone[] | null {
  const { options, headlands, part, hooks } = input;
  const m = options.machine;
  const w = m.swathWidth;
  const hasRings = headlands.drivenExterior.length + headlands.drivenInterior.length > 0;
  const band = difference([part], input.workable);
  // The headland zone is one polygon: a part whose headland falls apart (a
  // band around an obstacle away from the edge) is planned as one zone.
  if (band.length > 1) return null;
  const bandField = input.passable.length ? difference(band, input.passable) : band;
  const headlandFirst = options.route.headlandsFirst === true;
  const order = {
    algorithm: options.route.algorithm,
    skipCount: options.route.skipCount,
    objective: options.route.objective,
    maxEvaluations: options.route.maxEvaluations,
    shouldStop: hooks.shouldStopOptimizer,
  };
  const common = {
    headlands,
    region: input.region,
    zone: part,
    machine: m,
    order,
    forcedDirection: options.route.forcedDirection,
    headlandDrivethrough: options.route.enableHeadlandDrivethrough === true,
    runOnCorners: options.extendTracks === true,
  };
  const steps: ({ kind: 'cell'; cell: Cell } | { kind: 'headland' })[] = cells.map((cell) => ({
    kind: 'cell' as const,
    cell,
  }));
  const withBand = multiPolygonArea(band) > 1e-3;
  if (withBand) {
    if (headlandFirst) steps.unshift({ kind: 'headland' });
    else steps.push({ kind: 'headland' });
  }
  // Extended tracks run on into what the headland passes leave unworked outside every cell.
  const extension =
    options.extendTracks === true
      ? {
          passSwaths: drivenPassSwaths(
            headlands,
            w,
            m.minTurningRadius,
            input.region,
            m.maxCurvatureRate !== undefined,
          ),
          trackArea: [...input.workable, ...input.passable],
        }
      : null;
  const zones: Zone[] = [];
  let pose: Pose | undefined;
  for (const [k, step] of steps.entries()) {
    const first = k === 0;
    const last = k === steps.length - 1;
    const tracks: TrackSet =
      step.kind === 'cell' ? cellTracks(step.cell, input.part, w, extension) : noTracks(w, part);
    const route: RouteResult = planRoute({
      ...common,
      tracks,
      start: first && !pose ? input.start : undefined,
      startPose: pose,
      end: last ? input.end : undefined,
      driveHeadlands: step.kind === 'headland',
      headlandsFirst: step.kind === 'headland' && headlandFirst,
    });
    if (step.kind === 'cell' && tracks.tracks.length === 0) return null;
    const next = endPose(route.parts);
    if (next) pose = next;
    const cellPoly = step.kind === 'cell' ? [step.cell.polygon] : [];
    const field = step.kind === 'cell' ? cellPoly : bandField;
    const parts = groupParts(tracks, route, headlands, step.kind === 'headland' && hasRings);
    const stats = computeStats({
      field,
      fieldIndex: new EdgeIndex(field.flatMap((p) => [p.outer, ...p.holes])),
      workable: cellPoly,
      parts,
      machine: m,
    });
    const group: GeometryGroup = {
      trackType: 'Straight',
      bearingDeg: tracks.bearingDeg,
      abLine: tracks.abLine,
      parts,
      stats,
    };
    const boundary: Polygon = step.kind === 'cell' ? step.cell.polygon : band[0];
    const warnings = leftOutWarnings({
      tracks: tracks.tracks,
      skippedTracks: route.skippedTracks,
      swathWidth: w,
      turningRadius: m.minTurningRadius,
      undrivenRings: route.undrivenRings,
      failures: route.failures,
    });
    zones.push({
      index: -1,
      boundary,
      workable: cellPoly,
      groups: [group],
      activeGroup: 0,
      stats,
      routeStart: route.start,
      routeEnd: route.end,
      routeFailures: route.failures,
      skippedTracks: route.skippedTracks.length,
      ...(warnings.length ? { warnings } : {}),
      ...(route.optimizer ? { optimizer: route.optimizer } : {}),
      partBoundary: part,
      decomposition: { role: step.kind },
    });
  }
  return zones;
}

function cellTracks(
  cell: Cell,
  part: Polygon,
  w: number,
  extension: { passSwaths: Polygon[]; trackArea: Polygon[] } | null,
): TrackSet {
  const bearingDeg = cell.bearingDeg;
  const cut = generateTracks([cell.polygon], {
    swathWidth: w,
    preferredBearingDeg: bearingDeg,
    coverRemainder: extension !== null,
  });
  return extension ? extendTracks({ tracks: cut, workable: [cell.polygon], zone: part, ...extension }) : cut;
}

function noTracks(w: number, part: Polygon): TrackSet {
  const p = part.outer[0];
  return { heading: 0, bearingDeg: 0, swathWidth: w, lineOffsets: [], tracks: [], abLine: [p, p] };
}

/** Guidance tracks, reference headland passes (in the headland zone) and the route parts. */
function groupParts(
  tracks: TrackSet,
  route: RouteResult,
  headlands: HeadlandResult,
  withPasses: boolean,
): PathPart[] {
  const parts: PathPart[] = [];
  const skipped = new Set(route.skippedTracks);
  tracks.tracks.forEach((t, i) => {
    if (skipped.has(i)) return;
    parts.push({
      type: 'GuidanceTrack',
      points: [t.a, t.b],
      working: false,
      trackIndex: i,
      bearingDeg: tracks.bearingDeg,
    });
  });
  if (withPasses) {
    const drivenExt = new Set(
      route.parts.filter((p) => p.type === 'ExteriorHeadlandPass').map((p) => p.passNumber),
    );
    const drivenInt = new Set(
      route.parts.filter((p) => p.type === 'InteriorHeadlandPass').map((p) => p.passNumber),
    );
    for (const h of headlands.exterior) {
      if (drivenExt.has(h.passNumber))
        parts.push({
          type: 'ExteriorHeadlandPass',
          points: [...h.ring, h.ring[0]],
          working: false,
          passNumber: h.passNumber,
        });
    }
    for (const h of headlands.interior) {
      if (drivenInt.has(h.passNumber))
        parts.push({
          type: 'InteriorHeadlandPass',
          points: [...h.ring, h.ring[0]],
          working: false,
          passNumber: h.passNumber,
          obstacleIndex: h.obstacleIndex,
        });
    }
  }
  for (const p of route.parts) parts.push({ ...p, sequence: 0 });
  return parts;
}

/** The machine's pose at the end of the driven parts (along its curve there; flipped after a reversing part). */
function endPose(parts: readonly PathPart[]): Pose | undefined {
  for (let i = parts.length - 1; i >= 0; i--) {
    const pts = parts[i].points;
    if (pts.length < 2) continue;
    const b = pts[pts.length - 1];
    const h = endTangent(pts) + (parts[i].reverse ? Math.PI : 0);
    return { x: b.x, y: b.y, heading: h };
  }
  return undefined;
}

function centroid(pts: readonly Point[]): Point {
  let x = 0;
  let y = 0;
  for (const p of pts) {
    x += p.x;
    y += p.y;
  }
  return { x: x / pts.length, y: y / pts.length };
}
