/**
 * The planner in a web worker: the page posts a PlanJob, the worker answers
 * the plan as direct GeoJSON. Only the newest job matters: a job that
 * arrives while another is queued replaces it, so dragging a slider never
 * builds up a backlog.
 *
 * The planner is imported once the message handler is in place: it starts
 * its geometry engine (WebAssembly) as it loads, and jobs posted meanwhile
 * wait for it instead of arriving before anything listens.
 */
/// <reference lib="webworker" />
import type { PlanJob } from './protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

let pending: PlanJob | null = null;
let scheduled = false;
const runner = import('./plan-runner.ts');

self.onmessage = (ev: MessageEvent<PlanJob>) => {
  // Models (to store) are all answered; previews only the newest.
  if (ev.data.model) {
    const job = ev.data;
    void runner.then(({ run }) => self.postMessage(run(job)));
    return;
  }
  pending = ev.data;
  if (scheduled) return;
  scheduled = true;
  // Let queued messages arrive (and the planner load) first, then plan only the newest.
  void runner.then(({ run }) =>
    setTimeout(() => {
      scheduled = false;
      const job = pending;
      pending = null;
      if (job) self.postMessage(run(job));
    }, 0),
  );
};

// Warm-up while the page fetches the field: one small plan makes the engine
// compile the planner's hot paths, so the first real plan comes back sooner.
void runner.then(({ warmUp }) => setTimeout(warmUp, 0));
