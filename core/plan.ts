/**
 * The one composer: PlanRequest -> PathPlan.
 *
 *   prepare (clean, validate, project) -> per field part (zone):
 *   headlands -> tracks -> route -> metrics -> zone; then sequence the
 *   driven parts across the plan and sum the statistics.
 *
 * Pure: no I/O, no clock, no randomness. Runs in Node, workers and browsers.
 */
import { planDecomposedPart } from './decompose/plan-decomposed.ts';
import { machineGap, splitAtNarrowGaps } from './field/narrow-gaps.ts';
import { prepareField } from './field/prepare-field.ts';
import { difference, intersection, union } from './geometry/clip.ts';
import { EdgeIndex } from './geometry/edge-index.ts';
import { multiPolygonArea } from './geometry/polygon.ts';
import { hypot, nearestOnPolyline, polylineLength } from './geometry/vec.ts';
import { generateHeadlands } from './headland/generate-headlands.ts';
import { auditPart } from './metrics/audit-zones.ts';
import { computeStats, sumStats } from './metrics/compute-stats.ts';
import { resolveOptions } from './plan-options.ts';
import { withZoneCorridors } from './route/corridor-zone.ts';
import { drivenPassSwaths } from './route/headland-corners.ts';
import { leftOutWarnings } from './route/left-out.ts';
import type { Visit } from './route/optimize-order.ts';
import { planRoute } from './route/plan-route.ts';
import { refillPoints } from './route/refill-points.ts';
import { longestReverse } from './route/route-geometry.ts';
import { EAGER, overhangsNoMore, withWedgeRuns } from './route/wedge-zone.ts';
import { alongStrip, type StripLanes } from './strip-plans.ts';
import { contourDirection } from './terrain/contour.ts';
import type { ElevationSampler } from './terrain/slopes.ts';
import { extendTracks } from './tracks/extend-tracks.ts';
import { directionCandidates, generateTracks } from './tracks/generate-tracks.ts';
import { spiralOrder } from './tracks/spiral-middle.ts';
import { stripLanes } from './tracks/strip-lanes.ts';
import { patternTracks } from './tracks/track-pattern.ts';
import {
  type GeometryGroup,
  type Machine,
  type PathPart,
  type PlanHooks,
  PlanningError,
  type PlanOptions,
  type PlanRequest,
  type PlanResult,
  type Point,
  type Polygon,
  type Zone,
} from './types/index.ts';
import { withUnworkedBand } from './unworked-band.ts';
import { zoneParts } from './zone-parts.ts';

/**
 * Plan a field. `hooks.shouldStopOptimizer` is the caller's clock for the
 * route optimizer (the planner reads none); without it the optimizer runs
 * until it converges or reaches its evaluation cap.
 */
export function planField(req: PlanRequest, hooks: PlanHooks = {}): PlanResult {
  const options = resolveOptions(req);
  const { field, frame, repairs } = prepareField(req.boundary);
  const nodes = field.nodes.flat();
  const nodeAt = (i: number | undefined, name: string): Point | undefined => {
    if (i === undefined) return undefined;
    if (!Number.isInteger(i) || i < 0 || i >= nodes.length) {
      throw new PlanningError(
        'INVALID_OPTION',
        `routeOptions.${name} is ${i}, but the field has ${nodes.length} route nodes (its exterior boundary vertices, numbered from 0 in input order); expected an integer from 0 to ${nodes.length - 1}.`,
        { path: `routeOptions.${name}` },
      );
    }
    return nodes[i];
  };
  const start = nodeAt(options.route.startPointNodeIndex, 'startPointNodeIndex');
  const end = nodeAt(options.route.endPointNodeIndex, 'endPointNodeIndex');
  const sa = options.route.stagingArea;
  const staging = sa ? frame.toMetric(sa[0], sa[1]) : undefined;
  const reference = options.referenceLine?.map(([lon, lat]) => frame.toMetric(lon, lat));
  const ground = options.trackDirection === 'Contour' ? hooks.ground?.(frame) : undefined;
  if (options.trackDirection === 'Contour' && !ground) {
    throw new PlanningError(
      'OPTION_NOT_SUPPORTED',
      "trackDirection 'Contour' needs the ground of the field: plan it where an elevation model is given.",
      { path: 'trackDirection' },
    );
  }
  const zoneHooks: ZoneHooks = ground ? { ...hooks, contourGround: ground } : hooks;
  const zones: Zone[] = [];
  const refusals: PlanningError[] = [];
  // usePassable false: passable obstacles are obstacles like any other; a
  // part they cut in two becomes two parts (nothing may cross between them).
  const parts =
    req.usePassable === false && field.passable.length
      ? field.parts.flatMap((p) =>
          difference([p], field.passable).filter((q) => multiPolygonArea([q]) > 1e-3),
        )
      : field.parts;
  const passable = req.usePassable === false ? [] : field.passable;
  // A part an obstacle cuts in two but for gaps the machine does not pass is planned as its sides.
  const passes = machineGap(options.machine);
  const machineWidth = `${Number(passes.toFixed(2))} m`;
  const sides = parts.flatMap((p) => {
    const split = splitAtNarrowGaps(p, passes);
    return split.parts.map((q) => ({ part: q, gap: split.gap, pinched: split.pinched }));
  });
  sides.forEach(({ part, gap, pinched }, index) => {
    // With a staging area, the route enters and leaves at the nearest point of the zone's edge.
    const gate = staging ? nearestOnPolyline(part.outer, staging, true) : undefined;
    const zoneStart = pickFor(part, start) ?? gate;
    const zoneEnd = pickFor(part, end) ?? gate;
    const planSide = (o: typeof options) =>
      alongStrip(
        planZone(part, index, passable, o, zoneStart, zoneEnd, zoneHooks, { reference }),
        (o2, lanes) =>
          planZone(part, index, passable, o2, zoneStart, zoneEnd, zoneHooks, { reference, lanes }),
        o,
        index,
      );
    let result = planSide(options);
    // A side cut off at a gap the machine does not pass (not a part of the
    // field as drawn) too small for the headland passes asked is worked with
    // fewer, down to none (by tracks alone), as a farmer works such a corner.
    let fewer = options.exteriorHeadlandPasses;
    while (
      (gap !== undefined || pinched) &&
      result instanceof PlanningError &&
      result.code === 'HEADLAND_EXHAUSTS_FIELD' &&
      fewer > 0
    ) {
      fewer--;
      const next = planSide({ ...options, exteriorHeadlandPasses: fewer });
      if (!(next instanceof PlanningError))
        for (const z of next)
          z.warnings = [
            ...(z.warnings ?? []),
            `Field part ${index} is too small for ${options.exteriorHeadlandPasses} exterior headland pass(es) of ${options.machine.swathWidth} m: it is planned with ${fewer || 'none'}.`,
          ];
      result = next;
    }
    if (staging && !(result instanceof PlanningError)) {
      // A decomposed part is one route: it enters at its first zone and leaves from its last.
      result.forEach((z, k) => {
        z.stagingLegs = {
          entry: k === 0 && z.routeStart ? [staging, z.routeStart] : null,
          exit: k === result.length - 1 && z.routeEnd ? [z.routeEnd, staging] : null,
        };
      });
    }
    if (result instanceof PlanningError) refusals.push(result);
    const partZones =
      result instanceof PlanningError ? [emptyZone(part, index, passable, options.machine)] : result;
    if (result instanceof PlanningError)
      partZones[0].warnings = [`Field part ${index} is not worked: ${result.message}`];
    if (gap !== undefined)
      for (const z of partZones)
        z.warnings = [
          ...(z.warnings ?? []),
          `Field part ${index} is one side of a field an obstacle cuts in two but for a gap of ${gap.toFixed(1)} m (narrower than the machine, ${machineWidth}: it does not pass there): it is planned as a part of its own, and the machine goes round outside the field between the sides.`,
        ];
    if (pinched)
      for (const z of partZones)
        z.warnings = [
          ...(z.warnings ?? []),
          `Field part ${index} is one side of a field whose edge pinches it in two (narrower than the machine, ${machineWidth}, where the sides meet: it does not pass there): it is planned as a part of its own, and the machine goes round outside the field between the sides.`,
        ];
    for (const z of partZones) {
      z.index = zones.length;
      z.fieldPart = index;
      zones.push(z);
    }
  });
  if (zones.every((z) => z.groups[0].parts.every((p) => p.sequence === undefined)) && refusals.length) {
    throw refusals[0];
  }
  // Sequence the driven parts across the whole plan, zone by zone.
  let seq = 0;
  for (const z of zones)
    for (const g of z.groups) for (const p of g.parts) if (p.sequence !== undefined) p.sequence = seq++;
  if (options.route.calculateRefillPoints) {
    const m = options.machine;
    // The zones of one field part are one route: the tank runs on from zone to zone.
    const byPart = new Map<number, Zone[]>();
    for (const z of zones)
      byPart.set(z.fieldPart ?? z.index, [...(byPart.get(z.fieldPart ?? z.index) ?? []), z]);
    for (const group of byPart.values()) {
      const owner = new Map<number, Zone>();
      const driven: PathPart[] = [];
      let outer: PathPart | undefined;
      for (const z of group) {
        const g = z.groups[z.activeGroup];
        for (const p of g.parts) {
          if (p.sequence !== undefined) {
            driven.push(p);
            owner.set(p.sequence, z);
          } else if (!outer && p.type === 'ExteriorHeadlandPass' && p.passNumber === 1) outer = p;
        }
        z.refillPoints = [];
      }
      driven.sort((a, b) => (a.sequence as number) - (b.sequence as number));
      const edge = group[0].partBoundary ?? group[0].boundary;
      const points = refillPoints({
        parts: driven,
        swathWidth: m.swathWidth,
        tankCapacity: m.tankCapacity as number,
        applicationRate: m.applicationRate as number,
        strategy: options.route.refillStrategyType ?? 'Exact',
        outerRing: outer ? outer.points : [...edge.outer, edge.outer[0]],
      });
      for (const r of points) (owner.get(r.partSequence) ?? group[0]).refillPoints?.push(r);
    }
  }
  const plan = { zones, stats: sumStats(zones.map((z) => z.stats)), machine: options.machine, options };
  return { plan, frame, repairs };
}

/** A route node belongs to the zone whose boundary is nearest. */
function pickFor(part: Polygon, p: Point | undefined): Point | undefined {
  if (!p) return undefined;
  // (1 mm: outlines cut by the clipper keep their vertices to its precision.)
  for (const q of part.outer) if (hypot(q.x - p.x, q.y - p.y) < 1e-3) return p;
  return undefined;
}

/** The caller's hooks, with the ground sampler made for the plan's frame (trackDirection 'Contour'). */
interface ZoneHooks extends PlanHooks {
  contourGround?: ElevationSampler;
}

function planZone(
  zone: Polygon,
  index: number,
  passable: readonly Polygon[],
  asked: PlanOptions,
  start: Point | undefined,
  end: Point | undefined,
  hooks: ZoneHooks,
  { reference, lanes }: { reference?: Point[]; lanes?: StripLanes } = {},
): Zone[] | PlanningError {
  let options = asked;
  const m = options.machine;
  const w = m.swathWidth;
  const headlands = generateHeadlands(zone, {
    swathWidth: w,
    exteriorPasses: options.exteriorHeadlandPasses,
    interiorPasses: options.interiorHeadlandPasses,
    turningRadius: m.minTurningRadius,
    ...(m.maxCurvatureRate !== undefined ? { curvatureRate: m.maxCurvatureRate } : {}),
  });
  const zonePassable = passable.length ? intersection(passable, [zone]) : [];
  const inner = withUnworkedBand(headlands, zone, w);
  const workable = zonePassable.length ? difference(inner, zonePassable) : inner;
  const workField = zonePassable.length ? difference([zone], zonePassable) : [zone];
  const region = new EdgeIndex([zone.outer, ...zone.holes]);
  const fieldIndex = zonePassable.length
    ? new EdgeIndex(workField.flatMap((p) => [p.outer, ...p.holes]))
    : region;
  const haName = (a: number) => `${(a / 10000).toFixed(2)} ha`;
  if (multiPolygonArea(workable) < 1e-3) {
    // Nothing for tracks: either the passes that go round take the whole
    // field, or the field is too narrow for a pass to go round and for a track.
    if (headlands.drivenExterior.length + headlands.drivenInterior.length === 0) {
      return new PlanningError(
        'SWATH_WIDER_THAN_FIELD',
        `Field part ${index} (${haName(multiPolygonArea([zone]))}) is too narrow for a ${w} m swath: no headland pass can turn round it at radius ${m.minTurningRadius} m and no track fits half a swath inside its edge. Use a narrower swath.`,
        { zoneIndex: index },
      );
    }
    return new PlanningError(
      'HEADLAND_EXHAUSTS_FIELD',
      `The headlands use up field part ${index} (${haName(multiPolygonArea([zone]))}): ${options.exteriorHeadlandPasses} exterior pass(es) of ${w} m leave no workable area. Use fewer headland passes or a narrower swath.`,
      { zoneIndex: index },
    );
  }
  // A spiral begins where the headland passes (driven first) end: near the start node, else
  // near the first vertex of the outermost pass.
  const entry = start ?? headlands.drivenExterior.find((h) => h.passNumber === 1)?.ring[0];
  // Along the contour: the zone's tracks take the direction of least along-track slope (as if asked for it).
  const contour =
    options.trackDirection === 'Contour' && hooks.contourGround
      ? contourDirection(workable, hooks.contourGround, directionCandidates(workable, w))
      : undefined;
  if (contour && !contour.unusable) options = { ...options, preferredBearingDeg: contour.bearingDeg };
  const pattern = patternTracks(workable, options, reference, entry);
  if (contour?.unusable)
    pattern.warnings.push(
      `Tracks along the contour: in field part ${index} ${contour.unusable}; its tracks run in the usual direction.`,
    );
  const exteriorFitted = headlands.drivenExterior.reduce((n, r) => Math.max(n, r.passNumber), 0);
  if (exteriorFitted < options.exteriorHeadlandPasses) {
    pattern.warnings.push(
      exteriorFitted === 0
        ? `No exterior headland pass of ${w} m can turn round field part ${index} at radius ${m.minTurningRadius} m; it is worked by ${lanes ? 'passes along it' : 'tracks alone'}.`
        : `Only ${exteriorFitted} of the ${options.exteriorHeadlandPasses} exterior headland passes fit in field part ${index}; the area inside them is worked by tracks.`,
    );
  }
  const straightTracks = () => {
    const cut = generateTracks(workable, {
      swathWidth: w,
      preferredBearingDeg: options.preferredBearingDeg,
      coverRemainder: options.extendTracks,
    });
    return options.extendTracks
      ? extendTracks({
          tracks: cut,
          workable,
          zone,
          passSwaths: drivenPassSwaths(
            headlands,
            w,
            m.minTurningRadius,
            region,
            m.maxCurvatureRate !== undefined,
          ),
          trackArea: [...workable, ...zonePassable],
        })
      : cut;
  };
  let trackType = pattern.tracks ? (options.trackType ?? 'Straight') : 'Straight';
  // Lanes along a strip (strip-plans.ts): the sides of its inward offsets,
  // or no tracks (the corridor passes work the whole part).
  const stripped =
    lanes === 'offsets'
      ? stripLanes(zone, {
          swathWidth: w,
          turningRadius: m.minTurningRadius,
          worked: headlands.drivenInterior.map((h) => [...h.ring, h.ring[0]]),
        })
      : undefined;
  // Where no lane fits, the plan would be the corridor passes' own, which is planned as such.
  if (stripped === null)
    return new PlanningError('SWATH_WIDER_THAN_FIELD', `No lane fits along field part ${index}.`, {
      zoneIndex: index,
    });
  let tracks =
    stripped ??
    (lanes === 'corridors' ? { ...straightTracks(), tracks: [] } : (pattern.tracks ?? straightTracks()));
  if (
    !lanes &&
    tracks.tracks.length === 0 &&
    headlands.drivenExterior.length + headlands.drivenInterior.length === 0
  ) {
    if (multiPolygonArea(workable) < 1e-3) {
      return new PlanningError(
        'HEADLAND_EXHAUSTS_FIELD',
        `The headlands use up field part ${index}: no workable area is left inside ${options.exteriorHeadlandPasses} pass(es) of ${w} m.`,
        { zoneIndex: index },
      );
    }
    return new PlanningError(
      'SWATH_WIDER_THAN_FIELD',
      `The workable area of field part ${index} is narrower than one ${w} m swath in every direction; no track fits. Use a narrower swath or fewer headland passes.`,
      { zoneIndex: index },
    );
  }
  // Whether the passes of a piece of the field are driven as the route
  // leaves it (see below).
  let leavePiecesDone = true;
  const routeOf = (
    t: typeof tracks,
    type: typeof trackType,
    algorithm = options.route.algorithm,
    fixed?: readonly Visit[],
  ) =>
    planRoute({
      tracks: t,
      headlands,
      region,
      zone,
      machine: m,
      start,
      end,
      order: {
        algorithm,
        skipCount: options.route.skipCount,
        objective: options.route.objective,
        maxEvaluations: options.route.maxEvaluations,
        shouldStop: hooks.shouldStopOptimizer,
        ...(fixed || options.route.trackOrder
          ? { fixed: fixed ?? options.route.trackOrder }
          : type === 'Spiral' && algorithm === 'auto'
            ? { fixed: spiralOrder(t, m.minTurningRadius) }
            : {}),
      },
      // A spiral works inwards: the headland passes, then the loops from the outermost in.
      headlandsFirst: options.route.headlandsFirst || type === 'Spiral',
      forcedDirection: options.route.forcedDirection,
      headlandDrivethrough: options.route.enableHeadlandDrivethrough === true,
      runOnCorners: options.extendTracks === true,
      leavePiecesDone,
    });
  const bestRoute = (t: typeof tracks, type: typeof trackType) => {
    const first = routeOf(t, type);
    if (!first.optimizer || options.route.trackOrder) return first;
    // The optimizer prices transitions with a quicker search than the route
    // drives them with: the plain boustrophedon order, driven, is kept when
    // it reaches as much and costs less (the report then gains nothing).
    const plain = routeOf(t, type, 'boustrophedon');
    const reach = (r: typeof first) => r.skippedTracks.length + r.failures + r.undrivenRings.length;
    if (
      reach(plain) < reach(first) ||
      (reach(plain) === reach(first) && nonWorking(plain.parts) < nonWorking(first.parts))
    )
      return {
        ...plain,
        optimizer: { ...first.optimizer, cost: first.optimizer.baselineCost, gainPercent: 0 },
      };
    return first;
  };
  let route = bestRoute(tracks, trackType);
  if (trackType !== 'Straight' && route.failures > 0) {
    // The curved or spiral tracks could not all be joined inside the field: plan straight ones instead.
    const straight = straightTracks();
    const alt = routeOf(straight, 'Straight');
    if (alt.failures < route.failures) {
      pattern.warnings.push(
        `The ${trackType} tracks could not all be joined inside the field (${route.failures} connection(s)); the zone falls back to straight tracks.`,
      );
      delete pattern.reference;
      trackType = 'Straight';
      tracks = straight;
      route = alt;
    }
  }
  const statsOf = (ps: readonly PathPart[], wa: readonly Polygon[]) =>
    computeStats({ field: workField, fieldIndex, workable: wa, parts: ps, machine: m });
  /** The zone's parts for the tracks driven by the route, and their statistics. */
  const drive = (t: typeof tracks, r: typeof route, tracked: Polygon[] = workable) => {
    const parts = zoneParts(t, r, headlands, options.useCrossHatches ? tracked : undefined);
    const warnings = leftOutWarnings({
      tracks: t.tracks,
      skippedTracks: r.skippedTracks,
      swathWidth: w,
      turningRadius: m.minTurningRadius,
      undrivenRings: r.undrivenRings,
      failures: r.failures,
    });
    return { route: r, parts, warnings, workable: tracked, stats: statsOf(parts, tracked) };
  };
  /** A plan with the corridors it leaves worked, where they pay. */
  const withCorridors = (d: ReturnType<typeof drive>, t: typeof tracks) => ({
    ...withZoneCorridors({
      route: d.route,
      parts: d.parts,
      workable: d.workable,
      field: workField,
      firstIndex: t.tracks.length,
      stats: d.stats,
      statsOf,
    }),
    parts: d.parts,
    warnings: d.warnings,
  });
  /**
   * The zone's plan on route r: with run-ons and corridor passes where they
   * pay, and the tracks it drives.
   */
  const complete = (r: typeof route, t0: typeof tracks) => {
    let tracks = t0;
    // Lanes run anywhere half a swath inside the strip: all of it is their workable area.
    const plain = lanes === 'offsets' ? drive(tracks, r, workField) : drive(tracks, r);
    const plainTracks = tracks;
    const canRunOn = !lanes && trackType === 'Straight' && !options.extendTracks && zonePassable.length === 0;
    const wedged = canRunOn
      ? // Missed wedges at track ends: the tracks beside them run on where that pays.
        // What the run-ons work joins the area the tracks work.
        withWedgeRuns(tracks, plain, zone, (t, runs) =>
          drive(t, bestRoute(t, 'Straight'), union(workable, intersection(runs, workField))),
        )
      : undefined;
    // Then the corridors the plan leaves, looked for once on the plan taken; where
    // the plan with run-ons gets none, the plan without them may do better with its own.
    let driven = withCorridors(wedged ?? plain, wedged?.tracks ?? tracks);
    let runOn = wedged !== undefined;
    if (wedged && driven.route === wedged.route) {
      const other = withCorridors(plain, tracks);
      if (other.route !== plain.route && other.stats.coveredPercent > driven.stats.coveredPercent) {
        driven = other;
        runOn = false;
      }
    }
    if (wedged && runOn) tracks = wedged.tracks;
    else if (!wedged && driven.route !== plain.route && canRunOn) {
      // Run-ons the plan did not pay for may pay beside its corridor passes.
      const t0 = tracks;
      const again = withWedgeRuns(t0, driven, zone, (t, runs) =>
        withCorridors(drive(t, bestRoute(t, 'Straight'), union(workable, intersection(runs, workField))), t),
      );
      if (again) {
        driven = again;
        tracks = again.tracks;
      }
    }
    if (
      canRunOn &&
      driven.stats.coveredPercent < EAGER_BELOW_PERCENT &&
      driven.stats.coveredPercent >= EAGER_FROM_PERCENT
    ) {
      // Still under-covered: eager run-ons (into thin wedges too) on the plan
      // without run-ons, with its corridors, taken where that covers more.
      const eager = withWedgeRuns(
        plainTracks,
        plain,
        zone,
        // The route's order kept: only the ways at the lengthened ends are looked for again.
        (t, runs, order) =>
          drive(
            t,
            // (An order chosen by the optimizer or the caller is chosen again, with its report.)
            options.route.algorithm === 'auto' && !options.route.trackOrder
              ? routeOf(t, 'Straight', 'auto', order)
              : bestRoute(t, 'Straight'),
            union(workable, intersection(runs, workField)),
          ),
        EAGER,
      );
      const next = eager && withCorridors(eager, eager.tracks);
      if (
        eager &&
        next &&
        next.stats.coveredPercent > driven.stats.coveredPercent &&
        // (Run on nearer the edge, tracks may end where only a long reverse leads on,
        // or where their turns swing over the edge: the plan they run on from may
        // have such turns where the plan taken so far has none.)
        longestReverse(next.parts) <=
          Math.max(longestReverse(driven.parts), EAGER_REVERSE * m.minTurningRadius) &&
        overhangsNoMore(zone, driven.parts, next.parts, w / 2)
      ) {
        driven = next;
        tracks = eager.tracks;
      }
    }
    return { driven, tracks, plainCovered: plain.stats.coveredPercent };
  };
  let done = complete(route, tracks);
  if (route.leftPiecesDone) {
    // Passes driven as the route leaves a piece spare it a trip back through
    // the necks; where that leaves more unworked, all are driven at the end.
    // (A route that, as driven, works clearly less is not completed: run-ons
    // and corridor passes never made up so much.)
    leavePiecesDone = false;
    const lateRoute = bestRoute(tracks, trackType);
    const lateCovered = (lanes === 'offsets' ? drive(tracks, lateRoute, workField) : drive(tracks, lateRoute))
      .stats.coveredPercent;
    const late =
      lateCovered >= done.plainCovered - PIECES_DONE_HOPELESS ? complete(lateRoute, tracks) : undefined;
    if (late && late.driven.stats.coveredPercent > done.driven.stats.coveredPercent + PIECES_DONE_MARGIN)
      done = late;
    else leavePiecesDone = true;
  }
  const driven = done.driven;
  tracks = done.tracks;
  pattern.warnings.push(...driven.warnings);
  const parts = driven.parts;
  const { workable: worked, stats } = driven;
  route = driven.route;
  // Lanes follow the strip: curved lines, the longest of them the group's reference.
  const lane = lanes ? longestGuidance(parts) : undefined;
  const group: GeometryGroup = {
    trackType: lane ? 'Curved' : trackType,
    bearingDeg: tracks.bearingDeg,
    abLine: lane ? [lane[0], lane[lane.length - 1]] : tracks.abLine,
    ...(lane ? { referenceLine: lane } : pattern.reference ? { referenceLine: pattern.reference } : {}),
    parts,
    stats,
  };
  const single: Zone = {
    index,
    boundary: zone,
    workable: worked,
    groups: [group],
    activeGroup: 0,
    stats,
    routeStart: route.start,
    routeEnd: route.end,
    routeFailures: route.failures,
    skippedTracks: route.skippedTracks.length,
    ...(pattern.warnings.length ? { warnings: pattern.warnings } : {}),
    ...(route.optimizer ? { optimizer: route.optimizer } : {}),
    ...(contour && !contour.unusable
      ? {
          contour: {
            bearingDeg: contour.bearingDeg,
            meanAlongPercent: contour.meanAlongPercent,
            meanSlopePercent: contour.meanSlopePercent,
          },
        }
      : {}),
  };
  // Zones of their own are for straight tracks; curved and spiral tracks (and
  // crosshatch lines across the whole area) keep the part whole.
  const result =
    !options.decomposition || lanes || trackType !== 'Straight' || options.useCrossHatches
      ? [single]
      : (planDecomposedPart({
          part: zone,
          headlands,
          workable,
          passable: zonePassable,
          region,
          options,
          start,
          end,
          hooks,
          single,
        }) ?? [single]);
  // The plan audit: passes and tracks planned but not driven, tracks driven
  // twice, turns over the edge; into the statistics and the warnings.
  auditPart({
    zones: result,
    headlands,
    ...(result[0] === single ? { tracks: tracks.tracks } : {}),
    passable: zonePassable,
    machine: m,
  });
  return result;
}

function emptyZone(zone: Polygon, index: number, passable: readonly Polygon[], machine: Machine): Zone {
  const zonePassable = passable.length ? intersection(passable, [zone]) : [];
  const workField = zonePassable.length ? difference([zone], zonePassable) : [zone];
  const region = new EdgeIndex(workField.flatMap((p) => [p.outer, ...p.holes]));
  const stats = computeStats({ field: workField, fieldIndex: region, workable: [], parts: [], machine });
  return {
    index,
    boundary: zone,
    workable: [],
    groups: [
      { trackType: 'Straight', bearingDeg: 0, abLine: [zone.outer[0], zone.outer[0]], parts: [], stats },
    ],
    activeGroup: 0,
    stats,
  };
}

/** Zones covered less than this [%] with sparing run-ons (or none) try eager ones, ... */
const EAGER_BELOW_PERCENT = 95;
/**
 * ... where they are covered at least this much [%]: eager run-ons work a
 * few percent of a zone at most, and planning the route again is dear.
 */
const EAGER_FROM_PERCENT = 90;

/** ... and taken where no reverse is longer than this many turning radii (or than one before). */
const EAGER_REVERSE = 5;
/**
 * Passes driven as the route leaves each piece of the field are kept unless
 * driving them all at the end covers this much more of the zone [points].
 */
const PIECES_DONE_MARGIN = 0.1;
/** ... and is not completed where, as driven, it works this many points less [%]. */
const PIECES_DONE_HOPELESS = 0.5;

/** The longest guidance line among the parts (undefined when there is none). */
function longestGuidance(parts: readonly PathPart[]): Point[] | undefined {
  let best: Point[] | undefined;
  let bestLength = 0;
  for (const p of parts) {
    if (p.type !== 'GuidanceTrack' || p.points.length < 2) continue;
    const l = polylineLength(p.points);
    if (l > bestLength) {
      best = p.points;
      bestLength = l;
    }
  }
  return best;
}

/** Length of the turns and connectors of driven parts [m]. */
function nonWorking(parts: readonly PathPart[]): number {
  let d = 0;
  for (const p of parts) if (!p.working) d += polylineLength(p.points);
  return d;
}
