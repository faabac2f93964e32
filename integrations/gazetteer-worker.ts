/**
 * The gazetteer's own thread: builds the index (a few seconds of work) and
 * answers searches, so the server's event loop never waits for either.
 * Messages: { id, query, limit } -> { id, matches } or { id, error }.
 */
import { parentPort } from 'node:worker_threads';
import { loadGazetteer, searchPlaces } from './gazetteer.ts';

const port = parentPort;
if (port) {
  port.on('message', (m: { id: number; query?: string; limit?: number }) => {
    try {
      if (m.query === undefined) port.postMessage({ id: m.id, places: loadGazetteer().places });
      else port.postMessage({ id: m.id, matches: searchPlaces(m.query, m.limit ?? 10) });
    } catch (e) {
      port.postMessage({ id: m.id, error: (e as Error).message });
    }
  });
}
