/**
 * Lobes of a headland pass: stretches of a planned (reference) pass that no
 * driven ring follows. Rounding a pass to the turning radius cuts off its
 * parts narrower than a forward loop needs (a thin arm of the field, where
 * the pass runs out along one side and back along the other a few metres
 * away); a strip narrower than that has no rounded ring at all.
 *
 * Such a stretch is driven where it is planned, as an operator drives it:
 * along its straights (working), rounding its gentle bends with an arc of
 * the turning radius where that fits, and turning at its tips and sharp
 * corners by reversing (drive to the tip, back up turning, drive on along
 * the other side: a fishtail or K-turn that stays inside the field).
 */
import { Clipper } from 'clipper2-ts';
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { TURN_REGION_SLACK } from '../geometry/turn-region.ts';
import { hypot } from '../geometry/vec.ts';
import type { HeadlandRing } from '../headland/generate-headlands.ts';
import { SegmentGrid } from '../metrics/segment-grid.ts';
import type { PathPart, Point, Pose } from '../types/index.ts';
import { partsOverhang } from './clear-turns.ts';
import type { Connection } from './connect.ts';
import type { RouteBuilder } from './route-builder.ts';
import { along, angleDiffRad, dist } from './route-geometry.ts';
import type { RouteRing } from './route-links.ts';

/** An open (or, when the whole ring is undriven, closed) stretch of a reference pass. */
export interface Lobe {
  passNumber: number;
  points: Point[];
  closed: boolean;
  /**
   * Farther off the driven rings than a pass driven on its line may be, but
   * too short or too near them to be a lobe of its own (a pass pulled in
   * round a bend, a neck or a corner): driven only where the route can leave
   * and rejoin the ring along the planned line, keeping the implement inside.
   */
  shallow?: boolean;
}

/** Samples nearer half a swath than this [m] are measured along the driven rings. */
const NEAR_TOL = 1e-6;
/** Reference passes are sampled this often [m] to find where no driven ring runs. */
const SAMPLE_STEP = 1;
/** Vertices of a simplified stretch closer than this many turning radii bend together. */
const BEND_GROUP_RADII = 1;
/** Turns sharper than this [rad] are never rounded forward (a loop round would leave the field). */
const MAX_ROUNDED_TURN = (120 * Math.PI) / 180;
/** Reversing at a tip: at most this many turning radii. */
const TIP_REVERSE_RADII = 5;
/** Lobes are simplified within this distance [m]. */
const SIMPLIFY = 0.2;
/** A leg may come this much [m] nearer the edge than the clearance, or than the planned points it stands for. */
const CLEAR_SLACK = 0.01;
/** Legs kept off the edge work at most this much [m] less of the planned line. */
const WORKED_SLACK = 0.5;
/** Legs are measured against the edge this often [m]. */
const CLEAR_STEP = 0.25;
/** A closed lobe whose tip comes this many turning radii near another lobe's tip is driven from there. */
const SPLICE_RADII = 3;

/**
 * The stretches of the reference passes of `passNumber` farther than half a
 * swath from every driven ring of that pass, at least `minLength` long; with
 * `shallow`, also (marked shallow) the stretches farther than `shallow.reach`
 * at least `shallow.minLength` long that hold no such lobe.
 */
export function undrivenLobes(
  reference: readonly HeadlandRing[],
  driven: readonly RouteRing[],
  passNumber: number,
  swath: number,
  minLength: number,
  shallow?: { reach: number; minLength: number },
): Lobe[] {
  const out: Lobe[] = [];
  const paths = driven.filter((r) => r.ring.passNumber === passNumber).map((r) => r.path);
  const r = swath / 2;
  // The driven rings' segments in a grid: the nearest one within reach of a
  // sample decides, and a sample within a hair of half a swath is measured
  // along the ring as a driven stretch's ends are.
  const grid = new SegmentGrid(
    paths.map((p) => [...p.pts, p.pts[0]]),
    r,
  );
  // Samples follow each other a metre apart: the segment nearest the last
  // one mostly holds the next within reach too.
  let hint = -1;
  const near = (x: number, y: number) => {
    if (hint >= 0 && grid.distanceTo(hint, x, y) < r - NEAR_TOL) return true;
    hint = grid.nearestSegment(x, y, r + NEAR_TOL);
    if (hint < 0) return false;
    if (grid.distanceTo(hint, x, y) < r - NEAR_TOL) return true;
    const q = { x, y };
    return paths.some((p) => dist(p.pointAt(p.project(q)), q) <= r);
  };
  for (const ref of reference) {
    if (ref.passNumber !== passNumber) continue;
    const { xs, ys } = densify(ref.ring);
    const n = xs.length;
    // 1: farther than half a swath from every driven ring; 2: within that, but farther than shallow.reach.
    const off = new Uint8Array(n);
    let first = -1;
    for (let i = 0; i < n; i++) {
      off[i] = near(xs[i], ys[i]) ? 0 : 1;
      if (first < 0 && !off[i]) first = i;
    }
    if (shallow && first >= 0) {
      // As above, the segment that held the last sample mostly holds the next.
      let e = -1;
      for (let i = 0; i < n; i++) {
        if (off[i] || (e >= 0 && grid.distanceTo(e, xs[i], ys[i]) < shallow.reach)) continue;
        e = grid.nearestSegment(xs[i], ys[i], shallow.reach);
        if (e < 0 || grid.distanceTo(e, xs[i], ys[i]) >= shallow.reach) off[i] = 2;
      }
      out.push(...shallowRuns(xs, ys, off, passNumber, shallow.minLength, minLength));
    }
    if (first < 0) {
      if (polylineLength([...ref.ring, ref.ring[0]]) >= minLength)
        out.push({ passNumber, points: ref.ring.slice(), closed: true });
      continue;
    }
    // Runs of undriven samples, round the ring from a driven one.
    const pt = (i: number): Point => ({ x: xs[i], y: ys[i] });
    let run: Point[] = [];
    const flush = () => {
      if (run.length > 1 && polylineLength(run) >= minLength)
        out.push({ passNumber, points: run, closed: false });
      run = [];
    };
    for (let k = 1; k <= n; k++) {
      const i = (first + k) % n;
      if (off[i] === 1) {
        if (run.length === 0) run.push(pt((i - 1 + n) % n));
        run.push(pt(i));
      } else if (run.length) {
        run.push(pt(i));
        flush();
      }
    }
    flush();
  }
  return out;
}

/**
 * The runs of samples marked 1 or 2 (round the ring from one marked 0) at
 * least minLength long in which no stretch marked 1 is a lobe of its own
 * (deepMin long), as shallow lobes (each from the last sample before it to
 * the first after it).
 */
function shallowRuns(
  xs: Float64Array,
  ys: Float64Array,
  off: Uint8Array,
  passNumber: number,
  minLength: number,
  deepMin: number,
): Lobe[] {
  const n = xs.length;
  const out: Lobe[] = [];
  const first = off.indexOf(0);
  if (first < 0) return out;
  let run: Point[] = [];
  let deep = 0;
  let deepest = 0;
  const pt = (i: number): Point => ({ x: xs[i], y: ys[i] });
  for (let k = 1; k <= n; k++) {
    const i = (first + k) % n;
    const j = (i - 1 + n) % n;
    if (off[i]) {
      if (run.length === 0) run.push(pt(j));
      run.push(pt(i));
      // A stretch marked 1 reaches from the sample before it to the one after it.
      if (off[i] === 1 || off[j] === 1) deep += hypot(xs[i] - xs[j], ys[i] - ys[j]);
      else deep = 0;
      deepest = Math.max(deepest, deep);
    } else if (run.length) {
      run.push(pt(i));
      if (off[j] === 1) deepest = Math.max(deepest, deep + hypot(xs[i] - xs[j], ys[i] - ys[j]));
      if (deepest < deepMin && polylineLength(run) >= minLength)
        out.push({ passNumber, points: run, closed: false, shallow: true });
      run = [];
      deep = 0;
      deepest = 0;
    }
  }
  return out;
}

/** The ring's vertices with points added so no two are farther apart than SAMPLE_STEP, as coordinates. */
function densify(ring: readonly Point[]): { xs: Float64Array; ys: Float64Array } {
  const n = ring.length;
  const ks = new Int32Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    ks[i] = Math.max(1, Math.ceil(dist(ring[i], ring[(i + 1) % n]) / SAMPLE_STEP));
    total += ks[i];
  }
  const xs = new Float64Array(total);
  const ys = new Float64Array(total);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const a = ring[i];
    const b = ring[(i + 1) % n];
    const k = ks[i];
    for (let j = 0; j < k; j++, m++) {
      xs[m] = a.x + ((b.x - a.x) * j) / k;
      ys[m] = a.y + ((b.y - a.y) * j) / k;
    }
  }
  return { xs, ys };
}

function polylineLength(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += dist(pts[i - 1], pts[i]);
  return s;
}

export interface Leg {
  a: Point;
  b: Point;
  heading: number;
  length: number;
}

/**
 * Drive a lobe: joined from where the route is (its nearer end first), then
 * along it. False, with nothing added, when no way onto it or round one of
 * its bends fits inside the field.
 */
export function driveLobe(b: RouteBuilder, lobe: Lobe, closedLobes: Lobe[] = []): boolean {
  const pose = b.pose;
  const legsOf = (clear?: EdgeClearance) =>
    lobe.closed ? loopLegs(lobe, pose ?? lobe.points[0], pose?.heading, clear) : openLegs(lobe, pose, clear);
  // The closed lobes driven from this one's tips leave the list only when it is driven.
  const drive = (legs: Leg[]) => {
    const pending = closedLobes.slice();
    return { legs, pending, parts: legs.length ? lobeParts(b, legs, lobe.passNumber, pending) : null };
  };
  let pick = drive(legsOf());
  if (pick.parts && lobeOverhang(b, pick.parts.parts) > 0) {
    // Where a turn swings the implement over the edge, the legs kept off it as the planned line is (simplifiedLine).
    const fine = legsOf(edgeClearance(b));
    if (fine.length !== pick.legs.length) {
      const other = drive(fine);
      if (other.parts && clearerLobe(b, pick.parts.parts, other.parts.parts)) pick = other;
    }
  }
  const { legs, pending, parts } = pick;
  if (!parts) return false;
  const start: Pose = { x: legs[0].a.x, y: legs[0].a.y, heading: legs[0].heading };
  const mark = b.parts.length;
  if (!b.link(start, 'HeadlandConnector')) {
    b.parts.length = mark;
    return false;
  }
  b.parts.push(...parts.parts);
  b.pose = parts.end;
  closedLobes.length = 0;
  closedLobes.push(...pending);
  return true;
}

/** The legs of an open lobe, from its end nearer to p. */
export function openLegs(lobe: Lobe, p: Point | null, clear?: EdgeClearance): Leg[] {
  let pts = simplifiedLine(lobe.points, false, clear);
  if (p && dist(p, pts[pts.length - 1]) < dist(p, pts[0])) pts = pts.slice().reverse();
  return toLegs(pts);
}

/**
 * The legs of a closed lobe once round, from its vertex nearest to p, in the
 * direction that goes on most nearly at `heading`.
 */
function loopLegs(lobe: Lobe, p: Point, heading: number | undefined, clear?: EdgeClearance): Leg[] {
  const pts = simplifiedLine(lobe.points, true, clear);
  const n = pts.length;
  if (n < 3) return [];
  let s = 0;
  for (let i = 1; i < n; i++) if (dist(pts[i], p) < dist(pts[s], p)) s = i;
  const fwd = [...pts.slice(s), ...pts.slice(0, s), pts[s]];
  const back = fwd.slice().reverse();
  if (heading === undefined) return toLegs(fwd);
  const a = toLegs(fwd);
  const c = toLegs(back);
  if (!a.length || !c.length) return a;
  return Math.abs(angleDiffRad(a[0].heading, heading)) <= Math.abs(angleDiffRad(c[0].heading, heading))
    ? a
    : c;
}

/** The field's edges and the clearance [m] a lobe's legs keep from them where its planned line does. */
export interface EdgeClearance {
  region: EdgeIndex;
  clearance: number;
}

/** The overhang of a lobe's parts driven in their order, as the plan audit measures it [m]. */
export function lobeOverhang(b: RouteBuilder, parts: readonly PathPart[]): number {
  return partsOverhang(b.input.zone, b.w / 2, parts);
}

/**
 * True where a lobe's parts driven on legs kept off the edge (`fine`) keep
 * the implement inside the field and work as much of the planned line as
 * those on legs simplified as they are (`plain`, which do not keep it inside).
 */
export function clearerLobe(b: RouteBuilder, plain: readonly PathPart[], fine: readonly PathPart[]): boolean {
  return lobeOverhang(b, fine) === 0 && workedLength(fine) >= workedLength(plain) - WORKED_SLACK;
}

/** Length of the working parts [m]. */
function workedLength(parts: readonly PathPart[]): number {
  let s = 0;
  for (const p of parts) if (p.working) s += polylineLength(p.points);
  return s;
}

/** The clearance a lobe's legs keep from the zone's edges: half the swath (less the turn area's slack). */
export function edgeClearance(b: RouteBuilder): EdgeClearance {
  return { region: b.input.region, clearance: b.w / 2 - TURN_REGION_SLACK };
}

/**
 * A lobe's line simplified within SIMPLIFY; with `clear`, where a
 * simplified leg runs nearer the edge than the clearance and nearer than
 * the planned points it stands for (a leg cutting the arc a pass draws
 * round a reflex corner of the edge), as many of those points kept as hold
 * it off (the farthest off the leg first): a leg cut that close to the edge
 * swings the implement over it on every turn that backs up along it.
 */
function simplifiedLine(points: readonly Point[], closed: boolean, clear?: EdgeClearance): Point[] {
  const pts = Clipper.simplifyPathD(points as Point[], SIMPLIFY, closed);
  if (!clear || pts.length < 2) return pts;
  const n = points.length;
  const index = new Map<string, number>();
  points.forEach((q, i) => {
    const key = `${q.x},${q.y}`;
    if (!index.has(key)) index.set(key, i);
  });
  const at = pts.map((q) => index.get(`${q.x},${q.y}`));
  if (at.some((i) => i === undefined)) return pts;
  const { region, clearance } = clear;
  const out: Point[] = [pts[0]];
  const m = pts.length;
  for (let k = 1; k < (closed ? m + 1 : m); k++) {
    const a = at[k - 1] as number;
    const b = at[k % m] as number;
    const q = pts[k % m];
    // The planned points the leg stands for (wrapping round a closed line).
    const span = (b - a + n) % n;
    if (span > 1) {
      const between: Point[] = [];
      for (let i = 0; i <= span; i++) between.push(points[(a + i) % n]);
      const planned = Math.min(...between.map((p) => region.clearance(p, clearance + 1)));
      const floor = Math.min(clearance, planned) - CLEAR_SLACK;
      refine(between, 0, span, floor, region, clearance + 1, out);
    }
    if (k < m) out.push(q);
  }
  return out;
}

/**
 * The points of `pts` strictly between i and j that keep the straights
 * between them no nearer the edge than `floor`, pushed onto `out`: none
 * where the straight from i to j keeps it, else the point farthest off that
 * straight and those either side of it, found the same way.
 */
function refine(
  pts: readonly Point[],
  i: number,
  j: number,
  floor: number,
  region: EdgeIndex,
  cap: number,
  out: Point[],
): void {
  if (j - i < 2 || nearestOnSegment(pts[i], pts[j], region, cap) >= floor) return;
  const a = pts[i];
  const b = pts[j];
  const L = dist(a, b);
  let k = i + 1;
  let far = -1;
  for (let m = i + 1; m < j; m++) {
    const p = pts[m];
    const d = L > 0 ? Math.abs((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)) / L : dist(a, p);
    if (d > far) {
      far = d;
      k = m;
    }
  }
  refine(pts, i, k, floor, region, cap, out);
  out.push(pts[k]);
  refine(pts, k, j, floor, region, cap, out);
}

/** The least distance to the region's edges along the segment, sampled every CLEAR_STEP [m] (at most `cap`). */
function nearestOnSegment(a: Point, b: Point, region: EdgeIndex, cap: number): number {
  const L = dist(a, b);
  const k = Math.max(1, Math.ceil(L / CLEAR_STEP));
  let d = cap;
  for (let i = 0; i <= k; i++)
    d = Math.min(
      d,
      region.clearance({ x: a.x + ((b.x - a.x) * i) / k, y: a.y + ((b.y - a.y) * i) / k }, cap),
    );
  return d;
}

function toLegs(pts: readonly Point[]): Leg[] {
  const legs: Leg[] = [];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const c = pts[i];
    const length = dist(a, c);
    if (length < 1e-3) continue;
    legs.push({ a, b: c, heading: Math.atan2(c.y - a.y, c.x - a.x), length });
  }
  return legs;
}

/**
 * The parts that drive the legs one after the other: runs of legs joined by
 * bends (vertices closer together than BEND_GROUP_RADII turning radii bend
 * as one). A bend is rounded forward (working) where the arc fits, else
 * turned at by a reversing manoeuvre from the bend's first vertex onto the
 * leg after it. `seen.overhang` is set where a turn or a rounding does not
 * keep the implement inside the field.
 */
export function lobeParts(
  b: RouteBuilder,
  legs: readonly Leg[],
  passNumber: number,
  closedLobes: Lobe[],
  seen?: { overhang: boolean },
): { parts: PathPart[]; end: Pose } | null {
  const R = b.R;
  const region = b.input.region;
  const parts: PathPart[] = [];
  const type: PathPart['type'] = 'ExteriorHeadlandPass';
  const push = (c: Connection, working: boolean, t: PathPart['type']) => {
    if (seen && b.links.overhangs(c)) seen.overhang = true;
    for (const piece of c.pieces) {
      if (piece.points.length < 2) continue;
      const part: PathPart = working
        ? { type: t, points: piece.points, working: true, passNumber }
        : { type: t, points: piece.points, working: false, turnKind: c.kind };
      if (piece.reverse) part.reverse = true;
      parts.push(part);
    }
  };
  const straight = (from: Point, to: Point) => {
    if (dist(from, to) > 1e-6) parts.push({ type, points: [from, to], working: true, passNumber });
  };
  // Where the machine is along the current leg.
  let at: Point = legs[0].a;
  let i = 0;
  while (i < legs.length) {
    // The legs after legs[i] that bend with it: joined by legs shorter than the group distance.
    let j = i + 1;
    while (j < legs.length - 1 && legs[j].length < BEND_GROUP_RADII * R) j++;
    if (j >= legs.length) {
      straight(at, legs[i].b);
      return { parts, end: { x: legs[i].b.x, y: legs[i].b.y, heading: legs[i].heading } };
    }
    const inLeg = legs[i];
    const outLeg = legs[j];
    const turn = Math.abs(angleDiffRad(outLeg.heading, inLeg.heading));
    const apexIn = inLeg.b;
    const apexOut = outLeg.a;
    const roomIn = dist(at, apexIn);
    // Rounded forward: an arc from the leg in onto the leg out, within their straights.
    let done = false;
    if (turn <= MAX_ROUNDED_TURN) {
      const t = R * Math.tan(turn / 2) + 0.05;
      if (t <= roomIn && t <= outLeg.length / 2) {
        const p0 = along(apexIn, inLeg.heading, -t);
        const p1 = along(apexOut, outLeg.heading, t);
        const c = b.links.connectPoses(
          { ...p0, heading: inLeg.heading },
          { ...p1, heading: outLeg.heading },
          R,
          region,
          { allowReverse: false, maxLength: dist(p0, p1) + R * turn + 2 * t },
        );
        if (c) {
          straight(at, p0);
          push(c, true, type);
          at = p1;
          done = true;
        }
      }
    }
    if (!done) {
      // Drive to the bend, turn there by reversing onto the leg out (as near its start as a turn fits).
      straight(at, apexIn);
      let from: Pose = { ...apexIn, heading: inLeg.heading };
      // A lobe of its own that begins near this tip is driven from here, and the turn made after it.
      const loop = splicedLoop(b, from, passNumber, closedLobes);
      if (loop) {
        parts.push(...loop.parts);
        from = loop.end;
      }
      let c: Connection | null = null;
      let to = apexOut;
      // A turn that keeps the implement inside the field first: near the tip, else backed
      // out of it along the leg in (and into it along the leg out); then any inside the field.
      for (const only of ['turnArea', 'field'] as const) {
        for (const k of [0, 0.5, 1, 2, 3]) {
          if (k * R > outLeg.length / 2 && k > 0) break;
          to = along(apexOut, outLeg.heading, k * R);
          c = b.links.connectPoses(
            from,
            { ...to, heading: outLeg.heading },
            R,
            region,
            { maxReverse: TIP_REVERSE_RADII * R },
            only,
          );
          if (c && only === 'field') c = b.links.clearOf(from, { ...to, heading: outLeg.heading }, c);
          if (c) break;
        }
        if (c) break;
        if (only === 'turnArea') {
          to = apexOut;
          c =
            b.links.tipTurn(from, { ...to, heading: outLeg.heading }, loop ? 0 : roomIn, outLeg.length) ??
            // Turning round in several moves at the tip itself.
            b.links.turnRound(from, { ...to, heading: outLeg.heading }, 'turnArea');
          if (c) break;
        }
      }
      if (!c) {
        to = apexOut;
        c = b.links.clearOf(
          from,
          { ...to, heading: outLeg.heading },
          b.links.turnRound(from, { ...to, heading: outLeg.heading }),
        );
        if (seen) seen.overhang = true;
      }
      if (!c) return null;
      push(c, false, 'HeadlandTurn');
      at = to;
    }
    i = j;
  }
  const last = legs[legs.length - 1];
  return { parts, end: { x: last.b.x, y: last.b.y, heading: last.heading } };
}

/**
 * A closed lobe with a vertex near `from`, driven from there once round:
 * the way onto it, its parts and where it ends; null (and the lobe left
 * pending) where none is near or the way onto it does not fit.
 */
function splicedLoop(
  b: RouteBuilder,
  from: Pose,
  passNumber: number,
  closedLobes: Lobe[],
): { parts: PathPart[]; end: Pose } | null {
  const R = b.R;
  for (let i = 0; i < closedLobes.length; i++) {
    const lobe = closedLobes[i];
    if (lobe.passNumber !== passNumber) continue;
    if (!lobe.points.some((q) => dist(q, from) <= SPLICE_RADII * R)) continue;
    const legs = loopLegs(lobe, from, from.heading);
    if (!legs.length) continue;
    const start: Pose = { x: legs[0].a.x, y: legs[0].a.y, heading: legs[0].heading };
    const onto = b.links.connectPoses(from, start, R, b.input.region, { maxReverse: TIP_REVERSE_RADII * R });
    if (!onto) continue;
    closedLobes.splice(i, 1);
    const inner = lobeParts(b, legs, passNumber, closedLobes);
    if (!inner) {
      closedLobes.splice(i, 0, lobe);
      continue;
    }
    const parts: PathPart[] = [];
    for (const piece of onto.pieces) {
      if (piece.points.length < 2) continue;
      const part: PathPart = {
        type: 'HeadlandConnector',
        points: piece.points,
        working: false,
        turnKind: onto.kind,
      };
      if (piece.reverse) part.reverse = true;
      parts.push(part);
    }
    parts.push(...inner.parts);
    return { parts, end: inner.end };
  }
  return null;
}
