/**
 * A small hand-built plan for tests and examples of the plan formats, in an
 * equirectangular metric frame around (lon0, lat0).
 *
 * Zone 0: a 120 x 80 m field with a 10 x 10 m obstacle, one exterior and one
 * interior headland pass, two tracks running east, a K-turn with a reversing
 * leg, and a second (inactive) geometry group running north.
 * Zone 1: a 60 x 40 m field 200 m to the east with one track.
 *
 *   y=80 +--------------------------------+
 *        |  +--------------------------+  |      +----------+
 *        |  |          [##]            |  |      |   ---->  |
 *        |  | <----------------------  |  |      +----------+
 *        |  | ---------------------->  |  |     x=200    x=260
 *   y=0  +--------------------------------+
 *       x=0                             x=120
 */
import type { MetricFrame, PlanResult, PlanStats, Point } from '../core/types/index.ts';

const R = 6_371_008.8;

/** Equirectangular frame: exact enough for tests over a few hundred metres. */
export function equirectangularFrame(lon0: number, lat0: number): MetricFrame {
  const k = (Math.PI / 180) * R;
  const c = Math.cos((lat0 * Math.PI) / 180);
  return {
    definition: `+proj=eqc +lat_ts=${lat0} +lon_0=${lon0} +lat_0=${lat0} +R=${R} +units=m +no_defs`,
    toMetric: (lon, lat) => ({ x: (lon - lon0) * k * c, y: (lat - lat0) * k }),
    toLonLat: (p) => [lon0 + p.x / (k * c), lat0 + p.y / k],
  };
}

export function sampleStats(over: Partial<PlanStats> = {}): PlanStats {
  return {
    fieldArea: 9500,
    workableArea: 5600.123456,
    coveredArea: 9300,
    missedArea: 200,
    overlapArea: 450.5,
    trackCount: 2,
    turnCount: 2,
    headlandPassCount: 1,
    workingDistance: 200,
    headlandDistance: 360,
    turnDistance: 40.25,
    connectorDistance: 8.246,
    totalDistance: 608.496,
    nonWorkingDistance: 48.496,
    workingTime: 201.6,
    nonWorkingTime: 29.0976,
    totalTime: 230.6976,
    coveredPercent: 97.894736842,
    overlapPercent: 4.742105263,
    ...over,
  };
}

const P = (x: number, y: number): Point => ({ x, y });

export function samplePlanResult(lon0 = 10.5, lat0 = 52.25): PlanResult {
  const frame = equirectangularFrame(lon0, lat0);
  const machine = {
    swathWidth: 10,
    minTurningRadius: 5,
    workingSpeed: 10 / 3.6,
    turningSpeed: 6 / 3.6,
    trackWidths: [1.8],
    tireWidths: [0.45],
  };
  const zone0Stats = sampleStats();
  const zone1Stats = sampleStats({
    fieldArea: 2400,
    workableArea: 2400,
    coveredArea: 2400,
    missedArea: 0,
    overlapArea: 0,
    trackCount: 1,
    turnCount: 0,
    headlandPassCount: 0,
    workingDistance: 60,
    headlandDistance: 0,
    turnDistance: 0,
    connectorDistance: 0,
    totalDistance: 60,
    nonWorkingDistance: 0,
    workingTime: 21.6,
    nonWorkingTime: 0,
    totalTime: 21.6,
    coveredPercent: 100,
    overlapPercent: 0,
  });
  const plan: PlanResult['plan'] = {
    machine,
    options: {
      machine,
      exteriorHeadlandPasses: 1,
      interiorHeadlandPasses: 1,
      route: { algorithm: 'boustrophedon' },
    },
    stats: sampleStats({
      fieldArea: 11900,
      trackCount: 3,
      totalDistance: 668.496,
      totalTime: 252.2976,
    }),
    zones: [
      {
        index: 0,
        boundary: {
          outer: [P(0, 0), P(120, 0), P(120, 80), P(0, 80)],
          holes: [[P(55, 35), P(55, 45), P(65, 45), P(65, 35)]],
        },
        workable: [
          {
            outer: [P(10, 10), P(110, 10), P(110, 70), P(10, 70)],
            holes: [[P(50, 30), P(50, 50), P(70, 50), P(70, 30)]],
          },
        ],
        activeGroup: 0,
        stats: zone0Stats,
        routeStart: P(10, 15),
        routeEnd: P(5, 40),
        routeFailures: 0,
        groups: [
          {
            trackType: 'Straight',
            bearingDeg: 90,
            abLine: [P(10, 15), P(110, 15)],
            stats: zone0Stats,
            parts: [
              {
                type: 'GuidanceTrack',
                points: [P(10, 15), P(110, 15)],
                working: false,
                trackIndex: 0,
                bearingDeg: 90,
              },
              {
                type: 'GuidanceTrack',
                points: [P(10, 25), P(110, 25)],
                working: false,
                trackIndex: 1,
                bearingDeg: 90,
              },
              {
                type: 'ExteriorHeadlandPass',
                points: [P(5, 5), P(115, 5), P(115, 75), P(5, 75), P(5, 5)],
                working: false,
                passNumber: 1,
              },
              {
                type: 'InteriorHeadlandPass',
                points: [P(50, 30), P(50, 50), P(70, 50), P(70, 30), P(50, 30)],
                working: false,
                passNumber: 1,
                obstacleIndex: 0,
              },
              {
                type: 'RouteTrack',
                points: [P(10, 15), P(110, 15)],
                working: true,
                sequence: 0,
                trackIndex: 0,
                bearingDeg: 90,
              },
              {
                type: 'Turn',
                points: [P(110, 15), P(113.5355, 16.4645), P(115, 20), P(113.5355, 23.5355), P(110, 25)],
                working: false,
                sequence: 1,
                turnKind: 'U',
              },
              {
                type: 'RouteTrack',
                points: [P(110, 25), P(10, 25)],
                working: true,
                sequence: 2,
                trackIndex: 1,
                bearingDeg: 90,
              },
              { type: 'Turn', points: [P(10, 25), P(5, 28)], working: false, sequence: 3, turnKind: 'K' },
              {
                type: 'Turn',
                points: [P(5, 28), P(7, 32)],
                working: false,
                sequence: 4,
                reverse: true,
                turnKind: 'K',
              },
              { type: 'HeadlandConnector', points: [P(7, 32), P(5, 40)], working: false, sequence: 5 },
              {
                type: 'ExteriorHeadlandPass',
                points: [P(5, 40), P(5, 5), P(115, 5), P(115, 75), P(5, 75), P(5, 40)],
                working: true,
                sequence: 6,
                passNumber: 1,
              },
            ],
          },
          {
            trackType: 'Straight',
            bearingDeg: 0,
            abLine: [P(15, 10), P(15, 70)],
            stats: zone0Stats,
            parts: [
              {
                type: 'GuidanceTrack',
                points: [P(15, 10), P(15, 70)],
                working: false,
                trackIndex: 0,
                bearingDeg: 0,
              },
              {
                type: 'RouteTrack',
                points: [P(15, 10), P(15, 70)],
                working: true,
                sequence: 7,
                trackIndex: 0,
                bearingDeg: 0,
              },
            ],
          },
        ],
      },
      {
        index: 1,
        boundary: { outer: [P(200, 0), P(260, 0), P(260, 40), P(200, 40)], holes: [] },
        workable: [{ outer: [P(200, 0), P(260, 0), P(260, 40), P(200, 40)], holes: [] }],
        activeGroup: 0,
        stats: zone1Stats,
        routeStart: P(200, 20),
        routeEnd: P(260, 20),
        groups: [
          {
            trackType: 'Straight',
            bearingDeg: 90,
            abLine: [P(200, 20), P(260, 20)],
            stats: zone1Stats,
            parts: [
              {
                type: 'GuidanceTrack',
                points: [P(200, 20), P(260, 20)],
                working: false,
                trackIndex: 0,
                bearingDeg: 90,
              },
              {
                type: 'RouteTrack',
                points: [P(200, 20), P(260, 20)],
                working: true,
                sequence: 8,
                trackIndex: 0,
                bearingDeg: 90,
              },
            ],
          },
        ],
      },
    ],
  };
  return { plan, frame, repairs: ['removed 1 duplicate point'] };
}
