/**
 * Boundary geometry on the platform interface: rings of [lon, lat] pairs,
 * exterior first (spec 2.1), checked by the planner's own field preparation
 * so that a stored boundary is one the planner accepts; and the boundary as
 * GeoJSON, WKT and KML.
 */

import { Type } from 'typebox';
import { prepareField } from '../../core/field/prepare-field.ts';
import { multiPolygonArea } from '../../core/geometry/polygon.ts';
import { PlanningError } from '../../core/types/index.ts';
import { toKml } from '../../formats/boundary-kml.ts';
import { toWkt } from '../../formats/boundary-wkt.ts';
import { ApiError, fromPlanningError } from '../errors.ts';
import { MAX_FIELD_VERTICES } from '../planning/schemas.ts';

export const Rings = Type.Array(
  Type.Array(
    Type.Array(Type.Number(), {
      minItems: 2,
      maxItems: 3,
      description: '[lon, lat] in WGS84 degrees (a third number, the height, is dropped).',
    }),
    { minItems: 1, maxItems: MAX_FIELD_VERTICES },
  ),
  {
    minItems: 1,
    maxItems: 10_000,
    $id: 'BoundaryRings',
    title: 'BoundaryRings',
    description:
      'The field as coordinate rings of [lon, lat] pairs (WGS84): the exterior ring first, then holes (obstacles). Rings are closed on save when they are not. Checked as the planner checks a field: too few points, self-intersections, coordinates that are not lon/lat and empty areas get 400 with an errorCode (FIELD_*) and the place (/boundary/{ring}/{point}).',
  },
);

/** A checked boundary: closed rings as given (2D) and the field's area [m²]. */
export interface CheckedRings {
  rings: number[][][];
  area: number;
}

/** Checks rings the way the planner prepares a field; `pointer` is where they are in the body. */
export function checkRings(input: number[][][], pointer = '/boundary'): CheckedRings {
  const vertices = input.reduce((n, r) => n + r.length, 0);
  if (vertices > MAX_FIELD_VERTICES) {
    throw new ApiError(
      413,
      'PAYLOAD_TOO_LARGE',
      `The boundary has ${vertices} vertices; at most ${MAX_FIELD_VERTICES} are accepted. Simplify it.`,
      { details: { vertices, maxVertices: MAX_FIELD_VERTICES } },
    );
  }
  const rings = input.map((ring) => {
    const r = ring.map((p) => [p[0], p[1]]);
    const first = r[0];
    const last = r[r.length - 1];
    if (r.length > 1 && (first[0] !== last[0] || first[1] !== last[1])) r.push([first[0], first[1]]);
    return r;
  });
  try {
    const prepared = prepareField({ type: 'Polygon', coordinates: input });
    return { rings, area: multiPolygonArea(prepared.field.parts) };
  } catch (e) {
    if (!(e instanceof PlanningError)) throw e;
    const path = typeof e.details.path === 'string' ? e.details.path.replace(/^coordinates/, '') : '';
    const message = e.message.replace(
      /\bcoordinates(?=\[)/g,
      pointer.replace(/^\//, '').replaceAll('/', '.'),
    );
    throw fromPlanningError(e.code, message, { ...e.details, path }, pointer);
  }
}

/** [minLon, minLat, maxLon, maxLat] of the exterior ring. */
export function bboxOf(rings: number[][][]): [number, number, number, number] {
  let minLon = Number.POSITIVE_INFINITY;
  let minLat = Number.POSITIVE_INFINITY;
  let maxLon = Number.NEGATIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  for (const [lon, lat] of rings[0] ?? []) {
    minLon = Math.min(minLon, lon);
    maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
  }
  return [minLon, minLat, maxLon, maxLat];
}

export const boundaryWkt = (rings: number[][][]): string => toWkt({ type: 'Polygon', coordinates: rings });

export const boundaryKml = (rings: number[][][], name: string): string =>
  toKml([{ name, coordinates: rings }], name);
