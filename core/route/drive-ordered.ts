/**
 * Tracks driven in an order fixed before driving: a line pattern per block
 * ('boustrophedon', 'snake', 'clusteredSpiral'), the anytime optimizer's
 * order ('optimized') or the caller's own. Each transition is the shortest
 * drivable way that fits inside the field, a headland ring or the field
 * itself when no turn fits. A track no drivable path reaches in its turn is
 * tried again later; if none does, it is left out (its area shows as missed).
 */
import { dubinsShortest } from '../turn/dubins.ts';
import type { OptimizerReport, Point, Pose } from '../types/index.ts';
import { optimizeOrder, orderCost, skipPattern, snakePattern, type Visit } from './optimize-order.ts';
import type { RouteBuilder } from './route-builder.ts';
import { angleDiffRad, dist, entryPose } from './route-geometry.ts';
import type { Found } from './route-links.ts';
import { checkedOrder, type TrackRec } from './track-blocks.ts';

/** Stop, shift and start again at a reversing cusp [s]. */
const CUSP_TIME = 4;
/** Fuel use while turning and travelling on the headland [l/s] (15 l/h). */
const TURN_FUEL_RATE = 15 / 3600;

/** Drive the tracks in the order of the chosen pattern (or the optimized order). */
export function driveOrdered(b: RouteBuilder): OptimizerReport | undefined {
  const { recs, input } = b;
  const R = b.R;
  const w = b.w;
  const algorithm = input.order?.algorithm ?? 'auto';
  const n = recs.length;
  const objective = input.order?.objective ?? 'distance';
  const turnSpeed = input.machine.turningSpeed;
  const cache = new Map<number, number>();
  const vid = (v: Visit) => 2 * v.track + (v.forward ? 0 : 1);
  const measure = (f: Found): number => {
    if (objective === 'distance') return f.length;
    let cusps = 0;
    let last: boolean | null = null;
    for (const [c] of f.legs) {
      for (const piece of c.pieces) {
        if (last !== null && piece.reverse !== last) cusps++;
        last = piece.reverse;
      }
    }
    const time = f.length / turnSpeed + cusps * CUSP_TIME;
    return objective === 'time' ? time : time * TURN_FUEL_RATE;
  };
  // Where the tracks begin from: after the headland passes, or at the start node.
  const here: Pose | null = b.pose;
  const startEntry = (to: Pose): Pose => here ?? entryPose(input.start as Point, to);
  const hasStart = here !== null || input.start !== undefined;
  const cost = (from: Visit | null, to: Visit): number => {
    if (!from && !hasStart) return 0;
    const key = (from ? vid(from) : 2 * n) * (2 * n + 1) + vid(to);
    let c = cache.get(key);
    if (c === undefined) {
      const target = b.startPoseOf(recs[to.track], to.forward);
      const origin = from ? b.endPoseOf(recs[from.track], from.forward) : startEntry(target);
      const same = from && from.track === to.track;
      const found = same ? null : b.links.probeLink(origin, target);
      // No turn or headland way: the real route crosses the field; count it dear.
      const far = dist(origin, target);
      c = found ? measure(found) : measure({ length: 3 * far + 4 * Math.PI * R, legs: [] });
      cache.set(key, c);
    }
    return c;
  };
  const boundCache = new Map<number, number>();
  const bound = (from: Visit | null, to: Visit): number => {
    if (!from && !hasStart) return 0;
    const key = (from ? vid(from) : 2 * n) * (2 * n + 1) + vid(to);
    let c = boundCache.get(key);
    if (c === undefined) {
      const target = b.startPoseOf(recs[to.track], to.forward);
      const origin = from ? b.endPoseOf(recs[from.track], from.forward) : startEntry(target);
      const d = dubinsShortest(origin, target, R);
      c = measure({ length: d ? d.length : dist(origin, target), legs: [] });
      boundCache.set(key, c);
    }
    return c;
  };
  const problem = {
    bound,
    count: n,
    a: recs.map((r) => r.track.a),
    b: recs.map((r) => r.track.b),
    cost,
    hasStart,
  };
  const minSkip = Math.max(1, Math.ceil((2 * R) / w - 1e-9));
  const sequence = (pattern: (m: number) => number[]) => chainBlocks(b, pattern);
  let order: Visit[];
  let report: OptimizerReport | undefined;
  const fixed = input.order?.fixed;
  if (fixed) order = checkedOrder(fixed, n);
  else if (algorithm === 'boustrophedon') order = sequence((m) => Array.from({ length: m }, (_, i) => i));
  else if (algorithm === 'snake') order = sequence(snakePattern);
  else if (algorithm === 'clusteredSpiral') {
    const s = input.order?.skipCount ?? minSkip;
    order = sequence((m) => skipPattern(m, s));
  } else {
    const baseline = sequence((m) => Array.from({ length: m }, (_, i) => i));
    // Constructions, cheapest first; each costs transitions to measure, so the deadline counts here too.
    const stopNow = () => input.order?.shouldStop?.() ?? false;
    const constructions: Record<string, Visit[]> = { boustrophedon: baseline };
    const more: [string, () => Visit[]][] = [
      [`skip${minSkip}`, () => sequence((m) => skipPattern(m, minSkip))],
      ['snake', () => sequence(snakePattern)],
      [`skip${minSkip + 1}`, () => sequence((m) => skipPattern(m, minSkip + 1))],
      ['greedy', () => greedyOrder(b, cost)],
    ];
    orderCost(problem, baseline);
    for (const [name, make] of more) {
      if (stopNow()) break;
      const o = make();
      orderCost(problem, o);
      constructions[name] = o;
    }
    const res = optimizeOrder(problem, constructions, {
      shouldStop: input.order?.shouldStop,
      maxEvaluations: input.order?.maxEvaluations,
    });
    order = res.order;
    const baselineCost = orderCost(problem, baseline);
    report = {
      objective,
      baselineCost,
      cost: res.cost,
      gainPercent: baselineCost > 0 ? 100 * (1 - res.cost / baselineCost) : 0,
      evaluations: res.evaluations,
      improvements: res.improvements,
      converged: res.converged,
    };
  }
  // Drive the order.
  const first = order[0];
  const firstPose = b.startPoseOf(recs[first.track], first.forward);
  if (!b.pose) {
    if (input.start) {
      b.routeStart = input.start;
      b.pose = startEntry(firstPose);
    } else b.routeStart = firstPose;
  }
  let prev: Visit | null = null;
  // Tracks no way reached in their turn, tried again from later on the route.
  const deferred: Visit[] = [];
  for (const v of order) {
    const r = recs[v.track];
    const to = b.startPoseOf(r, v.forward);
    const pose = b.pose;
    if (pose && (dist(pose, to) > 1e-6 || Math.abs(angleDiffRad(pose.heading, to.heading)) > 1e-9)) {
      // A turn joins neighbouring tracks of one block at one end; anything else is a connector.
      const turn = prev !== null && r.block === recs[prev.track].block && v.forward !== prev.forward;
      if (!b.link(to, turn ? 'Turn' : 'HeadlandConnector')) {
        // Into the track from its other end, else later.
        const back = b.startPoseOf(r, !v.forward);
        if (!b.link(back, 'HeadlandConnector')) {
          deferred.push(v);
          continue;
        }
        b.driveTrack(r, !v.forward);
        prev = { track: v.track, forward: !v.forward };
        continue;
      }
    }
    b.pose = to;
    b.driveTrack(r, v.forward);
    prev = v;
  }
  driveDeferred(b, deferred);
  return report;
}

/**
 * Tracks the pattern could not reach in their turn (behind a neck, say):
 * from where the route has got to, the nearest one a way reaches, either
 * end first, again and again; the rest are left out. Each track is tried
 * once more after every track driven, at most.
 */
function driveDeferred(b: RouteBuilder, deferred: Visit[]): void {
  const recs = b.recs;
  let left = deferred.slice();
  let progress = true;
  while (left.length && progress && b.pose) {
    progress = false;
    const here = b.pose;
    left.sort(
      (x, y) =>
        dist(here, b.startPoseOf(recs[x.track], x.forward)) -
        dist(here, b.startPoseOf(recs[y.track], y.forward)),
    );
    for (const v of left) {
      const r = recs[v.track];
      const fwd = [v.forward, !v.forward].find((f) => b.link(b.startPoseOf(r, f), 'HeadlandConnector'));
      if (fwd === undefined) continue;
      b.driveTrack(r, fwd);
      left = left.filter((x) => x !== v);
      progress = true;
      break;
    }
  }
  for (const v of left) {
    recs[v.track].done = true;
    b.skipped.push(recs[v.track].index);
  }
}

/**
 * Greedy construction with the optimizer's costs: blocks nearest first;
 * inside a block, from the sweep front, the next line whose turn is
 * cheapest (lines within twice the skip that makes a U-turn).
 */
function greedyOrder(b: RouteBuilder, costOf: (from: Visit, to: Visit) => number): Visit[] {
  const { recs, blocks } = b;
  const out: Visit[] = [];
  const done = new Set<number>();
  const minSkip = Math.max(1, Math.ceil((2 * b.R) / b.w - 1e-9));
  const base = chainBlocks(b, (m) => Array.from({ length: m }, (_, i) => i));
  // Walk the blocks in the plain chain's order and entry; reorder lines inside each.
  let k = 0;
  while (k < base.length) {
    const block = recs[base[k].track].block;
    let fwd = base[k].forward;
    let cur = recs[base[k].track];
    const members = blocks[block];
    const entryLast = cur === members[members.length - 1] && members.length > 1;
    const sign = entryLast ? -1 : 1;
    out.push({ track: cur.index, forward: fwd });
    done.add(cur.index);
    for (;;) {
      const open = members.filter((r) => !done.has(r.index));
      if (open.length === 0) break;
      const front =
        sign > 0 ? Math.min(...open.map((r) => r.track.line)) : Math.max(...open.map((r) => r.track.line));
      const window = open.filter((r) => Math.abs(r.track.line - front) <= 2 * minSkip + 1);
      const from: Visit = { track: cur.index, forward: fwd };
      let bestR = window[0];
      let bestC = Number.POSITIVE_INFINITY;
      for (const r of window) {
        const c = costOf(from, { track: r.index, forward: !fwd });
        if (c < bestC) {
          bestC = c;
          bestR = r;
        }
      }
      fwd = !fwd;
      cur = bestR;
      out.push({ track: cur.index, forward: fwd });
      done.add(cur.index);
    }
    while (k < base.length && recs[base[k].track].block === block) k++;
  }
  return out;
}

/**
 * The blocks one after another, each driven in the given line pattern:
 * from the end of one block to the nearest entry (first or last line,
 * either end) of the next unvisited block; directions alternate inside a
 * block, so each turn stays at one end.
 */
function chainBlocks(b: RouteBuilder, pattern: (m: number) => number[]): Visit[] {
  const { recs, blocks } = b;
  const out: Visit[] = [];
  const used = new Set<number>();
  let at: Point | null = b.pose ?? b.input.start ?? null;
  for (let k = 0; k < blocks.length; k++) {
    let bi = -1;
    let fromLast = false;
    let fwd = true;
    let bd = Number.POSITIVE_INFINITY;
    for (const [i, blk] of blocks.entries()) {
      if (used.has(i)) continue;
      if (!at) {
        bi = i;
        break;
      }
      for (const [last, r] of [
        [false, blk[0]],
        [true, blk[blk.length - 1]],
      ] as [boolean, TrackRec][]) {
        for (const f of [true, false]) {
          const d = dist(at, b.startPoseOf(r, f));
          if (d < bd) {
            bd = d;
            bi = i;
            fromLast = last;
            fwd = f;
          }
        }
      }
    }
    used.add(bi);
    const blk = blocks[bi];
    const m = blk.length;
    const lines = pattern(m).map((i) => (fromLast ? m - 1 - i : i));
    for (const li of lines) {
      out.push({ track: blk[li].index, forward: fwd });
      fwd = !fwd;
    }
    const lastVisit = out[out.length - 1];
    const end = recs[lastVisit.track].track;
    at = lastVisit.forward ? end.b : end.a;
  }
  return out;
}
