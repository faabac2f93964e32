/**
 * The region turns and connectors are held to: the zone shrunk by half the
 * machine's working width, its obstacles grown by as much. A turn whose
 * centre line stays in it keeps the whole implement inside the field and
 * off the obstacles (no swing over a hedge, a fence, a neighbour's crop or a
 * pond). Where no way fits in it, the route falls back to the field itself
 * (the centre line inside), and the overhang is measured and reported.
 */

import type { Polygon } from '../types/index.ts';
import { offset } from './clip.ts';
import { EdgeIndex } from './edge-index.ts';

/**
 * Held this much less than half the width [m]: the first exterior headland
 * pass and the first pass round an obstacle run at exactly half a swath
 * from the edge, and a turn onto them must start or end there.
 */
export const TURN_REGION_SLACK = 0.05;

interface TurnArea {
  index: EdgeIndex | null;
  /** The shrunk zone itself (empty where nothing is left). */
  polygons: Polygon[];
}

const cache = new WeakMap<Polygon, Map<number, TurnArea>>();

/**
 * Edges of the zone shrunk by `halfWidth` less TURN_REGION_SLACK (holes
 * grown by as much); null when nothing of the zone is left. Cached per zone
 * polygon, so the cells of a decomposed field part share one.
 */
export function turnRegion(zone: Polygon, halfWidth: number): EdgeIndex | null {
  return turnArea(zone, halfWidth)?.index ?? null;
}

/** The polygons of turnRegion (the zone shrunk, its obstacles grown); empty where nothing is left. */
export function turnRegionPolygons(zone: Polygon, halfWidth: number): Polygon[] {
  return turnArea(zone, halfWidth)?.polygons ?? [];
}

function turnArea(zone: Polygon, halfWidth: number): TurnArea | null {
  const clearance = halfWidth - TURN_REGION_SLACK;
  if (!(clearance > 0)) return null;
  let byWidth = cache.get(zone);
  if (!byWidth) {
    byWidth = new Map();
    cache.set(zone, byWidth);
  }
  const known = byWidth.get(clearance);
  if (known !== undefined) return known;
  const polygons = offset([zone], -clearance);
  const rings = polygons.flatMap((p) => [p.outer, ...p.holes]);
  const area = { index: rings.length ? new EdgeIndex(rings) : null, polygons };
  byWidth.set(clearance, area);
  return area;
}
