/**
 * The track pattern a request asks for (trackType, curvedOptions, a
 * reference line), checked, and the tracks of one zone in that pattern.
 * Straight tracks are generateTracks' job; this module answers null for
 * them, and for a zone where the asked pattern yields no track at all, with
 * a warning saying that the zone falls back to straight tracks.
 */
import {
  type CurvedOptions,
  PlanningError,
  type PlanOptions,
  type PlanRequest,
  type Point,
  type Polygon,
  TRACK_TYPES,
  type TrackType,
} from '../types/index.ts';
import { generateCurvedTracks, resolveCurvedOptions } from './curved-tracks.ts';
import type { TrackSet } from './generate-tracks.ts';
import { generateSpiralTracks } from './spiral-tracks.ts';

export interface ResolvedTrackType {
  trackType: TrackType;
  curvedOptions?: CurvedOptions;
  referenceLine?: [number, number][];
}

export function resolveTrackType(req: PlanRequest): ResolvedTrackType {
  const trackType = req.trackType ?? 'Straight';
  if (!TRACK_TYPES.includes(trackType)) {
    throw new PlanningError(
      'INVALID_OPTION',
      `trackType must be one of ${TRACK_TYPES.map((t) => `'${t}'`).join(', ')}; found '${trackType}'.`,
      { path: 'trackType' },
    );
  }
  const out: ResolvedTrackType = { trackType };
  if (req.curvedOptions !== undefined) {
    if (trackType !== 'Curved') {
      throw new PlanningError(
        'INVALID_OPTION',
        `curvedOptions apply to trackType 'Curved' only; trackType is '${trackType}'.`,
        { path: 'curvedOptions' },
      );
    }
    out.curvedOptions = resolveCurvedOptions(req.curvedOptions);
  }
  if (req.referenceLine !== undefined) {
    if (trackType !== 'Curved') {
      throw new PlanningError(
        'INVALID_OPTION',
        `referenceLine applies to trackType 'Curved' only; trackType is '${trackType}'.`,
        { path: 'referenceLine' },
      );
    }
    const line = req.referenceLine;
    const ok =
      Array.isArray(line) &&
      line.length >= 2 &&
      line.every(
        (p) =>
          Array.isArray(p) &&
          p.length === 2 &&
          p.every((v) => typeof v === 'number' && Number.isFinite(v)) &&
          Math.abs(p[0]) <= 180 &&
          Math.abs(p[1]) <= 90,
      );
    if (!ok) {
      throw new PlanningError(
        'INVALID_OPTION',
        'referenceLine must be a list of at least two [lon, lat] positions in degrees (WGS84).',
        { path: 'referenceLine' },
      );
    }
    out.referenceLine = line.map((p) => [p[0], p[1]] as [number, number]);
  }
  return out;
}

export interface PatternTracks {
  /** The zone's tracks in the asked pattern; undefined = straight tracks. */
  tracks?: TrackSet;
  /** Curved tracks: the reference curve. */
  reference?: Point[];
  warnings: string[];
}

export function patternTracks(
  workable: readonly Polygon[],
  options: PlanOptions,
  reference: Point[] | undefined,
  start: Point | undefined,
): PatternTracks {
  const type = options.trackType ?? 'Straight';
  const warnings: string[] = [];
  if (options.extendTracks && type !== 'Straight') {
    warnings.push(`extendTracks applies to straight tracks; the ${type} tracks end at the workable area.`);
  }
  if (type === 'Straight') return { warnings };
  if (options.preferredBearingDeg !== undefined) {
    warnings.push(
      `The track direction applies to straight tracks; the ${type} tracks follow ${type === 'Curved' ? 'their reference line' : 'the outline of the workable area'}.`,
    );
  }
  const m = options.machine;
  let set: TrackSet & { reference?: Point[] };
  if (type === 'Curved') {
    set = generateCurvedTracks(workable, {
      swathWidth: m.swathWidth,
      turningRadius: m.minTurningRadius,
      reference,
      curved: options.curvedOptions,
    });
  } else {
    set = generateSpiralTracks(workable, {
      swathWidth: m.swathWidth,
      turningRadius: m.minTurningRadius,
      start,
    });
  }
  if (set.tracks.length === 0) {
    warnings.push(
      `No ${type} track fits the workable area with a turning radius of ${m.minTurningRadius} m; the zone falls back to straight tracks.`,
    );
    return { warnings };
  }
  return { tracks: set, ...(set.reference ? { reference: set.reference } : {}), warnings };
}
