/**
 * Core planner types. Everything inside the planner is in SI units in a local
 * metric frame: metres, radians, seconds, 1/m. Headings are math angles
 * (counter-clockwise from +x = east) unless a name says `bearingDeg`
 * (degrees clockwise from north, the wire convention).
 */
import type { MachineCostInputs } from '../costs/machinery-cost.ts';
import type { ZoneAudit } from '../metrics/plan-audit.ts';
import type { ElevationSampler } from '../terrain/slopes.ts';

export interface Point {
  x: number;
  y: number;
}

/** A pose: position [m] and heading [rad, CCW from east]. */
export interface Pose extends Point {
  heading: number;
}

/** Closed ring without a repeated closing vertex. */
export type Ring = Point[];

/** Polygon in the metric frame: exterior counter-clockwise, holes clockwise. */
export interface Polygon {
  outer: Ring;
  holes: Ring[];
}

export type MultiPolygon = Polygon[];

/** Where a ring vertex came from in the input, for error messages and node indices. */
export interface LonLat {
  lon: number;
  lat: number;
}

/** The machine, SI units. */
export interface Machine {
  /** Working width [m]. */
  swathWidth: number;
  /** Minimum turning radius of the centre line [m]. */
  minTurningRadius: number;
  /** Speed while working [m/s]. */
  workingSpeed: number;
  /** Speed in turns, connectors and transport [m/s]. */
  turningSpeed: number;
  /** Distances between the wheels of each axle [m] (for wheel-traffic reporting). */
  trackWidths: number[];
  /** Tyre widths [m]. */
  tireWidths: number[];
  /** Curvature rate limit [1/m^2]; undefined = arcs may start abruptly. */
  maxCurvatureRate?: number;
  /** Tank (or hopper) capacity [l], for refill points. */
  tankCapacity?: number;
  /** Application rate [l/m^2], for refill points. */
  applicationRate?: number;
  /** Rated PTO power [kW] (fuel and cost defaults; core/costs). */
  ptoPowerKw?: number;
  /** Fuel use while working [l/h]; default from the PTO power (core/costs/fuel.ts). */
  fuelUseWorkingLph?: number;
  /** Fuel use while turning and travelling [l/h]; default from the PTO power. */
  fuelUseNonWorkingLph?: number;
  /** Fuel use standing at a reversing cusp [l/h]; default from the PTO power, at most the non-working rate. */
  fuelUseIdleLph?: number;
  /** Emissions per litre of fuel [kg CO2e/l]; default 2.68 (diesel). */
  fuelEmissionFactorKgPerL?: number;
  /** Inputs of the machinery cost model (core/costs/machinery-cost.ts); each defaults. */
  cost?: Partial<MachineCostInputs>;
  /** Steepest sideways slope the machine may drive [%]; parts over it are flagged in their slopes (core/terrain). */
  maxCrossSlopePercent?: number;
}

/** Where refill points go: where the tank runs empty, the start of that track, or the nearest outer headland point. */
export type RefillStrategy = 'Exact' | 'StartOfTrack' | 'ClosestExternalHeadland';

export interface RefillPoint {
  point: Point;
  /** Sequence number of the driven part the point lies on (or starts). */
  partSequence: number;
  /** Volume applied from the start of the route up to this point [l]. */
  volumeApplied: number;
}

/**
 * Track order: 'auto' (default: per block of tracks, the next track by the
 * shortest turn that fits, which skips lines where the turn needs it),
 * 'boustrophedon' (every line in turn, back and forth), 'snake' (every other
 * line out, the lines between on the way back), 'clusteredSpiral' (clusters
 * of 2s+1 lines driven i, i+s+1, i+1, ...; s = skipCount) and 'optimized'
 * (the anytime optimizer of order and direction).
 */
export type RouteAlgorithm = 'auto' | 'boustrophedon' | 'snake' | 'clusteredSpiral' | 'optimized';

export const ROUTE_ALGORITHMS: readonly RouteAlgorithm[] = [
  'auto',
  'boustrophedon',
  'snake',
  'clusteredSpiral',
  'optimized',
];

/** What the optimizer minimizes over the non-working transitions. */
export type OptimizerObjective = 'distance' | 'time' | 'fuel';

/** What the optimizer did, in the objective's unit (m, s or l). */
export interface OptimizerReport {
  objective: OptimizerObjective;
  /** Cost of the plain boustrophedon order (non-working transitions between tracks). */
  baselineCost: number;
  /** Cost of the chosen order. */
  cost: number;
  /** 100 (1 - cost / baselineCost) [%]. */
  gainPercent: number;
  /** Move evaluations made. */
  evaluations: number;
  /** Improving moves accepted. */
  improvements: number;
  /** True when it stopped because it converged, false when the time budget or the evaluation cap ended it. */
  converged: boolean;
}

export interface RouteOptions {
  algorithm: RouteAlgorithm;
  /** Lines skipped per turn for 'clusteredSpiral' (default: the fewest that make every turn a U-turn). */
  skipCount?: number;
  /** Objective of 'optimized' (default 'distance'). */
  objective?: OptimizerObjective;
  /**
   * Cap on the optimizer's move evaluations (default 400,000). The time cap
   * comes from the caller as a callback (PlanHooks), the planner reads no clock.
   */
  maxEvaluations?: number;
  /** Drive the exterior headland passes first, outermost first, then the tracks (default false: tracks first). */
  headlandsFirst?: boolean;
  /**
   * Drive the tracks in exactly this order, each track (its index, 0 = the
   * first line across the zone) once, forward = from its end a to end b;
   * overrides `algorithm`. For one-zone fields.
   */
  trackOrder?: { track: number; forward: boolean }[];
  /** Winding of every headland pass, clockwise or counter-clockwise (default: whichever joins the route best). */
  forcedDirection?: 'CW' | 'CCW';
  /**
   * Connectors drive straight through the headland (a direct turn, else
   * straight legs across the field), never along a headland pass. Default
   * false: whichever is shorter, along a pass included.
   */
  enableHeadlandDrivethrough?: boolean;
  /** Compute refill points from the machine's tankCapacity and applicationRate. */
  calculateRefillPoints?: boolean;
  /** Default 'Exact'. */
  refillStrategyType?: RefillStrategy;
  /**
   * Where the machine comes from and returns to, WGS84 [lon, lat]. Each
   * zone's route starts and ends at the point of its edge nearest to it
   * (unless start/end node indices say otherwise); the legs between are
   * reported as stagingLegs (transport outside the field, straight lines).
   */
  stagingArea?: [number, number];
  /** Index into the zone's route nodes (exterior boundary vertices of the input ring). */
  startPointNodeIndex?: number;
  endPointNodeIndex?: number;
}

/** A field ready for planning, in the metric frame. */
export interface Field {
  /** Separate field parts; each becomes a zone. Holes are non-passable obstacles. */
  parts: Polygon[];
  /** Passable obstacles: not worked, but the machine may drive across them. */
  passable: Polygon[];
  /** Exterior vertices of the input, per part, in the metric frame (route nodes). */
  nodes: Point[][];
}

/** How the direction of straight tracks is chosen when no bearing is given: fewest tracks and turns, or along the contour. */
export type TrackDirection = 'Auto' | 'Contour';

/** The pattern of the tracks: parallel straight lines, curves along a reference line, or a spiral inwards. */
export type TrackType = 'Straight' | 'Curved' | 'Spiral';

export const TRACK_TYPES: readonly TrackType[] = ['Straight', 'Curved', 'Spiral'];

/** How the reference curve of Curved tracks is smoothed. */
export interface CurvedOptions {
  /** Chaikin cut ratio in [0, 0.5]: how far along each edge a smoothed corner is cut (default 0.25; 0 = none). */
  levelOfSmoothing?: number;
  /** Passes of corner cutting, 0..10 (default 3). */
  smoothingIterations?: number;
  /** Reference vertices turning by less than this [deg] are kept as they are (default 5). */
  minAngleToSmooth?: number;
}

export interface PlanOptions {
  machine: Machine;
  /** Default 'Straight'. */
  trackType?: TrackType;
  curvedOptions?: CurvedOptions;
  /** Reference line of Curved tracks, WGS84 [lon, lat]; default the longest smooth run of the boundary. */
  referenceLine?: [number, number][];
  /** Crosshatch lines at right angles to the tracks. */
  useCrossHatches?: boolean;
  exteriorHeadlandPasses: number;
  interiorHeadlandPasses: number;
  /** Track bearing [deg clockwise from north]; undefined = the planner chooses. */
  preferredBearingDeg?: number;
  /**
   * 'Contour': straight tracks along the contour, in the direction of least
   * mean along-track slope over each zone (core/terrain/contour.ts), from the
   * ground the caller gives (PlanHooks.ground). Default: the usual search.
   */
  trackDirection?: TrackDirection;
  /**
   * Tracks run on into the headland until their whole swath reaches the
   * workable area's edge (wedges covered), and on for what neither the
   * headland passes nor other tracks work beyond it; exterior passes run on
   * past their square corners. All stay half a swath inside the field;
   * coverage goes up, overlap too (both reported).
   */
  extendTracks?: boolean;
  /**
   * Split non-convex field parts into zones with their own track directions
   * where that saves a clear margin of non-working distance and time (default true).
   */
  decomposition?: boolean;
  route: RouteOptions;
}

export type GeometryPartType =
  | 'GuidanceTrack'
  | 'ExteriorHeadlandPass'
  | 'InteriorHeadlandPass'
  | 'RouteTrack'
  | 'Turn'
  | 'HeadlandTurn'
  | 'HeadlandConnector'
  | 'Connector'
  /** A guidance line across the tracks (useCrossHatches), for a second, crossing pass; not driven. */
  | 'Crosshatch';

/**
 * One geometry part: a centre line in the metric frame. Driven parts have
 * their points in the direction of driving and carry `sequence`.
 */
export interface PathPart {
  type: GeometryPartType;
  points: Point[];
  /** True for parts where the implement works (route tracks, headland passes). */
  working: boolean;
  /** Order of driving within the whole plan; set on driven parts only. */
  sequence?: number;
  /** Driven backwards. A reversing cusp exists only where this changes between consecutive parts. */
  reverse?: boolean;
  /** For GuidanceTrack and RouteTrack: index of the guidance track in its group. */
  trackIndex?: number;
  /** For headland passes: 1 = outermost. For interior passes: 1 = closest to the obstacle. */
  passNumber?: number;
  /** For interior headland passes: index of the obstacle (hole) in the zone. */
  obstacleIndex?: number;
  /** Turn shape, for turns: 'U', 'bulb', 'K', 'headland', ... */
  turnKind?: string;
  /** Bearing of a straight track [deg clockwise from north, 0..180). */
  bearingDeg?: number;
}

export interface PlanStats {
  /** Field area less holes [m^2]. */
  fieldArea: number;
  /** Area inside the headlands, where tracks run [m^2]. */
  workableArea: number;
  /** Field area covered by at least one swath [m^2]. */
  coveredArea: number;
  /** Field area not covered [m^2]. */
  missedArea: number;
  /** Area covered more than once (sum of swath areas minus covered) [m^2]. */
  overlapArea: number;
  trackCount: number;
  turnCount: number;
  headlandPassCount: number;
  /** Route track distance [m]. */
  workingDistance: number;
  /** Headland pass distance [m]. */
  headlandDistance: number;
  /** Turn distance, including headland turns [m]. */
  turnDistance: number;
  /** Connector distance [m]. */
  connectorDistance: number;
  totalDistance: number;
  /** Non-working distance = turns + connectors [m]. */
  nonWorkingDistance: number;
  /** Working time [s]. */
  workingTime: number;
  /** Non-working time [s]. */
  nonWorkingTime: number;
  /** Estimated total time [s]. */
  totalTime: number;
  /** coveredArea / fieldArea [%]. */
  coveredPercent: number;
  /** overlapArea / fieldArea [%]. */
  overlapPercent: number;
  /**
   * Fuel burnt [l]: working time at the working rate, the rest at the
   * non-working rate (core/costs/fuel.ts); absent on plans made before it.
   */
  fuelLitres?: number;
  /** Greenhouse gas from that fuel [kg CO2e] = fuelLitres x emission factor. */
  ghgKgCo2e?: number;
  /** Machinery cost of the plan (core/costs/machinery-cost.ts), in the currency of the cost inputs. */
  costTotal?: number;
  /** costTotal per hectare covered. */
  costPerHa?: number;
  /**
   * Ground in the field the wheels run on [m^2]: the union of the wheel
   * tracks of every driven part (core/metrics/wheel-traffic.ts), ground run
   * on twice counted once; 0 when the equipment names no tyre widths;
   * absent on plans made before it.
   */
  traffickedArea?: number;
  /** traffickedArea / fieldArea [%]. */
  traffickedAreaPercent?: number;
  /**
   * The plan audit (core/metrics/plan-audit.ts), set on every plan the
   * planner makes (absent on plans made before it): length of the planned
   * headland passes no driven working part runs along [m].
   */
  undrivenPassLength?: number;
  /** Length of the planned tracks no driven working part runs along [m]. */
  undrivenTrackLength?: number;
  /** Driven track length within a quarter swath of another, parallel driven track (both counted) [m]. */
  duplicateTrackLength?: number;
  /** Length of turns and connectors closer than half the working width to the field edge or an obstacle, or outside [m]. */
  overhangLength?: number;
  /** Area of those turns' and connectors' half-width strips outside the field or inside obstacles [m^2]. */
  overhangArea?: number;
}

export interface GeometryGroup {
  trackType: TrackType;
  /** Curved tracks: the reference curve they follow. */
  referenceLine?: Point[];
  /** Bearing of the tracks [deg clockwise from north, 0..180). */
  bearingDeg: number;
  /** AB line: the reference line of the tracks. */
  abLine: [Point, Point];
  parts: PathPart[];
  stats: PlanStats;
}

export interface Zone {
  index: number;
  /** The zone's field polygon (holes are its obstacles). */
  boundary: Polygon;
  /** The workable area inside the headlands. */
  workable: Polygon[];
  groups: GeometryGroup[];
  activeGroup: number;
  stats: PlanStats;
  routeStart?: Point;
  routeEnd?: Point;
  /** Connections that could not be made inside the field (0 on a valid plan). */
  routeFailures?: number;
  /** Tracks left out because no drivable path inside the field reaches them (their area is missed). */
  skippedTracks?: number;
  /** Set when the route order was optimized ('optimized'). */
  optimizer?: OptimizerReport;
  /** Set when refill points were asked for. */
  refillPoints?: RefillPoint[];
  /** What the planner could not do as asked and did instead (a track type it fell back from, say). */
  warnings?: string[];
  /** trackDirection 'Contour': the bearing taken and the ground it was taken on (mean |along-track| and mean steepest slope [%]). */
  contour?: { bearingDeg: number; meanAlongPercent: number; meanSlopePercent: number };
  /** What the plan audit found (core/metrics/plan-audit.ts): undriven passes and tracks, duplicate tracks, turn overhang. */
  audit?: ZoneAudit;
  /** With a staging area: from it to where the route starts, and from where it ends back to it. */
  stagingLegs?: { entry: [Point, Point] | null; exit: [Point, Point] | null };
  /** Index of the field part (input polygon) the zone belongs to. */
  fieldPart?: number;
  /**
   * Set on the zones of a decomposed field part: the part itself (turns and
   * connectors may use all of it, so they are checked against it), ...
   */
  partBoundary?: Polygon;
  /** ... and the zone's role: a cell with its own track direction, or the headland of the whole part. */
  decomposition?: { role: 'cell' | 'headland'; report?: DecompositionReport };
}

/** What decomposing a field part gained, against the same part planned as one zone. */
export interface DecompositionReport {
  /** Number of cells (zones with tracks) of the part. */
  cells: number;
  /** The undecomposed plan of the part. */
  baseline: { turnCount: number; nonWorkingDistance: number; totalTime: number; coveredArea: number };
}

/** What a caller with a clock gives the planner. */
export interface PlanHooks {
  /** True when the route optimizer must stop and keep the best order found so far. */
  shouldStopOptimizer?: () => boolean;
  /**
   * The ground for trackDirection 'Contour': an elevation sampler in the
   * plan's metric frame, made once the frame is known (the caller reads
   * the elevation model; the planner only samples it).
   */
  ground?: (frame: MetricFrame) => ElevationSampler;
}

export interface Plan {
  zones: Zone[];
  stats: PlanStats;
  machine: Machine;
  options: PlanOptions;
}

export type PlanningErrorCode =
  | 'FIELD_EMPTY'
  | 'FIELD_INVALID'
  | 'FIELD_SELF_INTERSECTION'
  | 'FIELD_TOO_FEW_POINTS'
  | 'FIELD_NOT_LONLAT'
  | 'FIELD_UNSUPPORTED_GEOMETRY'
  | 'FIELD_PARSE_ERROR'
  | 'HEADLAND_EXHAUSTS_FIELD'
  | 'SWATH_WIDER_THAN_FIELD'
  | 'OPTION_NOT_SUPPORTED'
  | 'PLAN_TOO_COMPLEX'
  | 'INVALID_OPTION';

/** The one error the planner throws: a code per failure kind and a message saying what was expected and found. */
export class PlanningError extends Error {
  readonly code: PlanningErrorCode;
  /** Where: a JSON path-like location and/or a coordinate. */
  readonly details: { path?: string; coordinate?: [number, number]; [k: string]: unknown };
  constructor(
    code: PlanningErrorCode,
    message: string,
    details: { path?: string; coordinate?: [number, number]; [k: string]: unknown } = {},
  ) {
    super(message);
    this.name = 'PlanningError';
    this.code = code;
    this.details = details;
  }
}

/** Defaults a user would expect for a tractor. */
export const DEFAULT_MACHINE: Omit<Machine, 'swathWidth'> = {
  minTurningRadius: 6,
  workingSpeed: 10 / 3.6,
  turningSpeed: 6 / 3.6,
  trackWidths: [],
  tireWidths: [],
};

/** The local metric frame of a field (a transverse Mercator centred on it). */
export interface MetricFrame {
  /** proj4 definition of the frame. */
  readonly definition: string;
  /** WGS84 lon/lat [deg] to the frame [m]. */
  toMetric(lon: number, lat: number): Point;
  /** The frame [m] to WGS84 [lon, lat] in degrees. */
  toLonLat(p: Point): [number, number];
}

/** A field prepared for planning: cleaned, validated, projected. */
export interface PreparedField {
  field: Field;
  frame: MetricFrame;
  /** What was repaired, in words (duplicate points removed, ring closed, ...). */
  repairs: string[];
}

/** What the planner is asked: the field as GeoJSON (lon/lat) and the options. */
export interface PlanRequest {
  /** GeoJSON Polygon, MultiPolygon, Feature or FeatureCollection of Polygon features. */
  boundary: unknown;
  machine: Partial<Machine> & { swathWidth: number };
  /** Default 0. */
  exteriorHeadlandPasses?: number;
  /** Default 0. */
  interiorHeadlandPasses?: number;
  /** Track bearing [deg clockwise from north]; omitted = the planner chooses. */
  preferredBearingDeg?: number;
  /** Default 'Auto'; 'Contour' needs PlanHooks.ground (see PlanOptions). */
  trackDirection?: TrackDirection;
  /** Default false. */
  extendTracks?: boolean;
  /** Default true: decompose non-convex field parts where it saves (see PlanOptions). */
  decomposition?: boolean;
  /** Default 'Straight'. */
  trackType?: TrackType;
  curvedOptions?: CurvedOptions;
  /** Reference line of Curved tracks, WGS84 [lon, lat]. */
  referenceLine?: [number, number][];
  /** Add crosshatch lines: straight guidance lines at right angles to the tracks. Default false. */
  useCrossHatches?: boolean;
  /**
   * Default true: passable obstacles (features with properties.passable true)
   * are driven over, only their area is left unworked. False: they are
   * obstacles like the field's holes (gone round, never crossed).
   */
  usePassable?: boolean;
  route?: Partial<RouteOptions>;
}

export interface PlanResult {
  plan: Plan;
  frame: MetricFrame;
  repairs: string[];
}
