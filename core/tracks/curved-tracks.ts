/**
 * Curved tracks: lines at (k + 1/2) swaths from a reference curve, like the
 * contour passes a driver makes along a curved field edge.
 *
 *   reference  ~~~~~~~~~~~~~~~~~~~~~~~~~     (a smooth run of the boundary)
 *   track 0     ~~~~~~~~~~~~~~~~~~~~~~~      w/2 from it
 *   track 1      ~~~~~~~~~~~~~~~~~~~~~       3w/2 from it ...
 *
 * Track k is the level set {p : distance(p, reference) = (k + 1/2) w}: the
 * boundary of the reference's round-jointed buffer. Level sets never cross
 * and tile the plane in strips one swath wide, however the reference bends;
 * their only defect is on the inside of a bend tighter than the distance,
 * where they come to a corner (the swallowtail of a plain offset is already
 * cut off). Every level set is therefore made drivable (straight segments
 * and arcs of at least the turning radius, filletRing) and then cut to the
 * workable area. Inside a tight bend the rounded track leaves a sliver
 * between itself and its neighbour: that area shows as missed, never as a
 * track the machine cannot follow.
 *
 * The reference is given (a line in the request) or found: the longest run
 * of the workable area's boundary without a corner sharper than 40 degrees.
 * It is smoothed as curvedOptions ask (Chaikin corner cutting of the vertices
 * that turn by at least minAngleToSmooth) and extended straight at both ends
 * beyond the area, so every level set crosses the area from side to side.
 */
import { Clipper } from 'clipper2-ts';
import { difference, offset, simplifyPolygons } from '../geometry/clip.ts';
import { multiPolygonArea, polygonsBBox } from '../geometry/polygon.ts';
import { hypot, polylineLength } from '../geometry/vec.ts';
import { type CurvedOptions, PlanningError, type Point, type Polygon } from '../types/index.ts';
import { normalizeHeading, type Track, type TrackSet, trackSetOf } from './generate-tracks.ts';
import { arcParam, bufferLine, clipPolyline, dist, filletOpen, tidyEnds } from './path-tracks.ts';

export interface CurvedTrackOptions {
  swathWidth: number;
  /** The machine's minimum turning radius [m]: no track bends tighter. */
  turningRadius: number;
  /** Reference line in the metric frame; default the longest smooth run of the area's boundary. */
  reference?: readonly Point[];
  curved?: CurvedOptions;
  /** Pieces shorter than this are dropped [m]. */
  minTrackLength?: number;
}

export interface CurvedTrackSet extends TrackSet {
  /** The smoothed reference curve the tracks follow. */
  reference: Point[];
}

/** A boundary vertex turning more than this ends a smooth run [rad]. */
const RUN_BREAK = (40 * Math.PI) / 180;
/** Simplification of the boundary before runs are found [m]. */
const RUN_TOLERANCE = 0.5;

export function generateCurvedTracks(workable: readonly Polygon[], opts: CurvedTrackOptions): CurvedTrackSet {
  const w = opts.swathWidth;
  // Two per cent above the turning radius: three-point curvature of sampled arcs and clipped
  // ends scatters by about a per cent, and the plan checker allows one.
  const RF = opts.turningRadius * 1.02;
  const minLen = opts.minTrackLength ?? Math.min(w, 3);
  const curved = resolveCurvedOptions(opts.curved);
  const raw = opts.reference ? dedupe(opts.reference.slice()) : longestSmoothRun(workable);
  if (raw.length < 2 || polylineLength(raw) < 1e-3) {
    throw new PlanningError(
      'INVALID_OPTION',
      'The reference line of curved tracks needs two distinct points.',
      {
        path: 'referenceLine',
      },
    );
  }
  const reference = smoothLine(raw, curved);
  const { minX: x0, minY: y0, maxX: x1, maxY: y1 } = polygonsBBox(workable);
  const diag = hypot(x1 - x0, y1 - y0);
  const extended = extendLine(reference, diag + w + 1);
  const m = 4 * RF + 2 * w;
  const window: Polygon[] = [
    {
      outer: [
        { x: x0 - m, y: y0 - m },
        { x: x1 + m, y: y0 - m },
        { x: x1 + m, y: y1 + m },
        { x: x0 - m, y: y1 + m },
      ],
      holes: [],
    },
  ];
  const heading = normalizeHeading(
    Math.atan2(
      reference[reference.length - 1].y - reference[0].y,
      reference[reference.length - 1].x - reference[0].x,
    ),
  );
  const tracks: Track[] = [];
  const lineOffsets: number[] = [];
  const maxLevels = Math.ceil((2 * diag) / w) + 2;
  // The buffer at (k + 1/2) w, grown by one swath per level: the buffer of a
  // buffer is the buffer at the summed distance (Minkowski sums add), and
  // growing the last one by w costs far less than buffering the line anew
  // (simplified within 1 cm first, so arcs do not pile up vertices).
  let buffer: Polygon[] = [];
  for (let k = 0; k < maxLevels; k++) {
    const d = (k + 0.5) * w;
    buffer = k === 0 ? bufferLine(extended, d) : offset(simplifyPolygons(buffer, 0.01), w, 'round', 0.02);
    const rings = buffer.flatMap((p) => [p.outer, ...p.holes]);
    const found: Track[] = [];
    // Each level set is cut to a window round the area first (its far ends
    // may be narrower than a turn), then made drivable, then cut to the area.
    const near = rings.flatMap((ring) => clipPolyline(ring, true, window));
    for (const line of near) {
      const smooth = filletOpen(line, RF);
      if (smooth.length < 2) continue;
      for (const piece of clipPolyline(smooth, false, workable)) {
        let p = tidyEnds(piece, opts.turningRadius);
        if (p.length < 2 || polylineLength(p) < minLen) continue;
        let s0 = arcParam(extended, p[0]);
        let s1 = arcParam(extended, p[p.length - 1]);
        if (s1 < s0) {
          p = p.slice().reverse();
          [s0, s1] = [s1, s0];
        }
        found.push({ a: p[0], b: p[p.length - 1], line: k, seg: 0, path: p, along: [s0, s1] });
      }
    }
    lineOffsets.push(d);
    if (found.length === 0) {
      // Nothing at this distance: done when the buffer covers the whole area.
      if (multiPolygonArea(difference(workable, buffer)) < 0.5) break;
      continue;
    }
    found.sort((a, b) => (a.along as [number, number])[0] - (b.along as [number, number])[0]);
    found.forEach((t, i) => {
      t.seg = i;
      tracks.push(t);
    });
  }
  return {
    ...trackSetOf(heading, w, lineOffsets, tracks, [reference[0], reference[reference.length - 1]]),
    reference,
  };
}

export function resolveCurvedOptions(o: CurvedOptions | undefined): Required<CurvedOptions> {
  const level = o?.levelOfSmoothing ?? 0.25;
  const iterations = o?.smoothingIterations ?? 3;
  const minAngle = o?.minAngleToSmooth ?? 5;
  if (!Number.isFinite(level) || level < 0 || level > 0.5) {
    throw new PlanningError(
      'INVALID_OPTION',
      `curvedOptions.levelOfSmoothing must be a number from 0 to 0.5 (the share of each edge a smoothed corner cuts); found ${level}.`,
      { path: 'curvedOptions.levelOfSmoothing' },
    );
  }
  if (!Number.isInteger(iterations) || iterations < 0 || iterations > 10) {
    throw new PlanningError(
      'INVALID_OPTION',
      `curvedOptions.smoothingIterations must be a whole number from 0 to 10; found ${iterations}.`,
      { path: 'curvedOptions.smoothingIterations' },
    );
  }
  if (!Number.isFinite(minAngle) || minAngle < 0 || minAngle > 180) {
    throw new PlanningError(
      'INVALID_OPTION',
      `curvedOptions.minAngleToSmooth must be an angle from 0 to 180 degrees; found ${minAngle}.`,
      { path: 'curvedOptions.minAngleToSmooth' },
    );
  }
  return { levelOfSmoothing: level, smoothingIterations: iterations, minAngleToSmooth: minAngle };
}

/**
 * The longest run of the area's outer boundary (every part) whose vertices
 * turn by at most RUN_BREAK, after simplification within RUN_TOLERANCE.
 */
export function longestSmoothRun(area: readonly Polygon[]): Point[] {
  return smoothRuns(area)[0] ?? [];
}

/** The smooth runs of the area's outer boundaries, longest first. */
export function smoothRuns(area: readonly Polygon[]): Point[][] {
  const runs: { run: Point[]; len: number }[] = [];
  for (const poly of area) {
    const ring = dedupe(
      Clipper.simplifyPathD(poly.outer as Point[], RUN_TOLERANCE, true).map((p) => ({ x: p.x, y: p.y })),
    );
    const n = ring.length;
    if (n < 3) continue;
    const turn = ring.map((_, i) => Math.abs(turnAt(ring[(i - 1 + n) % n], ring[i], ring[(i + 1) % n])));
    let breaks = turn.map((t, i) => (t > RUN_BREAK ? i : -1)).filter((i) => i >= 0);
    if (breaks.length === 0) {
      // A smooth loop: open it at its sharpest vertex.
      breaks = [turn.indexOf(Math.max(...turn))];
    }
    for (let b = 0; b < breaks.length; b++) {
      const from = breaks[b];
      const to = breaks[(b + 1) % breaks.length];
      const run: Point[] = [ring[from]];
      let i = from;
      do {
        i = (i + 1) % n;
        run.push(ring[i]);
      } while (i !== to);
      runs.push({ run, len: polylineLength(run) });
    }
  }
  return runs.sort((a, b) => b.len - a.len).map((r) => r.run);
}

/** Chaikin corner cutting of the interior vertices that turn by at least minAngleToSmooth. */
export function smoothLine(line: readonly Point[], o: Required<CurvedOptions>): Point[] {
  let pts = dedupe(line.slice());
  const r = o.levelOfSmoothing;
  if (r <= 0) return pts;
  const minTurn = (o.minAngleToSmooth * Math.PI) / 180;
  for (let it = 0; it < o.smoothingIterations; it++) {
    const out: Point[] = [pts[0]];
    let changed = false;
    for (let i = 1; i < pts.length - 1; i++) {
      const a = pts[i - 1];
      const b = pts[i];
      const c = pts[i + 1];
      if (Math.abs(turnAt(a, b, c)) < minTurn || Math.abs(turnAt(a, b, c)) < 1e-9) {
        out.push(b);
        continue;
      }
      changed = true;
      out.push({ x: b.x + (a.x - b.x) * r, y: b.y + (a.y - b.y) * r });
      out.push({ x: b.x + (c.x - b.x) * r, y: b.y + (c.y - b.y) * r });
    }
    out.push(pts[pts.length - 1]);
    pts = dedupe(out);
    if (!changed) break;
  }
  return pts;
}

/** The line with straight extensions of length ext along its end directions. */
function extendLine(line: readonly Point[], ext: number): Point[] {
  const n = line.length;
  const a = line[0];
  const a1 = line[1];
  const b = line[n - 1];
  const b1 = line[n - 2];
  const la = dist(a, a1) || 1;
  const lb = dist(b, b1) || 1;
  return [
    { x: a.x + ((a.x - a1.x) / la) * ext, y: a.y + ((a.y - a1.y) / la) * ext },
    ...line,
    { x: b.x + ((b.x - b1.x) / lb) * ext, y: b.y + ((b.y - b1.y) / lb) * ext },
  ];
}

function turnAt(a: Point, b: Point, c: Point): number {
  let d = Math.atan2(c.y - b.y, c.x - b.x) - Math.atan2(b.y - a.y, b.x - a.x);
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d < -Math.PI) d += 2 * Math.PI;
  return d;
}

function dedupe(pts: Point[]): Point[] {
  const out: Point[] = [];
  for (const p of pts) {
    const last = out[out.length - 1];
    if (!last || dist(last, p) > 1e-6) out.push(p);
  }
  return out;
}
