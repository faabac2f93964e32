/**
 * The worker-thread entry of the boundary file pool (piscina runs this .ts
 * file directly on Node 24): reads the polygons of a stored file, or checks
 * that an uploaded zip unpacks within the limits. Refusals and parse errors
 * come back as values (errors lose their class across threads).
 */
import { getPriority, setPriority } from 'node:os';
import { PlanningError } from '../core/types/index.ts';
import { verifyZip } from './archive.ts';
import { readBoundaryFile } from './boundary-file.ts';
import type { BoundaryImport } from './boundary-import.ts';
import { type FileKind, sniffFileKind } from './file-kind.ts';
import { type ArchiveLimits, FileRefusal } from './file-limits.ts';
import { type LineImport, readLineFile } from './imported-lines.ts';

// Below the request thread: health checks and other requests come first.
try {
  setPriority(0, Math.min(19, getPriority(0) + 5));
} catch {
  // Not permitted here: read at normal priority.
}

export type BoundaryFileTaskInput =
  | { op: 'read'; kind: string; content: Uint8Array; limits: ArchiveLimits }
  | { op: 'read-lines'; kind: string; content: Uint8Array; limits: ArchiveLimits }
  | { op: 'verify-zip'; content: Uint8Array; limits: ArchiveLimits; what: string }
  | { op: 'sniff'; content: Uint8Array; limits: ArchiveLimits; what: string };

export type TaskError =
  | { type: 'refusal'; code: string; status: number; message: string; details: Record<string, unknown> }
  | { type: 'parse'; code: string; message: string; details: Record<string, unknown> };

export type BoundaryFileTaskOutput =
  | {
      ok: true;
      found?: BoundaryImport;
      lines?: LineImport;
      sniffed?: { kind: FileKind } | { kind: null; reason: string };
    }
  | { ok: false; error: TaskError };

export default async function boundaryFileTask(
  input: BoundaryFileTaskInput,
): Promise<BoundaryFileTaskOutput> {
  try {
    if (input.op === 'sniff')
      return { ok: true, sniffed: sniffFileKind(input.content, input.limits, input.what) };
    if (input.op === 'verify-zip') {
      verifyZip(input.content, input.limits, input.what);
      return { ok: true };
    }
    if (input.op === 'read-lines')
      return { ok: true, lines: await readLineFile(input.kind, input.content, input.limits) };
    return { ok: true, found: await readBoundaryFile(input.kind, input.content, input.limits) };
  } catch (e) {
    if (e instanceof FileRefusal)
      return {
        ok: false,
        error: { type: 'refusal', code: e.code, status: e.status, message: e.message, details: e.details },
      };
    if (e instanceof PlanningError)
      return { ok: false, error: { type: 'parse', code: e.code, message: e.message, details: e.details } };
    // Whatever else a parser throws on a bad file is still the file's fault, not the server's.
    return {
      ok: false,
      error: {
        type: 'parse',
        code: 'FIELD_PARSE_ERROR',
        message: `The file cannot be read (${(e as Error)?.message ?? String(e)}).`,
        details: { path: '' },
      },
    };
  }
}
