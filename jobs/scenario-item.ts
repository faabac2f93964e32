/**
 * Items of an equipment scenario job: every boundary of the set is planned
 * once with each scenario's machine. The job's request names the scenarios
 * in request order; one pg-boss item plans a few boundaries with one
 * scenario. Outcomes are keyed `scenarioIndex:boundaryId`, and the plans are
 * stored under the scenario's details id (their job_id), so a boundary has
 * one plan per scenario and a retried item stores nothing twice.
 */
import type { JobRecord } from '../store/repositories/jobs.ts';
import type { ItemTarget, JobPlanRequest } from './plan-item.ts';

export interface ScenarioJobRequest {
  equipmentScenarioId: string;
  /** In request order. */
  boundaryIds: string[];
  scenarios: { detailsId: string; request: JobPlanRequest }[];
}

export function scenarioItemKey(scenarioIndex: number, boundaryId: string): string {
  return `${scenarioIndex}:${boundaryId}`;
}

/** The scenario index and boundary id of an outcome's key; null for a key of another kind of job. */
export function readScenarioItemKey(key: string): { scenarioIndex: number; boundaryId: string } | null {
  const m = /^(\d+):(.+)$/.exec(key);
  return m ? { scenarioIndex: Number(m[1]), boundaryId: m[2] as string } : null;
}

/** What the items of scenario `scenarioIndex` of a scenario job plan with. */
export function scenarioTarget(job: JobRecord, scenarioIndex: number): ItemTarget {
  const scenario = (job.request as ScenarioJobRequest).scenarios[scenarioIndex];
  if (!scenario) throw new Error(`Job ${job.id} has no scenario ${scenarioIndex}.`);
  return {
    request: scenario.request,
    itemKey: (boundaryId) => scenarioItemKey(scenarioIndex, boundaryId),
    planJobId: scenario.detailsId,
  };
}
