/**
 * What the routes planned in a zone share (route-links.ts): its turn area,
 * the field with its obstacles grown by the clearance, and travel through it.
 */
import { offset } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { TURN_REGION_SLACK, turnRegion } from '../geometry/turn-region.ts';
import type { Polygon, Pose } from '../types/index.ts';
import type { Connection } from './connect.ts';
import type { FieldTravel } from './field-travel.ts';
import { ringArea } from './route-geometry.ts';
import type { LinkSetup } from './route-links.ts';

/**
 * What every route planned in a zone shares: the turn area and the field
 * with its obstacles grown by the clearance (and so the ways found in them,
 * which connect.ts keeps by region), and travel through the field. A zone
 * is routed more than once (the optimizer's order and the plain one, again
 * with run-ons or corridor passes): each is built once.
 */
export interface SharedLinks {
  zone: Polygon;
  key: string;
  turnArea: EdgeIndex | null;
  buffered: EdgeIndex;
  travel?: FieldTravel;
  turnAreaTravel?: FieldTravel;
  /** Turns of several moves found (RouteLinks.turnRound), by the mode and the ends. */
  turnsRound: Map<string, Connection | null>;
  /** Turns cleared of overhang (RouteLinks.clearOf), by the turn and its ends. */
  cleared: WeakMap<Connection, { from: Pose; to: Pose; way: Connection | null }[]>;
}

const sharedByRegion = new WeakMap<EdgeIndex, SharedLinks>();

export function sharedLinks(s: LinkSetup): SharedLinks {
  const key = `${s.swathWidth} ${s.radius} ${s.curvatureRate}`;
  const known = sharedByRegion.get(s.region);
  if (known && known.zone === s.zone && known.key === key) return known;
  // Where no way keeps the whole implement inside, turns and connectors
  // still keep half the machine's width off obstacles where they can
  // (less 5 cm: the first interior headland pass runs at exactly half a swath).
  const clearance = s.swathWidth / 2 - TURN_REGION_SLACK;
  const holes = s.zone.holes.map((h) => ({
    outer: ringArea(h) < 0 ? h.slice().reverse() : h,
    holes: [],
  }));
  const shared: SharedLinks = {
    zone: s.zone,
    key,
    turnArea: turnRegion(s.zone, s.swathWidth / 2),
    buffered:
      holes.length && clearance > 0
        ? new EdgeIndex([s.zone.outer, ...offset(holes, clearance).flatMap((p) => [p.outer, ...p.holes])])
        : s.region,
    turnsRound: new Map(),
    cleared: new WeakMap(),
  };
  sharedByRegion.set(s.region, shared);
  return shared;
}
