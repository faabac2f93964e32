/**
 * Headlands only: the first stage of the planner on its own. Per field part
 * (zone): the exterior passes along the edge and the interior passes around
 * obstacles (the exact reference lines of the passes a machine of the
 * turning radius can drive, as a whole plan gives them) and the workable
 * area inside them, with the statistics
 * of the field and workable areas; no tracks, no route. The same passes the
 * full planner drives (planField makes them with the same generator from
 * the same zone, swath, radius and pass counts), so a plan made later from
 * these headlands keeps them.
 *
 * Pure: no I/O, no clock, no randomness.
 */
import { prepareField } from './field/prepare-field.ts';
import { difference, intersection } from './geometry/clip.ts';
import { EdgeIndex } from './geometry/edge-index.ts';
import { multiPolygonArea } from './geometry/polygon.ts';
import { generateHeadlands } from './headland/generate-headlands.ts';
import { computeStats, sumStats } from './metrics/compute-stats.ts';
import { resolveOptions } from './plan-options.ts';
import { type PathPart, PlanningError, type PlanRequest, type PlanResult, type Zone } from './types/index.ts';

export function planHeadlands(req: PlanRequest): PlanResult {
  const options = resolveOptions(req);
  const { field, frame, repairs } = prepareField(req.boundary);
  const m = options.machine;
  const zones: Zone[] = field.parts.map((zone, index) => {
    const headlands = generateHeadlands(zone, {
      swathWidth: m.swathWidth,
      exteriorPasses: options.exteriorHeadlandPasses,
      interiorPasses: options.interiorHeadlandPasses,
      turningRadius: m.minTurningRadius,
    });
    const zonePassable = field.passable.length ? intersection(field.passable, [zone]) : [];
    const workable = zonePassable.length ? difference(headlands.workable, zonePassable) : headlands.workable;
    const workField = zonePassable.length ? difference([zone], zonePassable) : [zone];
    // As in a whole plan: the exact reference passes, each one the machine can drive.
    const drivenExt = new Set(headlands.drivenExterior.map((h) => h.passNumber));
    const drivenInt = new Set(headlands.drivenInterior.map((h) => `${h.obstacleIndex}:${h.passNumber}`));
    const parts: PathPart[] = [
      ...headlands.exterior
        .filter((h) => drivenExt.has(h.passNumber))
        .map(
          (h): PathPart => ({
            type: 'ExteriorHeadlandPass',
            points: [...h.ring, h.ring[0]],
            working: false,
            passNumber: h.passNumber,
          }),
        ),
      ...headlands.interior
        .filter((h) => drivenInt.has(`${h.obstacleIndex}:${h.passNumber}`))
        .map(
          (h): PathPart => ({
            type: 'InteriorHeadlandPass',
            points: [...h.ring, h.ring[0]],
            working: false,
            passNumber: h.passNumber,
            obstacleIndex: h.obstacleIndex,
          }),
        ),
    ];
    const fieldIndex = new EdgeIndex(workField.flatMap((p) => [p.outer, ...p.holes]));
    const stats = computeStats({ field: workField, fieldIndex, workable, parts, machine: m });
    return {
      index,
      boundary: zone,
      workable,
      // No tracks yet: the group's reference line is the zone's first vertex (as for a zone without a plan).
      groups: [
        { trackType: 'Straight', bearingDeg: 0, abLine: [zone.outer[0], zone.outer[0]], parts, stats },
      ],
      activeGroup: 0,
      stats,
    };
  });
  if (zones.every((z) => multiPolygonArea(z.workable) < 1e-3)) {
    throw new PlanningError(
      'HEADLAND_EXHAUSTS_FIELD',
      `${options.exteriorHeadlandPasses} exterior headland pass(es) of ${m.swathWidth} m leave no workable area in any field part. Use fewer passes or a narrower swath.`,
      {},
    );
  }
  const plan = { zones, stats: sumStats(zones.map((z) => z.stats)), machine: m, options };
  return { plan, frame, repairs };
}
