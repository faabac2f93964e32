/**
 * Lanes along a strip: how a farmer works a strip no headland pass can turn
 * round (its ends or bends tighter than the turning radius). Each lane is a
 * side of an inward offset of the strip's edge, at (k + 1/2) swaths:
 *
 *   +--------------------------------------------+   the strip's edge
 *   | ------------------------------------------ |   lane: half a swath in
 *   |(                                          )|   (the ends, where the
 *   | ------------------------------------------ |   offset turns round
 *   +--------------------------------------------+   tighter, are cut off)
 *
 * The offset ring follows the edge through every bend and hook, so a strip
 * up to two swaths wide is worked whole by its two sides, however it bends
 * (straight tracks in one direction break into short pieces across a bend; level
 * sets of one edge leave the far side unworked where the width is not a
 * whole number of swaths). Where the ring turns by more than END_TURN within
 * END_REACH turning radii either side, the machine cannot follow it: that stretch
 * (a strip's end, a tight inside bend) is cut out, and the machine turns
 * round there between lanes. Each lane is then made drivable (filleted to
 * the turning radius) and cut to the strip less its obstacles.
 *
 * Lanes are numbered across the strip by their offset from the longest one
 * (the reference), for the route's order: neighbours across the strip have
 * neighbouring numbers, lanes one after another along it the same number.
 * What the lanes leave (the middle of a strip wider than two swaths, beyond
 * the last offset that fits) is for the corridor passes of the route.
 */
import { offset } from '../geometry/clip.ts';
import { type BBox, polygonArea, ringBBox, signedArea } from '../geometry/polygon.ts';
import { distToSegment, nearestOnSegments, polylineLength, ringLength } from '../geometry/vec.ts';
import type { Point, Polygon } from '../types/index.ts';
import { densifyRing } from './centre-line-passes.ts';
import { normalizeHeading, type Track, type TrackSet, trackSetOf } from './generate-tracks.ts';
import { arcParam, clipPolyline, dist, filletOpen, tidyEnds } from './path-tracks.ts';

export interface StripLaneOptions {
  swathWidth: number;
  turningRadius: number;
  /** Lines the machine works anyway (the headland passes round obstacles, closed): no lane runs on them. */
  worked?: readonly Point[][];
}

/** A ring turning by more than this within END_REACH turning radii either side is cut there [rad] (see drivableRuns). */
const END_TURN = (150 * Math.PI) / 180;
/** ... within this many turning radii either side. */
const END_REACH = 1.25;
/** Sampling step along the offset rings [m]. */
const STEP = 1;
/** Lanes shorter than this many swaths are left (the machine turns round there). */
const MIN_LANE = 2;
/** Offset pieces thinner on average than this many swaths give no lanes (their two sides would be one duplicate track). */
const THIN = 0.25;
/** At most this many offsets in (a strip is a few swaths wide). */
const MAX_OFFSETS = 6;
/** Where two lanes come closer than this many swaths (a strip narrowing to under one and a half), the shorter one gives way. */
const DUPLICATE = 0.3;
/** Width of the sliver whose sides give a lane down the middle of a piece [m]. */
const SLIVER = 0.5;
/** Lanes whose offsets from the reference differ by less than this share of a swath have one number. */
const SAME_LINE = 0.5;

/** The lanes of `strip` as tracks, or null where no lane fits. */
export function stripLanes(strip: Polygon, o: StripLaneOptions): TrackSet | null {
  const w = o.swathWidth;
  const R = o.turningRadius;
  const lines: Point[][] = [];
  // (The offset shrinks a counter-clockwise outline.)
  const ccw = signedArea(strip.outer) < 0 ? { ...strip, outer: strip.outer.slice().reverse() } : strip;
  for (let k = 0; k < MAX_OFFSETS; k++) {
    const pieces = offset([ccw], -(k + 0.5) * w, 'round');
    if (k === 0 && pieces.every((p) => meanWidth(p) < THIN * w)) {
      // Narrower than a swath and a quarter all along (no two lanes fit
      // side by side): one lane down the middle, the strip shrunk to a
      // sliver (one of its sides is kept, see apart()). Where the strip is
      // narrower than the swath, the implement overhangs its edges.
      const width = meanWidth(ccw);
      const middle = width > SLIVER ? offset([ccw], -(width / 2 - SLIVER / 2), 'round') : [ccw];
      for (const sliver of middle)
        for (const ring of [sliver.outer, ...sliver.holes]) lines.push(...drivableRuns(ring, R));
      break;
    }
    if (pieces.length === 0) break;
    for (const piece of pieces) {
      const width = meanWidth(piece);
      // A piece thinner than a quarter swath would put its two sides' lanes on one another.
      if (width < THIN * w) continue;
      for (const ring of [piece.outer, ...piece.holes]) lines.push(...drivableRuns(ring, R));
      // Where the sides' swaths leave a gap between them and no further
      // offset fits, a lane down the middle works it: the sides of the piece
      // shrunk to a sliver (one of them is kept, see apart()).
      if (width - w > THIN * w && offset([piece], -w, 'round').length === 0) {
        for (const sliver of offset([piece], -(width / 2 - SLIVER / 2), 'round'))
          for (const ring of [sliver.outer, ...sliver.holes]) lines.push(...drivableRuns(ring, R));
      }
    }
  }
  const long = lines
    .flatMap((l) => clipPolyline(filletOpen(l, R * 1.02), false, [strip]))
    // (An end next to a corner the fillet could not round bends too tight: it is cut back.)
    .map((l) => tidyEnds(l, R))
    .filter((l) => l.length >= 2 && polylineLength(l) >= MIN_LANE * w);
  const lanes = apart(long, DUPLICATE * w, MIN_LANE * w, o.worked ?? []);
  if (lanes.length === 0) return null;
  const lengths = lanes.map((l) => polylineLength(l));
  const reference = lanes[lengths.indexOf(Math.max(...lengths))];
  // Each lane's offset from the reference (signed: left of it positive), at its middle.
  const placed = lanes.map((l) => {
    const s0 = arcParam(reference, l[0]);
    const s1 = arcParam(reference, l[l.length - 1]);
    const path = s1 < s0 ? l.slice().reverse() : l;
    return {
      path,
      along: [Math.min(s0, s1), Math.max(s0, s1)] as [number, number],
      off: sideOffset(reference, midpoint(path)),
    };
  });
  placed.sort((a, b) => a.off - b.off);
  const tracks: Track[] = [];
  const lineOffsets: number[] = [];
  let line = -1;
  let lineFrom = Number.NEGATIVE_INFINITY;
  for (const p of placed) {
    if (p.off - lineFrom >= SAME_LINE * w) {
      line++;
      lineFrom = p.off;
      lineOffsets.push(p.off);
    }
    tracks.push({ a: p.path[0], b: p.path[p.path.length - 1], line, seg: 0, path: p.path, along: p.along });
  }
  // Along each line, its lanes in order of where they lie along the reference.
  for (let k = 0; k <= line; k++) {
    const mine = tracks.filter((t) => t.line === k).sort((a, b) => (a.along?.[0] ?? 0) - (b.along?.[0] ?? 0));
    mine.forEach((t, i) => {
      t.seg = i;
    });
  }
  tracks.sort((a, b) => a.line - b.line || a.seg - b.seg);
  const a = reference[0];
  const b = reference[reference.length - 1];
  return trackSetOf(normalizeHeading(Math.atan2(b.y - a.y, b.x - a.x)), w, lineOffsets, tracks, [a, b]);
}

/**
 * The stretches of a closed ring the machine can follow: the ring less
 * every sample where it turns by more than END_TURN (summed, signed) within
 * END_REACH turning radii before and after (the whole ring where it never
 * does). A bend of the turning radius turns by 2.5 radians (143 degrees)
 * over that window; a strip's end, a half turn within two and a half radii,
 * by 180 (two corners nearer than that the fillet could not round apart).
 */
function drivableRuns(ring: readonly Point[], R: number): Point[][] {
  const pts = densifyRing(ring, STEP);
  const n = pts.length;
  if (n < 8) return [];
  // Arc length at each sample and the signed turn at each, over the ring unrolled three times.
  const heading = (i: number) => {
    const a = pts[(i + n) % n];
    const b = pts[(i + 1 + n) % n];
    return Math.atan2(b.y - a.y, b.x - a.x);
  };
  const s: number[] = [0];
  const turn: number[] = [0];
  for (let i = 1; i <= 3 * n; i++) {
    s.push(s[i - 1] + dist(pts[(i - 1) % n], pts[i % n]));
    let d = heading(i) - heading(i - 1);
    if (d > Math.PI) d -= 2 * Math.PI;
    if (d < -Math.PI) d += 2 * Math.PI;
    turn.push(turn[i - 1] + d);
  }
  if (s[n] < 4 * END_REACH * R) return [];
  const tight: boolean[] = [];
  let lo = 0;
  let hi = 0;
  for (let i = n; i < 2 * n; i++) {
    while (s[lo] < s[i] - END_REACH * R) lo++;
    while (hi < 3 * n && s[hi + 1] <= s[i] + END_REACH * R) hi++;
    // (The turns at the samples lo..hi.)
    tight.push(Math.abs(turn[hi] - turn[lo - 1]) > END_TURN);
  }
  const first = tight.indexOf(true);
  if (first < 0) return [[...pts, pts[0]]];
  const runs: Point[][] = [];
  let run: Point[] = [];
  for (let j = 1; j <= n; j++) {
    const i = (first + j) % n;
    if (!tight[i]) run.push(pts[i]);
    else {
      if (run.length >= 2) runs.push(run);
      run = [];
    }
  }
  if (run.length >= 2) runs.push(run);
  return runs;
}

/**
 * The lines, longest first, each less its stretches within `gap` of a line
 * kept before it or of a line worked anyway (pieces shorter than `min`
 * dropped): no two lanes run on one another where a strip narrows, and none
 * on a headland pass.
 */
function apart(lines: readonly Point[][], gap: number, min: number, worked: readonly Point[][]): Point[][] {
  const kept: (readonly Point[])[] = [];
  const boxes: BBox[] = [];
  const keep = (q: readonly Point[]) => {
    kept.push(q);
    boxes.push(ringBBox(q));
  };
  for (const l of worked) if (l.length >= 2) keep(l);
  const first = kept.length;
  const near = (p: Point) =>
    kept.some((l, k) => {
      const b = boxes[k];
      if (p.x < b.minX - gap || p.x > b.maxX + gap || p.y < b.minY - gap || p.y > b.maxY + gap) return false;
      for (let i = 1; i < l.length; i++) if (distToSegment(p, l[i - 1], l[i]) < gap) return true;
      return false;
    });
  for (const line of lines.slice().sort((a, b) => polylineLength(b) - polylineLength(a))) {
    let piece: Point[] = [];
    const pieces: Point[][] = [];
    for (const p of densifyOpen(line, STEP)) {
      if (near(p)) {
        if (piece.length >= 2) pieces.push(piece);
        piece = [];
      } else piece.push(p);
    }
    if (piece.length >= 2) pieces.push(piece);
    for (const q of pieces) if (polylineLength(q) >= min) keep(q);
  }
  return kept.slice(first) as Point[][];
}

/** The open line with a vertex at least every `step` metres, its own vertices kept. */
function densifyOpen(line: readonly Point[], step: number): Point[] {
  const out: Point[] = [line[0]];
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1];
    const b = line[i];
    const k = Math.max(1, Math.ceil(dist(a, b) / step));
    for (let j = 1; j <= k; j++) out.push({ x: a.x + ((b.x - a.x) * j) / k, y: a.y + ((b.y - a.y) * j) / k });
  }
  return out;
}

/** Twice the area over the perimeter: the width of a long piece. */
function meanWidth(p: Polygon): number {
  return (2 * polygonArea(p)) / (ringLength(p.outer) + p.holes.reduce((a, h) => a + ringLength(h), 0));
}

/** The point halfway along a polyline. */
function midpoint(line: readonly Point[]): Point {
  const half = polylineLength(line) / 2;
  let s = 0;
  for (let i = 1; i < line.length; i++) {
    const l = dist(line[i - 1], line[i]);
    if (s + l >= half && l > 0) {
      const t = (half - s) / l;
      return {
        x: line[i - 1].x + t * (line[i].x - line[i - 1].x),
        y: line[i - 1].y + t * (line[i].y - line[i - 1].y),
      };
    }
    s += l;
  }
  return line[line.length - 1];
}

/** Distance of `p` from the polyline, positive on its left. */
function sideOffset(line: readonly Point[], p: Point): number {
  if (line.length < 2) return Number.POSITIVE_INFINITY;
  const { i, d } = nearestOnSegments(line, p);
  const a = line[i];
  const b = line[i + 1];
  return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) >= 0 ? d : -d;
}
