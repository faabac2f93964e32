/**
 * Types of the plan exports: what callers hand in (ExportPlan), which
 * formats exist (ExportFormat) and what comes back (a zip and its name).
 *
 * Exports are pure functions over the v2.0.0 normalized path plan model
 * (formats/plan-model.ts): no store, no HTTP, no clock except where a format
 * demands a date (taken from the plan's createdAt).
 */
import type { PathPlanNormalizedModel } from '../plan-model.ts';

/**
 * The export formats, as named on the wire (`POST /api/path-plans-export`
 * `format`) and on the command line (`--format`).
 *
 *   isoxml      ISO 11783-10 TASKDATA version 4 (TASKDATA/TASKDATA.XML)
 *   isoxml-v3   the same as version 3 (legacy terminals; no guidance groups,
 *               AB lines as guidance line strings of the partfield)
 *   shapefile   zipped ESRI shapefiles, WGS84, 2D: field boundaries and guidance lines
 *   kml         one KML 2.2 document in the zip
 *   geojson     one GeoJSON FeatureCollection per plan (spec 2.5 feature types)
 *   gpx         GPX 1.1: one track per route part
 *   vendor-a    John Deere family (Operations Center, Gen4 displays)
 *   vendor-b    CNH family (Case IH AFS, New Holland PLM)
 *   vendor-c    Trimble family (AgGPS folder: Boundary.shp, ABLines/Swath.shp)
 */
export const EXPORT_FORMATS = [
  'isoxml',
  'isoxml-v3',
  'shapefile',
  'kml',
  'geojson',
  'gpx',
  'vendor-a',
  'vendor-b',
  'vendor-c',
] as const;

export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Names of the formats for people (menus, messages). */
export const EXPORT_FORMAT_LABELS: Record<ExportFormat, string> = {
  isoxml: 'ISO-XML task data (ISO 11783-10 v4)',
  'isoxml-v3': 'ISO-XML task data, version 3 (older terminals)',
  shapefile: 'Shapefile (boundary and guidance lines)',
  kml: 'KML (Google Earth)',
  geojson: 'GeoJSON',
  gpx: 'GPX route',
  'vendor-a': 'John Deere (Operations Center, Gen 4 displays)',
  'vendor-b': 'CNH (Case IH AFS, New Holland)',
  'vendor-c': 'Trimble (AgGPS displays)',
};

export function isExportFormat(v: unknown): v is ExportFormat {
  return typeof v === 'string' && (EXPORT_FORMATS as readonly string[]).includes(v);
}

/**
 * One plan to export with the names of where it belongs. The names are what
 * a terminal shows (client / farm / field); every one is optional and falls
 * back as documented, so a plan without a stored hierarchy still exports.
 */
export interface ExportPlan {
  /** The plan in the v2.0.0 normalized model (GET /api/path-plans-normalized/{id}). */
  plan: PathPlanNormalizedModel;
  /** Customer / grower / client name (ISO 11783 CTR, the top level). Default "Tramline". */
  customerName?: string;
  /** Farm name (ISO 11783 FRM). Default: the customer name. */
  farmName?: string;
  /** Field name (ISO 11783 PFD designator). Default: plan.pathPlanName. */
  fieldName?: string;
}

/** One file of an export before zipping; `path` uses `/` and is relative to the zip root. */
export interface ExportFile {
  path: string;
  data: Uint8Array | string;
}

/** What exportPlans returns: a zip and the file name to offer it under (ends in `.zip`). */
export interface ExportResult {
  fileName: string;
  zip: Uint8Array;
}

export type ExportErrorCode =
  /** No plans were given. */
  | 'EXPORT_NO_PLANS'
  /** The format is not one of EXPORT_FORMATS. */
  | 'EXPORT_FORMAT_UNKNOWN'
  /** A plan has nothing the format can carry (for example gpx of a plan without a route). */
  | 'EXPORT_NOTHING_TO_EXPORT'
  /** A plan is not a well-formed normalized model (path names the member). */
  | 'EXPORT_PLAN_INVALID';

/** The one error exports throw for bad input; never thrown for a well-formed plan. */
export class ExportError extends Error {
  readonly code: ExportErrorCode;
  /** Where: for example `plans[2].plan.zones[0].zoneBoundary`. */
  readonly path?: string;
  constructor(code: ExportErrorCode, message: string, path?: string) {
    super(message);
    this.name = 'ExportError';
    this.code = code;
    if (path !== undefined) this.path = path;
  }
}
