/**
 * Straight parallel tracks across the workable area.
 *
 * Rotate the area so the tracks run along +x, cut it with scan lines
 * y = y0 + w/2 + k w, pair the crossings into segments, rotate back. Every
 * scan line is on one grid, so adjacent tracks are exactly one swath apart.
 * The remainder rule: where the area's height leaves a remainder r of a
 * swath (height = k w + r), a last line pulled back to ymax - w/2 works it
 * when r is at least a third of a swath (only that last pair is closer);
 * a sliver under a third is not worth a full extra pass (a strip applied
 * twice): the k lines are centred instead, leaving r / 2 beside each side
 * (a strip barely wider than a swath gets one pass down its middle).
 * `coverRemainder` lays the last line for any remainder.
 *
 * The direction: every hull-edge direction of the workable area (the minimum
 * width lies on one), every edge of two swaths or longer, and a 2-degree sweep
 * over [0, 180) (a direction and its opposite give the same tracks), each
 * evaluated exactly, then quarter-degree steps around the three best; fewest
 * tracks first, then the least ragged track ends (a proxy for turn and
 * connector distance), then the direction of the longest edge.
 */
import { Clipper } from 'clipper2-ts';
import { sortNumbers } from '../geometry/sort-numbers.ts';
import { bearingDegToHeading, headingToBearingDeg, hypot } from '../geometry/vec.ts';
import type { Point, Polygon } from '../types/index.ts';

export interface Track {
  /** Start and end in the metric frame; a -> b runs along the track heading. */
  a: Point;
  b: Point;
  /** Scan line index (0 = the first line across the area). */
  line: number;
  /** Position along the scan line order (0 = leftmost segment of its line). */
  seg: number;
  /** Curved and spiral tracks: the centre line from a to b (straight tracks have none). */
  path?: Point[];
  /** Curved and spiral tracks: where a and b lie along the reference [m], for grouping neighbours. */
  along?: [number, number];
}

export interface TrackSet {
  /** Heading of a -> b [rad, CCW from east], in [0, pi). */
  heading: number;
  /** The same direction as a bearing [deg clockwise from north], in [0, 180). */
  bearingDeg: number;
  swathWidth: number;
  /** Offset of scan line k across the tracks [m], in the rotated frame. */
  lineOffsets: number[];
  tracks: Track[];
  /** Reference line of the group (the first scan line across the whole area). */
  abLine: [Point, Point];
}

/** Crossings closer than this along a scan line do not split its track [m]. */
const MERGE_GAP = 0.05;

/** Simplification of the area for the direction search [m]. */
const SEARCH_TOLERANCE = 0.05;

export interface TrackOptions {
  swathWidth: number;
  /** Bearing [deg clockwise from north]; undefined = search for the best. */
  preferredBearingDeg?: number;
  /** Segments shorter than this are dropped [m]. */
  minTrackLength?: number;
  /** Lay a last track for any remainder, even a sliver under a third of a swath (see the remainder rule). */
  coverRemainder?: boolean;
}

/** A remainder under this share of a swath (less SLIVER_TOLERANCE) gets no track of its own. */
export const SLIVER_SHARE = 1 / 3;
/** A remainder this close under the share still gets its track: a few cm are outline precision [m]. */
export const SLIVER_TOLERANCE = 0.05;

/** Whether a remainder r [m] past the last whole swath is a sliver (no track of its own). */
export function isSliver(r: number, w: number): boolean {
  return r < SLIVER_SHARE * w - SLIVER_TOLERANCE;
}

/**
 * The scan lines across [ymin, ymax]: `grid` lines y0 + k w, then, when
 * `offsets` is longer by one, the last line pulled back to ymax - w/2.
 */
export function scanLines(
  ymin: number,
  ymax: number,
  w: number,
  coverRemainder = false,
): { offsets: number[]; y0: number; grid: number } {
  const { count, y0, grid, last } = scanLayout(ymin, ymax, w, coverRemainder);
  const offsets: number[] = [];
  for (let k = 0; k < grid; k++) offsets.push(y0 + k * w);
  if (count > grid) offsets.push(last);
  return { offsets, y0, grid };
}

/**
 * The scan lines of scanLines without the list: `count` lines, the first
 * `grid` of them at y0 + k w, the one after those (when count > grid) at `last`.
 */
function scanLayout(
  ymin: number,
  ymax: number,
  w: number,
  coverRemainder: boolean,
): { count: number; y0: number; grid: number; last: number } {
  const height = ymax - ymin;
  if (!(height > 1e-6)) return { count: 0, y0: ymin + w / 2, grid: 0, last: 0 };
  const n = Math.max(1, Math.ceil(height / w - 1e-9));
  const r = height - (n - 1) * w;
  // (A remainder of a few cm is outline precision: no line for it even when covering everything.)
  if (n === 1 || r <= SLIVER_TOLERANCE || (!coverRemainder && isSliver(r, w))) {
    // One line, or a sliver left: the lines centred in the height.
    const k = n === 1 ? 1 : n - 1;
    return { count: k, y0: (ymin + ymax) / 2 - ((k - 1) * w) / 2, grid: k, last: 0 };
  }
  return { count: n, y0: ymin + w / 2, grid: n - 1, last: ymax - w / 2 };
}

interface Scan {
  ymin: number;
  ymax: number;
  offsets: number[];
  /** Per line, the segments [xa, xb] in increasing x. */
  segments: [number, number][][];
  count: number;
  ragged: number;
  xmin: number;
  xmax: number;
}

export function generateTracks(workable: readonly Polygon[], opts: TrackOptions): TrackSet {
  const w = opts.swathWidth;
  const minLen = opts.minTrackLength ?? Math.min(w, 3);
  const cover = opts.coverRemainder === true;
  const rings = ringsOf(workable);
  let heading: number;
  let scan: Scan;
  if (opts.preferredBearingDeg !== undefined) {
    heading = normalizeHeading(bearingDegToHeading(opts.preferredBearingDeg));
    scan = scanAt(rings, heading, w, minLen, cover);
  } else {
    // Search on rings simplified within 5 cm (a fraction of the vertices), then
    // cut the exact rings in the chosen direction.
    ({ heading } = bestDirection(searchRings(rings), w, minLen, cover));
    scan = scanAt(rings, heading, w, minLen, cover);
  }
  return buildTrackSet(scan, heading, w);
}

/**
 * The headings the direction search tries for an area [rad, CCW from east,
 * in [0, pi)]: along its long edges and the edges of its hull, and every
 * 2 degrees; other searches (along the contour) score the same set.
 */
export function directionCandidates(workable: readonly Polygon[], swathWidth: number): number[] {
  const rings = ringsOf(workable);
  return candidateHeadings(searchRings(rings), swathWidth).map((c) => c.heading);
}

function ringsOf(workable: readonly Polygon[]): Point[][] {
  return workable.flatMap((p) => [p.outer, ...p.holes]);
}

/** The rings simplified within SEARCH_TOLERANCE for the direction search (the rings themselves when that leaves none). */
function searchRings(rings: Point[][]): Point[][] {
  const coarse = rings
    .map((r) => (r.length > 12 ? Clipper.simplifyPathD(r, SEARCH_TOLERANCE, true) : r))
    .filter((r) => r.length >= 3);
  return coarse.length ? coarse : rings;
}

/** Heading folded into [0, pi). */
export function normalizeHeading(h: number): number {
  let r = h % Math.PI;
  if (r < 0) r += Math.PI;
  if (r >= Math.PI - 1e-12) r = 0;
  return r;
}

function candidateHeadings(rings: readonly Point[][], w: number): { heading: number; weight: number }[] {
  const out: { heading: number; weight: number }[] = [];
  for (const r of rings) {
    for (let i = 0; i < r.length; i++) {
      const a = r[i];
      const b = r[(i + 1) % r.length];
      const l = hypot(b.x - a.x, b.y - a.y);
      // Edges of at least two swaths: farmers drive along those; short ones are noise.
      if (l < Math.max(2 * w, 10)) continue;
      out.push({ heading: normalizeHeading(Math.atan2(b.y - a.y, b.x - a.x)), weight: l });
    }
  }
  for (const h of hullHeadings(rings)) out.push({ heading: h, weight: 0 });
  for (let d = 0; d < 180; d += 2) out.push({ heading: (d * Math.PI) / 180, weight: 0 });
  // Merge near-duplicates (within 0.05 degrees), keeping the longest edge weight.
  out.sort((p, q) => p.heading - q.heading);
  const merged: { heading: number; weight: number }[] = [];
  for (const c of out) {
    const last = merged[merged.length - 1];
    if (last && c.heading - last.heading < 0.05 * (Math.PI / 180)) {
      if (c.weight > last.weight) {
        last.weight = c.weight;
        last.heading = c.heading;
      }
    } else merged.push({ ...c });
  }
  return merged;
}

function hullHeadings(rings: readonly Point[][]): number[] {
  const pts = rings
    .flat()
    .slice()
    .sort((a, b) => a.x - b.x || a.y - b.y);
  if (pts.length < 3) return [];
  const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const lower: Point[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  const hull = lower.slice(0, -1).concat(upper.slice(0, -1));
  const hs: number[] = [];
  for (let i = 0; i < hull.length; i++) {
    const a = hull[i];
    const b = hull[(i + 1) % hull.length];
    hs.push(normalizeHeading(Math.atan2(b.y - a.y, b.x - a.x)));
  }
  return hs;
}

function bestDirection(
  rings: readonly Point[][],
  w: number,
  minLen: number,
  cover: boolean,
): { heading: number; scan: Scan } {
  const cands = candidateHeadings(rings, w);
  const flat = flatten(rings);
  // Quick scores for all candidates and the quarter-degree steps around the
  // best three, then the exact scan for the best few.
  const quick = cands.map((c) => ({
    heading: c.heading,
    weight: c.weight,
    ...quickScore(flat, c.heading, w, cover),
  }));
  const qcmp = (a: (typeof quick)[0], b: (typeof quick)[0]) =>
    a.count - b.count || (Math.abs(a.ragged - b.ragged) > w ? a.ragged - b.ragged : b.weight - a.weight);
  quick.sort(qcmp);
  const step = Math.PI / 720;
  for (const top of quick.slice(0, 3)) {
    for (let k = -4; k <= 4; k++) {
      if (k === 0) continue;
      const h = normalizeHeading(top.heading + k * step);
      quick.push({ heading: h, weight: 0, ...quickScore(flat, h, w, cover) });
    }
  }
  quick.sort(qcmp);
  let best: { heading: number; scan: Scan; weight: number } | null = null;
  for (const q of quick.slice(0, 6)) {
    const sc = scanAt(rings, q.heading, w, minLen, cover);
    if (sc.count === 0) continue;
    if (!best || better(sc, q.weight, best.scan, best.weight, w))
      best = { heading: q.heading, scan: sc, weight: q.weight };
  }
  if (best) return best;
  const h = cands.length ? cands[0].heading : 0;
  return { heading: h, scan: scanAt(rings, h, w, minLen, cover) };
}

/** All ring edges as flat coordinates [x0, y0, x1, y1, ...]. */
export function flatten(rings: readonly Point[][]): Float64Array {
  let n = 0;
  for (const r of rings) n += r.length;
  const out = new Float64Array(n * 4);
  let k = 0;
  for (const r of rings) {
    for (let i = 0; i < r.length; i++) {
      const a = r[i];
      const b = r[(i + 1) % r.length];
      out[k++] = a.x;
      out[k++] = a.y;
      out[k++] = b.x;
      out[k++] = b.y;
    }
  }
  return out;
}

const qMin = new Float64Array(8192);
const qMax = new Float64Array(8192);
const qCross = new Int32Array(8192);
/** The turned y of each edge's first end, from the first pass over the edges to the second. */
let qY = new Float64Array(4096);

/**
 * Track count (crossings / 2 per scan line) and raggedness of the track ends
 * (from each line's extreme crossings), with no allocation. Short segments
 * are not dropped here; the exact scan does that for the finalists.
 */
export function quickScore(
  edges: Float64Array,
  h: number,
  w: number,
  cover = false,
): { count: number; ragged: number } {
  const c = Math.cos(-h);
  const s = Math.sin(-h);
  let ymin = Number.POSITIVE_INFINITY;
  let ymax = Number.NEGATIVE_INFINITY;
  if (qY.length < edges.length / 4) qY = new Float64Array(edges.length / 2);
  for (let i = 0; i < edges.length; i += 4) {
    const y = edges[i] * s + edges[i + 1] * c;
    qY[i >> 2] = y;
    if (y < ymin) ymin = y;
    if (y > ymax) ymax = y;
  }
  const { count: nLines, y0, grid, last } = scanLayout(ymin, ymax, w, cover);
  const lines = Math.max(1, nLines);
  if (lines > qMin.length) return { count: lines, ragged: 0 };
  qMin.fill(Number.POSITIVE_INFINITY, 0, lines);
  qMax.fill(Number.NEGATIVE_INFINITY, 0, lines);
  qCross.fill(0, 0, lines);
  const single = nLines === 0;
  const middle = (ymin + ymax) / 2;
  const perW = 1 / w;
  for (let i = 0; i < edges.length; i += 4) {
    const ay = qY[i >> 2];
    const by = edges[i + 2] * s + edges[i + 3] * c;
    if (ay === by) continue;
    const lo = ay < by ? ay : by;
    const hi = ay < by ? by : ay;
    // (By the inverse of w: the range is one line wider each way than the
    // lines that may cross, and the exact test below decides.)
    const kFrom = Math.max(0, Math.ceil((lo - y0) * perW) - 1);
    const kTo = Math.min(lines - 1, Math.ceil((hi - y0) * perW));
    // The x of the edge's ends only for an edge some line crosses.
    let ax = Number.NaN;
    let bx = Number.NaN;
    for (let k = kFrom; k <= kTo; k++) {
      const y = single ? middle : k < grid ? y0 + k * w : last;
      if (y < lo || y >= hi) continue;
      if (Number.isNaN(ax)) {
        ax = edges[i] * c - edges[i + 1] * s;
        bx = edges[i + 2] * c - edges[i + 3] * s;
      }
      const x = ax + ((y - ay) * (bx - ax)) / (by - ay);
      qCross[k]++;
      if (x < qMin[k]) qMin[k] = x;
      if (x > qMax[k]) qMax[k] = x;
    }
  }
  let count = 0;
  let ragged = 0;
  let prev = -1;
  for (let k = 0; k < lines; k++) {
    if (qCross[k] < 2) continue;
    count += qCross[k] >> 1;
    if (prev >= 0) ragged += Math.abs(qMin[k] - qMin[prev]) + Math.abs(qMax[k] - qMax[prev]);
    prev = k;
  }
  return { count, ragged };
}

function better(s: Scan, weight: number, b: Scan, bWeight: number, w: number): boolean {
  if (s.count !== b.count) return s.count < b.count;
  // Ragged ends cost turn distance; treat differences under a swath as equal.
  if (Math.abs(s.ragged - b.ragged) > w) return s.ragged < b.ragged;
  if (weight !== bWeight) return weight > bWeight;
  return s.ragged < b.ragged;
}

/** The x of each scan line the edge (x0, y0)-(x1, y1) crosses, added to that line's list (see scanAt). */
function addCrossings(
  xs: number[][],
  offsets: readonly number[],
  gridLines: number,
  last: number,
  y00: number,
  w: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): void {
  const lo = Math.min(y0, y1);
  const hi = Math.max(y0, y1);
  // Half-open [lo, hi) so a line through a vertex is counted once (the
  // index range is one wider each way; the exact test below decides).
  const kFrom = Math.max(0, Math.ceil((lo - y00) / w) - 1);
  const kTo = Math.min(gridLines - 1, Math.ceil((hi - y00) / w));
  for (let k = kFrom; k <= kTo; k++) {
    const y = offsets[k];
    if (y < lo || y >= hi) continue;
    xs[k].push(x0 + ((y - y0) * (x1 - x0)) / (y1 - y0));
  }
  if (last >= gridLines) {
    const y = offsets[last];
    if (y >= lo && y < hi) xs[last].push(x0 + ((y - y0) * (x1 - x0)) / (y1 - y0));
  }
}

/** Scan the rings with lines along heading h. */
function scanAt(rings: readonly Point[][], h: number, w: number, minLen: number, cover: boolean): Scan {
  const c = Math.cos(-h);
  const s = Math.sin(-h);
  let ymin = Number.POSITIVE_INFINITY;
  let ymax = Number.NEGATIVE_INFINITY;
  let xmin = Number.POSITIVE_INFINITY;
  let xmax = Number.NEGATIVE_INFINITY;
  for (const r of rings) {
    for (let i = 0; i < r.length; i++) {
      const x = r[i].x * c - r[i].y * s;
      const y = r[i].x * s + r[i].y * c;
      if (y < ymin) ymin = y;
      if (y > ymax) ymax = y;
      if (x < xmin) xmin = x;
      if (x > xmax) xmax = x;
    }
  }
  const { offsets, y0, grid: gridLines } = scanLines(ymin, ymax, w, cover);
  const xs: number[][] = offsets.map(() => []);
  const last = offsets.length - 1;
  // Each edge (turned as above, from the ring's last vertex round) that is not along the lines.
  for (const r of rings) {
    const n = r.length;
    let px = r[n - 1].x * c - r[n - 1].y * s;
    let py = r[n - 1].x * s + r[n - 1].y * c;
    for (let i = 0; i < n; i++) {
      const x = r[i].x * c - r[i].y * s;
      const y = r[i].x * s + r[i].y * c;
      if (y !== py) addCrossings(xs, offsets, gridLines, last, y0, w, px, py, x, y);
      px = x;
      py = y;
    }
  }
  const segments: [number, number][][] = [];
  let count = 0;
  let ragged = 0;
  let prev: [number, number][] | null = null;
  for (const row of xs) {
    sortNumbers(row);
    const segs: [number, number][] = [];
    for (let i = 0; i + 1 < row.length; i += 2) {
      const last = segs[segs.length - 1];
      // A pinch of the area (two parts touching, or a gap of a few cm from
      // rounding) does not split a track: every point of such a gap is within
      // MERGE_GAP / 2 of the area.
      if (last && row[i] - last[1] < MERGE_GAP) last[1] = row[i + 1];
      else segs.push([row[i], row[i + 1]]);
    }
    for (let i = segs.length - 1; i >= 0; i--) if (segs[i][1] - segs[i][0] < minLen) segs.splice(i, 1);
    segments.push(segs);
    count += segs.length;
    if (prev?.length && segs.length) {
      ragged +=
        Math.abs(prev[0][0] - segs[0][0]) + Math.abs(prev[prev.length - 1][1] - segs[segs.length - 1][1]);
    }
    prev = segs;
  }
  return { ymin, ymax, offsets, segments, count, ragged, xmin, xmax };
}

function buildTrackSet(scan: Scan, heading: number, w: number): TrackSet {
  const c = Math.cos(heading);
  const s = Math.sin(heading);
  const back = (x: number, y: number): Point => ({ x: x * c - y * s, y: x * s + y * c });
  const tracks: Track[] = [];
  scan.segments.forEach((segs, line) => {
    const y = scan.offsets[line];
    segs.forEach(([xa, xb], seg) => {
      tracks.push({ a: back(xa, y), b: back(xb, y), line, seg });
    });
  });
  const y0 = scan.offsets.length ? scan.offsets[0] : (scan.ymin + scan.ymax) / 2;
  return trackSetOf(heading, w, scan.offsets, tracks, [back(scan.xmin, y0), back(scan.xmax, y0)]);
}

/** The track set of tracks laid along `heading` (in [0, pi)), on lines `lineOffsets` across it, with its reference line. */
export function trackSetOf(
  heading: number,
  swathWidth: number,
  lineOffsets: number[],
  tracks: Track[],
  abLine: [Point, Point],
): TrackSet {
  return { heading, bearingDeg: headingToBearingDeg(heading) % 180, swathWidth, lineOffsets, tracks, abLine };
}
