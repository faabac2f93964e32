/**
 * Track ends run on into missed wedges: where a zone's plan leaves ground
 * unworked just past the end of a straight track (the wedge between the
 * track's square swath end and a slanted headland, or a strip a headland
 * pass leaves where it is driven off its line), that track alone runs on
 * over it, as far as pays:
 *
 *      missed wedge   /|              the end moves on while the swath
 *   =================/ |              ahead is mostly unworked ground and
 *   ----------------+->|  run on      stops where it would mostly work
 *   =================\ |              ground already worked
 *
 * Unlike `extendTracks` (every track to the edge of the workable area and
 * beyond, for a full cover at the price of overlap), a run-on is taken only
 * where the swath ahead works mostly missed ground, so the overlap stays
 * low. The limits are extendTracks': the centre line keeps half a swath off
 * the field edge and obstacles and never reaches into the next track on its
 * scan line.
 */
import { offset } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import type { Point, Polygon } from '../types/index.ts';
import { lineGaps, rayHit, ringsEdges } from './extend-tracks.ts';
import type { TrackSet } from './generate-tracks.ts';

/** Offsets across the swath at which the ground ahead is tested [fractions of w]. */
const ACROSS = [-0.4375, -0.3125, -0.1875, -0.0625, 0.0625, 0.1875, 0.3125, 0.4375];
/** Step along the run-on [m]. */
const STEP = 0.5;
/** Keep this much [m] short of the half-swath limit, against rounding in the offset. */
const MARGIN = 0.02;
/** A run-on pays where, on average, more than this share of its swath is missed ground. */
export const MIN_SHARE = 0.25;
/** Run-ons working less than this many square swaths of missed ground are not taken. */
export const MIN_GAIN = 0.1;

export interface WedgeRunInput {
  tracks: TrackSet;
  /** The zone (holes are obstacles). */
  zone: Polygon;
  /** The ground the zone's plan leaves unworked. */
  missed: readonly Polygon[];
  /** Indices of tracks not to run on (the route leaves them out). */
  skip?: readonly number[];
  /** Share of the swath ahead that must be missed ground on average (MIN_SHARE unless given). */
  minShare?: number;
  /** Least missed ground a run-on works [square swaths] (MIN_GAIN unless given). */
  minGain?: number;
}

export interface WedgeRuns {
  /** The tracks with their run-ons; the same TrackSet when no end moves. */
  tracks: TrackSet;
  /** Missed ground the run-ons work, as sampled [m^2]. */
  gain: number;
  /** The run-ons: stretches of centre line added to the tracks. */
  stretches: [Point, Point][];
}

/**
 * The tracks with their ends run on into the missed ground ahead where that
 * pays (see the file comment). Curved tracks are left as they are.
 */
export function runIntoMissedWedges(input: WedgeRunInput): WedgeRuns {
  const { tracks, zone, missed } = input;
  const minShare = input.minShare ?? MIN_SHARE;
  const minGain = input.minGain ?? MIN_GAIN;
  const w = tracks.swathWidth;
  const missedRings = missed.flatMap((p) => [p.outer, ...p.holes]);
  const none: WedgeRuns = { tracks, gain: 0, stretches: [] };
  if (missedRings.length === 0 || tracks.tracks.some((t) => t.path)) return none;
  const inner = offset([zone], -(w / 2 + MARGIN), 'round');
  if (inner.length === 0) return none;
  const innerRings = inner.flatMap((p) => [p.outer, ...p.holes]);
  const limit = new EdgeIndex(innerRings);
  const limitEdges = ringsEdges(innerRings);
  const gaps = new EdgeIndex(missedRings);
  const ux = Math.cos(tracks.heading);
  const uy = Math.sin(tracks.heading);
  const nx = -uy;
  const ny = ux;
  const neighbourGaps = lineGaps(tracks);
  // The missed ground's box: ends far from it are not looked at.
  let x0 = Number.POSITIVE_INFINITY;
  let y0 = Number.POSITIVE_INFINITY;
  let x1 = Number.NEGATIVE_INFINITY;
  let y1 = Number.NEGATIVE_INFINITY;
  for (const r of missedRings)
    for (const p of r) {
      x0 = Math.min(x0, p.x);
      y0 = Math.min(y0, p.y);
      x1 = Math.max(x1, p.x);
      y1 = Math.max(y1, p.y);
    }
  const near = (p: Point) => p.x > x0 - w && p.x < x1 + w && p.y > y0 - w && p.y < y1 + w;
  /** How far the end p runs on in direction (dx, dy), at most gap [m]. */
  const runOn = (p: Point, dx: number, dy: number, gap: number): number => {
    if (!near(p) || !limit.contains(p)) return 0;
    const room = Math.min(rayHit(p, dx, dy, limitEdges), gap);
    if (!(room > STEP)) return 0;
    // The run-on length that works the most missed ground beyond MIN_SHARE of its swath.
    let sum = 0;
    let best = 0;
    let bestAt = 0;
    let gain = 0;
    let bestGain = 0;
    // Past where the swath leaves the missed ground's box, nothing ahead is missed.
    const h = w / 2;
    const exitX = dx > 0 ? (x1 + h - p.x) / dx : dx < 0 ? (x0 - h - p.x) / dx : Number.POSITIVE_INFINITY;
    const exitY = dy > 0 ? (y1 + h - p.y) / dy : dy < 0 ? (y0 - h - p.y) / dy : Number.POSITIVE_INFINITY;
    const end = Math.min(room, exitX, exitY);
    for (let t = STEP / 2; t < end; t += STEP) {
      let hit = 0;
      for (const f of ACROSS)
        if (gaps.contains({ x: p.x + t * dx + f * w * nx, y: p.y + t * dy + f * w * ny })) hit++;
      const share = hit / ACROSS.length;
      sum += share - minShare;
      gain += share * STEP * w;
      if (sum > best) {
        best = sum;
        bestAt = Math.min(room, t + STEP / 2);
        bestGain = gain;
      }
    }
    if (bestGain < minGain * w * w) return 0;
    total += bestGain;
    return bestAt;
  };
  let total = 0;
  const stretches: [Point, Point][] = [];
  const skip = new Set(input.skip ?? []);
  const out = tracks.tracks.map((t, i) => {
    if (skip.has(i)) return t;
    const { gapA, gapB } = neighbourGaps(t);
    const eb = runOn(t.b, ux, uy, gapB);
    const ea = runOn(t.a, -ux, -uy, gapA);
    if (eb === 0 && ea === 0) return t;
    const a = { x: t.a.x - ea * ux, y: t.a.y - ea * uy };
    const b = { x: t.b.x + eb * ux, y: t.b.y + eb * uy };
    if (ea > 0) stretches.push([a, t.a]);
    if (eb > 0) stretches.push([t.b, b]);
    return { ...t, a, b };
  });
  return total > 0 ? { tracks: { ...tracks, tracks: out }, gain: total, stretches } : none;
}
