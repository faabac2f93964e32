/**
 * Figures of stored plans as CSV (RFC 4180, CRLF). Text cells that a
 * spreadsheet would read as a formula (starting with =, +, -, @, tab or
 * CR) are prefixed with a single quote, as the OWASP guidance on CSV
 * injection advises; numbers are written as numbers.
 */
import type { StoredPlan } from '../store/repositories/path-plans.ts';

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: text that could start a formula gets a leading quote; quoted when it holds a comma, quote or line break. */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = String(v);
  if (typeof v === 'string' && FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export const CSV_COLUMNS = [
  'pathPlanId',
  'name',
  'fieldId',
  'boundaryId',
  'operationType',
  'createdAt',
  'totalAreaM2',
  'numberOfTracks',
  'workingDistanceM',
  'nonWorkingDistanceM',
  'totalDistanceM',
  'coveredPercent',
  'overlapPercent',
  'totalTimeS',
  'traffickedAreaM2',
  'archived',
  'starred',
  'rating',
] as const;

/** The CSV of stored plans: a header line of CSV_COLUMNS, one line per plan, CRLF line ends. */
export function csvOf(plans: readonly StoredPlan[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const p of plans) {
    const s = p.model.stats;
    lines.push(
      [
        p.id,
        p.name,
        p.fieldId,
        p.boundaryId,
        p.operationType,
        new Date(p.createdAt).toISOString(),
        p.area,
        p.numberOfTracks,
        s.workingDistance,
        s.nonWorkingDistance,
        s.totalDistance,
        s.coveredPercent,
        s.overlapPercent,
        s.totalTime,
        p.traffickedArea,
        p.archived,
        p.starred,
        p.rating,
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
