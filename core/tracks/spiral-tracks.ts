/**
 * Spiral tracks: the workable area worked from its edge inwards, one loop
 * per swath, each loop passing into the next by a lane change.
 *
 *   +--------------------+      loop k: the edge of the area shrunk by
 *   | +----------------+ |      (k + 1/2) w, its corners rounded to the
 *   | | +------------+ | |      turning radius (filletRing);
 *   | | |  ...       | | |      loop k ends a lane change short of where
 *   | | +------------+ | |      it began and an S-bend (the shortest
 *   | +----------------/ |      Dubins path) takes the machine one swath
 *   +-------------------/        inwards onto loop k + 1.
 *
 * Each loop is one track (one GuidanceTrack, driven by one RouteTrack) that
 * ends on the next loop, where the next track begins with the same heading
 * (the last three points of the track lie on the straight, so the route
 * drives on without a turn). Where the shrinking area splits (a narrow
 * neck), each part goes on as a chain of its own. The loops of a part end
 * where its edge meets an obstacle (a loop winding round it would leave
 * pockets on both sides) or no loop of the turning radius stays whole in
 * it; what the loops leave (the middle, beside necks, round obstacles) is
 * worked by straight tracks (spiral-middle.ts), driven after the loops.
 *
 * Every loop rounds its corners to the turning radius r, the least it can.
 * A loop rounding a convex corner that turns by phi is shorter than the
 * sharp corner by r (2 tan(phi/2) - phi) (2.6 m at 90 degrees and r = 6 m),
 * and a swath of ground that long goes unworked: the crescent between it
 * and the loop one swath further out (on the bisector loops lie w /
 * sin(a/2) apart, a the corner's angle; 8.5 m at 90 degrees and w = 6 m).
 * Concentric corners (each loop's corners one swath rounder than the next
 * loop's inside it, so loops stay a swath apart round the corners too) do
 * not avoid it: the shortfall only moves outwards and grows with the radius,
 * one pocket per corner outside the outermost loop whose area grows with the
 * square of the number of loops. Measured on every 20th field of the
 * benchmark selection (40 fields, S1): covered median 97.9 -> 97.1 %,
 * overlap median 3.9 -> 10.1 % (the pockets' straight tracks), with one
 * swath rounder per loop capped at one or two swaths 97.5 and 97.0 %. The
 * crescents are the cheapest way to lose that ground; gap tracks
 * (spiral-gaps.ts) work rows of them.
 */
import { offset, simplifyPolygons } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { filletRing } from '../geometry/fillet.ts';
import { distToRing, pointInPolygon, signedArea } from '../geometry/polygon.ts';
import { endTangent, startTangent } from '../geometry/tangent.ts';
import { hypot, polylineLength } from '../geometry/vec.ts';
import { dubinsPaths } from '../turn/dubins.ts';
import { samplePath, TRACK_ARC_STEP } from '../turn/path.ts';
import type { Point, Polygon, Pose } from '../types/index.ts';
import type { Track, TrackSet } from './generate-tracks.ts';
import { clipPolyline, dist, dropDuplicates } from './path-tracks.ts';
import { gapTracks } from './spiral-gaps.ts';
import { type LoopRing, middleTracks } from './spiral-middle.ts';

export interface SpiralTrackOptions {
  swathWidth: number;
  turningRadius: number;
  /** Where the outermost loop should begin (nearest vertex), e.g. the route's start. */
  start?: Point;
  minTrackLength?: number;
  /** Work the middle no loop fits into with straight tracks (default true). */
  fillCentre?: boolean;
}

interface Chain {
  /** Everything driven before the current loop. */
  done: Point[];
  /** The current loop (closed, no repeated vertex), in driving direction. */
  loop: Point[];
  /** Index in `loop` where the chain entered it. */
  entry: number;
  /** Last level that extended the chain. */
  level: number;
}

export function generateSpiralTracks(workable: readonly Polygon[], opts: SpiralTrackOptions): TrackSet {
  const w = opts.swathWidth;
  const R = opts.turningRadius;
  // Two per cent above the turning radius: three-point curvature of sampled arcs and clipped
  // ends scatters by about a per cent, and the plan checker allows one.
  const RF = R * 1.02;
  const minLen = opts.minTrackLength ?? Math.min(w, 3);
  const inside = new EdgeIndex(workable.flatMap((p) => [p.outer, ...p.holes]));
  const tracks: Track[] = [];
  const lineOffsets: number[] = [];
  let chains: Chain[] = [];
  const chainTracks: Point[][] = [];
  // Length along a loop for the S-bend to the next loop, one swath in.
  const alpha = Math.acos(Math.max(-1, 1 - w / (2 * RF)));
  const lane = w <= 4 * RF ? 2 * RF * Math.sin(alpha) : 2 * RF;
  const tries = [lane * 1.1 + 1, lane * 1.5 + 2, lane * 2.5 + 4, 4 * RF + 2 * w];
  // Every loop is simplified within 5 cm before its corners are rounded, so
  // the area it shrinks need be no finer (the offsets cost far less).
  const base = simplifyPolygons(workable, 0.02);
  /** The parts of the previous level that were looped: only inside them does the spiral go on. */
  let looped: Polygon[] | null = null;
  /** Every loop's ring, with the index of the loop one swath further out that it lies in. */
  const rings: LoopRing[] = [];
  let prevRings: number[] = [];
  for (let k = 0; k < 100000; k++) {
    const d = (k + 0.5) * w;
    const shrunk = offset(base, -d, 'round', 0.03);
    const prev = looped;
    // The previous level's looped parts without their obstacles, one swath in: where a
    // part's edge differs from this, an obstacle reached it.
    const withHoles = prev?.filter((p) => p.holes.length) ?? [];
    const plain = withHoles.length
      ? offset(
          withHoles.map((p) => ({ outer: p.outer, holes: [] })),
          -w,
          'round',
          0.03,
        )
      : [];
    const region = (
      prev
        ? shrunk.filter((p) => prev.some((q) => pointInPolygon(p.outer[0], { outer: q.outer, holes: [] })))
        : shrunk
    ).filter((p) =>
      p.holes.length === 0 && !withHoles.length ? true : !reachesObstacle(p, plain, withHoles),
    );
    if (region.length === 0) break;
    lineOffsets.push(d);
    const next: Chain[] = [];
    looped = [];
    const ringsHere: number[] = [];
    const keep = Math.max(KEEP * w, RF - d);
    for (const [poly, smooth] of region.flatMap((p) => loopsOf(p, RF, workable, keep, STRAY_RUN * w))) {
      let loop = smooth;
      looped.push(poly);
      const at = poly.outer[0];
      const parent = prevRings.find((i) => pointInPolygon(at, { outer: rings[i].ring, holes: [] })) ?? -1;
      ringsHere.push(rings.length);
      rings.push({ ring: smooth, parent });
      // Carry on the chain of the loop one swath further out, when an S-bend joins them inside the area.
      let joined = false;
      for (const c of chains) {
        if (c.level !== k - 1 || joined) continue;
        const from = c.loop[c.entry];
        const near = straightNear(loop, from, 3 * RF + 2 * w);
        if (!near) continue;
        const [into, to] = near;
        if (dist(into[to], from) > 3 * RF + 2 * w) continue;
        const bend = laneChange(c, into, to, tries, RF, inside);
        if (!bend) continue;
        // Each loop is a track of its own, from where it is entered to the next loop.
        // It ends halfway along the next loop's first edge and the next track starts
        // there: one straight line through the junction, so both meet with the same heading.
        const n1 = into.length;
        const q = into[(to + 1) % n1];
        // Half a metre along the straight the bend lands on.
        const f = 0.5 / dist(into[to], q);
        const mid = { x: into[to].x + (q.x - into[to].x) * f, y: into[to].y + (q.y - into[to].y) * f };
        loop = [...into.slice(0, to + 1), mid, ...into.slice(to + 1)];
        // The last three points on the straight: the heading at the end is the straight's exactly.
        const quarter = { x: (into[to].x + mid.x) / 2, y: (into[to].y + mid.y) / 2 };
        chainTracks.push([...c.done, ...bend.before, ...bend.bend, loop[to], quarter, mid]);
        c.done = [];
        c.loop = loop;
        c.entry = to + 1;
        c.level = k;
        next.push(c);
        chains = chains.filter((x) => x !== c);
        joined = true;
      }
      if (!joined) {
        // A chain begins on a straight stretch (at a sharp corner the next loop is far off).
        const [opened, at] = straightEntry(loop, opts.start, 2 * lane + 2 * w);
        next.push({ done: [], loop: opened, entry: at, level: k });
      }
    }
    // Chains no loop carried on end with a whole loop.
    for (const c of chains) chainTracks.push(closeChain(c));
    chains = next;
    prevRings = ringsHere;
    if (looped.length === 0) break;
  }
  for (const c of chains) chainTracks.push(closeChain(c));
  let line = 0;
  // Loops and lane changes are exact arcs and lines: kept as they are.
  const loops: Point[][] = [];
  for (const raw of chainTracks) {
    const p = dropDuplicates(raw);
    if (p.length < 2 || polylineLength(p) < minLen) continue;
    loops.push(p);
    tracks.push({ a: p[0], b: p[p.length - 1], line, seg: 0, path: p, along: [0, 0] });
    line += 2;
  }
  // What the loops leave (the middle no loop of the turning radius goes round,
  // the parts beside a neck where the area split, the inside of a loop cut
  // short, the ground round obstacles) is worked with straight tracks along
  // each piece's long axis, driven after the loops.
  if (tracks.length && opts.fillCentre !== false) {
    for (const t of middleTracks(workable, rings, w, R, line + 2)) tracks.push(t);
    const top = tracks.reduce((m, t) => Math.max(m, t.line), 0);
    for (const t of gapTracks(workable, tracks, w, R, top + 3)) tracks.push(t);
  }
  const first = tracks[0]?.path ?? [workable[0]?.outer[0] ?? { x: 0, y: 0 }, { x: 1, y: 0 }];
  const h = Math.atan2(first[1].y - first[0].y, first[1].x - first[0].x);
  const heading = ((h % Math.PI) + Math.PI) % Math.PI;
  return {
    heading,
    bearingDeg: (((90 - (heading * 180) / Math.PI) % 180) + 180) % 180,
    swathWidth: w,
    lineOffsets,
    tracks,
    abLine: [first[0], first[1]],
  };
}

/**
 * Whether a part of the shrinking area has met an obstacle: its outer edge is
 * no longer the edge of the area without obstacles shrunk as far (a loop
 * there would wind round the obstacle and leave pockets on both sides; the
 * part is worked as a middle, with straight tracks).
 */
function reachesObstacle(part: Polygon, plain: readonly Polygon[], parents: readonly Polygon[]): boolean {
  // Inside a part that had no obstacles, none can be reached.
  if (!parents.some((q) => pointInPolygon(part.outer[0], { outer: q.outer, holes: [] }))) return false;
  const a = Math.abs(signedArea(part.outer));
  const at = part.outer[0];
  // The same edge: as large, and through the same point (the vertex lies on it, not inside).
  return !plain.some(
    (q) =>
      Math.abs(Math.abs(signedArea(q.outer)) - a) <= Math.max(1, 1e-4 * a) && distToRing(at, q.outer) < 0.1,
  );
}

/**
 * The loops round a part of the shrinking area: its outer edge with the
 * corners rounded to radius r, counter-clockwise; obstacles inside it
 * (their headland passes driven) are left to the middle's straight tracks.
 * Where that loop cannot stay inside the workable area (a neck narrower
 * than the turning circle, corners too close together), the loops of the
 * part's pieces a circle of radius r rolls round instead; none where the
 * part is too small for a loop of radius r (it is the middle). A loop that
 * strays more than `keep` outside the part (into the loops further out) for
 * longer than `strayRun` is no loop.
 */
function loopsOf(
  poly: Polygon,
  r: number,
  workable: readonly Polygon[],
  keep: number,
  strayRun: number,
): [Polygon, Point[]][] {
  const whole = (p: Polygon): Point[] | null => {
    const smooth = filletRing(p.outer, r, { maxAngle: TRACK_ARC_STEP });
    if (!smooth) return null;
    const loop = signedArea(smooth) > 0 ? smooth : smooth.slice().reverse();
    const len = ringLen(loop);
    const pieces = clipPolyline(loop, true, workable);
    if (pieces.length !== 1 || Math.abs(polylineLength(pieces[0]) - len) >= 1e-3) return null;
    // Nor may it cut across the area further out, where the loops outside it run (corners
    // merged or dropped where they crowd turn a bend of the edge into a chord): it keeps
    // within `keep` of the part's edge, checked every metre, but for stretches no longer than
    // strayRun (a short hook across the root of a thin arm that was dropped).
    const edge = new EdgeIndex([p.outer]);
    const n = loop.length;
    let run = 0;
    for (let i = 0; i < n; i++) {
      const a = loop[i];
      const b = loop[(i + 1) % n];
      const steps = Math.ceil(dist(a, b));
      for (let k = 0; k < steps; k++) {
        const q = { x: a.x + ((b.x - a.x) * k) / steps, y: a.y + ((b.y - a.y) * k) / steps };
        if (edge.contains(q) || edge.clearance(q, keep) <= keep) run = 0;
        else {
          run += dist(a, b) / steps;
          if (run > strayRun) return null;
        }
      }
    }
    return loop;
  };
  const direct = whole(poly);
  if (direct) return [[poly, direct]];
  const out: [Polygon, Point[]][] = [];
  for (const p of offset(offset([poly], -r, 'round', 0.03), r, 'round', 0.03)) {
    const loop = whole(p);
    if (loop) out.push([p, loop]);
  }
  return out;
}

/** The loop from its entry all the way round back to the entry. */
function closeChain(c: Chain): Point[] {
  const n = c.loop.length;
  const out = c.done.slice();
  for (let i = 0; i <= n; i++) out.push(c.loop[(c.entry + i) % n]);
  return out;
}

/**
 * Leave the chain's loop a lane change before its entry and join `loop` at
 * vertex `to` by the shortest forward path of radius r that stays inside.
 * Returns the stretch of the old loop driven and the bend's inner samples.
 */
function laneChange(
  c: Chain,
  loop: readonly Point[],
  to: number,
  tries: readonly number[],
  r: number,
  inside: EdgeIndex,
): { before: Point[]; bend: Point[] } | null {
  const n = c.loop.length;
  const total = ringLen(c.loop);
  const m = loop.length;
  // Headings along the loops' curves (their arcs' tangents, not their chords').
  const target: Pose = {
    x: loop[to].x,
    y: loop[to].y,
    heading: startTangent([loop[to], loop[(to + 1) % m], loop[(to + 2) % m]]),
  };
  for (const L of tries) {
    if (L > total / 2) break;
    // Walk back from the entry by L to the leaving point: a vertex, or a
    // point on a straight stretch (a chord of an arc is never cut).
    let back = 0;
    let i = c.entry;
    let cut: Point | null = null;
    while (back < L) {
      const j = (i - 1 + n) % n;
      const seg = dist(c.loop[j], c.loop[i]);
      if (back + seg > L && seg > STRAIGHT) {
        const t = (L - back) / seg;
        if (t > 0.5 / seg && t < 1 - 0.5 / seg) {
          cut = {
            x: c.loop[i].x + (c.loop[j].x - c.loop[i].x) * t,
            y: c.loop[i].y + (c.loop[j].y - c.loop[i].y) * t,
          };
          i = j;
          break;
        }
      }
      back += seg;
      i = j;
    }
    const leave = i;
    const at = cut ?? c.loop[leave];
    const prev = cut ? c.loop[leave] : c.loop[(leave - 1 + n) % n];
    const from: Pose = {
      x: at.x,
      y: at.y,
      heading: cut
        ? Math.atan2(at.y - prev.y, at.x - prev.x)
        : endTangent([c.loop[(leave - 2 + n) % n], prev, at]),
    };
    for (const path of dubinsPaths(from, target, r).slice(0, 2)) {
      if (path.segments.some((s) => s.reverse) || path.length > L + 3 * r) continue;
      const pts = samplePath(from, path, r, { maxAngleRad: TRACK_ARC_STEP }).flatMap((pc, k) =>
        k === 0 ? pc.points : pc.points.slice(1),
      );
      if (pts.length < 2 || inside.polylineCrosses(pts)) continue;
      if (dist(pts[pts.length - 1], loop[to]) > 1e-6) continue;
      const before: Point[] = [];
      for (let k = c.entry; ; k = (k + 1) % n) {
        before.push(c.loop[k]);
        if (k === leave) break;
      }
      if (cut) before.push(cut);
      if (polylineLength(before) < total / 2) continue;
      return { before, bend: pts.slice(1, -1) };
    }
  }
  return null;
}

/**
 * Where a chain enters a loop: the middle of the straight stretch at least
 * `long` metres long nearest to `near` (else of the longest one), inserted
 * as a vertex.
 */
function straightEntry(loop: Point[], near: Point | undefined, long: number): [Point[], number] {
  const n = loop.length;
  let best = -1;
  let bestScore = Number.POSITIVE_INFINITY;
  let longest = 0;
  for (let i = 0; i < n; i++) {
    const a = loop[i];
    const b = loop[(i + 1) % n];
    const l = dist(a, b);
    if (l > dist(loop[longest], loop[(longest + 1) % n])) longest = i;
    if (l < long) continue;
    const m = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    const score = near ? dist(m, near) : -l;
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  }
  const i = best >= 0 ? best : longest;
  const a = loop[i];
  const b = loop[(i + 1) % n];
  if (dist(a, b) <= STRAIGHT) return [loop, i];
  const m = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  return [[...loop.slice(0, i + 1), m, ...loop.slice(i + 1)], i + 1];
}

/**
 * How far a loop may stray outside its part of the shrunk area [swaths]:
 * less than a swath, so it never reaches the line of the loop one swath
 * further out (a little way out, rounding a crowded bend, it still works
 * ground no other loop does). The first loop, whose part's reflex corners
 * are rounded to half a swath, also as far as rounding them to the turning
 * radius moves it out.
 */
const KEEP = 0.75;

/** How long a loop may run further out than that [swaths] (a short hook where a thin arm was dropped). */
const STRAY_RUN = 4;

/** Segments longer than this [m] are straight stretches (arcs are sampled at most 1 m apart). */
const STRAIGHT = 1.5;

/**
 * Where the lane change from the previous loop lands: the point of this loop
 * nearest to q when that lies on a straight stretch, else the start of the
 * next straight stretch ahead (within maxWalk metres), so the junction with
 * the next track lies on a straight line; inserted as a vertex. Null when no
 * straight stretch is near.
 */
function straightNear(loop: Point[], q: Point, maxWalk: number): [Point[], number] | null {
  const n = loop.length;
  let bi = 0;
  let bt = 0;
  let bd = Number.POSITIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const a = loop[i];
    const b = loop[(i + 1) % n];
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const l2 = dx * dx + dy * dy;
    const t = l2 > 0 ? Math.max(0, Math.min(1, ((q.x - a.x) * dx + (q.y - a.y) * dy) / l2)) : 0;
    const d = hypot(a.x + t * dx - q.x, a.y + t * dy - q.y);
    if (d < bd) {
      bd = d;
      bi = i;
      bt = t;
    }
  }
  let i = bi;
  let walked = 0;
  for (let k = 0; k < n; k++) {
    const a = loop[i];
    const b = loop[(i + 1) % n];
    const seg = dist(a, b);
    // A straight with room for the junction (a point half a metre along it, and more after).
    const at = k === 0 ? bt * seg : 0;
    if (seg > STRAIGHT && seg - at > 1.5) {
      if (at < 1e-6) return [loop, i];
      const p = { x: a.x + (b.x - a.x) * bt, y: a.y + (b.y - a.y) * bt };
      return [[...loop.slice(0, i + 1), p, ...loop.slice(i + 1)], i + 1];
    }
    walked += seg - at;
    if (walked > maxWalk) return null;
    i = (i + 1) % n;
  }
  return null;
}

function ringLen(ring: readonly Point[]): number {
  let s = 0;
  for (let i = 0; i < ring.length; i++) s += dist(ring[i], ring[(i + 1) % ring.length]);
  return s;
}
