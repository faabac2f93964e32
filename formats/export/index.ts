/**
 * Plan exports: the one entry point other code calls.
 *
 *   const { fileName, zip } = await exportPlans([{ plan, customerName, farmName, fieldName }], 'isoxml');
 *
 * `plan` is the v2.0.0 normalized model (formats/plan-model.ts); the names
 * are optional (see ExportPlan). Every format comes back as one zip whose
 * layout the format's module documents; `exportFiles` gives the same files
 * unzipped (the command line writes single-file formats as they are).
 *
 * Bad input throws ExportError (code, message naming the member, path);
 * nothing else is thrown for a well-formed plan.
 */
import { zipSync } from 'fflate';
import { checkPlans, exportDate, resolveNames, safeFileName } from './common.ts';
import { geojsonFiles } from './geojson.ts';
import { gpxFiles } from './gpx.ts';
import { isoxmlFiles } from './isoxml.ts';
import { kmlFiles } from './kml.ts';
import { shapefileFiles } from './shapefile.ts';
import {
  EXPORT_FORMATS,
  ExportError,
  type ExportFile,
  type ExportFormat,
  type ExportPlan,
  type ExportResult,
  isExportFormat,
} from './types.ts';
import { vendorAFiles, vendorBFiles, vendorCFiles } from './vendors.ts';

export * from './types.ts';

type Writer = (plans: readonly ExportPlan[]) => ExportFile[] | Promise<ExportFile[]>;

const WRITERS: Record<ExportFormat, Writer> = {
  geojson: geojsonFiles,
  isoxml: (plans) => isoxmlFiles(plans, 4),
  'isoxml-v3': (plans) => isoxmlFiles(plans, 3),
  shapefile: (plans) => shapefileFiles(plans),
  kml: kmlFiles,
  gpx: gpxFiles,
  'vendor-a': vendorAFiles,
  'vendor-b': vendorBFiles,
  'vendor-c': vendorCFiles,
};

/** The files of an export, unzipped, in zip order. */
export async function exportFiles(plans: readonly ExportPlan[], format: ExportFormat): Promise<ExportFile[]> {
  if (!isExportFormat(format)) {
    throw new ExportError(
      'EXPORT_FORMAT_UNKNOWN',
      `format must be one of ${EXPORT_FORMAT_LIST}, got "${String(format)}"`,
      'format',
    );
  }
  checkPlans(plans);
  const writer = WRITERS[format];
  if (!writer) {
    throw new ExportError(
      'EXPORT_FORMAT_UNKNOWN',
      `format "${format}" cannot be written by this version`,
      'format',
    );
  }
  return writer(plans);
}

const EXPORT_FORMAT_LIST = EXPORT_FORMATS.join(', ');

/** Zips export files; entries carry `date` as their modification time, so the same plans give the same bytes. */
export function zipFiles(files: readonly ExportFile[], date: Date): Uint8Array {
  const enc = new TextEncoder();
  const tree: Record<string, [Uint8Array, { mtime: Date }]> = {};
  // The zip format cannot store times before 1980.
  const mtime = date.getTime() < Date.UTC(1980, 0, 2) ? new Date(Date.UTC(1980, 0, 2)) : date;
  for (const f of files) tree[f.path] = [typeof f.data === 'string' ? enc.encode(f.data) : f.data, { mtime }];
  return zipSync(tree, { level: 6 });
}

/** The zip's file name: `<field>-<format>.zip` for one plan, `tramline-<format>-<n>-plans.zip` for several. */
export function exportFileName(plans: readonly ExportPlan[], format: ExportFormat): string {
  if (plans.length === 1) return `${safeFileName(resolveNames(plans[0]).field, 48, 'field')}-${format}.zip`;
  return `tramline-${format}-${plans.length}-plans.zip`;
}

/** Exports plans in one format as a zip. */
export async function exportPlans(plans: ExportPlan[], format: ExportFormat): Promise<ExportResult> {
  const files = await exportFiles(plans, format);
  return { fileName: exportFileName(plans, format), zip: zipFiles(files, exportDate(plans)) };
}
