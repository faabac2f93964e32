/**
 * The route of one zone: the order in which the machine drives the tracks
 * and headland passes, and the turns and connectors that join them.
 *
 * Tracks are grouped into blocks (runs of adjacent scan lines whose segments
 * overlap, so neighbours can be joined by a turn at either end; track-blocks.ts).
 * Within a block the next track is chosen greedily by the real length of the
 * turn that fits inside the field (drive-greedy.ts), or the tracks follow an
 * order fixed beforehand (drive-ordered.ts). A turn that does not fit inside
 * the field is replaced by travel along a headland pass (route-links.ts). The
 * headland passes are driven last, inner to outer (drive-headlands.ts), so the
 * route ends on the outermost pass, near the field edge.
 */
import type { OptimizerReport, Point } from '../types/index.ts';
import { type CorridorPasses, driveCorridorPasses } from './corridor-passes.ts';
import { driveGreedy } from './drive-greedy.ts';
import { HeadlandDriver } from './drive-headlands.ts';
import { driveOrdered } from './drive-ordered.ts';
import { RingPath } from './ring-path.ts';
import { RouteBuilder } from './route-builder.ts';
import { entryPose } from './route-geometry.ts';
import { RouteLinks, type RouteRing } from './route-links.ts';
import { withoutDegenerateParts } from './route-tidy.ts';
import type { RouteInput, RouteResult } from './route-types.ts';
import { buildBlocks, type TrackRec } from './track-blocks.ts';

export type { RouteInput, RouteOrderAlgorithm, RouteOrderOptions, RouteResult } from './route-types.ts';

export function planRoute(input: RouteInput): RouteResult {
  const sigma = input.machine.maxCurvatureRate;
  const recs: TrackRec[] = input.tracks.tracks.map((track, index) => ({
    index,
    track,
    block: -1,
    done: false,
  }));
  const blocks = buildBlocks(recs, input.tracks.heading);
  const rings: RouteRing[] = [
    ...input.headlands.drivenInterior.map((r) => ({
      ring: r,
      path: new RingPath(r.ring, sigma !== undefined),
      exterior: false,
    })),
    ...input.headlands.drivenExterior.map((r) => ({
      ring: r,
      path: new RingPath(r.ring, sigma !== undefined),
      exterior: true,
    })),
  ];
  const innermostPass = input.headlands.drivenExterior.reduce((m, r) => Math.max(m, r.passNumber), 0);
  const links = new RouteLinks({
    region: input.region,
    zone: input.zone,
    radius: input.machine.minTurningRadius,
    curvatureRate: sigma,
    swathWidth: input.tracks.swathWidth,
    headlandDrivethrough: input.headlandDrivethrough,
    travelRings: rings.filter((r) => !r.exterior || r.ring.passNumber === innermostPass),
  });
  const b = new RouteBuilder(input, recs, blocks, rings, links);
  const headlands = new HeadlandDriver(b);

  const driveHeadlands = input.driveHeadlands !== false;
  if (input.headlandsFirst && driveHeadlands) {
    const exterior = rings.filter((r) => r.exterior).sort((x, y) => x.ring.passNumber - y.ring.passNumber);
    if (exterior.length && input.start) {
      // From the start node onto the outermost pass, heading along it.
      const path = exterior[0].path;
      const q = path.pointAt(path.project(input.start));
      b.routeStart = input.start;
      b.pose = entryPose(input.start, { x: q.x, y: q.y, heading: 0 });
    }
    headlands.driveRings(exterior);
    if (exterior.length && !input.start) b.routeStart = b.parts.find((p) => p.working)?.points[0];
  }
  // Headland passes after the tracks: obstacles first, then the exterior
  // passes inner to outer (with headlandsFirst, the exterior passes were
  // driven before the tracks). Those of a piece of the field the tracks are
  // done with are driven before the route leaves it through a neck.
  const pending = !driveHeadlands
    ? []
    : input.headlandsFirst
      ? rings.filter((r) => !r.exterior)
      : [
          ...rings.filter((r) => !r.exterior),
          ...rings.filter((r) => r.exterior).sort((x, y) => y.ring.passNumber - x.ring.passNumber),
        ];
  let leftPiecesDone = false;
  const leaving =
    input.leavePiecesDone === false
      ? undefined
      : () => {
          if (
            headlands.driveBeforeLeaving(
              pending,
              recs.filter((r) => !r.done).map((r) => b.startPoseOf(r, true)),
            )
          )
            leftPiecesDone = true;
        };
  const algorithm = input.order?.algorithm ?? 'auto';
  let optimizer: OptimizerReport | undefined;
  if (recs.length && (algorithm !== 'auto' || input.order?.fixed)) optimizer = driveOrdered(b);
  else if (recs.length) driveGreedy(b, leaving);
  headlands.driveRings(pending);

  // The route is complete but for its way to the end node: corridors it
  // leaves unworked may still be worked before that (withCorridors).
  const beforeEnd = { parts: b.parts.length, pose: b.pose, failures: b.failures };
  const finish = (corridors?: CorridorPasses): RouteResult => {
    let routeEnd: Point | undefined = b.pose ? { x: b.pose.x, y: b.pose.y } : undefined;
    if (input.end && b.pose) {
      const target = entryPose(input.end, b.pose, true);
      if (!b.link(target, 'HeadlandConnector')) b.failures++;
      routeEnd = input.end;
    }
    return {
      parts: withoutDegenerateParts(b.parts),
      start: b.routeStart,
      end: routeEnd,
      failures: b.failures,
      skippedTracks: b.skipped,
      undrivenRings: b.undriven,
      ...(leftPiecesDone ? { leftPiecesDone } : {}),
      ...(optimizer ? { optimizer } : {}),
      ...(corridors?.guidance.length ? { corridors } : {}),
    };
  };
  const result = finish();
  result.withCorridors = () => {
    b.parts.length = beforeEnd.parts;
    b.pose = beforeEnd.pose;
    b.failures = beforeEnd.failures;
    return finish(driveCorridorPasses(b, input.tracks.tracks.length));
  };
  return result;
}
