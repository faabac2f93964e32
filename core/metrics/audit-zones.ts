/**
 * The plan audit applied to the zones of one field part: its figures go
 * into each zone's statistics, and what it finds into the zone's warnings,
 * in plain words with a figure:
 *
 *   headland pass 1 not driven, 299 m (about 0.36 ha left unworked)
 *   tracks driven twice: 1087 m of track closer than half a swath to a parallel track ...
 *   overhang of turns: 12.0 m closer than half the working width to the field edge or an obstacle (30 m2 over it, 3 turns)
 *   0.49 ha not worked (uncovered), 92.3 % covered: 0.21 ha in the north-east ...
 */
import { difference } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { type BBox, pointInRing, ringBBox } from '../geometry/polygon.ts';
import type { HeadlandResult } from '../headland/generate-headlands.ts';
import type { Track } from '../tracks/generate-tracks.ts';
import type { Machine, PathPart, Point, Polygon, Zone } from '../types/index.ts';
import { missedPolygons } from './compute-stats.ts';
import {
  auditZone,
  describeMissed,
  type MissedPiece,
  missedPieces,
  type PlannedPass,
  type UndrivenStretch,
} from './plan-audit.ts';

/** Zones covered less than this get a warning saying where and why [%]. */
export const LOW_COVERAGE_PERCENT = 95;
/** Overhang below this length is not warned [m]. */
const MIN_OVERHANG = 0.05;

export interface PartAuditInput {
  /** The zones of one field part (several when it is decomposed). */
  zones: readonly Zone[];
  /** What the headland stage planned for the part. */
  headlands: HeadlandResult;
  /** The tracks the track stage planned, for an undecomposed part (else each zone's guidance tracks). */
  tracks?: readonly Track[];
  /** Passable obstacles in the part (not worked, so not missed). */
  passable: readonly Polygon[];
  machine: Machine;
}

/** Audits the zones of a field part; sets their statistics, `audit` and warnings. */
export function auditPart(input: PartAuditInput): void {
  const { zones, headlands, machine } = input;
  const w = machine.swathWidth;
  // Exterior passes as planned (exact offsets of the edge); obstacle passes
  // as made drivable (round a small obstacle a pass goes wider than half a
  // swath by design), and the planned ones no drivable pass goes round.
  const roundObstacle = (ring: readonly Point[]) =>
    headlands.drivenInterior.some((d) => pointInRing(ring[0], d.ring) || pointInRing(d.ring[0], ring));
  // Exterior passes beyond those that fit at all are warned of as such ("Only 1 of the 2 ... fit").
  const fitted = headlands.drivenExterior.reduce((n, r) => Math.max(n, r.passNumber), 0);
  const passes: PlannedPass[] = [
    ...headlands.exterior
      .filter((h) => h.passNumber <= fitted)
      .map((h) => ({ kind: 'exterior' as const, passNumber: h.passNumber, ring: h.ring })),
    ...headlands.drivenInterior.map((h) => ({
      kind: 'interior' as const,
      passNumber: h.passNumber,
      obstacleIndex: h.obstacleIndex,
      ring: h.ring,
    })),
    ...headlands.interior
      .filter((h) => !roundObstacle(h.ring))
      .map((h) => ({
        kind: 'interior' as const,
        passNumber: h.passNumber,
        obstacleIndex: h.obstacleIndex,
        ring: h.ring,
      })),
  ];
  // The passes belong to the headland zone of a decomposed part, else to its one zone.
  const passZone = zones.find((z) => z.decomposition?.role === 'headland') ?? zones[0];
  const partsOf = (z: Zone) => z.groups[z.activeGroup]?.parts ?? [];
  for (const zone of zones) {
    const parts = partsOf(zone);
    const others: PathPart[] = zones.length > 1 ? zones.filter((z) => z !== zone).flatMap(partsOf) : [];
    const planned =
      input.tracks && zones.length === 1
        ? input.tracks.map((t, i) => ({ trackIndex: i, points: t.path ?? [t.a, t.b] }))
        : parts
            .filter((p) => p.type === 'GuidanceTrack')
            .map((p) => ({ trackIndex: p.trackIndex ?? -1, points: p.points }));
    const audit = auditZone({
      boundary: zone.partBoundary ?? zone.boundary,
      passes: zone === passZone ? passes : [],
      tracks: planned,
      parts,
      others,
      swathWidth: w,
      turningRadius: machine.minTurningRadius,
    });
    zone.audit = audit;
    const s = zone.stats;
    s.undrivenPassLength = audit.undrivenPassLength;
    s.undrivenTrackLength = audit.undrivenTrackLength;
    s.duplicateTrackLength = audit.duplicateTrackLength;
    s.overhangLength = audit.overhangLength;
    s.overhangArea = audit.overhangArea;
    const warnings = zone.warnings ?? [];
    warnings.push(...passWarnings(audit.undrivenPasses, warnings, w));
    // Tracks the route left out (no guidance track) are warned by the route already.
    const guided = new Set(parts.filter((p) => p.type === 'GuidanceTrack').map((p) => p.trackIndex));
    const notDriven = audit.undrivenTracks.filter((t) => guided.has(t.trackIndex));
    const tracksLeft = notDriven.reduce((a, t) => a + t.length, 0);
    if (tracksLeft >= 1) {
      const n = new Set(notDriven.map((t) => t.trackIndex)).size;
      warnings.push(
        `${n} planned ${n === 1 ? 'track' : 'tracks'} not driven over ${fmtM(tracksLeft)} (about ${ha(tracksLeft * w)} left unworked).`,
      );
    }
    if (audit.duplicateTrackLength >= 1) {
      const share = audit.trackLength > 0 ? (100 * audit.duplicateTrackLength) / audit.trackLength : 0;
      warnings.push(
        `tracks driven twice: ${fmtM(audit.duplicateTrackLength)} of track closer than half a swath to a parallel track (both counted), ${share.toFixed(1)} % of the ${fmtM(audit.trackLength)} of track.`,
      );
    }
    if (audit.overhangLength >= MIN_OVERHANG) {
      const n = audit.overhangs.length;
      warnings.push(
        `overhang of turns: ${fmtM(audit.overhangLength)} of turns and connectors closer than half the working width (${round1(w / 2)} m) to the field edge or an obstacle, ${Math.round(audit.overhangArea)} m2 of the machine's width over it (${n} ${n === 1 ? 'part' : 'parts'})${necks(audit.overhangAcrossNecksLength)}.`,
      );
    }
    if (s.fieldArea > 0 && s.coveredPercent < LOW_COVERAGE_PERCENT) {
      // The missed pieces as the statistics measured them, else measured again.
      const measured = missedPolygons(s);
      const field = () =>
        input.passable.length ? difference([zone.boundary], input.passable) : [zone.boundary];
      const pieces = measured ? describeMissed(measured) : missedPieces(field(), parts, w);
      warnings.push(coverageWarning(zone, pieces, audit.undrivenPasses, w));
    }
    if (warnings.length) zone.warnings = warnings;
  }
}

/**
 * One warning per exterior pass with undriven stretches, one for the
 * obstacle passes, leaving out what the route's own warning already says
 * ("... headland ring(s) (pass 1, 2; ...) ... left out").
 */
function passWarnings(
  stretches: readonly UndrivenStretch[],
  existing: readonly string[],
  w: number,
): string[] {
  const said = (kind: 'exterior' | 'obstacle', pass: number | undefined) =>
    existing.some((e) => new RegExp(`${kind} headland rings? \\(pass [0-9, ]*\\b${pass}\\b`).test(e));
  const out: string[] = [];
  const exterior = stretches.filter((s) => s.kind === 'exterior');
  for (const pass of [...new Set(exterior.map((s) => s.passNumber))].sort((a, b) => (a ?? 0) - (b ?? 0))) {
    if (said('exterior', pass)) continue;
    out.push(
      ...passLines(
        `headland pass ${pass}`,
        exterior.filter((s) => s.passNumber === pass),
        w,
      ),
    );
  }
  const interior = stretches.filter((s) => s.kind === 'interior' && !said('obstacle', s.passNumber));
  if (interior.length) {
    const obstacles = [...new Set(interior.map((s) => s.obstacleIndex ?? 0))].sort((a, b) => a - b);
    const passes = [...new Set(interior.map((s) => s.passNumber))].sort((a, b) => (a ?? 0) - (b ?? 0));
    const round =
      obstacles.length === 1
        ? `obstacle ${obstacles[0]}`
        : `${obstacles.length} obstacles (${list(obstacles)})`;
    out.push(
      ...passLines(
        `headland ${passes.length === 1 ? 'pass' : 'passes'} ${passes.join(', ')} round ${round}`,
        interior,
        w,
      ),
    );
  }
  return out;
}

/**
 * The stretches of one pass (or the obstacle passes) in words: those no
 * driven line runs near are not driven (a swath wide left unworked), those
 * a driven line runs beside are driven off the planned line (the offset
 * left unworked).
 */
function passLines(name: string, list: readonly UndrivenStretch[], w: number): string[] {
  const out: string[] = [];
  const missing = list.filter((s) => s.offset === undefined);
  const off = list.filter((s) => s.offset !== undefined);
  const sum = (xs: readonly UndrivenStretch[], f: (s: UndrivenStretch) => number) =>
    xs.reduce((a, s) => a + f(s), 0);
  const pieces = (xs: readonly unknown[]) => (xs.length > 1 ? ` in ${xs.length} stretches` : '');
  if (missing.length) {
    const length = sum(missing, (s) => s.length);
    out.push(
      `${name} not driven${pieces(missing)}, ${fmtM(length)} (about ${ha(length * w)} left unworked).`,
    );
  }
  if (off.length) {
    const length = sum(off, (s) => s.length);
    const area = sum(off, (s) => s.length * Math.min(w, s.offset ?? 0));
    out.push(
      `${name} driven ${round1(area / length)} m off its planned line${pieces(off)} over ${fmtM(length)} (about ${ha(area)} left unworked).`,
    );
  }
  return out;
}

/** At most six numbers, then how many more. */
function list(xs: readonly number[]): string {
  return xs.length > 6 ? `${xs.slice(0, 6).join(', ')} and ${xs.length - 6} more` : xs.join(', ');
}

function coverageWarning(
  zone: Zone,
  pieces: readonly MissedPiece[],
  undriven: readonly UndrivenStretch[],
  w: number,
): string {
  const s = zone.stats;
  const box = ringBBox(zone.boundary.outer);
  const edges = new EdgeIndex([zone.boundary.outer, ...zone.boundary.holes]);
  const where = pieces
    .filter((p) => p.area >= 0.005 * s.fieldArea || p.area >= 100)
    .map((p) => {
      const why: string[] = [];
      if (p.meanWidth < w)
        why.push(`a strip ${round1(p.meanWidth)} m wide on average, narrower than the swath`);
      const near = undriven.find((u) => u.points.some((q) => inPolygonBox(q, p.polygon)));
      if (near)
        why.push(
          near.kind === 'track'
            ? `track ${near.trackIndex} not driven`
            : `headland pass ${near.passNumber} not driven`,
        );
      const place = alongEdge(p.polygon, edges, w) ? `along the field edge` : compass(p.at, box);
      return `${ha(p.area)} ${place}${why.length ? ` (${why.join('; ')})` : ''}`;
    });
  const reasons: string[] = [];
  if ((zone.skippedTracks ?? 0) > 0) reasons.push(`${zone.skippedTracks} track(s) left out as unreachable`);
  if ((zone.routeFailures ?? 0) > 0) reasons.push('headland rings or connections left out as unreachable');
  const tail = [where.length ? `largest pieces ${where.join(', ')}` : '', ...reasons]
    .filter(Boolean)
    .join('; ');
  return `${ha(s.missedArea)} not worked (uncovered), ${coveredFigure(s.coveredPercent)} % covered${tail ? `: ${tail}` : ''}.`;
}

/** True when most of a piece's outline (up to 64 of its vertices) lies within a swath of the field's edge. */
function alongEdge(piece: Polygon, edges: EdgeIndex, w: number): boolean {
  const ring = piece.outer;
  const step = Math.max(1, Math.floor(ring.length / 64));
  let near = 0;
  let n = 0;
  for (let i = 0; i < ring.length; i += step, n++) if (edges.clearance(ring[i], w) <= w) near++;
  return near >= 0.8 * n;
}

/** Where a point lies in the field's box, in words (the metric frame has north up). */
function compass(p: { x: number; y: number }, b: BBox): string {
  const fx = (p.x - b.minX) / Math.max(1e-9, b.maxX - b.minX);
  const fy = (p.y - b.minY) / Math.max(1e-9, b.maxY - b.minY);
  const ns = fy > 2 / 3 ? 'north' : fy < 1 / 3 ? 'south' : '';
  const ew = fx > 2 / 3 ? 'east' : fx < 1 / 3 ? 'west' : '';
  if (!ns && !ew) return 'in the middle';
  return `in the ${ns}${ns && ew ? '-' : ''}${ew}`;
}

function inPolygonBox(q: { x: number; y: number }, poly: Polygon): boolean {
  const b = ringBBox(poly.outer);
  return q.x >= b.minX && q.x <= b.maxX && q.y >= b.minY && q.y <= b.maxY;
}

/**
 * A covered percentage to one decimal, rounded down: a zone warned of as
 * covered less than 95 % never reads as 95.0 % (94.96 reads 94.9).
 */
export function coveredFigure(percent: number): string {
  return (Math.floor(percent * 10 + 1e-9) / 10).toFixed(1);
}

const ha = (m2: number) => `${(m2 / 10000).toFixed(2)} ha`;
const round1 = (x: number) => Math.round(x * 10) / 10;
const fmtM = (m: number) => `${m >= 100 ? Math.round(m) : round1(m)} m`;

/** The part of the overhang no way could avoid, for the overhang warning. */
function necks(length: number): string {
  if (length < MIN_OVERHANG) return '';
  return `; ${fmtM(length)} of it between parts of the field that only a neck narrower than the working width joins, where no way keeps the implement inside`;
}
