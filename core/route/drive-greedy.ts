/**
 * The default ('auto') order, decided while driving: within a block the next
 * track is chosen greedily by the real length of the turn that fits inside
 * the field, from a window at the sweep front (when twice the turning radius
 * exceeds the track spacing this yields skip-row orders whose turns are
 * plain U-turns); a finished block leads to the nearest reachable entry of
 * another. A block no drivable way reaches is left out.
 */
import { dubinsShortestLength } from '../turn/dubins.ts';
import type { Point, Pose } from '../types/index.ts';
import type { RouteBuilder } from './route-builder.ts';
import { dist, entryPose } from './route-geometry.ts';
import type { TrackRec } from './track-blocks.ts';

/** Turns longer than this many turning radii count as long ones (a U-turn is about 3). */
const LONG_TURN_RADII = 8;

/**
 * `leaving`, when given, is called where a block is finished and the route
 * goes on to another (it may drive on, from where the route is).
 */
export function driveGreedy(b: RouteBuilder, leaving?: () => void): void {
  const { recs, blocks, input } = b;
  const skip = Math.max(1, Math.ceil((2 * b.R) / b.w - 1e-9));
  /** The start pose chooseNext connected to, so link can reuse its connection. */
  let nextPose: Pose | null = null;
  // The shortest turn [m, Dubins] from the end of track a driven one way to
  // the start of track r driven back, kept: the poses of tracks never change,
  // and the same turns are weighed again and again.
  const pos = new Map(recs.map((r, i) => [r, i]));
  const turns = new Map<number, number>();
  const turnAfter = (a: TrackRec, f: boolean, r: TrackRec): number => {
    const k = ((pos.get(a) as number) * 2 + (f ? 1 : 0)) * recs.length + (pos.get(r) as number);
    let l = turns.get(k);
    if (l === undefined) {
      l = dubinsShortestLength(b.endPoseOf(a, f), b.startPoseOf(r, !f), b.R);
      turns.set(k, l);
    }
    return l;
  };

  function chooseNext(cur: TrackRec, forward: boolean): TrackRec | null {
    const block = blocks[cur.block];
    let lo = Number.POSITIVE_INFINITY;
    for (let i = 0; i < block.length; i++) {
      const r = block[i];
      if (!r.done && r.track.line < lo) lo = r.track.line;
    }
    if (lo === Number.POSITIVE_INFINITY) return null;
    const window: TrackRec[] = [];
    for (let i = 0; i < block.length; i++) {
      const r = block[i];
      if (!r.done && r.track.line <= lo + 2 * skip + 1) window.push(r);
    }
    // The machine is where track cur ended (driven the other way).
    const from = b.pose as Pose;
    const scored = window
      .map((r) => ({ r, cost: turnAfter(cur, !forward, r) }))
      .sort((x, y) => x.cost - y.cost);
    // Where every turn is long (track ends staggered along a slanting edge), the greedy choice
    // can leave a track behind that only a turn across the whole sweep reaches later: the
    // candidates are then ranked by their turn and the turns of the window's tracks after it.
    if (scored.length > 1 && scored[0].cost > LONG_TURN_RADII * b.R) {
      const open = block.filter((r) => !r.done);
      const ahead = scored.map((s) => {
        const rest = open.filter((r) => r !== s.r);
        return { ...s, total: s.cost + rollout(s.r, forward, rest, window.length) };
      });
      ahead.sort((x, y) => x.total - y.total);
      scored.splice(0, scored.length, ...ahead);
    }
    // A forward turn that keeps the implement inside the field first, to any of the candidates.
    for (let pass = 0; pass < 2; pass++) {
      const only = pass === 0 ? 'turnArea' : 'field';
      for (let i = 0; i < scored.length && i < 4; i++) {
        const s = scored[i];
        const to = b.startPoseOf(s.r, forward);
        const conn = b.links.connectPoses(from, to, b.R, input.region, { allowReverse: false }, only);
        if (conn) {
          b.known = { to, conn };
          nextPose = to;
          return s.r;
        }
      }
    }
    nextPose = null;
    return scored.length ? scored[0].r : null;
  }

  /**
   * The turns [m, Dubins] of the greedy order driven on from the end of track
   * `last` (driven `lastForward`) over the open tracks of a block, for at
   * most `steps` tracks.
   */
  function rollout(last: TrackRec, lastForward: boolean, open: TrackRec[], steps: number): number {
    let total = 0;
    let left = open;
    for (let k = 0; k < steps && left.length; k++) {
      let lo = Number.POSITIVE_INFINITY;
      for (let i = 0; i < left.length; i++) if (left[i].track.line < lo) lo = left[i].track.line;
      let best: TrackRec | null = null;
      let bestCost = Number.POSITIVE_INFINITY;
      for (const r of left) {
        if (r.track.line > lo + 2 * skip + 1) continue;
        const l = turnAfter(last, lastForward, r);
        if (l < bestCost) {
          bestCost = l;
          best = r;
        }
      }
      if (!best) break;
      total += bestCost;
      last = best;
      lastForward = !lastForward;
      const done = best;
      left = left.filter((r) => r !== done);
    }
    return total;
  }

  /** Entries of the unfinished blocks (first or last open track, either end), nearest first. */
  function chooseEntries(currentBlock: number): { rec: TrackRec; forward: boolean }[] {
    const from = b.pose as Pose;
    const out: { rec: TrackRec; forward: boolean; d: number }[] = [];
    for (const [bi, blk] of blocks.entries()) {
      const open = blk.filter((r) => !r.done);
      if (open.length === 0) continue;
      const ends = bi === currentBlock || open.length === 1 ? open : [open[0], open[open.length - 1]];
      for (const r of ends)
        for (const f of [true, false]) out.push({ rec: r, forward: f, d: dist(from, b.startPoseOf(r, f)) });
    }
    return out.sort((x, y) => x.d - y.d);
  }

  /**
   * The turn from the end of track r driven one way to the nearest track
   * of its block driven back [m]: a short first track must not end where
   * its neighbour is far.
   */
  const firstTurn = (r: TrackRec, f: boolean): number => {
    const blk = blocks[r.block];
    if (blk.length < 2) return 0;
    let best = Number.POSITIVE_INFINITY;
    for (const q of blk) {
      if (q === r || Math.abs(q.track.line - r.track.line) > 2 * skip + 1) continue;
      best = Math.min(best, turnAfter(r, f, q));
    }
    return Number.isFinite(best) ? best : 0;
  };
  let first = recs[0];
  let forward = firstTurn(first, true) <= firstTurn(first, false);
  // Begin near where the machine is (after the headland passes), else near the start node,
  // at the end of a block whose first turn is short.
  const near: Point | undefined = b.pose ? b.pose : input.start;
  if (near) {
    let bd = Number.POSITIVE_INFINITY;
    for (const blk of blocks) {
      for (const r of [blk[0], blk[blk.length - 1]]) {
        for (const f of [true, false]) {
          const p = b.startPoseOf(r, f);
          const d = dist(p, near) + firstTurn(r, f);
          if (d < bd) {
            bd = d;
            first = r;
            forward = f;
          }
        }
      }
    }
    if (!b.pose && input.start) {
      b.routeStart = input.start;
      b.pose = entryPose(input.start, b.startPoseOf(first, forward));
    }
    if (!b.link(b.startPoseOf(first, forward), 'HeadlandConnector')) b.failures++;
  } else {
    b.routeStart = b.startPoseOf(first, forward);
  }
  let current = first;
  for (;;) {
    if (!b.pose || dist(b.pose, b.startPoseOf(current, forward)) > 1e-6) {
      if (!b.link(b.startPoseOf(current, forward), 'HeadlandConnector')) b.failures++;
    }
    b.driveTrack(current, forward);
    if (recs.every((r) => r.done)) break;
    const next = chooseNext(current, !forward);
    if (next && b.link(nextPose ?? b.startPoseOf(next, !forward), 'Turn')) {
      forward = !forward;
      current = next;
      // driveTrack at loop top sees the pose already there.
      continue;
    }
    // Block finished (or its next turn impossible): the nearest reachable entry,
    // any open track of this block or an end of another block.
    leaving?.();
    let reached = false;
    while (!reached) {
      const entries = chooseEntries(current.block);
      if (entries.length === 0) break;
      // The nearest entries first; then one of each other block: a block out
      // of reach from here may be reached from the next one.
      const tried = new Set<number>();
      for (const [i, e] of entries.entries()) {
        if (i >= 8 && tried.has(e.rec.block)) continue;
        tried.add(e.rec.block);
        if (b.link(b.startPoseOf(e.rec, e.forward), 'HeadlandConnector')) {
          current = e.rec;
          forward = e.forward;
          reached = true;
          break;
        }
      }
      if (!reached) {
        // No drivable way into the nearest block inside the field: its tracks
        // cannot be worked and are left out of the plan (their area is missed).
        for (const r of blocks[entries[0].rec.block]) {
          if (!r.done) {
            r.done = true;
            b.skipped.push(r.index);
          }
        }
      }
    }
    if (!reached) break;
  }
}
