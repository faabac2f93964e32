/**
 * Statistics measured from the geometry, never estimated.
 *
 * Covered area = union of the swath strips of the working parts (each centre
 * line buffered by w/2 with flat ends; closed headland loops as bands)
 * clipped to the worked field (the zone less its obstacles and passable
 * areas). Overlap = sum of each strip's area inside the field - covered.
 * Missed = field - covered.
 */
import { Clipper } from 'clipper2-ts';
import { perHectare, planCosts } from '../costs/plan-costs.ts';
import { bufferLines, bufferRings, difference, intersectionArea } from '../geometry/clip.ts';
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { mixNumber } from '../geometry/number-hash.ts';
import { multiPolygonArea } from '../geometry/polygon.ts';
import { hypot, isLoop, polylineLength } from '../geometry/vec.ts';
import type { Machine, PathPart, PlanStats, Point, Polygon } from '../types/index.ts';
import { traffickedArea as wheelTrackArea } from './wheel-traffic.ts';

/** Simplification of working centre lines before buffering [m]. */
const STRIP_TOLERANCE = 0.02;

export interface StatsInput {
  /** The worked field of the zone: the zone less obstacles and passable areas. */
  field: readonly Polygon[];
  fieldIndex: EdgeIndex;
  workable: readonly Polygon[];
  parts: readonly PathPart[];
  machine: Machine;
}

export function computeStats(input: StatsInput): PlanStats {
  const fieldArea = multiPolygonArea(input.field);
  const workableArea = multiPolygonArea(input.workable);
  const strips: Polygon[] = [];
  let stripAreaInField = 0;
  let workingDistance = 0;
  let headlandDistance = 0;
  let turnDistance = 0;
  let connectorDistance = 0;
  let trackCount = 0;
  let turnCount = 0;
  let headlandPassCount = 0;
  let prevType: PathPart['type'] | null = null;
  const known = stripsMeasured(input);
  for (const part of input.parts) {
    if (part.sequence === undefined) continue;
    const L = polylineLength(part.points);
    switch (part.type) {
      case 'RouteTrack':
        workingDistance += L;
        trackCount++;
        break;
      case 'ExteriorHeadlandPass':
      case 'InteriorHeadlandPass':
        headlandDistance += L;
        headlandPassCount++;
        break;
      case 'Turn':
      case 'HeadlandTurn':
        turnDistance += L;
        // A reversing turn is several parts in a row; it is one turn.
        if (part.type === 'Turn' && prevType !== 'Turn') turnCount++;
        break;
      default:
        connectorDistance += L;
    }
    prevType = part.type;
    if (!part.working || part.points.length < 2) continue;
    const { strip, inField } = stripOf(part, L, input, known);
    strips.push(...strip);
    stripAreaInField += inField;
  }
  // Subjects are unioned by the fill rule, so one intersection gives (union of strips) ∩ field.
  // The clipper sweeps along y, keeping every edge that spans the sweep line
  // in a sorted list: turned so the longest working line runs along x, the
  // strips of parallel tracks lie along the sweep and each scanbeam meets a
  // few of them instead of all. Areas do not change under a rotation.
  const angle = sweepAngle(input.parts);
  const coveredArea = strips.length
    ? intersectionArea(rotatePolygons(strips, angle), rotatePolygons(input.field, angle))
    : 0;
  const overlapArea = Math.max(0, stripAreaInField - coveredArea);
  const missedArea = Math.max(0, fieldArea - coveredArea);
  const nonWorkingDistance = turnDistance + connectorDistance;
  const workingTime = (workingDistance + headlandDistance) / input.machine.workingSpeed;
  const nonWorkingTime = nonWorkingDistance / input.machine.turningSpeed;
  const traffickedArea = input.machine.tireWidths.length
    ? wheelTrackArea(input.parts, input.machine.trackWidths, input.machine.tireWidths, input.field)
    : 0;
  const stats: PlanStats = {
    fieldArea,
    workableArea,
    coveredArea,
    missedArea,
    overlapArea,
    trackCount,
    turnCount,
    headlandPassCount,
    workingDistance,
    headlandDistance,
    turnDistance,
    connectorDistance,
    totalDistance: workingDistance + headlandDistance + nonWorkingDistance,
    nonWorkingDistance,
    workingTime,
    nonWorkingTime,
    totalTime: workingTime + nonWorkingTime,
    coveredPercent: fieldArea > 0 ? (100 * coveredArea) / fieldArea : 0,
    overlapPercent: fieldArea > 0 ? (100 * overlapArea) / fieldArea : 0,
    ...planCosts(input.machine, workingTime, nonWorkingTime, coveredArea),
    traffickedArea,
    traffickedAreaPercent: fieldArea > 0 ? (100 * traffickedArea) / fieldArea : 0,
    // Set by the plan audit (audit-zones.ts).
    undrivenPassLength: 0,
    undrivenTrackLength: 0,
    duplicateTrackLength: 0,
    overhangLength: 0,
    overhangArea: 0,
  };
  // The strips are kept (until the plan goes) for the missed pieces, which the
  // plan audit describes when a zone is covered too little; the field's own
  // list is not, so the strips measured in it go when its planning ends.
  if (missedArea > 0) {
    const field = input.field.slice();
    missedRegions.set(stats, () => difference(field, strips));
  }
  return stats;
}

/** A working part's strip and its area inside the field. */
interface MeasuredStrip {
  points: readonly Point[];
  track: boolean;
  /** The strip (none kept for a straight: see stripOf). */
  strip?: Polygon[];
  inField: number;
}

/**
 * The strips measured in each field (by the field, its index and the half
 * width), by a hash of their centre lines: a zone's plan is measured again
 * and again (with run-ons, with corridor passes) with most of its parts
 * the same. The strips kept are shared: not to be changed. Each is kept
 * with the centre line it was measured for, the part's own points (a
 * planned part's points are never changed).
 */
const measuredStrips = new WeakMap<
  readonly Polygon[],
  WeakMap<EdgeIndex, Map<number, Map<number, MeasuredStrip[]>>>
>();

function stripsMeasured(input: StatsInput): Map<number, MeasuredStrip[]> {
  let byIndex = measuredStrips.get(input.field);
  if (!byIndex) {
    byIndex = new WeakMap();
    measuredStrips.set(input.field, byIndex);
  }
  let byWidth = byIndex.get(input.fieldIndex);
  if (!byWidth) {
    byWidth = new Map();
    byIndex.set(input.fieldIndex, byWidth);
  }
  const hw = input.machine.swathWidth / 2;
  let known = byWidth.get(hw);
  if (!known) {
    known = new Map();
    byWidth.set(hw, known);
  }
  return known;
}

function samePoints(a: readonly Point[], b: readonly Point[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i].x !== b[i].x || a[i].y !== b[i].y) return false;
  return true;
}

/** The strip of a working part (centre line of length L) and its area inside the field, measured once. */
function stripOf(
  part: PathPart,
  L: number,
  input: StatsInput,
  known: Map<number, MeasuredStrip[]>,
): { strip: Polygon[]; inField: number } {
  const track = part.type === 'RouteTrack';
  let h = track ? 1 : 2;
  for (const q of part.points) h = mixNumber(mixNumber(h, q.x), q.y);
  const w = input.machine.swathWidth;
  const hw = w / 2;
  const straight = part.points.length === 2;
  const bucket = known.get(h);
  if (bucket)
    for (const m of bucket)
      if (m.track === track && samePoints(m.points, part.points))
        return m.strip
          ? { strip: m.strip, inField: m.inField }
          : { strip: rectStrip(part.points, hw), inField: m.inField };
  const closed = isLoop(part.points);
  let strip: Polygon[];
  if (straight) {
    strip = rectStrip(part.points, hw);
  } else {
    // Centre lines simplified within 2 cm for the strips: the area changes by
    // far less than the reporting tolerance, and buffering gets much lighter.
    const ring = closed ? part.points.slice(0, -1) : part.points;
    const line = ring.length > 8 ? Clipper.simplifyPathD(ring as Point[], STRIP_TOLERANCE, closed) : ring;
    strip = closed ? bufferRings([line], hw) : bufferLines([line], hw, 'butt');
  }
  const inField =
    track && straight && rectInside(part.points[0], part.points[1], hw, input.fieldIndex)
      ? L * w
      : intersectionArea(strip, input.field);
  // A straight's rectangle is made again when asked for (it costs less than keeping it).
  const m: MeasuredStrip = {
    points: part.points,
    track,
    ...(straight ? {} : { strip }),
    inField,
  };
  if (bucket) bucket.push(m);
  else known.set(h, [m]);
  return { strip, inField };
}

/** How to build the missed pieces of the zones measured here, by their statistics (see missedPolygons). */
const missedRegions = new WeakMap<PlanStats, () => Polygon[]>();

/**
 * The pieces of the worked field no swath covers, as measured for these
 * statistics by computeStats (built on the first call, then kept); [] when nothing is
 * missed; undefined for statistics made elsewhere (summed, copied).
 */
export function missedPolygons(stats: PlanStats): Polygon[] | undefined {
  const build = missedRegions.get(stats);
  if (!build) return stats.missedArea > 0 ? undefined : [];
  const pieces = build();
  // Kept for the next caller (the strips go).
  missedRegions.set(stats, () => pieces);
  return pieces;
}

/** Sum of zone statistics, with the percentages recomputed. */
export function sumStats(list: readonly PlanStats[]): PlanStats {
  const s: PlanStats = {
    fieldArea: 0,
    workableArea: 0,
    coveredArea: 0,
    missedArea: 0,
    overlapArea: 0,
    trackCount: 0,
    turnCount: 0,
    headlandPassCount: 0,
    workingDistance: 0,
    headlandDistance: 0,
    turnDistance: 0,
    connectorDistance: 0,
    totalDistance: 0,
    nonWorkingDistance: 0,
    workingTime: 0,
    nonWorkingTime: 0,
    totalTime: 0,
    coveredPercent: 0,
    overlapPercent: 0,
    undrivenPassLength: 0,
    undrivenTrackLength: 0,
    duplicateTrackLength: 0,
    overhangLength: 0,
    overhangArea: 0,
    fuelLitres: 0,
    ghgKgCo2e: 0,
    costTotal: 0,
    costPerHa: 0,
    traffickedArea: 0,
    traffickedAreaPercent: 0,
  };
  for (const z of list) {
    for (const k of Object.keys(s) as (keyof PlanStats)[]) s[k] = (s[k] ?? 0) + (z[k] ?? 0);
  }
  s.coveredPercent = s.fieldArea > 0 ? (100 * s.coveredArea) / s.fieldArea : 0;
  s.overlapPercent = s.fieldArea > 0 ? (100 * s.overlapArea) / s.fieldArea : 0;
  s.costPerHa = perHectare(s.costTotal ?? 0, s.coveredArea);
  s.traffickedAreaPercent = s.fieldArea > 0 ? (100 * (s.traffickedArea ?? 0)) / s.fieldArea : 0;
  return s;
}

/** Minus the heading of the longest straight working segment [rad] (0 when there is none). */
function sweepAngle(parts: readonly PathPart[]): number {
  return longestSegmentAngle(parts.filter((p) => p.working && p.sequence !== undefined).map((p) => p.points));
}

/**
 * Minus the heading of the longest segment of the lines [rad] (0 when there
 * is none): turned by it, strips along that segment run along the clipper's
 * sweep.
 */
export function longestSegmentAngle(lines: readonly (readonly Point[])[]): number {
  let best = 0;
  let angle = 0;
  for (const p of lines) {
    for (let i = 1; i < p.length; i++) {
      const dx = p[i].x - p[i - 1].x;
      const dy = p[i].y - p[i - 1].y;
      const l2 = dx * dx + dy * dy;
      if (l2 > best) {
        best = l2;
        angle = -Math.atan2(dy, dx);
      }
    }
  }
  return angle;
}

export function rotatePolygons(polys: readonly Polygon[], angle: number): Polygon[] {
  if (angle === 0) return polys as Polygon[];
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const turn = (ring: readonly Point[]) => ring.map((q) => ({ x: q.x * c - q.y * s, y: q.x * s + q.y * c }));
  return polys.map((p) => ({ outer: turn(p.outer), holes: p.holes.map(turn) }));
}

/** The strip of a straight (its two points): the rectangle round it, none for a point. */
function rectStrip(pts: readonly Point[], hw: number): Polygon[] {
  const r = stripRect(pts[0], pts[1], hw);
  return r ? [{ outer: r, holes: [] }] : [];
}

/** The rectangle of half-width hw around segment ab, counter-clockwise; null for a point. */
function stripRect(a: Point, b: Point, hw: number): Point[] | null {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const l = hypot(dx, dy);
  if (l === 0) return null;
  const nx = (-dy / l) * hw;
  const ny = (dx / l) * hw;
  return [
    { x: a.x - nx, y: a.y - ny },
    { x: b.x - nx, y: b.y - ny },
    { x: b.x + nx, y: b.y + ny },
    { x: a.x + nx, y: a.y + ny },
  ];
}

/** True when the rectangle of half-width hw around segment ab lies inside the indexed field. */
function rectInside(a: Point, b: Point, hw: number, index: EdgeIndex): boolean {
  const c = stripRect(a, b, hw);
  if (!c) return false;
  if (!index.contains(c[0])) return false;
  // A corner on the boundary (a strip along a zone's edge) hides crossings
  // there from the test below: measure such strips exactly instead.
  for (const p of c) if (index.clearance(p, 0.01) < 0.005) return false;
  // An obstacle smaller than the strip and wholly inside it is not detected;
  // its area is far below the reporting tolerance.
  for (let i = 0; i < 4; i++) if (index.segmentCrosses(c[i], c[(i + 1) % 4])) return false;
  return true;
}
