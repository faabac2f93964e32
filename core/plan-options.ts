/**
 * The options of a plan request: defaults filled in and every option
 * checked, a PlanningError (INVALID_OPTION) naming the one that is not
 * accepted and what would be.
 */

import { resolveTrackType } from './tracks/track-pattern.ts';
import {
  DEFAULT_MACHINE,
  type Machine,
  PlanningError,
  type PlanOptions,
  type PlanRequest,
  ROUTE_ALGORITHMS,
  type RouteAlgorithm,
} from './types/index.ts';

/** The request with defaults filled in and every option checked (PlanningError INVALID_OPTION otherwise). */
export function resolveOptions(req: PlanRequest): PlanOptions {
  const machine: Machine = { ...DEFAULT_MACHINE, ...req.machine } as Machine;
  const positive = (v: number, name: string) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      throw new PlanningError(
        'INVALID_OPTION',
        `${name} must be a positive number of metres (or m/s); found ${v}.`,
        {
          path: name,
        },
      );
    }
  };
  positive(machine.swathWidth, 'equipment.swathWidth');
  positive(machine.minTurningRadius, 'equipment.minTurningRadius');
  positive(machine.workingSpeed, 'equipment.workingSpeed');
  positive(machine.turningSpeed, 'equipment.turningSpeed');
  const passes = (v: number | undefined, name: string) => {
    const n = v ?? 0;
    if (!Number.isInteger(n) || n < 0) {
      throw new PlanningError('INVALID_OPTION', `${name} must be a whole number >= 0; found ${v}.`, {
        path: name,
      });
    }
    return n;
  };
  const algorithm: RouteAlgorithm = req.route?.algorithm ?? 'auto';
  if (!ROUTE_ALGORITHMS.includes(algorithm)) {
    throw new PlanningError(
      'OPTION_NOT_SUPPORTED',
      `routeOptions.algorithm '${algorithm}' is not available; supported: ${ROUTE_ALGORITHMS.map((a) => `'${a}'`).join(', ')}.`,
      { path: 'routeOptions.algorithm' },
    );
  }
  const skipCount = req.route?.skipCount;
  if (skipCount !== undefined && (!Number.isInteger(skipCount) || skipCount < 0)) {
    throw new PlanningError(
      'INVALID_OPTION',
      `routeOptions.skipCount must be a whole number >= 0; found ${skipCount}.`,
      {
        path: 'routeOptions.skipCount',
      },
    );
  }
  const forcedDirection = req.route?.forcedDirection;
  if (forcedDirection !== undefined && forcedDirection !== 'CW' && forcedDirection !== 'CCW') {
    throw new PlanningError(
      'INVALID_OPTION',
      `routeOptions.forcedDirection must be 'CW' or 'CCW'; found '${forcedDirection}'.`,
      { path: 'routeOptions.forcedDirection' },
    );
  }
  const rate = machine.maxCurvatureRate;
  if (rate !== undefined && (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0)) {
    throw new PlanningError(
      'INVALID_OPTION',
      `equipment.maxCurvatureRate must be a positive number [1/m^2] (how fast the curvature may change per metre); found ${rate}.`,
      { path: 'equipment.maxCurvatureRate' },
    );
  }
  const refill = req.route?.calculateRefillPoints === true;
  const strategy = req.route?.refillStrategyType;
  if (strategy !== undefined && !['Exact', 'StartOfTrack', 'ClosestExternalHeadland'].includes(strategy)) {
    throw new PlanningError(
      'INVALID_OPTION',
      `routeOptions.refillStrategyType must be 'Exact', 'StartOfTrack' or 'ClosestExternalHeadland'; found '${strategy}'.`,
      { path: 'routeOptions.refillStrategyType' },
    );
  }
  if (refill) {
    for (const [name, v, unit, scale] of [
      ['tankCapacity', machine.tankCapacity, 'l', 1],
      ['applicationRate', machine.applicationRate, 'l/ha', 10_000],
    ] as const) {
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
        throw new PlanningError(
          'INVALID_OPTION',
          `routeOptions.calculateRefillPoints needs equipment.${name} [${unit}] > 0; found ${v === undefined ? 'none' : v * scale}.`,
          { path: `equipment.${name}` },
        );
      }
    }
  }
  const stagingArea = req.route?.stagingArea;
  if (
    stagingArea !== undefined &&
    (!Array.isArray(stagingArea) ||
      stagingArea.length !== 2 ||
      !stagingArea.every((v) => typeof v === 'number' && Number.isFinite(v)) ||
      Math.abs(stagingArea[0]) > 180 ||
      Math.abs(stagingArea[1]) > 90)
  ) {
    throw new PlanningError(
      'INVALID_OPTION',
      `routeOptions.stagingArea must be [lon, lat] in degrees (WGS84); found ${JSON.stringify(stagingArea)}.`,
      { path: 'routeOptions.stagingArea' },
    );
  }
  const objective = req.route?.objective;
  if (objective !== undefined && !['distance', 'time', 'fuel'].includes(objective)) {
    throw new PlanningError(
      'INVALID_OPTION',
      `routeOptions.objective must be 'distance', 'time' or 'fuel'; found '${objective}'.`,
      { path: 'routeOptions.objective' },
    );
  }
  const trackDirection = req.trackDirection ?? 'Auto';
  if (trackDirection !== 'Auto' && trackDirection !== 'Contour') {
    throw new PlanningError(
      'INVALID_OPTION',
      `trackDirection must be 'Auto' or 'Contour'; found '${trackDirection}'.`,
      { path: 'trackDirection' },
    );
  }
  if (trackDirection === 'Contour' && req.preferredBearingDeg !== undefined) {
    throw new PlanningError(
      'INVALID_OPTION',
      "trackDirection 'Contour' chooses the bearing from the ground; give either it or a track bearing, not both.",
      { path: 'trackDirection' },
    );
  }
  if (trackDirection === 'Contour' && (req.trackType ?? 'Straight') !== 'Straight') {
    throw new PlanningError(
      'INVALID_OPTION',
      `trackDirection 'Contour' lays straight tracks; found trackType '${req.trackType}'.`,
      { path: 'trackDirection' },
    );
  }
  const crossLimit = machine.maxCrossSlopePercent;
  if (crossLimit !== undefined && !(typeof crossLimit === 'number' && crossLimit > 0 && crossLimit <= 100)) {
    throw new PlanningError(
      'INVALID_OPTION',
      `equipment.maxCrossSlopePercent must be a slope in percent above 0 and at most 100; found ${crossLimit}.`,
      { path: 'equipment.maxCrossSlopePercent' },
    );
  }
  if (req.preferredBearingDeg !== undefined && !Number.isFinite(req.preferredBearingDeg)) {
    throw new PlanningError(
      'INVALID_OPTION',
      'The preferred track direction must be a finite bearing in degrees.',
      {
        path: 'preferredDirectionDegrees',
      },
    );
  }
  return {
    machine,
    ...resolveTrackType(req),
    exteriorHeadlandPasses: passes(req.exteriorHeadlandPasses, 'exteriorHeadlandPasses'),
    interiorHeadlandPasses: passes(req.interiorHeadlandPasses, 'interiorHeadlandPasses'),
    preferredBearingDeg: req.preferredBearingDeg,
    ...(trackDirection === 'Contour' ? { trackDirection } : {}),
    extendTracks: req.extendTracks === true,
    decomposition: req.decomposition !== false,
    ...(req.useCrossHatches === true ? { useCrossHatches: true } : {}),
    route: {
      algorithm,
      startPointNodeIndex: req.route?.startPointNodeIndex,
      endPointNodeIndex: req.route?.endPointNodeIndex,
      ...(skipCount !== undefined ? { skipCount } : {}),
      ...(objective !== undefined ? { objective } : {}),
      ...(req.route?.maxEvaluations !== undefined ? { maxEvaluations: req.route.maxEvaluations } : {}),
      ...(req.route?.headlandsFirst ? { headlandsFirst: true } : {}),
      ...(req.route?.trackOrder ? { trackOrder: req.route.trackOrder } : {}),
      ...(forcedDirection ? { forcedDirection } : {}),
      ...(req.route?.enableHeadlandDrivethrough === true ? { enableHeadlandDrivethrough: true } : {}),
      ...(refill ? { calculateRefillPoints: true } : {}),
      ...(strategy ? { refillStrategyType: strategy } : {}),
      ...(stagingArea ? { stagingArea: [stagingArea[0], stagingArea[1]] as [number, number] } : {}),
    },
  };
}
