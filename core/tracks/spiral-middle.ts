/**
 * What a spiral leaves to straight tracks, and the order a spiral is driven
 * in: the loops outside in, then the middle.
 */
import { difference, intersection, offset } from '../geometry/clip.ts';
import { polygonArea } from '../geometry/polygon.ts';
import { endTangent } from '../geometry/tangent.ts';
import { dubinsShortestLength } from '../turn/dubins.ts';
import type { Point, Polygon, Pose } from '../types/index.ts';
import { generateTracks, type Track, type TrackSet } from './generate-tracks.ts';
import { dist } from './path-tracks.ts';

export interface LoopRing {
  ring: Point[];
  /** The loop one swath further out this one lies in (-1: none). */
  parent: number;
}

/**
 * Straight tracks over what the loops leave unworked: outside the outermost
 * loops' swaths, and inside each loop's swath what its inner loops' swaths
 * do not reach (the whole inside of the last loop; beside a neck, the part
 * no loop went on into). Each piece of at least four square swaths is
 * opened by a quarter swath (the crescents rounded corners leave between
 * loops and the wedges beside lane changes are thinner and go) and worked
 * along its own long axis. Tracks shorter than a turn's width are not worth
 * their turns. Loop by loop, the clipper works on few edges at a time.
 */
export function middleTracks(
  workable: readonly Polygon[],
  rings: readonly LoopRing[],
  w: number,
  R: number,
  firstLine: number,
): Track[] {
  const grown = (ids: number[]) =>
    offset(
      ids.map((i) => ({ outer: rings[i].ring, holes: [] })),
      w / 2,
      'round',
      0.05,
    );
  const kids = new Map<number, number[]>();
  rings.forEach((r, i) => {
    kids.set(r.parent, [...(kids.get(r.parent) ?? []), i]);
  });
  // Crescents lie between loops: inside the innermost loop a thinner middle strip is still worth a track.
  const left: [Polygon[], number][] = [[difference(workable, grown(kids.get(-1) ?? [])), w / 4]];
  rings.forEach((r, i) => {
    const inner = offset([{ outer: r.ring, holes: [] }], -w / 2, 'round', 0.05);
    const ids = kids.get(i) ?? [];
    left.push(ids.length ? [difference(inner, grown(ids)), w / 4] : [inner, w / 8]);
  });
  const opened: Polygon[] = [];
  for (const [l, o] of left) {
    if (l.reduce((a, p) => a + polygonArea(p), 0) < 4 * w * w) continue;
    const near = intersection(l, workable);
    for (const p of intersection(offset(offset(near, -o, 'round', 0.05), o, 'round', 0.05), workable))
      opened.push(p);
  }
  const out: Track[] = [];
  let base = firstLine;
  for (const piece of opened) {
    if (polygonArea(piece) < 4 * w * w) continue;
    base = pieceTracks(piece, w, base, (a, b) => dist(a, b) >= Math.max(w, R), out);
  }
  return out;
}

/**
 * The order a spiral is driven in: the loops as generated (each chain from
 * the outside in, every loop forwards into the next), then the straight
 * tracks of the middle, each next the one whose start the shortest forward
 * turn of radius r reaches from where the previous one ended (a U-turn to
 * the line but one rather than a bulb to the next line).
 */
export function spiralOrder(set: TrackSet, r: number): { track: number; forward: boolean }[] {
  const out: { track: number; forward: boolean }[] = [];
  const middle: number[] = [];
  let at: Pose | null = null;
  set.tracks.forEach((t, i) => {
    const p = t.path;
    if (!p || p.length <= 2) middle.push(i);
    else {
      out.push({ track: i, forward: true });
      at = { x: t.b.x, y: t.b.y, heading: endTangent(p) };
    }
  });
  const open = new Set(middle);
  while (open.size) {
    let best = -1;
    let fwd = true;
    let bd = Number.POSITIVE_INFINITY;
    for (const i of open) {
      const t = set.tracks[i];
      for (const f of [true, false]) {
        const [s, e] = f ? [t.a, t.b] : [t.b, t.a];
        const to: Pose = { x: s.x, y: s.y, heading: Math.atan2(e.y - s.y, e.x - s.x) };
        const d = at ? dubinsShortestLength(at, to, r) : 0;
        if (d < bd) {
          bd = d;
          best = i;
          fwd = f;
        }
      }
    }
    open.delete(best);
    out.push({ track: best, forward: fwd });
    const t = set.tracks[best];
    const [s, e] = fwd ? [t.a, t.b] : [t.b, t.a];
    at = { x: e.x, y: e.y, heading: Math.atan2(e.y - s.y, e.x - s.x) };
  }
  return out;
}

/**
 * Straight tracks filling a piece, those `keep` accepts appended to `out`:
 * their lines numbered on from `base`, ranked along the tracks' heading.
 * Returns the first line number free after them (a gap of a few, so pieces
 * never share a line).
 */
export function pieceTracks(
  piece: Polygon,
  w: number,
  base: number,
  keep: (a: Point, b: Point) => boolean,
  out: Track[],
): number {
  const fill = generateTracks([piece], { swathWidth: w });
  const c = Math.cos(fill.heading);
  const sn = Math.sin(fill.heading);
  const u = (q: Point) => q.x * c + q.y * sn;
  let top = 0;
  for (const t of fill.tracks) {
    if (!keep(t.a, t.b)) continue;
    top = Math.max(top, t.line);
    out.push({
      a: t.a,
      b: t.b,
      line: base + t.line,
      seg: t.seg,
      path: [t.a, t.b],
      along: [1e7 + u(t.a), 1e7 + u(t.b)],
    });
  }
  return base + top + 3;
}
