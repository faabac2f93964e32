/**
 * The zones of a field, as the decomposition endpoints answer them:
 *
 * - automatic: per field part, the cells the planner's decomposition
 *   proposes (each with its own track direction) and the headland band
 *   around the whole part, or the part as one zone when splitting does not
 *   pay by the estimate;
 * - manual: the field cut along lines a person drew, each piece a zone with
 *   its best track direction.
 *
 * Both work in the field's metric frame; the caller projects in and out.
 */
import { bufferLines, difference, intersection } from '../geometry/clip.ts';
import { multiPolygonArea, polygonArea } from '../geometry/polygon.ts';
import { generateHeadlands } from '../headland/generate-headlands.ts';
import { generateTracks } from '../tracks/generate-tracks.ts';
import type { Field, Point, Polygon } from '../types/index.ts';
import { decompose } from './decompose.ts';

export interface FieldZonesOptions {
  swathWidth: number;
  turningRadius: number;
  exteriorPasses: number;
  interiorPasses: number;
}

export interface FieldZone {
  polygon: Polygon;
  /** 'cell': a piece of a decomposed part; 'headland': the headland band of a decomposed part; 'field': a whole part, or a piece of a manual decomposition. */
  role: 'cell' | 'headland' | 'field';
  fieldPart: number;
  /** Best track bearing [deg clockwise from north, 0..180); absent for the headland. */
  bearingDeg?: number;
  /** Straight tracks at that bearing inside the zone's workable area. */
  trackCount?: number;
  /** [m^2] */
  area: number;
}

export interface FieldZonesResult {
  zones: FieldZone[];
  /** True when at least one part was split. */
  decomposed: boolean;
  /** Estimated non-working distance of the zones and of the undecomposed parts [m]. */
  estimate: { nonWorkingDistance: number; baselineNonWorkingDistance: number };
}

function workableOf(part: Polygon, passable: readonly Polygon[], opts: FieldZonesOptions) {
  const headlands = generateHeadlands(part, {
    swathWidth: opts.swathWidth,
    exteriorPasses: opts.exteriorPasses,
    interiorPasses: opts.interiorPasses,
    turningRadius: opts.turningRadius,
  });
  const inPart = passable.length ? intersection(passable, [part]) : [];
  return inPart.length ? difference(headlands.workable, inPart) : headlands.workable;
}

function trackFigures(area: readonly Polygon[], w: number, bearingDeg?: number) {
  if (multiPolygonArea(area) < 1e-3) return { trackCount: 0 };
  const t = generateTracks(area, { swathWidth: w, preferredBearingDeg: bearingDeg });
  return { bearingDeg: t.bearingDeg, trackCount: t.tracks.length };
}

/** The decomposition the planner proposes for each part of the field. */
export function automaticZones(field: Field, opts: FieldZonesOptions): FieldZonesResult {
  const zones: FieldZone[] = [];
  let cost = 0;
  let baseline = 0;
  let decomposed = false;
  field.parts.forEach((part, fieldPart) => {
    const workable = workableOf(part, field.passable, opts);
    const d = decompose(workable, { swathWidth: opts.swathWidth, turningRadius: opts.turningRadius });
    const band = difference([part], workable);
    cost += d.cost;
    baseline += d.baselineCost;
    // As the planner: a part whose headland falls apart stays one zone.
    if (!d.decomposed || band.length > 1) {
      zones.push({
        polygon: part,
        role: 'field',
        fieldPart,
        ...trackFigures(workable, opts.swathWidth),
        area: polygonArea(part),
      });
      cost += d.baselineCost - d.cost;
      return;
    }
    decomposed = true;
    for (const c of d.cells) {
      zones.push({
        polygon: c.polygon,
        role: 'cell',
        fieldPart,
        ...trackFigures([c.polygon], opts.swathWidth, c.bearingDeg),
        area: polygonArea(c.polygon),
      });
    }
    if (band.length === 1)
      zones.push({ polygon: band[0], role: 'headland', fieldPart, area: polygonArea(band[0]) });
  });
  return { zones, decomposed, estimate: { nonWorkingDistance: cost, baselineNonWorkingDistance: baseline } };
}

export interface ManualZonesResult {
  zones: FieldZone[];
  /** Indices of the lines that cut no part of the field in two. */
  unusedLines: number[];
}

/** Half-width of the cut a line makes [m]: the pieces are this close to an exact partition. */
const CUT = 5e-4;

/** The field cut along the given polylines (metres); each piece a zone with its best direction. */
export function manualZones(
  field: Field,
  lines: readonly Point[][],
  opts: FieldZonesOptions,
): ManualZonesResult {
  const used = new Set<number>();
  const zones: FieldZone[] = [];
  field.parts.forEach((part, fieldPart) => {
    let pieces: Polygon[] = [part];
    lines.forEach((line, i) => {
      if (line.length < 2) return;
      const strip = bufferLines([line], CUT, 'butt');
      const next: Polygon[] = [];
      let split = false;
      for (const p of pieces) {
        const cut = difference([p], strip).filter((q) => polygonArea(q) > 1e-6);
        if (cut.length >= 2) {
          next.push(...cut);
          split = true;
        } else next.push(p);
      }
      if (split) {
        pieces = next;
        used.add(i);
      }
    });
    const workable = workableOf(part, field.passable, opts);
    for (const p of pieces) {
      const inner = intersection([p], workable);
      zones.push({
        polygon: p,
        role: 'field',
        fieldPart,
        ...trackFigures(inner, opts.swathWidth),
        area: polygonArea(p),
      });
    }
  });
  const unusedLines = lines.map((_, i) => i).filter((i) => !used.has(i));
  return { zones, unusedLines };
}
