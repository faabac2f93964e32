/**
 * Messages between the planning view and its planner worker. The worker
 * runs the same pure planner as the server (core/) and answers the direct
 * GeoJSON of spec 2.5 (formats/plan-geojson.ts), so what the page draws is
 * what the API would answer for the same request.
 */
import type { PlanFeatureCollection } from '../../formats/plan-geojson.ts';
import type { PathPlanNormalizedModel } from '../../formats/plan-model.ts';

export type TrackType = 'Straight' | 'Curved' | 'Spiral';

/** The tuning of the view: the direct request of spec 2.2 in the units the form shows. */
export interface Tuning {
  swathWidth: number;
  exteriorHeadlandPasses: number;
  interiorHeadlandPasses: number;
  /** Track bearing [deg clockwise from north]; null = the planner chooses. */
  bearingDeg: number | null;
  trackType: TrackType;
  algorithm: string;
  /** clusteredSpiral only; null = the planner's default. */
  skipCount: number | null;
  /** optimized only. */
  objective: 'distance' | 'time' | 'fuel';
  minTurningRadius: number;
  /** Route start / end node (index of an exterior boundary vertex); null = the planner chooses. */
  startPointNodeIndex: number | null;
  endPointNodeIndex: number | null;
}

export interface PlanJob {
  id: number;
  boundary: unknown;
  tuning: Tuning;
  /** Answer the normalized model of spec 2.4 (to store the plan) instead of the preview GeoJSON. */
  model?: { pathPlanId: string; pathPlanName: string; createdAt: string };
}

export type WorkerAnswer =
  | { id: number; ok: true; geojson: PlanFeatureCollection; ms: number; repairs: string[] }
  | { id: number; ok: true; model: PathPlanNormalizedModel; ms: number }
  | { id: number; ok: false; code: string; message: string };
