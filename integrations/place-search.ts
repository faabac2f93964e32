/**
 * Searches of the bundled gazetteer in a worker thread
 * (integrations/gazetteer-worker.ts): the index is built there, started by
 * `warm()` or the first search, and each search is a message to it. The
 * thread does not keep the process alive; `close()` ends it.
 */
import { Worker } from 'node:worker_threads';
import type { PlaceMatch } from './gazetteer.ts';

export interface PlaceSearch {
  /** Places whose name or a word of it starts with `query`, best first (integrations/gazetteer.ts). */
  search(query: string, limit: number): Promise<PlaceMatch[]>;
  /** Starts building the index now; resolves with the number of places once built. */
  warm(): Promise<number>;
  close(): Promise<void>;
}

type Answer = { id: number; matches?: PlaceMatch[]; places?: number; error?: string };

export function createPlaceSearch(): PlaceSearch {
  let worker: Worker | undefined;
  let next = 0;
  const waiting = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  const fail = (e: Error) => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
    worker = undefined;
  };
  const ask = (message: { query?: string; limit?: number }): Promise<Answer> => {
    if (!worker) {
      worker = new Worker(new URL('./gazetteer-worker.ts', import.meta.url));
      worker.unref();
      worker.on('message', (a: Answer) => {
        const w = waiting.get(a.id);
        if (!w) return;
        waiting.delete(a.id);
        if (a.error !== undefined) w.reject(new Error(a.error));
        else w.resolve(a);
      });
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the gazetteer thread ended (exit code ${code})`)));
    }
    const id = next++;
    const w = worker;
    return new Promise<Answer>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      // Waiting for an answer keeps the process alive; an idle thread does not.
      w.ref();
      w.postMessage({ id, ...message });
    }).finally(() => {
      if (waiting.size === 0) w.unref();
    });
  };
  return {
    async search(query, limit) {
      return (await ask({ query, limit })).matches ?? [];
    },
    async warm() {
      return (await ask({})).places ?? 0;
    },
    async close() {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
