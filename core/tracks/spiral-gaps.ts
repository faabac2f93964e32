/**
 * What a spiral's loops and middle still leave unworked, filled with short
 * straight tracks: the pockets where a loop was cut short or split off, the
 * cores too small for a middle of their own, the ground between loops spaced
 * more than a swath apart, and the crescents rounded corners leave between
 * successive loops.
 *
 * The swaths of the tracks so far are taken from the workable area. What is
 * left, opened by an eighth of a swath (slivers under a quarter swath are not
 * worth a pass), is covered piece by piece with straight tracks along each
 * piece's long axis (one down the middle of a piece narrower than a swath);
 * a track is kept when it is long enough to be worth its turn and at least
 * 30 % of its strip works new ground. The crescents of one corner lie in a
 * row on its bisector, each across it (two loops' corner arcs of the turning
 * radius are more than a swath apart there): one straight track along each
 * row of two or more, run on four metres past the row's outer and inner
 * crescents (into the pocket the outermost loop leaves in the workable
 * area's corner, and the wedge inside the innermost), works them all, kept
 * when at least 15 % of its strip is new ground; a run whose track falls
 * short (two corners' rows in line, joined across the middle between them)
 * is split at its widest gap and each part tried alone. A 90-degree corner's
 * crescents (15.5 m2 each at r = w = 6 m, 2.5 m thick on the bisector, some
 * 12 m across it) fill about a fifth of such a track's strip; at 30 % only
 * sharper corners' rows were worked.
 *
 * Measured on every 4th field of the benchmark selection (199 fields, S1:
 * `npx node bench/route-options.bench.ts --option spiral --limit 0 --every 4`):
 * rows of three, lengthened by a metre, at 30 % and pieces at 50 %: covered
 * median 98.17 %, overlap 2.96 %, non-working 1909 m; as above 98.50 %,
 * 4.52 %, 2331 m (fields over 2 % duplicate track 5 and 5, with overhang
 * 15 and 14). Laying the middle's last track for any remainder too (the
 * sliver beside the innermost loop; measured with rows at 20 %, pieces at
 * 50 %) covered 98.49 % against 98.46 % without, but overlap 4.53 % against
 * 4.05 % and tracks within a quarter swath of a neighbour (duplicate track
 * over 2 % on 44 fields). Splitting runs that fall short: 98.50 -> 98.51 %,
 * overlap 4.52 -> 4.54 % (fiboa-ch:3834969 97.62 -> 98.49 %). Pieces'
 * tracks at 30 % instead of 40 %: 98.55 %, 4.57 % (50 fields gain, none
 * loses; fiboa-cz:44715302, a long strip whose middle tracks left wedges
 * between them, 97.48 -> 99.01 %); at 25 % the same medians, 8 fields more
 * changed, each gaining less ground than it adds overlap. Lowering the
 * crescent rows' share to 10 %: covered 98.51 %, overlap 4.98 %. Running
 * the rows' tracks on a metre at a time while a quarter of the metre is new
 * ground: covered 98.51 %, overlap 4.59 %, duplicate track over 2 % on 7
 * fields instead of 5.
 */
import { Clipper } from 'clipper2-ts';
import { bufferLines, difference, intersection, intersectionArea, offset } from '../geometry/clip.ts';
import { polygonArea, ringBBox } from '../geometry/polygon.ts';
import { hypot } from '../geometry/vec.ts';
import type { Point, Polygon } from '../types/index.ts';
import type { Track } from './generate-tracks.ts';
import { clipPolyline, dist } from './path-tracks.ts';
import { pieceTracks } from './spiral-middle.ts';

/** Share of a gap track's strip that must be new ground. */
const MIN_GAIN = 0.3;

export function gapTracks(
  workable: readonly Polygon[],
  done: readonly Track[],
  w: number,
  R: number,
  firstLine: number,
): Track[] {
  const lines = done.map((t) => t.path ?? [t.a, t.b]);
  if (!lines.length) return [];
  // Each strip buffered on its own, from its line simplified within 2 cm and 2 cm wider than
  // the swath (neighbouring loops' strips overlap instead of leaving hairline slivers that
  // the clipper would carry as thousands of pieces); the difference unions them in one sweep.
  const strips = lines.flatMap((l) =>
    bufferLines([l.length > 8 ? Clipper.simplifyPathD(l as Point[], 0.02, false) : l], w / 2 + 0.01, 'butt'),
  );
  const left = difference(workable, strips);
  const boxes = left.map((p) => ringBBox(p.outer));
  // New ground under a track's strip: only the pieces whose boxes meet it are clipped.
  const gainOf = (a: Point, b: Point): number => {
    const r = strip(a, b, w / 2);
    const rb = ringBBox(r);
    const near = left.filter(
      (_, i) =>
        boxes[i].minX <= rb.maxX &&
        boxes[i].maxX >= rb.minX &&
        boxes[i].minY <= rb.maxY &&
        boxes[i].maxY >= rb.minY,
    );
    return near.length ? intersectionArea([{ outer: r, holes: [] }], near) : 0;
  };
  const o = w / 8;
  const minArea = w * w;
  const pieces = intersection(
    offset(
      offset(
        left.filter((p) => polygonArea(p) >= minArea),
        -o,
        'round',
        0.05,
      ),
      o,
      'round',
      0.05,
    ),
    workable,
  );
  const out: Track[] = [];
  let base = firstLine;
  // Shorter tracks are not worth their turns.
  const minLen = Math.max(w, R);
  for (const piece of pieces) {
    if (polygonArea(piece) < minArea) continue;
    base = pieceTracks(
      piece,
      w,
      base,
      (a, b) => dist(a, b) >= minLen && gainOf(a, b) >= MIN_GAIN * dist(a, b) * w,
      out,
    );
  }
  const runs = crescentRuns(out.length ? difference(left, stripsOf(out, w)) : left, w).reverse();
  while (runs.length) {
    const run = runs.pop() as Point[];
    const line = runLine(run);
    // The longest stretch of the line inside the workable area.
    let a: Point | null = null;
    let b: Point | null = null;
    let L = minLen;
    for (const c of clipPolyline(line, false, workable)) {
      const l = dist(c[0], c[c.length - 1]);
      if (l < L) continue;
      [a, b, L] = [c[0], c[c.length - 1], l];
    }
    if (a && b && gainOf(a, b) >= CHAIN_GAIN * L * w) {
      out.push({ a, b, line: base, seg: 0, path: [a, b], along: [1e7, 1e7 + L] });
      base += 3;
      continue;
    }
    // Too little new ground along the whole run (two corners' rows in line, across the middle
    // between them): its parts either side of the widest gap between crescents are tried alone.
    if (run.length < 4) continue;
    let cut = 1;
    for (let i = 2; i < run.length - 1; i++)
      if (dist(run[i - 1], run[i]) > dist(run[cut - 1], run[cut])) cut = i;
    if (run.length - cut >= 2) runs.push(run.slice(cut));
    if (cut >= 2) runs.push(run.slice(0, cut));
  }
  return out;
}

/** Share of a track through a run of crescents that must be new ground (they are thin and curved). */
const CHAIN_GAIN = 0.15;

/** How far a track through a run of crescents runs on past its first and last crescent's centre [m]. */
const REACH = 4;

function stripsOf(ts: readonly Track[], w: number): Polygon[] {
  return ts.map((t) => ({ outer: strip(t.a, t.b, w / 2), holes: [] }));
}

interface Blob {
  at: Point;
  /** Unit direction of the piece's long axis. */
  axis: Point;
  area: number;
}

/**
 * Straight lines through runs of thin pieces lined up across their long
 * axes (the crescents a rounded corner leaves between successive loops lie
 * on the corner's bisector, each across it): from the first to the last
 * centre of each run of two or more, lengthened by REACH at each end.
 */
function crescentRuns(left: readonly Polygon[], w: number): Point[][] {
  const blobs: Blob[] = [];
  for (const p of left) {
    const b = blobOf(p.outer);
    if (b && b.area >= 1) blobs.push(b);
  }
  const n = blobs.length;
  const used = new Uint8Array(n);
  const cosTol = Math.cos((25 * Math.PI) / 180);
  const sinTol = Math.sin((25 * Math.PI) / 180);
  const across = (i: number, d: Point) => Math.abs(blobs[i].axis.x * d.x + blobs[i].axis.y * d.y) < sinTol;
  // The next piece of a run: within three swaths, across both long axes, ahead in direction `dir`.
  const cell = 3 * w;
  const grid = new Map<string, number[]>();
  const key = (x: number, y: number) => `${Math.floor(x / cell)},${Math.floor(y / cell)}`;
  blobs.forEach((b, i) => {
    const k = key(b.at.x, b.at.y);
    grid.set(k, [...(grid.get(k) ?? []), i]);
  });
  const near = (i: number): number[] => {
    const cx = Math.floor(blobs[i].at.x / cell);
    const cy = Math.floor(blobs[i].at.y / cell);
    const out: number[] = [];
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++) for (const j of grid.get(`${cx + dx},${cy + dy}`) ?? []) out.push(j);
    return out;
  };
  const nextOf = (i: number, dir: Point | null): number => {
    let best = -1;
    let bd = 3 * w;
    for (const j of near(i)) {
      if (j === i || used[j]) continue;
      const dx = blobs[j].at.x - blobs[i].at.x;
      const dy = blobs[j].at.y - blobs[i].at.y;
      const d = hypot(dx, dy);
      if (d >= bd || d < 1e-6) continue;
      const u = { x: dx / d, y: dy / d };
      if (!across(i, u) || !across(j, u)) continue;
      if (dir && u.x * dir.x + u.y * dir.y < cosTol) continue;
      best = j;
      bd = d;
    }
    return best;
  };
  const out: Point[][] = [];
  const order = blobs.map((_, i) => i).sort((i, j) => blobs[j].area - blobs[i].area);
  for (const s of order) {
    if (used[s]) continue;
    used[s] = 1;
    const run = [s];
    // Grow both ways along the first link's direction.
    for (const sign of [1, -1]) {
      let dir: Point | null = null;
      let at = s;
      if (sign < 0) {
        if (run.length < 2) break;
        const a = blobs[run[0]].at;
        const b = blobs[run[1]].at;
        const d = dist(a, b);
        dir = { x: (a.x - b.x) / d, y: (a.y - b.y) / d };
      }
      for (;;) {
        const j = nextOf(at, dir);
        if (j < 0) break;
        const from = blobs[at].at;
        const d = dist(from, blobs[j].at);
        const u = { x: (blobs[j].at.x - from.x) / d, y: (blobs[j].at.y - from.y) / d };
        dir = dir ? norm({ x: dir.x + u.x, y: dir.y + u.y }) : u;
        used[j] = 1;
        if (sign > 0) run.push(j);
        else run.unshift(j);
        at = j;
      }
    }
    if (run.length >= 2) out.push(run.map((i) => blobs[i].at));
  }
  return out;
}

/** The straight line from a run's first to its last centre, lengthened by REACH at each end. */
function runLine(run: readonly Point[]): [Point, Point] {
  const a = run[0];
  const b = run[run.length - 1];
  const d = dist(a, b);
  const u = { x: (b.x - a.x) / d, y: (b.y - a.y) / d };
  return [
    { x: a.x - u.x * REACH, y: a.y - u.y * REACH },
    { x: b.x + u.x * REACH, y: b.y + u.y * REACH },
  ];
}

function norm(p: Point): Point {
  const l = hypot(p.x, p.y);
  return { x: p.x / l, y: p.y / l };
}

/** Area, centroid and long axis (second moments) of a ring. */
function blobOf(ring: readonly Point[]): Blob | null {
  let a = 0;
  let cx = 0;
  let cy = 0;
  const o = ring[0];
  for (let i = 0; i < ring.length; i++) {
    const p = ring[i];
    const q = ring[(i + 1) % ring.length];
    const c = (p.x - o.x) * (q.y - o.y) - (q.x - o.x) * (p.y - o.y);
    a += c;
    cx += (p.x - o.x + q.x - o.x) * c;
    cy += (p.y - o.y + q.y - o.y) * c;
  }
  if (Math.abs(a) < 1e-9) return null;
  cx /= 3 * a;
  cy /= 3 * a;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i < ring.length; i++) {
    const p = ring[i];
    const q = ring[(i + 1) % ring.length];
    const px = p.x - o.x - cx;
    const py = p.y - o.y - cy;
    const qx = q.x - o.x - cx;
    const qy = q.y - o.y - cy;
    const c = px * qy - qx * py;
    sxx += c * (py * py + py * qy + qy * qy);
    syy += c * (px * px + px * qx + qx * qx);
    sxy += c * (px * qy + 2 * px * py + 2 * qx * qy + qx * py);
  }
  // Ixx about x (spread in y), Iyy about y (spread in x); the long axis has the largest spread.
  // (Signed by the ring's orientation.)
  const sg = Math.sign(a);
  const ixx = (sg * sxx) / 12;
  const iyy = (sg * syy) / 12;
  const ixy = (sg * sxy) / 24;
  const th = 0.5 * Math.atan2(2 * ixy, iyy - ixx);
  return {
    at: { x: o.x + cx, y: o.y + cy },
    axis: { x: Math.cos(th), y: Math.sin(th) },
    area: Math.abs(a) / 2,
  };
}

/** The rectangle of half-width hw round the segment a-b. */
function strip(a: Point, b: Point, hw: number): Point[] {
  const L = dist(a, b);
  const nx = (-(b.y - a.y) / L) * hw;
  const ny = ((b.x - a.x) / L) * hw;
  return [
    { x: a.x + nx, y: a.y + ny },
    { x: a.x - nx, y: a.y - ny },
    { x: b.x - nx, y: b.y - ny },
    { x: b.x + nx, y: b.y + ny },
  ];
}
