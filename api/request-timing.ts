/**
 * When each request arrived, for the Server-Timing header: stamped when
 * Fastify gives the request its id (before any hook, body parsing or key
 * check), read when the answer is ready.
 */
import type { IncomingMessage } from 'node:http';

const arrivals = new WeakMap<IncomingMessage, number>();

export function markArrival(raw: IncomingMessage): void {
  arrivals.set(raw, performance.now());
}

/** Milliseconds since the request arrived (0 when it was not stamped). */
export function sinceArrival(raw: IncomingMessage): number {
  const t = arrivals.get(raw);
  return t === undefined ? 0 : performance.now() - t;
}
