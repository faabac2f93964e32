/**
 * Track run-ons in a zone's plan: where the plan leaves the zone
 * under-covered, the tracks whose ends meet missed wedges run on into them
 * (tracks/wedge-runs.ts), the route is planned again, and that plan is
 * taken when it covers more, reaches as much and does not buy the cover
 * with much overlap.
 */
import { bufferLines, intersection } from '../geometry/clip.ts';
import { hypot, polylineLength } from '../geometry/vec.ts';
import { missedPolygons } from '../metrics/compute-stats.ts';
import { overhangLength } from '../metrics/turn-overhang.ts';
import type { TrackSet } from '../tracks/generate-tracks.ts';
import { MIN_GAIN, MIN_SHARE, runIntoMissedWedges } from '../tracks/wedge-runs.ts';
import type { PathPart, PlanStats, Polygon } from '../types/index.ts';
import type { Visit } from './optimize-order.ts';
import { MIN_PART_LENGTH } from './route-tidy.ts';
import type { RouteResult } from './route-types.ts';

/** Half-width of the band round a run-on taken into the area tracks work [m]. */
const RUN_BAND = 0.25;
/** Zones covered less than this [%] are looked at for run-ons. */
const WEDGE_COVERED_PERCENT = 95;
/** A plan with run-ons is taken when it covers at least this much more of the zone [% points] ... */
const MIN_GAIN_PERCENT = 0.05;
/** ... and adds at most this much turn overhang [m], or this share of the overhang there was. */
const OVERHANG_SLACK = 0.5;
const OVERHANG_SHARE = 0.1;

/** How eagerly tracks run on. */
export interface Eagerness {
  /** Share of the swath ahead that must be missed ground (wedge-runs.ts). */
  minShare: number;
  /** Least missed ground one run-on works [square swaths]. */
  minGain: number;
  /** Run-ons are tried where they work missed ground of at least this share of the zone [%] (as sampled). */
  minSampledPercent: number;
  /** The plan with run-ons adds at most this many square metres of overlap per square metre it covers more. */
  maxOverlapPerGain: number;
}

/** Run-ons as a rule: only into wedges mostly unworked. */
export const SPARING: readonly Eagerness[] = [
  { minShare: MIN_SHARE, minGain: MIN_GAIN, minSampledPercent: 0.3, maxOverlapPerGain: 2 },
];

/**
 * Where a zone stays under-covered with sparing run-ons (or without),
 * run-ons into wedges a tenth, then a twentieth unworked: a thin strip
 * along a slanted edge beside a track end is worth some overlap there.
 */
export const EAGER: readonly Eagerness[] = [
  { minShare: 0.1, minGain: 0.05, minSampledPercent: 0.1, maxOverlapPerGain: 4 },
  { minShare: 0.05, minGain: 0.03, minSampledPercent: 0.05, maxOverlapPerGain: 6 },
];

interface Driven {
  route: RouteResult;
  parts: PathPart[];
  stats: PlanStats;
}

/**
 * The zone's plan with track run-ons into missed wedges, or undefined where
 * the zone is covered well, no track end meets a missed wedge, or the plan
 * with run-ons is no better (see the file comment). `drive` plans the zone
 * again over the given tracks, with what their run-ons work (to join the
 * area the tracks work). The eagerness settings are tried in turn until the
 * zone is covered well; the plan covering most is taken.
 */
export function withWedgeRuns<D extends Driven>(
  tracks: TrackSet,
  driven: D,
  zone: Polygon,
  drive: (tracks: TrackSet, worked: Polygon[], order: Visit[]) => D,
  eagerness: readonly Eagerness[] = SPARING,
): (D & { tracks: TrackSet }) | undefined {
  const s = driven.stats;
  if (s.coveredPercent >= WEDGE_COVERED_PERCENT || tracks.tracks.length === 0) return undefined;
  const missed = missedPolygons(s);
  if (!missed?.length) return undefined;
  let best: (D & { tracks: TrackSet }) | undefined;
  for (const e of eagerness) {
    const next = runOn(tracks, driven, missed, zone, drive, e);
    if (next && (!best || next.stats.coveredPercent > best.stats.coveredPercent)) best = next;
    if ((best ?? driven).stats.coveredPercent >= WEDGE_COVERED_PERCENT) break;
  }
  return best;
}

/** The plan with run-ons as eager as e, where it is taken (see the file comment). */
function runOn<D extends Driven>(
  tracks: TrackSet,
  driven: D,
  missed: Polygon[],
  zone: Polygon,
  drive: (tracks: TrackSet, worked: Polygon[], order: Visit[]) => D,
  e: Eagerness,
): (D & { tracks: TrackSet }) | undefined {
  const s = driven.stats;
  const {
    tracks: runs,
    gain: sampled,
    stretches,
  } = runIntoMissedWedges({
    tracks,
    zone,
    missed,
    skip: driven.route.skippedTracks,
    minShare: e.minShare,
    minGain: e.minGain,
  });
  // Planning the route again is dear: only for run-ons that may lift the cover.
  if (sampled < (e.minSampledPercent / 100) * s.fieldArea) return undefined;
  // What the run-ons work: the missed ground under their swaths, and a
  // narrow band round their centre lines (they cross worked ground too).
  const w = tracks.swathWidth;
  const worked = [
    ...bufferLines(stretches, RUN_BAND, 'butt'),
    ...intersection(bufferLines(stretches, w / 2, 'butt'), missed),
  ];
  const next = drive(runs, worked, drivenOrder(driven.route, tracks));
  const r0 = driven.route;
  const r1 = next.route;
  const t = next.stats;
  if (
    r1.failures > r0.failures ||
    r1.skippedTracks.length > r0.skippedTracks.length ||
    r1.undrivenRings.length > r0.undrivenRings.length ||
    // A part shorter than the tidying allows (the route as planned without run-ons is kept).
    r1.parts.some((p) => polylineLength(p.points) < MIN_PART_LENGTH)
  )
    return undefined;
  const gain = t.coveredArea - s.coveredArea;
  if (t.coveredPercent - s.coveredPercent < MIN_GAIN_PERCENT) return undefined;
  if (t.overlapArea - s.overlapArea > e.maxOverlapPerGain * gain) return undefined;
  // Longer tracks end nearer the edge: their turns may not swing over it more.
  if (!overhangsNoMore(zone, driven.parts, next.parts, w / 2)) return undefined;
  return { ...next, tracks: runs };
}

/**
 * True when the parts `after` swing the implement over the zone's edge no
 * more than the parts `before` (within OVERHANG_SLACK, or OVERHANG_SHARE of
 * what there was): a plan with run-ons is not taken over one that keeps
 * its turns inside.
 */
export function overhangsNoMore(
  zone: Polygon,
  before: readonly PathPart[],
  after: readonly PathPart[],
  hw: number,
): boolean {
  const was = overhangLength(zone, before, hw);
  return overhangLength(zone, after, hw) <= was + Math.max(OVERHANG_SLACK, OVERHANG_SHARE * was);
}

/**
 * The order and direction in which the route drives the tracks, the tracks
 * it leaves out last: a plan with run-ons may keep the route's order, so
 * that only the ways at the lengthened ends are looked for again.
 */
function drivenOrder(route: RouteResult, tracks: TrackSet): Visit[] {
  const n = tracks.tracks.length;
  const seen = new Set<number>();
  const order: Visit[] = [];
  for (const p of route.parts) {
    const i = p.trackIndex;
    if (p.type !== 'RouteTrack' || i === undefined || i >= n || seen.has(i)) continue;
    seen.add(i);
    const t = tracks.tracks[i];
    const q = p.points[0];
    order.push({
      track: i,
      forward: hypot(q.x - t.a.x, q.y - t.a.y) <= hypot(q.x - t.b.x, q.y - t.b.y),
    });
  }
  for (let i = 0; i < n; i++) if (!seen.has(i)) order.push({ track: i, forward: true });
  return order;
}
