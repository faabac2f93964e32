/** What the route of one zone is made from, and what it gives back. */

import type { EdgeIndex } from '../geometry/edge-index.ts';
import type { HeadlandResult, HeadlandRing } from '../headland/generate-headlands.ts';
import type { TrackSet } from '../tracks/generate-tracks.ts';
import type {
  Machine,
  OptimizerObjective,
  OptimizerReport,
  PathPart,
  Point,
  Polygon,
  Pose,
  RouteAlgorithm,
} from '../types/index.ts';
import type { CorridorPasses } from './corridor-passes.ts';
import type { Visit } from './optimize-order.ts';

/**
 * How the tracks are ordered:
 * - 'auto': greedy, per block, the next track by the real length of the turn that fits (the default);
 * - 'boustrophedon': every line in turn, back and forth;
 * - 'snake': every other line out, the lines between on the way back;
 * - 'clusteredSpiral': clusters of 2s+1 lines driven i, i+s+1, i+1, i+s+2, ... (s = skipCount);
 * - 'optimized': the anytime optimizer of order and direction (optimize-order.ts).
 */
export type RouteOrderAlgorithm = RouteAlgorithm;

export interface RouteOrderOptions {
  algorithm: RouteOrderAlgorithm;
  /** Lines skipped per turn for 'clusteredSpiral'; default the fewest that make each turn a U-turn. */
  skipCount?: number;
  /** For 'optimized' (default 'distance'). */
  objective?: OptimizerObjective;
  /** The caller's deadline for 'optimized': true when it must stop. */
  shouldStop?: () => boolean;
  /** Cap on the optimizer's move evaluations (the deadline of a caller without a clock). */
  maxEvaluations?: number;
  /** Drive the tracks in exactly this order (every track once; overrides `algorithm`). */
  fixed?: readonly Visit[];
}

export interface RouteInput {
  tracks: TrackSet;
  headlands: HeadlandResult;
  /** Edges of the zone boundary and its obstacles. */
  region: EdgeIndex;
  /** The zone polygon (its holes are obstacles). */
  zone: Polygon;
  machine: Machine;
  /** Where the route should start / end (route nodes), if the request names them. */
  start?: Point;
  end?: Point;
  /** Ordering of the tracks; default 'auto'. */
  order?: RouteOrderOptions;
  /** Drive the exterior headland passes first (outermost first), then the tracks. */
  headlandsFirst?: boolean;
  /** Winding of every headland pass: clockwise or counter-clockwise; default either, whichever joins best. */
  forcedDirection?: 'CW' | 'CCW';
  /**
   * Continue from this pose: where the route of the previous cell of a
   * decomposed field part ended (position and heading).
   */
  startPose?: Pose;
  /** Drive the headland passes (default true); false leaves them to another call, their rings still serve for travel. */
  driveHeadlands?: boolean;
  /** Connectors straight through the headland, never along a headland pass. */
  headlandDrivethrough?: boolean;
  /**
   * Exterior passes run on past each square corner to work the kite outside
   * it, half a swath inside the field (with extendTracks; overlap, reported).
   */
  runOnCorners?: boolean;
  /**
   * Drive the headland passes of a piece of the field (one only necks
   * narrower than the implement join to the rest) when its tracks are done
   * and the route leaves it (default true); false drives every pass after
   * all the tracks.
   */
  leavePiecesDone?: boolean;
}

export interface RouteResult {
  /** Driven parts in driving order (sequence numbers are assigned by the composer). */
  parts: PathPart[];
  start?: Point;
  end?: Point;
  /** Connections that could not be made inside the field (0 on a valid plan). */
  failures: number;
  /** Indices of tracks left out because no drivable path inside the field reaches them. */
  skippedTracks: number[];
  /** Headland rings asked for but not driven (no drivable way onto them inside the field). */
  undrivenRings: HeadlandRing[];
  /** Set when headland passes of a piece of the field were driven as the route left it (leavePiecesDone). */
  leftPiecesDone?: boolean;
  /** Set when the order was optimized. */
  optimizer?: OptimizerReport;
  /** Corridor passes driven (RouteTracks numbered on from the zone's tracks) and the corridors they work. */
  corridors?: CorridorPasses;
  /**
   * The same route with the corridors it leaves unworked (lanes and arms
   * too narrow for a headland pass or a track) worked by passes down their
   * middle, driven after the headland passes (corridor-passes.ts). Dearer
   * than the route: for routes that leave much unworked.
   */
  withCorridors?: () => RouteResult;
}
