/**
 * What a route leaves out, in words for the zone's warnings: tracks no
 * drivable path inside the field reaches, and headland passes the machine
 * cannot drive (too tight for a loop at its turning radius, or out of reach).
 * Their area shows as missed in the statistics; the warnings say why.
 */

import { dist, polylineLength } from '../geometry/vec.ts';
import type { HeadlandRing } from '../headland/generate-headlands.ts';
import type { Track } from '../tracks/generate-tracks.ts';

export interface LeftOutInput {
  tracks: readonly Track[];
  /** Indices into `tracks` of the tracks the route could not reach. */
  skippedTracks: readonly number[];
  /** Headland rings the route was asked to drive and could not. */
  undrivenRings: readonly HeadlandRing[];
  /** Connections the route could not make inside the field, undriven rings included (RouteResult.failures). */
  failures?: number;
  swathWidth: number;
  turningRadius: number;
}

const ha = (m2: number) => `${(m2 / 10000).toFixed(2)} ha`;

export function leftOutWarnings(input: LeftOutInput): string[] {
  const out: string[] = [];
  const w = input.swathWidth;
  const R = input.turningRadius;
  const one = (n: number, single: string, plural: string) => (n === 1 ? single : plural);
  if (input.skippedTracks.length) {
    let area = 0;
    for (const i of input.skippedTracks) {
      const t = input.tracks[i];
      area += (t.path ? polylineLength(t.path) : dist(t.a, t.b)) * w;
    }
    const n = input.skippedTracks.length;
    out.push(
      `${n} ${one(n, 'track', 'tracks')} (about ${ha(area)}) cannot be reached by a path inside the field at turning radius ${R} m and ${one(n, 'is', 'are')} left out; ${one(n, 'its', 'their')} area shows as missed.`,
    );
  }
  for (const exterior of [true, false]) {
    const rings = input.undrivenRings.filter((r) => (r.obstacleIndex === undefined) === exterior);
    if (!rings.length) continue;
    const area = rings.reduce((a, r) => a + polylineLength([...r.ring, r.ring[0]]) * w, 0);
    const passes = [...new Set(rings.map((r) => r.passNumber))].sort((a, b) => a - b);
    const n = rings.length;
    out.push(
      `${n} ${exterior ? 'exterior' : 'obstacle'} headland ${one(n, 'ring', 'rings')} (pass ${passes.join(', ')}; about ${ha(area)}) cannot be reached by a path inside the field at turning radius ${R} m and ${one(n, 'is', 'are')} left out; ${one(n, 'its', 'their')} area shows as missed.`,
    );
  }
  const other = (input.failures ?? 0) - input.undrivenRings.length;
  if (other > 0) {
    out.push(
      `${other} route ${one(other, 'connection', 'connections')} could not be made inside the field at turning radius ${R} m; the route is broken there.`,
    );
  }
  return out;
}
