/**
 * A zone's parts for a route over its tracks: the guidance tracks the route
 * drives (and crosshatch lines), the headland passes it drives as reference
 * rings, then the route's driven parts (sequence set later).
 */
import type { HeadlandResult } from './headland/generate-headlands.ts';
import type { RouteResult } from './route/route-types.ts';
import { generateTracks, type TrackSet } from './tracks/generate-tracks.ts';
import type { PathPart, Point, Polygon } from './types/index.ts';

/**
 * The parts of a zone whose tracks are driven by the route. Crosshatch
 * lines (one swath apart at right angles to the tracks, across the same
 * workable area) are given where `crossHatch` holds that area.
 */
export function zoneParts(
  tracks: TrackSet,
  route: RouteResult,
  headlands: HeadlandResult,
  crossHatch?: readonly Polygon[],
): PathPart[] {
  const parts: PathPart[] = [];
  const skipped = new Set(route.skippedTracks);
  tracks.tracks.forEach((t, i) => {
    if (skipped.has(i)) return;
    parts.push({
      type: 'GuidanceTrack',
      points: t.path ? t.path.slice() : [t.a, t.b],
      working: false,
      trackIndex: i,
      ...(t.path ? {} : { bearingDeg: tracks.bearingDeg }),
    });
  });
  if (crossHatch) {
    const cross = generateTracks(crossHatch, {
      swathWidth: tracks.swathWidth,
      preferredBearingDeg: (tracks.bearingDeg + 90) % 180,
    });
    cross.tracks.forEach((t, i) => {
      parts.push({
        type: 'Crosshatch',
        points: [t.a, t.b],
        working: false,
        trackIndex: i,
        bearingDeg: cross.bearingDeg,
      });
    });
  }
  // A reference pass is only given where the machine drives it: a pass too
  // narrow for a loop of the turning radius, or out of reach, is left out
  // (its area shows as missed).
  const drivenExt = new Set(
    route.parts.filter((p) => p.type === 'ExteriorHeadlandPass').map((p) => p.passNumber),
  );
  const drivenInt = new Set(
    route.parts.filter((p) => p.type === 'InteriorHeadlandPass').map((p) => p.passNumber),
  );
  for (const h of headlands.exterior) {
    if (!drivenExt.has(h.passNumber)) continue;
    parts.push({
      type: 'ExteriorHeadlandPass',
      points: closeRing(h.ring),
      working: false,
      passNumber: h.passNumber,
    });
  }
  for (const h of headlands.interior) {
    if (!drivenInt.has(h.passNumber)) continue;
    parts.push({
      type: 'InteriorHeadlandPass',
      points: closeRing(h.ring),
      working: false,
      passNumber: h.passNumber,
      obstacleIndex: h.obstacleIndex,
    });
  }
  for (const p of route.parts) parts.push({ ...p, sequence: 0 });
  return parts;
}

function closeRing(ring: readonly Point[]): Point[] {
  return [...ring, ring[0]];
}
