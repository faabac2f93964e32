/**
 * Centre lines of corridors: lanes, arms and necks of a field too narrow for
 * the headland passes and the tracks, which a farmer works with one pass down
 * the middle (the implement may hang over the edges of a strip narrower than
 * the swath).
 *
 * A corridor is a piece of the unworked area, opened by a quarter swath (so
 * slivers under half a swath go), whose two long sides run side by side.
 * Its centre line is found from its two sides: the outline is split at the
 * two points farthest apart (the corridor's ends), and each point of one side
 * is paired with the nearest point of the other; their midpoints, where the
 * sides lie between `minWidth` and `maxWidth` apart, form the centre line.
 * It is smoothed (a moving average over a swath, then filleted so it bends
 * no tighter than the turning radius) and kept inside the field.
 */
import { difference, offset } from '../geometry/clip.ts';
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { polygonArea, ringBBox } from '../geometry/polygon.ts';
import { hypot, nearestOnPolyline, ringLength } from '../geometry/vec.ts';
import type { Point, Polygon } from '../types/index.ts';
import { filletOpen } from './path-tracks.ts';

export interface CentreLineOptions {
  swathWidth: number;
  turningRadius: number;
  /** Edges of the field (zone boundary and obstacles): the lines stay inside it. */
  region: EdgeIndex;
}

/** A corridor of the unworked area and the centre lines of its narrow stretches. */
export interface Corridor {
  /** The piece of unworked area (opened by a quarter swath). */
  piece: Polygon;
  lines: Point[][];
}

/** Stretches between this many swaths wide and ... */
const MIN_WIDTH = 0.4;
/** ... this many are corridors (a wider one is worked by tracks or not at all); ... */
const MAX_WIDTH = 2.6;
/** ... one up to this many swaths wide takes one pass down its middle, a wider one two, half a swath inside either side. */
const TWO_PASSES = 1.5;
/** A centre line shorter than this many swaths is not worth a pass. */
const MIN_LENGTH = 1.5;
/** Pieces whose mean width (twice the area over the perimeter) exceeds this many swaths are not corridors. */
const MAX_MEAN_WIDTH = 2.8;
/** Width of the cut across a ring [m]. */
const CUT = 0.1;
/** Sampling step along the sides [m]. */
const STEP = 1;

/** The corridors of `unworked` (the field less what the route works) and their centre lines. */
export function corridorCentreLines(unworked: readonly Polygon[], o: CentreLineOptions): Corridor[] {
  const w = o.swathWidth;
  const q = w / 4;
  // Only pieces that could hold a corridor are opened (most are slivers and corners).
  const minArea = MIN_LENGTH * MIN_WIDTH * w * w;
  // (Opening takes off thin parts, so it leaves a piece no narrower on
  // average; the holes of a ring round an obstacle add to its edge.)
  const large = unworked.filter((p) => {
    const area = polygonArea(p);
    const edge = ringLength(p.outer) + p.holes.reduce((a, h) => a + ringLength(h), 0);
    if (area < minArea || (2 * area) / edge > MAX_MEAN_WIDTH * w) return false;
    const box = ringBBox(p.outer);
    return hypot(box.maxX - box.minX, box.maxY - box.minY) >= MIN_LENGTH * w;
  });
  const opened = offset(offset(large, -q), q);
  const out: Corridor[] = [];
  for (const piece of opened.flatMap(cutRings)) {
    if (piece.holes.length) continue;
    const area = polygonArea(piece);
    if (area < minArea) continue;
    const perimeter = ringLength(piece.outer);
    if ((2 * area) / perimeter > MAX_MEAN_WIDTH * w) continue;
    const lines = centreLines(piece.outer, o);
    if (lines.length) out.push({ piece, lines });
  }
  return out;
}

/**
 * A piece round an obstacle (with holes) cut across each hole, along x
 * through its middle, into pieces without (a ring into two C shapes, whose
 * centre lines their two sides give).
 */
function cutRings(piece: Polygon): Polygon[] {
  if (piece.holes.length === 0) return [piece];
  const box = ringBBox(piece.outer);
  const cuts = piece.holes.map((h) => {
    const hb = ringBBox(h);
    const y = (hb.minY + hb.maxY) / 2;
    return {
      outer: [
        { x: box.minX - 1, y: y - CUT / 2 },
        { x: box.maxX + 1, y: y - CUT / 2 },
        { x: box.maxX + 1, y: y + CUT / 2 },
        { x: box.minX - 1, y: y + CUT / 2 },
      ],
      holes: [],
    };
  });
  return difference([piece], cuts);
}

function centreLines(outer: readonly Point[], o: CentreLineOptions): Point[][] {
  const w = o.swathWidth;
  const ring = densifyRing(outer, STEP);
  const n = ring.length;
  if (n < 8) return [];
  // The two points farthest apart (a double sweep): the corridor's ends.
  const far = (from: Point) => {
    let best = 0;
    let at = 0;
    for (let i = 0; i < n; i++) {
      const d = (ring[i].x - from.x) ** 2 + (ring[i].y - from.y) ** 2;
      if (d > best) {
        best = d;
        at = i;
      }
    }
    return at;
  };
  const ia = far(ring[0]);
  const ib = far(ring[ia]);
  const sideA: Point[] = [];
  for (let i = ia; i !== ib; i = (i + 1) % n) sideA.push(ring[i]);
  sideA.push(ring[ib]);
  const sideB: Point[] = [];
  for (let i = ia; i !== ib; i = (i - 1 + n) % n) sideB.push(ring[i]);
  sideB.push(ring[ib]);
  if (sideA.length < 4 || sideB.length < 4) return [];
  // Each point of side A and the nearest point of side B: their midpoint
  // where the corridor takes one pass, else the points half a swath in
  // from either side (two passes).
  const centre: (Point | null)[] = [];
  const inA: (Point | null)[] = [];
  const inB: (Point | null)[] = [];
  const pairs = sideA.map((p) => {
    const q = nearestOnPolyline(sideB, p);
    return { p, q, d: hypot(p.x - q.x, p.y - q.y) };
  });
  // The width, averaged over a swath along side A: a corner or a notch does
  // not switch between one pass and two for a few metres.
  const widths = movingAverage(
    pairs.map((x) => x.p),
    pairs.map((x) => x.d),
    w / 2,
  );
  pairs.forEach(({ p, q, d }, i) => {
    const one = widths[i] >= MIN_WIDTH * w && widths[i] <= TWO_PASSES * w;
    const two = widths[i] > TWO_PASSES * w && widths[i] <= MAX_WIDTH * w && d > w;
    const t = w / 2 / d;
    centre.push(one ? { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 } : null);
    inA.push(two ? { x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t } : null);
    inB.push(two ? { x: q.x + (p.x - q.x) * t, y: q.y + (p.y - q.y) * t } : null);
  });
  // Runs where the sides lie a corridor's width apart.
  const runs: Point[][] = [];
  for (const seq of [centre, inA, inB]) {
    let run: Point[] = [];
    for (const m of seq) {
      if (m) run.push(m);
      else {
        if (run.length) runs.push(run);
        run = [];
      }
    }
    if (run.length) runs.push(run);
  }
  const lines: Point[][] = [];
  for (const r of runs) {
    const line = smoothCentre(r, w, o.turningRadius);
    for (const inside of insideStretches(line, o.region)) {
      if (lineLength(inside) >= MIN_LENGTH * w) lines.push(inside);
    }
  }
  return lines;
}

/** A moving average over a swath of arc length, filleted to the turning radius. */
function smoothCentre(pts: readonly Point[], w: number, R: number): Point[] {
  const clean = dropClose(pts, 0.25);
  if (clean.length < 3) return clean;
  const s = [0];
  for (let i = 1; i < clean.length; i++)
    s.push(s[i - 1] + hypot(clean[i].x - clean[i - 1].x, clean[i].y - clean[i - 1].y));
  const half = w / 2;
  const avg: Point[] = [];
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < clean.length; i++) {
    while (s[lo] < s[i] - half) lo++;
    while (hi + 1 < clean.length && s[hi + 1] <= s[i] + half) hi++;
    // Symmetric window (narrower near the ends, so the ends stay put).
    const reach = Math.min(s[i] - s[lo], s[hi] - s[i]);
    let x = 0;
    let y = 0;
    let k = 0;
    for (let j = lo; j <= hi; j++) {
      if (Math.abs(s[j] - s[i]) > reach + 1e-9) continue;
      x += clean[j].x;
      y += clean[j].y;
      k++;
    }
    avg.push({ x: x / k, y: y / k });
  }
  return filletOpen(avg, R, { tolerance: 0.1 });
}

/** Each value averaged with those within `half` [m] along the line either side. */
function movingAverage(pts: readonly Point[], values: readonly number[], half: number): number[] {
  const s = [0];
  for (let i = 1; i < pts.length; i++)
    s.push(s[i - 1] + hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y));
  const out: number[] = [];
  let lo = 0;
  let hi = 0;
  let sum = 0;
  for (let i = 0; i < pts.length; i++) {
    while (hi < pts.length && s[hi] <= s[i] + half) sum += values[hi++];
    while (s[lo] < s[i] - half) sum -= values[lo++];
    out.push(sum / (hi - lo));
  }
  return out;
}

/** The stretches of `line` inside the field, at least a few centimetres from its edges. */
function insideStretches(line: readonly Point[], region: EdgeIndex): Point[][] {
  const out: Point[][] = [];
  let cur: Point[] = [];
  for (const p of line) {
    if (region.contains(p) && region.clearance(p, 0.1) >= 0.05) cur.push(p);
    else {
      if (cur.length >= 2) out.push(cur);
      cur = [];
    }
  }
  if (cur.length >= 2) out.push(cur);
  // A chord between kept points must not cross the edge either.
  return out.flatMap((l) => {
    const parts: Point[][] = [];
    let part: Point[] = [l[0]];
    for (let i = 1; i < l.length; i++) {
      if (region.segmentCrosses(l[i - 1], l[i])) {
        if (part.length >= 2) parts.push(part);
        part = [l[i]];
      } else part.push(l[i]);
    }
    if (part.length >= 2) parts.push(part);
    return parts;
  });
}

/** The ring with a vertex at least every `step` metres along it. */
export function densifyRing(ring: readonly Point[], step: number): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i];
    const b = ring[(i + 1) % ring.length];
    const k = Math.max(1, Math.ceil(hypot(b.x - a.x, b.y - a.y) / step));
    for (let j = 0; j < k; j++) out.push({ x: a.x + ((b.x - a.x) * j) / k, y: a.y + ((b.y - a.y) * j) / k });
  }
  return out;
}

function dropClose(pts: readonly Point[], min: number): Point[] {
  const out: Point[] = [];
  for (const p of pts) {
    const last = out[out.length - 1];
    if (!last || hypot(p.x - last.x, p.y - last.y) >= min) out.push(p);
  }
  return out;
}

export function lineLength(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
  return s;
}
