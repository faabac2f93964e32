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
 * ends on the next loop, where the next track begins with the same heading. Where the shrinking area splits (a narrow neck), each part
 * goes on as a chain of its own; loops around obstacles (holes of the area)
 * are tracks of their own; a loop that cannot stay inside the area once its
 * corners are rounded is cut to the area, and its pieces are tracks. The
 * innermost area, too small for a loop of the turning radius, is missed and
 * reported as such by the statistics.
 */
import { offset, simplifyPolygons } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { filletRing } from '../geometry/fillet.ts';
import { signedArea } from '../geometry/polygon.ts';
import { dubinsPaths } from '../turn/dubins.ts';
import { samplePath } from '../turn/path.ts';
import type { Point, Polygon, Pose } from '../types/index.ts';
import type { Track, TrackSet } from './generate-tracks.ts';
import { clipPolyline, dist, dropDuplicates, nearestVertex, polyLength, tidyEnds } from './path-tracks.ts';

export interface SpiralTrackOptions {
  swathWidth: number;
  turningRadius: number;
  /** Where the outermost loop should begin (nearest vertex), e.g. the route's start. */
  start?: Point;
  minTrackLength?: number;
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
  const RF = R * 1.005;
  const minLen = opts.minTrackLength ?? Math.min(w, 3);
  const inside = new EdgeIndex(workable.flatMap((p) => [p.outer, ...p.holes]));
  const tracks: Track[] = [];
  const lineOffsets: number[] = [];
  let chains: Chain[] = [];
  const finished: Point[][] = [];
  const extras: Point[][] = [];
  // Length along a loop for the S-bend to the next loop, one swath in.
  const alpha = Math.acos(Math.max(-1, 1 - w / (2 * RF)));
  const lane = w <= 4 * RF ? 2 * RF * Math.sin(alpha) : 2 * RF;
  const tries = [lane * 1.1 + 1, lane * 1.5 + 2, lane * 2.5 + 4, 4 * RF + 2 * w];
  // Every loop is simplified within 5 cm before its corners are rounded, so
  // the area it shrinks need be no finer (the offsets cost far less).
  const base = simplifyPolygons(workable, 0.02);
  for (let k = 0; k < 100000; k++) {
    const d = (k + 0.5) * w;
    const region = offset(base, -d, 'round', 0.03);
    if (region.length === 0) break;
    lineOffsets.push(d);
    const next: Chain[] = [];
    for (const poly of region) {
      for (const [hi, ring] of [poly.outer, ...poly.holes].entries()) {
        const smooth = filletRing(ring, RF);
        if (!smooth) continue;
        // Outer loops run counter-clockwise, loops round obstacles clockwise.
        let loop = signedArea(smooth) > 0 === (hi === 0) ? smooth : smooth.slice().reverse();
        const pieces = clipPolyline(loop, true, workable);
        const whole = pieces.length === 1 && Math.abs(polyLength(pieces[0]) - ringLen(loop)) < 1e-3;
        if (!whole) {
          for (const p of pieces) extras.push(p);
          continue;
        }
        if (hi > 0) {
          extras.push([...loop, loop[0]]);
          continue;
        }
        // Carry on the chain of the loop one swath further out, when an S-bend joins them inside the area.
        let joined = false;
        for (const c of chains) {
          if (c.level !== k - 1 || joined) continue;
          const from = c.loop[c.entry];
          const [into, to] = vertexNear(loop, from);
          if (dist(into[to], from) > 1.5 * w + 0.5) continue;
          const bend = laneChange(c, into, to, tries, RF, inside);
          if (!bend) continue;
          loop = into;
          // Each loop is a track of its own, from where it is entered to the next loop;
          // the next track starts where this one ends, with the same heading.
          finished.push([...c.done, ...bend.before, ...bend.bend, loop[to]]);
          c.done = [];
          c.loop = loop;
          c.entry = to;
          c.level = k;
          next.push(c);
          chains = chains.filter((x) => x !== c);
          joined = true;
        }
        if (!joined) {
          const at = opts.start ? nearestVertex(loop, opts.start) : 0;
          next.push({ done: [], loop, entry: at, level: k });
        }
      }
    }
    // Chains no loop carried on end with a whole loop.
    for (const c of chains) finished.push(closeChain(c));
    chains = next;
  }
  for (const c of chains) finished.push(closeChain(c));
  let line = 0;
  for (const raw of [...finished, ...extras]) {
    const p = tidyEnds(dropDuplicates(raw));
    if (p.length < 2 || polyLength(p) < minLen) continue;
    tracks.push({ a: p[0], b: p[p.length - 1], line, seg: 0, path: p, along: [0, 0] });
    line += 2;
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
  const target: Pose = {
    x: loop[to].x,
    y: loop[to].y,
    heading: Math.atan2(loop[(to + 1) % m].y - loop[to].y, loop[(to + 1) % m].x - loop[to].x),
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
    const from: Pose = { x: at.x, y: at.y, heading: Math.atan2(at.y - prev.y, at.x - prev.x) };
    for (const path of dubinsPaths(from, target, r).slice(0, 2)) {
      if (path.segments.some((s) => s.reverse) || path.length > L + 3 * r) continue;
      const pts = samplePath(from, path, r).flatMap((pc, k) => (k === 0 ? pc.points : pc.points.slice(1)));
      if (pts.length < 2 || inside.polylineCrosses(pts)) continue;
      if (dist(pts[pts.length - 1], loop[to]) > 1e-6) continue;
      const before: Point[] = [];
      for (let k = c.entry; ; k = (k + 1) % n) {
        before.push(c.loop[k]);
        if (k === leave) break;
      }
      if (cut) before.push(cut);
      if (polyLength(before) < total / 2) continue;
      return { before, bend: pts.slice(1, -1) };
    }
  }
  return null;
}

/** Segments longer than this [m] are straight stretches (arcs are sampled at most 1 m apart). */
const STRAIGHT = 1.5;

/**
 * The vertex of a loop nearest to q; on a straight stretch, the point of it
 * nearest to q, inserted as a vertex. Returns the loop and the index.
 */
function vertexNear(loop: Point[], q: Point): [Point[], number] {
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
    const d = Math.hypot(a.x + t * dx - q.x, a.y + t * dy - q.y);
    if (d < bd) {
      bd = d;
      bi = i;
      bt = t;
    }
  }
  const a = loop[bi];
  const b = loop[(bi + 1) % n];
  const seg = dist(a, b);
  if (seg > STRAIGHT && bt * seg > 0.5 && (1 - bt) * seg > 0.5) {
    const p = { x: a.x + (b.x - a.x) * bt, y: a.y + (b.y - a.y) * bt };
    return [[...loop.slice(0, bi + 1), p, ...loop.slice(bi + 1)], bi + 1];
  }
  return [loop, bt < 0.5 ? bi : (bi + 1) % n];
}

function ringLen(ring: readonly Point[]): number {
  let s = 0;
  for (let i = 0; i < ring.length; i++) s += dist(ring[i], ring[(i + 1) % ring.length]);
  return s;
}
