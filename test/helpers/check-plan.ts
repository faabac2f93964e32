/**
 * The shared plan checker every planner test and the benchmark use: it
 * re-measures a plan from its geometry and reports every broken invariant.
 * An empty list means the plan is valid.
 */
import { bufferLines, intersection, intersectionArea, union } from '../../core/geometry/clip.ts';
import { EdgeIndex } from '../../core/geometry/edge-index.ts';
import { multiPolygonArea } from '../../core/geometry/polygon.ts';
import { endTangent, startTangent } from '../../core/geometry/tangent.ts';
import { isSliver } from '../../core/tracks/generate-tracks.ts';
import type { PathPart, Plan, PlanStats, Point, Zone } from '../../core/types/index.ts';

export interface Violation {
  rule: string;
  zone: number;
  part?: number;
  sequence?: number;
  message: string;
  at?: Point;
}

export const TOLERANCES = {
  /** Tracks may lie this far outside the workable area [m]. */
  workable: 0.05,
  /** Adjacent straight tracks are one swath apart within this [m]. */
  spacing: 0.01,
  /** Curvature may exceed 1 / minTurningRadius by this fraction. */
  curvature: 0.01,
  /** Driven parts may lie this far outside the field [m]. */
  field: 0.01,
  /** Consecutive driven parts meet within this [m] ... */
  position: 0.01,
  /**
   * ... and this heading difference [deg], between the tangents of the
   * curves the two parts draw where they meet (junctionTurnDeg), not the
   * headings of their end chords: a chord of an arc sampled at 5 degrees is
   * 2.5 degrees off the arc's tangent at its end.
   */
  headingDeg: 2,
  /** Curved parts: at most this between vertices [m] and this heading step [deg]. */
  maxStep: 1.0 + 1e-6,
  maxStepDeg: 5 + 1e-6,
  /** No driven part is shorter than this [m]: a stop and start (or a cusp) with no way between. */
  minPart: 0.05,
  /** Statistics equal the geometry within this fraction. */
  stats: 0.005,
  /**
   * Curvature may change this much faster than maxCurvatureRate (a fraction):
   * curvature measured from vertices up to 1 m apart is a window average
   * whose error grows with unequal neighbouring chords (up to about 30 %).
   */
  curvatureRate: 0.3,
};

export function checkPlan(plan: Plan): Violation[] {
  const out: Violation[] = [];
  const seqs: number[] = [];
  for (const zone of plan.zones) {
    const g = zone.groups[zone.activeGroup];
    if (!g) continue;
    for (const p of g.parts) if (p.sequence !== undefined) seqs.push(p.sequence);
    checkZone(plan, zone, out);
  }
  checkAcrossZones(plan, out);
  const sorted = seqs.slice().sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i] !== i) {
      out.push({
        rule: 'sequence',
        zone: -1,
        message: `driven parts are not numbered 0..${sorted.length - 1} (found ${sorted[i]} at ${i})`,
      });
      break;
    }
  }
  return out;
}

/**
 * The zones of one decomposed field part are driven as one route: where the
 * route passes from one zone to the next, it is continuous in position and
 * heading as within a zone.
 */
function checkAcrossZones(plan: Plan, out: Violation[]) {
  const byPart = new Map<number, { p: PathPart; zone: number }[]>();
  for (const zone of plan.zones) {
    if (!zone.partBoundary) continue;
    const g = zone.groups[zone.activeGroup];
    const key = zone.fieldPart ?? -1;
    const list = byPart.get(key) ?? [];
    for (const p of g.parts) if (p.sequence !== undefined) list.push({ p, zone: zone.index });
    byPart.set(key, list);
  }
  for (const list of byPart.values()) {
    list.sort((a, b) => (a.p.sequence as number) - (b.p.sequence as number));
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1];
      const cur = list[i];
      if (prev.zone === cur.zone) continue;
      const a = prev.p.points[prev.p.points.length - 1];
      const b = cur.p.points[0];
      if (
        (cur.p.sequence as number) !== (prev.p.sequence as number) + 1 ||
        dist(a, b) > TOLERANCES.position
      ) {
        out.push({
          rule: 'continuity',
          zone: cur.zone,
          sequence: cur.p.sequence,
          message: `gap of ${dist(a, b).toFixed(3)} m between zones ${prev.zone} and ${cur.zone} of one field part`,
          at: b,
        });
        continue;
      }
      const cusp = !!prev.p.reverse !== !!cur.p.reverse;
      const diff = junctionTurnDeg(prev.p.points, cur.p.points, cusp, 1 / plan.machine.minTurningRadius);
      if (diff > TOLERANCES.headingDeg) {
        out.push({
          rule: 'continuity',
          zone: cur.zone,
          sequence: cur.p.sequence,
          message: `heading jumps ${diff.toFixed(2)} deg between zones ${prev.zone} and ${cur.zone}`,
          at: b,
        });
      }
    }
  }
}

function checkZone(plan: Plan, zone: Zone, out: Violation[]) {
  const m = plan.machine;
  const g = zone.groups[zone.activeGroup];
  const z = zone.index;
  const parts = g.parts;
  // Driven parts stay inside the field: the zone's field part (a decomposed
  // part's cells share it; their turns at a cut may use the neighbouring cell).
  const fieldPoly = zone.partBoundary ?? zone.boundary;
  const field = new EdgeIndex([fieldPoly.outer, ...fieldPoly.holes]);
  const workable = new EdgeIndex(zone.workable.flatMap((p) => [p.outer, ...p.holes]));
  const driven = parts
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => p.sequence !== undefined)
    .sort((a, b) => (a.p.sequence as number) - (b.p.sequence as number));

  // Tracks inside the workable area; extended tracks (extendTracks), where they
  // run on beyond it, inside the field, at least half a swath from its
  // boundary and obstacles (where no headland goes round, the workable area
  // reaches the field edge and tracks run to it).
  const extended = plan.options.extendTracks === true;
  const halfSwath = m.swathWidth / 2;
  const outsideWorkable = (q: Point) =>
    !workable.contains(q) && workable.distance(q, 1) > TOLERANCES.workable;
  const outside = (q: Point) =>
    extended
      ? outsideWorkable(q) &&
        (!field.contains(q) || field.distance(q, halfSwath) < halfSwath - TOLERANCES.workable)
      : outsideWorkable(q);
  for (const [i, p] of parts.entries()) {
    if (p.type !== 'GuidanceTrack' && p.type !== 'RouteTrack') continue;
    for (const q of densify(p.points, 1)) {
      if (outside(q)) {
        out.push({
          rule: 'track-inside-workable',
          zone: z,
          part: i,
          message: extended
            ? 'extended track point closer than half a swath to the field boundary'
            : 'track point outside the workable area',
          at: q,
        });
        break;
      }
    }
  }

  // Adjacent straight tracks one swath apart. The remainder rule
  // (core/tracks/generate-tracks.ts): only the last line may sit off the grid,
  // pulled back to half a swath inside the area's edge, and only for a
  // remainder of at least a third of a swath (isSliver); a sliver gets no
  // pass of its own unless extendTracks asks to cover everything.
  // Curved and spiral tracks follow a reference curve; the rule is for straight groups.
  const straight = (g.trackType ?? 'Straight') === 'Straight';
  const guides = straight ? parts.filter((p) => p.type === 'GuidanceTrack' && p.points.length === 2) : [];
  if (guides.length > 1) {
    const a = guides[0].points[0];
    const b = guides[0].points[1];
    const l = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const nx = -(b.y - a.y) / l;
    const ny = (b.x - a.x) / l;
    const offs = [
      ...new Set(guides.map((p) => Math.round((p.points[0].x * nx + p.points[0].y * ny) * 1e5) / 1e5)),
    ].sort((u, v) => u - v);
    const w = m.swathWidth;
    for (let i = 1; i < offs.length; i++) {
      const d = offs[i] - offs[i - 1];
      const k = Math.round(d / w);
      const last = i === offs.length - 1;
      const onGrid = Math.abs(d - k * w) <= TOLERANCES.spacing && k >= 1;
      // Off the grid, the last line works the remainder past the previous grid line.
      const remainder = d - Math.floor(d / w) * w;
      const pulledBack = last && d > 0 && (extended || !isSliver(remainder + TOLERANCES.spacing, w));
      if (!onGrid && !pulledBack) {
        out.push({
          rule: 'track-spacing',
          zone: z,
          message:
            last && d > 0
              ? `last track ${d.toFixed(3)} m past its neighbour works a remainder of ${remainder.toFixed(3)} m, under a third of the ${w} m swath`
              : `tracks ${offs[i - 1].toFixed(3)} and ${offs[i].toFixed(3)} are ${d.toFixed(3)} m apart; swath ${w} m`,
        });
      }
    }
  }

  // Inside the field and out of obstacles; curvature and sampling; continuity.
  const kmax = (1 / m.minTurningRadius) * (1 + TOLERANCES.curvature);
  let prev: PathPart | null = null;
  for (const { p, i } of driven) {
    const pts = p.points;
    if (pts.length < 2) {
      out.push({
        rule: 'sampling',
        zone: z,
        part: i,
        sequence: p.sequence,
        message: 'driven part with fewer than 2 points',
      });
      continue;
    }
    const length = pts.reduce((a, q, k) => (k ? a + dist(pts[k - 1], q) : 0), 0);
    if (length < TOLERANCES.minPart) {
      out.push({
        rule: 'degenerate-part',
        zone: z,
        part: i,
        sequence: p.sequence,
        message: `${p.type}${p.reverse ? ' (reversing)' : ''} is ${(length * 100).toFixed(1)} cm long; driven parts are at least ${TOLERANCES.minPart * 100} cm`,
        at: pts[0],
      });
    }
    if (!field.contains(pts[0]) && field.distance(pts[0], 1) > TOLERANCES.field) {
      out.push({
        rule: 'inside-field',
        zone: z,
        part: i,
        sequence: p.sequence,
        message: `${p.type} starts outside the field`,
        at: pts[0],
      });
    } else {
      for (let k = 1; k < pts.length; k++) {
        // A crossing, or a vertex outside (a path can pass through an edge at a vertex lying on it).
        const leaves = field.segmentCrosses(pts[k - 1], pts[k]) || !field.contains(pts[k]);
        if (leaves && field.distance(pts[k], 1) > TOLERANCES.field) {
          out.push({
            rule: 'inside-field',
            zone: z,
            part: i,
            sequence: p.sequence,
            message: `${p.type} leaves the field or enters an obstacle`,
            at: pts[k],
          });
          break;
        }
      }
    }
    // Curvature and sampling inside the part.
    for (let k = 2; k < pts.length; k++) {
      const c = curvature(pts[k - 2], pts[k - 1], pts[k]);
      if (c > kmax) {
        out.push({
          rule: 'curvature',
          zone: z,
          part: i,
          sequence: p.sequence,
          message: `${p.type} curves at radius ${(1 / c).toFixed(2)} m < ${m.minTurningRadius} m`,
          at: pts[k - 1],
        });
        break;
      }
    }
    for (let k = 1; k < pts.length - 1; k++) {
      const step = turnDeg(pts[k - 1], pts[k], pts[k + 1]);
      if (step > TOLERANCES.maxStepDeg) {
        out.push({
          rule: 'sampling',
          zone: z,
          part: i,
          sequence: p.sequence,
          message: `${p.type} turns ${step.toFixed(2)} deg between vertices`,
          at: pts[k],
        });
        break;
      }
      if (step > 1e-3) {
        const d = Math.max(dist(pts[k - 1], pts[k]), dist(pts[k], pts[k + 1]));
        if (
          d > TOLERANCES.maxStep &&
          dist(pts[k - 1], pts[k]) > TOLERANCES.maxStep === dist(pts[k], pts[k + 1]) > TOLERANCES.maxStep
        ) {
          out.push({
            rule: 'sampling',
            zone: z,
            part: i,
            sequence: p.sequence,
            message: `${p.type} curves with ${d.toFixed(2)} m between vertices`,
            at: pts[k],
          });
          break;
        }
      }
    }
    if (prev && prev.sequence !== undefined && p.sequence === prev.sequence + 1) {
      const a = prev.points[prev.points.length - 1];
      const b = pts[0];
      if (dist(a, b) > TOLERANCES.position) {
        out.push({
          rule: 'continuity',
          zone: z,
          part: i,
          sequence: p.sequence,
          message: `gap of ${dist(a, b).toFixed(3)} m before ${p.type}`,
          at: b,
        });
      } else {
        const cusp = !!prev.reverse !== !!p.reverse;
        const diff = junctionTurnDeg(prev.points, pts, cusp, 1 / m.minTurningRadius);
        if (diff > TOLERANCES.headingDeg) {
          out.push({
            rule: 'continuity',
            zone: z,
            part: i,
            sequence: p.sequence,
            message: `heading jumps ${diff.toFixed(2)} deg into ${p.type}${cusp ? ' at a cusp' : ''}`,
            at: b,
          });
        }
        // Curvature across the junction (not at a cusp).
        if (!cusp && prev.points.length >= 2) {
          const c = curvature(prev.points[prev.points.length - 2], a, pts[1]);
          if (c > kmax) {
            out.push({
              rule: 'curvature',
              zone: z,
              part: i,
              sequence: p.sequence,
              message: `junction into ${p.type} curves at radius ${(1 / c).toFixed(2)} m`,
              at: b,
            });
          }
        }
      }
    }
    prev = p;
  }

  // With a curvature-rate limit: along every run of driven parts without a
  // cusp, curvature changes no faster than the machine can steer.
  if (m.maxCurvatureRate !== undefined) {
    let chain: Point[] = [];
    let chainPart = -1;
    let last: PathPart | null = null;
    const flush = () => {
      const at = curvatureRateViolation(chain, m.maxCurvatureRate as number);
      if (at)
        out.push({
          rule: 'curvature-rate',
          zone: z,
          part: chainPart,
          message: `curvature changes at ${at.rate.toFixed(4)} 1/m^2 > maxCurvatureRate ${m.maxCurvatureRate} 1/m^2`,
          at: at.point,
        });
      chain = [];
    };
    for (const { p, i } of driven) {
      const joined =
        last !== null &&
        !!last.reverse === !!p.reverse &&
        last.sequence !== undefined &&
        p.sequence === last.sequence + 1 &&
        chain.length > 0 &&
        dist(chain[chain.length - 1], p.points[0]) <= TOLERANCES.position;
      if (!joined) {
        flush();
        chainPart = i;
      }
      for (const q of p.points) {
        const prevQ = chain[chain.length - 1];
        if (!prevQ || dist(prevQ, q) > 1e-6) chain.push(q);
      }
      last = p;
    }
    flush();
  }

  // Every guidance track driven exactly once by a route track with the same geometry.
  const driveCount = new Map<number, number>();
  for (const { p, i } of driven) {
    if (p.type !== 'RouteTrack') continue;
    const gt = parts.find((q) => q.type === 'GuidanceTrack' && q.trackIndex === p.trackIndex);
    if (!gt) {
      out.push({
        rule: 'tracks-driven-once',
        zone: z,
        part: i,
        message: `route track ${p.trackIndex} drives no guidance track`,
      });
      continue;
    }
    driveCount.set(p.trackIndex as number, (driveCount.get(p.trackIndex as number) ?? 0) + 1);
    const [a, b] = [gt.points[0], gt.points[gt.points.length - 1]];
    const [c, d] = [p.points[0], p.points[p.points.length - 1]];
    const same = (dist(a, c) < 0.01 && dist(b, d) < 0.01) || (dist(a, d) < 0.01 && dist(b, c) < 0.01);
    if (!same)
      out.push({
        rule: 'tracks-driven-once',
        zone: z,
        part: i,
        message: `route track ${p.trackIndex} does not follow its guidance track`,
      });
  }
  for (const p of parts) {
    if (p.type === 'GuidanceTrack' && driveCount.get(p.trackIndex as number) !== 1) {
      out.push({
        rule: 'tracks-driven-once',
        zone: z,
        message: `guidance track ${p.trackIndex} driven ${driveCount.get(p.trackIndex as number) ?? 0} times`,
      });
    }
  }

  // Every reference headland pass has a driven pass.
  for (const type of ['ExteriorHeadlandPass', 'InteriorHeadlandPass'] as const) {
    const refs = new Set(
      parts.filter((p) => p.type === type && p.sequence === undefined).map((p) => p.passNumber),
    );
    const drivenPasses = new Set(driven.filter(({ p }) => p.type === type).map(({ p }) => p.passNumber));
    for (const n of refs) {
      if (!drivenPasses.has(n))
        out.push({ rule: 'headland-driven', zone: z, message: `${type} ${n} is not driven` });
    }
  }

  checkStats(plan, zone, out);
}

function checkStats(plan: Plan, zone: Zone, out: Violation[]) {
  const m = plan.machine;
  const g = zone.groups[zone.activeGroup];
  const s: PlanStats = g.stats;
  const driven = g.parts
    .filter((p) => p.sequence !== undefined)
    .sort((a, b) => (a.sequence as number) - (b.sequence as number));
  const len = (t: (p: PathPart) => boolean) =>
    driven.filter(t).reduce((acc, p) => acc + polyLen(p.points), 0);
  let turns = 0;
  let prevTurn = false;
  for (const p of driven) {
    if (p.type === 'Turn' && !prevTurn) turns++;
    prevTurn = p.type === 'Turn';
  }
  const expectClose = (name: string, got: number, want: number, abs: number) => {
    if (Math.abs(got - want) > Math.max(abs, TOLERANCES.stats * Math.abs(want))) {
      out.push({
        rule: 'stats',
        zone: zone.index,
        message: `${name}: reported ${got.toFixed(3)}, measured ${want.toFixed(3)}`,
      });
    }
  };
  expectClose('trackCount', s.trackCount, driven.filter((p) => p.type === 'RouteTrack').length, 0);
  expectClose('turnCount', s.turnCount, turns, 0);
  expectClose(
    'workingDistance',
    s.workingDistance,
    len((p) => p.type === 'RouteTrack'),
    0.01,
  );
  expectClose(
    'headlandDistance',
    s.headlandDistance,
    len((p) => p.type === 'ExteriorHeadlandPass' || p.type === 'InteriorHeadlandPass'),
    0.01,
  );
  expectClose(
    'turnDistance',
    s.turnDistance,
    len((p) => p.type === 'Turn' || p.type === 'HeadlandTurn'),
    0.01,
  );
  expectClose(
    'totalDistance',
    s.totalDistance,
    len(() => true),
    0.01,
  );
  // Areas, independently: strips of the working parts (flat ends) clipped to the field.
  const fieldPolys = [zone.boundary];
  const fieldArea = multiPolygonArea(fieldPolys);
  const strips = driven
    .filter((p) => p.working)
    .map((p) => bufferLines([p.points], m.swathWidth / 2, 'butt'));
  const covered = strips.length ? multiPolygonArea(intersection(union(strips.flat()), fieldPolys)) : 0;
  const areaTol = TOLERANCES.stats * fieldArea;
  // Passable obstacles make the worked field smaller than the zone.
  if (s.fieldArea > fieldArea + areaTol) {
    out.push({
      rule: 'stats',
      zone: zone.index,
      message: `fieldArea ${s.fieldArea.toFixed(1)} exceeds the zone area ${fieldArea.toFixed(1)}`,
    });
  }
  if (Math.abs(s.fieldArea - fieldArea) <= areaTol) {
    if (Math.abs(s.coveredArea - covered) > areaTol) {
      out.push({
        rule: 'stats',
        zone: zone.index,
        message: `coveredArea: reported ${s.coveredArea.toFixed(1)}, measured ${covered.toFixed(1)} m2`,
      });
    }
    let sum = 0;
    for (const st of strips) sum += intersectionArea(st, fieldPolys);
    const overlap = Math.max(0, sum - covered);
    if (Math.abs(s.overlapArea - overlap) > areaTol) {
      out.push({
        rule: 'stats',
        zone: zone.index,
        message: `overlapArea: reported ${s.overlapArea.toFixed(1)}, measured ${overlap.toFixed(1)} m2`,
      });
    }
    if (Math.abs(s.missedArea - (fieldArea - covered)) > areaTol) {
      out.push({
        rule: 'stats',
        zone: zone.index,
        message: `missedArea: reported ${s.missedArea.toFixed(1)}, measured ${(fieldArea - covered).toFixed(1)} m2`,
      });
    }
  }
}

/**
 * How far [deg] the direction of travel turns where a driven part `a` ends
 * and the next one `b` starts at the same point: the difference of the
 * tangents of the curves they draw there (endTangent, startTangent: exact
 * on sampled straights and arcs, chords longer than maxStep read as
 * straights, no more curvature read into an end chord than the machine's
 * kmax = 1 / minTurningRadius [1/m] allows). At a cusp the machine stops and
 * drives back: the line runs on, the direction of travel flips.
 */
export function junctionTurnDeg(
  a: readonly Point[],
  b: readonly Point[],
  cusp: boolean,
  kmax: number,
): number {
  const h1 = endTangent(a, TOLERANCES.maxStep, kmax * (1 + TOLERANCES.curvature));
  const h2 = startTangent(b, TOLERANCES.maxStep, kmax * (1 + TOLERANCES.curvature));
  return Math.abs(wrap(h2 - h1 + (cusp ? Math.PI : 0))) * (180 / Math.PI);
}

function densify(pts: readonly Point[], step: number): Point[] {
  const out: Point[] = [pts[0]];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    const n = Math.max(1, Math.ceil(dist(a, b) / step));
    for (let k = 1; k <= n; k++) out.push({ x: a.x + ((b.x - a.x) * k) / n, y: a.y + ((b.y - a.y) * k) / n });
  }
  return out;
}

function curvature(a: Point, b: Point, c: Point): number {
  const ab = dist(a, b);
  const bc = dist(b, c);
  const ca = dist(c, a);
  if (ab < 1e-3 || bc < 1e-3 || ca < 1e-3) return 0;
  return (2 * Math.abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x))) / (ab * bc * ca);
}

/**
 * Where curvature along a polyline changes faster than sigma [1/m^2], if
 * anywhere. At vertex b between chords of lengths h1 and h2 the turning
 * angle over (h1 + h2) / 2 is the mean curvature over the window from the
 * middle of one chord to the middle of the next, centred (h2 - h1) / 4
 * beyond b: exact for curvature linear in arc length (a clothoid).
 * Vertices closer than 5 cm to the previous one are skipped. A reading is
 * compared with the latest one at least RATE_BASE before it: next to a short
 * chord (a few centimetres of straight between two clothoids, say) the
 * windows of neighbouring readings differ by less than their error, which
 * would read as a rate far above the true one. A curvature jump still reads
 * as at least its size over RATE_BASE plus one sample step.
 */
/** Least arc length [m] between two curvature readings whose difference is read as a rate. */
const RATE_BASE = 0.4;

export function curvatureRateViolation(
  input: readonly Point[],
  sigma: number,
): { rate: number; point: Point } | null {
  // Vertices closer than 5 cm to the previous one add rounding, not shape.
  const kept: Point[] = [];
  for (const p of input) if (!kept.length || dist(kept[kept.length - 1], p) >= 0.05) kept.push(p);
  const end = input[input.length - 1];
  if (kept.length > 1 && kept[kept.length - 1] !== end) kept[kept.length - 1] = end;
  const pts = kept;
  // Readings (window centre, curvature); `base` is the latest at least RATE_BASE back.
  const cs: number[] = [];
  const ks: number[] = [];
  let base = -1;
  let s = 0;
  for (let k = 1; k < pts.length - 1; k++) {
    const h1 = dist(pts[k - 1], pts[k]);
    const h2 = dist(pts[k], pts[k + 1]);
    s += h1;
    const a = wrap(heading(pts[k], pts[k + 1]) - heading(pts[k - 1], pts[k]));
    const kappa = a / ((h1 + h2) / 2);
    const c = s + (h2 - h1) / 4;
    while (base + 1 < cs.length && cs[base + 1] <= c - RATE_BASE) base++;
    if (base >= 0) {
      const rate = Math.abs(kappa - ks[base]) / (c - cs[base]);
      if (rate > sigma * (1 + TOLERANCES.curvatureRate) + 1e-6) return { rate, point: pts[k] };
    }
    cs.push(c);
    ks.push(kappa);
  }
  return null;
}

function turnDeg(a: Point, b: Point, c: Point): number {
  return Math.abs(wrap(heading(b, c) - heading(a, b))) * (180 / Math.PI);
}

function heading(a: Point, b: Point): number {
  return Math.atan2(b.y - a.y, b.x - a.x);
}

function wrap(a: number): number {
  let r = a % (2 * Math.PI);
  if (r > Math.PI) r -= 2 * Math.PI;
  if (r < -Math.PI) r += 2 * Math.PI;
  return r;
}

function dist(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

function polyLen(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += dist(pts[i - 1], pts[i]);
  return s;
}
