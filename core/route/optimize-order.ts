/**
 * Anytime optimizer of the driving order of parallel tracks.
 *
 * A route is a sequence of visits (track, direction). The cost of a route is
 * the sum of its transitions: from the end pose of one visit to the start
 * pose of the next (a turn or a connector), plus the entry from the route's
 * start, if any. A transition driven backwards in space is a valid forward
 * path of the same length between the flipped poses, so reversing a run of
 * visits (and flipping each one's direction) keeps the run's inner cost:
 *
 *    ... u -> [v1 -> v2 -> v3] -> x ...     2-opt: ... u -> [v3' -> v2' -> v1'] -> x ...
 *
 * only the two boundary transitions change. That makes 2-opt and Or-opt
 * moves O(1) to evaluate; every accepted move is re-measured exactly (the
 * transition costs come from real, field-checked connections and are only
 * nearly symmetric), and undone if it does not pay.
 *
 * Search: the best of several constructions (plain boustrophedon, skip
 * patterns whose turns are all wide U-turns), then first-improvement local
 * search with neighbour lists, then iterated kicks (a seeded double-bridge
 * move) with local search, keeping the best order so far. It stops when
 * `shouldStop()` says so (the caller's clock), after `maxEvaluations` move
 * evaluations, or when `maxStalls` kicks in a row found nothing better
 * (converged). The planner itself reads no clock.
 */

import { hypot } from '../geometry/vec.ts';

/** A visit: track index and direction (true = from a to b). */
export interface Visit {
  track: number;
  forward: boolean;
}

export interface OrderProblem {
  /** Number of tracks. */
  count: number;
  /** Start and end point of each track (a -> b is the forward direction) [m]. */
  a: readonly { x: number; y: number }[];
  b: readonly { x: number; y: number }[];
  /** Transition cost from visit `from` (null = the route start) to visit `to`. */
  cost: (from: Visit | null, to: Visit) => number;
  /** True when the route has a fixed start (then the entry cost counts). */
  hasStart: boolean;
  /**
   * A cheap lower bound of `cost` (e.g. the Dubins length without the field):
   * a move whose new transitions cannot beat the old ones even at this bound
   * is dropped without measuring them.
   */
  bound?: (from: Visit | null, to: Visit) => number;
}

export interface OptimizeOptions {
  /** The caller's deadline: true when the optimizer must stop now. */
  shouldStop?: () => boolean;
  /** Upper bound on move evaluations (default 400,000). */
  maxEvaluations?: number;
  /** Kicks in a row without gain after which the search counts as converged (default 30). */
  maxStalls?: number;
  /** Neighbours per visit end considered by the moves (default 10). */
  neighbours?: number;
  /** Seed of the kick generator. */
  seed?: number;
}

export interface OptimizeResult {
  order: Visit[];
  cost: number;
  /** Cost of each construction, by name. */
  constructions: Record<string, number>;
  /** Move evaluations made. */
  evaluations: number;
  /** Improving moves accepted. */
  improvements: number;
  /** Kicks tried. */
  kicks: number;
  /** True when the search stopped because it converged (not on the deadline or the evaluation cap). */
  converged: boolean;
}

/** Total cost of an order. */
export function orderCost(p: OrderProblem, order: readonly Visit[]): number {
  let c = 0;
  for (let i = 0; i < order.length; i++) {
    const from = i === 0 ? null : order[i - 1];
    if (from || p.hasStart) c += p.cost(from, order[i]);
  }
  return c;
}

const flip = (v: Visit): Visit => ({ track: v.track, forward: !v.forward });

export function optimizeOrder(
  p: OrderProblem,
  constructions: Record<string, Visit[]>,
  opts: OptimizeOptions = {},
): OptimizeResult {
  const maxEval = opts.maxEvaluations ?? 400_000;
  const maxStalls = opts.maxStalls ?? 30;
  let evaluations = 0;
  let improvements = 0;
  let stopped = false;
  const stop = (): boolean => {
    if (stopped) return true;
    if (evaluations >= maxEval || (opts.shouldStop?.() ?? false)) stopped = true;
    return stopped;
  };

  const costs: Record<string, number> = {};
  let best: Visit[] = [];
  let bestCost = Number.POSITIVE_INFINITY;
  for (const [name, order] of Object.entries(constructions)) {
    if (order.length !== p.count) continue;
    const c = orderCost(p, order);
    costs[name] = c;
    if (c < bestCost) {
      bestCost = c;
      best = order.slice();
    }
  }
  if (p.count < 2) {
    return {
      order: best,
      cost: bestCost,
      constructions: costs,
      evaluations,
      improvements,
      kicks: 0,
      converged: true,
    };
  }

  // Neighbour lists: for each visit end (visit id 2t + (forward ? 0 : 1)),
  // the visits whose start lies nearest to it.
  const n = p.count;
  const K = Math.min(opts.neighbours ?? 10, 2 * n - 2);
  const startOf = (t: number, fwd: boolean) => (fwd ? p.a[t] : p.b[t]);
  const endOf = (t: number, fwd: boolean) => (fwd ? p.b[t] : p.a[t]);
  const near: Int32Array[] = [];
  for (let id = 0; id < 2 * n; id++) {
    const t = id >> 1;
    const e = endOf(t, (id & 1) === 0);
    const cand: { id: number; d: number }[] = [];
    for (let j = 0; j < 2 * n; j++) {
      if (j >> 1 === t) continue;
      const s = startOf(j >> 1, (j & 1) === 0);
      cand.push({ id: j, d: hypot(s.x - e.x, s.y - e.y) });
    }
    cand.sort((x, y) => x.d - y.d);
    near.push(Int32Array.from(cand.slice(0, K).map((c) => c.id)));
  }

  const vid = (v: Visit) => 2 * v.track + (v.forward ? 0 : 1);
  const edge = (from: Visit | null, to: Visit | undefined): number =>
    to === undefined ? 0 : from === null && !p.hasStart ? 0 : p.cost(from, to);
  const bound = p.bound ?? p.cost;
  const low = (from: Visit | null, to: Visit | undefined): number =>
    to === undefined ? 0 : from === null && !p.hasStart ? 0 : bound(from, to);

  let seed = (opts.seed ?? 0x2545f491) >>> 0;
  const rand = () => {
    // xorshift32, seeded: deterministic kicks.
    seed ^= seed << 13;
    seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    return seed / 4294967296;
  };

  /** First-improvement local search (2-opt and Or-opt) on `order` in place; returns its cost. */
  const localSearch = (order: Visit[], current: number): number => {
    const pos = new Int32Array(n);
    const reindex = () => {
      for (let i = 0; i < n; i++) pos[order[i].track] = i;
    };
    reindex();
    let cur = current;
    let improved = true;
    while (improved && !stop()) {
      improved = false;
      for (let i = 0; i < n && !stop(); i++) {
        // 2-opt: new transition from order[i-1] into the reversed run order[i..j].
        const u = i === 0 ? null : order[i - 1];
        const from = u ? near[vid(u)] : null;
        const candidates: number[] = [];
        if (from) {
          for (const id of from) {
            const t = id >> 1;
            const j = pos[t];
            // The run's reversed first visit is flip(order[j]).
            if (j >= i && order[j].forward !== ((id & 1) === 0)) candidates.push(j);
          }
        } else {
          for (let j = i; j < n; j++) candidates.push(j);
          if (candidates.length > 2 * K) candidates.length = 2 * K;
        }
        for (const j of candidates) {
          evaluations++;
          const x = order[j + 1];
          const before = edge(u, order[i]) + edge(order[j], x);
          if (low(u, flip(order[j])) + low(flip(order[i]), x) >= before - 1e-6) continue;
          const after = edge(u, flip(order[j])) + edge(flip(order[i]), x);
          if (after < before - 1e-6) {
            const saved = order.slice(i, j + 1);
            const rev = saved.map(flip).reverse();
            order.splice(i, j - i + 1, ...rev);
            const exact = orderCost(p, order);
            if (exact < cur - 1e-6) {
              cur = exact;
              improvements++;
              improved = true;
              reindex();
              break;
            }
            order.splice(i, j - i + 1, ...saved);
          }
          if (stop()) break;
        }
        if (stop()) break;
        // Or-opt: move the run order[i..i+L-1] (maybe reversed) to just before a visit near its end.
        for (let L = 1; L <= 3 && i + L <= n; L++) {
          const first = order[i];
          const last = order[i + L - 1];
          const prev = i === 0 ? null : order[i - 1];
          const next = order[i + L];
          const removeGain = edge(prev, first) + edge(last, next) - (next ? edge(prev, next) : 0);
          if (removeGain <= 1e-6) continue;
          let moved = false;
          for (const rev of [false, true]) {
            const head = rev ? flip(last) : first;
            const tail = rev ? flip(first) : last;
            for (const id of near[vid(tail)]) {
              const q = pos[id >> 1];
              if (q >= i && q < i + L) continue;
              if (order[q].forward !== ((id & 1) === 0)) continue;
              // Insert between order[q-1] and order[q].
              const a = q === 0 ? null : order[q - 1];
              if (a && pos[a.track] >= i && pos[a.track] < i + L) continue;
              const b = order[q];
              evaluations++;
              const ab = edge(a, b);
              if (low(a, head) + low(tail, b) - ab >= removeGain - 1e-6) continue;
              const addCost = edge(a, head) + edge(tail, b) - ab;
              if (addCost < removeGain - 1e-6) {
                const snapshot = order.slice();
                const run = order.splice(i, L);
                const ins = rev ? run.map(flip).reverse() : run;
                const at = order.indexOf(b);
                order.splice(at, 0, ...ins);
                const exact = orderCost(p, order);
                if (exact < cur - 1e-6) {
                  cur = exact;
                  improvements++;
                  moved = true;
                  reindex();
                  break;
                }
                order.splice(0, n, ...snapshot);
              }
            }
            if (moved) break;
          }
          if (moved) {
            improved = true;
            break;
          }
        }
      }
    }
    return cur;
  };

  let order = best.slice();
  let cost = localSearch(order, bestCost);
  if (cost < bestCost) {
    best = order.slice();
    bestCost = cost;
  }
  let kicks = 0;
  let stalls = 0;
  while (!stop() && stalls < maxStalls && n >= 8) {
    // Double-bridge kick on the best order: A B C D -> A C B D.
    kicks++;
    const cuts = [
      1 + Math.floor(rand() * (n - 1)),
      1 + Math.floor(rand() * (n - 1)),
      1 + Math.floor(rand() * (n - 1)),
    ].sort((x, y) => x - y);
    if (cuts[0] === cuts[1] || cuts[1] === cuts[2]) {
      stalls++;
      continue;
    }
    order = [
      ...best.slice(0, cuts[0]),
      ...best.slice(cuts[1], cuts[2]),
      ...best.slice(cuts[0], cuts[1]),
      ...best.slice(cuts[2]),
    ];
    cost = localSearch(order, orderCost(p, order));
    if (cost < bestCost - 1e-6) {
      best = order.slice();
      bestCost = cost;
      stalls = 0;
    } else stalls++;
  }
  return {
    order: best,
    cost: bestCost,
    constructions: costs,
    evaluations,
    improvements,
    kicks,
    converged: !stopped,
  };
}

/**
 * Skip-pattern order of the lines 0..m-1 of one block: clusters of 2s+1
 * lines driven as i, i+s+1, i+1, i+s+2, ..., s, so every turn jumps s or
 * s+1 lines (each an easy U-turn when s times the spacing is at least twice
 * the turning radius) and the next cluster starts s+1 lines on.
 */
export function skipPattern(m: number, s: number): number[] {
  if (s <= 0) return Array.from({ length: m }, (_, i) => i);
  const size = 2 * s + 1;
  const out: number[] = [];
  for (let c = 0; c < m; c += size) {
    const cluster: number[] = [];
    for (let j = 0; j < s; j++) cluster.push(c + j, c + j + s + 1);
    cluster.push(c + s);
    for (const i of cluster) if (i < m) out.push(i);
  }
  return out;
}

/** Snake order of the lines 0..m-1: every other line out, the ones between on the way back. */
export function snakePattern(m: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < m; i += 2) out.push(i);
  for (let i = m - 1 - (m % 2 === 0 ? 0 : 1); i >= 1; i -= 2) out.push(i);
  return out;
}
