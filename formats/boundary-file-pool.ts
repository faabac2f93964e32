/**
 * Reading uploaded files off the request thread: a small piscina pool (one
 * thread by default, started on first use and ended when idle) with its
 * own heap limit and a time cap per file. A file that needs more memory or
 * time than that is refused (FileRefusal FILE_TOO_COMPLEX, 422) and its
 * thread replaced; a full queue is refused at once (ReaderBusyError, 503).
 * Unpacking stays within the archive limits whatever the heap (zip data
 * lives outside it), so the server's memory is bounded either way.
 */
import { Piscina } from 'piscina';
import { PlanningError } from '../core/types/index.ts';
import type { BoundaryFileTaskInput, BoundaryFileTaskOutput, TaskError } from './boundary-file-task.ts';
import type { BoundaryImport } from './boundary-import.ts';
import type { sniffFileKind } from './file-kind.ts';
import { type ArchiveLimits, FileRefusal, type RefusalCode } from './file-limits.ts';
import type { LineImport } from './imported-lines.ts';

export const BOUNDARY_FILE_TASK = new URL('./boundary-file-task.ts', import.meta.url).href;

export interface BoundaryFilePoolOptions {
  /** Threads (default 1). */
  threads?: number;
  /** Files that may wait for a thread (default 16). */
  maxQueue?: number;
  /** Old generation of each thread's heap [MB] (default 256). */
  heapMb?: number;
  /** Time cap per file [ms] (default 30,000). */
  timeoutMs?: number;
}

export class ReaderBusyError extends Error {
  constructor() {
    super('Every file reader is busy and the queue is full.');
    this.name = 'ReaderBusyError';
  }
}

export interface BoundaryFilePool {
  /** The polygons of a stored file of `kind`. */
  read(kind: string, content: Uint8Array, limits: ArchiveLimits): Promise<BoundaryImport>;
  /** The guidance lines of a stored file of `kind` (imported-lines.ts). */
  readLines(kind: string, content: Uint8Array, limits: ArchiveLimits): Promise<LineImport>;
  /** Unpacks every entry of a zip within `limits` (keeping none); throws the refusal when it does not. */
  verifyZip(content: Uint8Array, limits: ArchiveLimits, what: string): Promise<void>;
  /** sniffFileKind on a reader thread (parsing a large JSON file takes the request thread a while). */
  sniff(content: Uint8Array, limits: ArchiveLimits, what: string): Promise<ReturnType<typeof sniffFileKind>>;
  close(): Promise<void>;
}

function rethrow(error: TaskError): never {
  if (error.type === 'refusal')
    throw new FileRefusal(
      error.code as RefusalCode,
      error.status as FileRefusal['status'],
      error.message,
      error.details,
    );
  throw new PlanningError(error.code as never, error.message, error.details);
}

export function createBoundaryFilePool(opts: BoundaryFilePoolOptions = {}): BoundaryFilePool {
  const threads = Math.max(1, opts.threads ?? 1);
  const maxQueue = Math.max(0, opts.maxQueue ?? 16);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const heapMb = opts.heapMb ?? 256;
  let piscina: Piscina | undefined;
  let running = 0;
  const run = async (input: BoundaryFileTaskInput): Promise<BoundaryFileTaskOutput> => {
    if (running >= threads + maxQueue) throw new ReaderBusyError();
    piscina ??= (() => {
      const p = new Piscina({
        filename: BOUNDARY_FILE_TASK,
        minThreads: 0,
        maxThreads: threads,
        maxQueue,
        concurrentTasksPerWorker: 1,
        idleTimeout: 30_000,
        resourceLimits: { maxOldGenerationSizeMb: heapMb },
      });
      p.on('error', () => {});
      return p;
    })();
    const timeout = AbortSignal.timeout(timeoutMs);
    running++;
    try {
      return (await piscina.run(input, { signal: timeout })) as BoundaryFileTaskOutput;
    } catch (e) {
      const tooComplex = (why: string) =>
        new FileRefusal('FILE_TOO_COMPLEX', 422, `The file is too complex to read: ${why}.`, {
          limit: timeout.aborted ? 'timeoutMs' : 'heapMb',
          limitValue: timeout.aborted ? timeoutMs : heapMb,
        });
      if (timeout.aborted) throw tooComplex(`reading it took over ${timeoutMs / 1000} s`);
      if ((e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
        throw tooComplex(`reading it needs more than the ${heapMb} MB a file reader has`);
      if (e instanceof Error && /queue is at limit/i.test(e.message)) throw new ReaderBusyError();
      throw e;
    } finally {
      running--;
    }
  };
  return {
    async read(kind, content, limits) {
      const out = await run({ op: 'read', kind, content, limits });
      if (!out.ok) rethrow(out.error);
      return out.found!;
    },
    async readLines(kind, content, limits) {
      const out = await run({ op: 'read-lines', kind, content, limits });
      if (!out.ok) rethrow(out.error);
      return out.lines!;
    },
    async verifyZip(content, limits, what) {
      const out = await run({ op: 'verify-zip', content, limits, what });
      if (!out.ok) rethrow(out.error);
    },
    async sniff(content, limits, what) {
      const out = await run({ op: 'sniff', content, limits, what });
      if (!out.ok) rethrow(out.error);
      return out.sniffed!;
    },
    async close() {
      const p = piscina;
      piscina = undefined;
      if (p) await p.destroy();
    },
  };
}
