/**
 * The pg-boss queues of the job system and their retry policy. One pg-boss
 * job is one item of a user-visible job (a few boundaries of a bulk guidance
 * job, one export batch); the user-visible job lives in the `jobs` table,
 * the outcome of each boundary in `job_items`. Items of several boundaries
 * keep pg-boss's per-job work (fetch, heartbeat, complete) small against
 * the planning itself.
 *
 * A worker that dies (kill -9, a lost machine) stops sending heartbeats;
 * after `heartbeatSeconds` pg-boss's monitor hands the item to another
 * worker. Items are written once (job + item key), so the retried item
 * stores nothing twice.
 */
import type { Queue } from 'pg-boss';

export const PLAN_QUEUE = 'tramline-plan';
export const EXPORT_QUEUE = 'tramline-export';
/** Jobs of one item handled by a registered task (jobs/tasks.ts): company copies and the like. */
export const TASK_QUEUE = 'tramline-task';

export const QUEUE_OPTIONS: Record<string, Omit<Queue, 'name'>> = {
  [PLAN_QUEUE]: {
    // A plan takes at most maxOptimizerTime (<= 60 s) + 5 s, an item PLAN_ITEM_BOUNDARIES of them on one
    // thread at worst; the heartbeat notices a dead worker sooner.
    expireInSeconds: 900,
    heartbeatSeconds: 10,
    retryLimit: 3,
    retryDelay: 1,
    deleteAfterSeconds: 7 * 24 * 3600,
  },
  [TASK_QUEUE]: {
    expireInSeconds: 900,
    heartbeatSeconds: 10,
    retryLimit: 3,
    retryDelay: 1,
    deleteAfterSeconds: 7 * 24 * 3600,
  },
  [EXPORT_QUEUE]: {
    expireInSeconds: 600,
    heartbeatSeconds: 10,
    retryLimit: 3,
    retryDelay: 1,
    deleteAfterSeconds: 7 * 24 * 3600,
  },
};

/** Boundaries per item of a planning job. */
export const PLAN_ITEM_BOUNDARIES = 8;

export interface PlanItem {
  jobId: string;
  /** Jobs over stored boundaries. */
  boundaryIds?: string[];
  /** Jobs over one stored plan (pathplan, postprocess, route). */
  pathPlanId?: string;
  /** Items queued before items held several boundaries. */
  boundaryId?: string;
  /** Equipment scenario jobs: the scenario whose machine plans these boundaries. */
  scenarioIndex?: number;
}

export interface ExportItem {
  jobId: string;
}

export interface TaskItem {
  jobId: string;
}
