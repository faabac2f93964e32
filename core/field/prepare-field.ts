/**
 * A field as users send it (GeoJSON in lon/lat, often dirty) to a field the
 * planner can trust: validated, projected to metres, repaired where the
 * repair is unambiguous, refused with the reason and the place otherwise.
 *
 * Repairs: rings closed; Z dropped; duplicate and near-duplicate points
 * (within 1 cm) removed; collinear points and spikes (a vertex where the
 * ring doubles back) removed; rings oriented (exterior counter-clockwise,
 * holes clockwise); overlapping holes merged and holes clipped to their
 * exterior (an obstacle across the edge is a notch); overlapping parts merged. Refusals (PlanningError): FIELD_EMPTY, FIELD_UNSUPPORTED_GEOMETRY,
 * FIELD_NOT_LONLAT, FIELD_TOO_FEW_POINTS, FIELD_SELF_INTERSECTION (with the
 * crossing coordinate), FIELD_INVALID.
 */
import { difference, intersection, union } from '../geometry/clip.ts';
import { polygonArea, signedArea } from '../geometry/polygon.ts';
import { createMetricFrame, wrapLon } from '../geometry/projection.ts';
import { hypot } from '../geometry/vec.ts';
import type { MetricFrame, Point, Polygon, PreparedField } from '../types/index.ts';
import { PlanningError } from '../types/index.ts';

/** Points closer than this are one point [m]. */
const DUPLICATE_TOLERANCE = 0.01;
/** Points deviating less than this from the line of their neighbours are collinear [m]. */
const COLLINEAR_TOLERANCE = 0.01;

interface RawRing {
  coords: [number, number][];
  path: string;
}

interface RawPolygon {
  rings: RawRing[];
  passable: boolean;
  path: string;
}

export function prepareField(input: unknown): PreparedField {
  const repairs: string[] = [];
  const raw = extractPolygons(input);
  if (raw.filter((p) => !p.passable).length === 0) {
    throw new PlanningError(
      'FIELD_EMPTY',
      'The field has no polygon: expected at least one Polygon with coordinates.',
      {
        path: '',
      },
    );
  }
  const frame = frameFor(raw);
  const parts: Polygon[] = [];
  const passable: Polygon[] = [];
  const nodes: Point[][] = [];
  for (const rp of raw) {
    const rings: Point[][] = [];
    // Where each kept ring came from (a dropped ring shifts the ones after it).
    const paths: string[] = [];
    if (rp.rings.length === 0) continue;
    // A passable obstacle with no area (a drain drawn as a line) excludes nothing: dropped, not refused.
    const outerRing = cleanRing(rp.rings[0], frame, repairs, true, rp.passable);
    if (!outerRing) continue;
    rings.push(outerRing);
    paths.push(rp.rings[0].path);
    for (const rr of rp.rings.slice(1)) {
      const ring = cleanRing(rr, frame, repairs, false);
      if (ring) {
        rings.push(ring);
        paths.push(rr.path);
      }
    }
    const [outer, ...holes] = rings;
    checkRingsValid(outer, holes, paths, frame);
    const poly = buildPolygon(outer, holes, rp.path, repairs);
    if (rp.passable) passable.push(...poly);
    else {
      parts.push(...poly);
      nodes.push(
        rp.rings[0].coords
          .slice(0, closedLength(rp.rings[0].coords))
          .map(([lon, lat]) => frame.toMetric(lon, lat)),
      );
    }
  }
  if (parts.length === 0) {
    throw new PlanningError(
      'FIELD_EMPTY',
      'The field has no area left after cleaning: every polygon was degenerate.',
      {
        path: raw[0]?.path ?? '',
      },
    );
  }
  // Overlapping or touching parts are one part.
  let merged = parts;
  if (parts.length > 1) {
    merged = union(parts);
    if (merged.length < parts.length)
      repairs.push(`Merged ${parts.length} overlapping field parts into ${merged.length}.`);
  }
  const field = {
    parts: merged.sort((a, b) => polygonArea(b) - polygonArea(a)),
    passable: passable.length ? intersection(union(passable), merged) : [],
    nodes,
  };
  return { field, frame, repairs };
}

function closedLength(c: [number, number][]): number {
  const n = c.length;
  return n > 1 && c[0][0] === c[n - 1][0] && c[0][1] === c[n - 1][1] ? n - 1 : n;
}

function extractPolygons(input: unknown): RawPolygon[] {
  const out: RawPolygon[] = [];
  const geom = (g: unknown, path: string, passable: boolean) => {
    if (!isObject(g)) {
      throw new PlanningError(
        'FIELD_INVALID',
        `${path || 'The field'} must be a GeoJSON object; found ${describe(g)}.`,
        {
          path,
        },
      );
    }
    const type = g.type;
    if (type === 'Polygon') out.push(polygon(g.coordinates, `${dot(path)}coordinates`, passable, path));
    else if (type === 'MultiPolygon') {
      const c = g.coordinates;
      if (!Array.isArray(c)) throw badCoordinates(`${dot(path)}coordinates`, c);
      c.forEach((p, i) => {
        out.push(polygon(p, `${dot(path)}coordinates[${i}]`, passable, path));
      });
    } else if (type === 'Feature') {
      const props = isObject(g.properties) ? g.properties : {};
      if (g.geometry === null || g.geometry === undefined) return;
      geom(g.geometry, `${dot(path)}geometry`, passable || props.passable === true);
    } else if (type === 'FeatureCollection') {
      if (!Array.isArray(g.features)) {
        throw new PlanningError('FIELD_INVALID', `${dot(path)}features must be an array of Features.`, {
          path: `${dot(path)}features`,
        });
      }
      g.features.forEach((f, i) => {
        geom(f, `${dot(path)}features[${i}]`, passable);
      });
    } else {
      throw new PlanningError(
        'FIELD_UNSUPPORTED_GEOMETRY',
        `${path || 'The field'} is a ${typeof type === 'string' ? type : describe(type)}; a field must be a Polygon, MultiPolygon, Feature of either, or a FeatureCollection of Polygon features.`,
        { path: path ? `${dot(path)}type` : 'type' },
      );
    }
  };
  geom(input, '', false);
  return out;
}

function polygon(coords: unknown, path: string, passable: boolean, featurePath: string): RawPolygon {
  if (!Array.isArray(coords)) throw badCoordinates(path, coords);
  const rings: RawRing[] = coords.map((ring, i) => {
    const rp = `${path}[${i}]`;
    if (!Array.isArray(ring)) throw badCoordinates(rp, ring);
    const c: [number, number][] = ring.map((pt, j) => lonLat(pt, `${rp}[${j}]`));
    return { coords: c, path: rp };
  });
  return { rings, passable, path: featurePath };
}

function lonLat(pt: unknown, path: string): [number, number] {
  if (!Array.isArray(pt) || pt.length < 2 || typeof pt[0] !== 'number' || typeof pt[1] !== 'number') {
    throw new PlanningError(
      'FIELD_NOT_LONLAT',
      `${path} must be a [lon, lat] pair of numbers; found ${describe(pt)}.`,
      {
        path,
      },
    );
  }
  const [lon, lat] = pt as number[];
  if (!Number.isFinite(lon) || !Number.isFinite(lat)) {
    throw new PlanningError('FIELD_NOT_LONLAT', `${path} must hold finite numbers; found [${lon}, ${lat}].`, {
      path,
    });
  }
  if (Math.abs(lon) > 180 || Math.abs(lat) > 90) {
    const projected = Math.abs(lon) > 1000 || Math.abs(lat) > 1000;
    throw new PlanningError(
      'FIELD_NOT_LONLAT',
      `${path} is [${lon}, ${lat}], which is not WGS84 lon/lat (lon -180..180, lat -90..90)${projected ? '; it looks like projected metres: convert the field to WGS84 (EPSG:4326) first' : ''}.`,
      { path, coordinate: [lon, lat] },
    );
  }
  return [lon, lat];
}

function badCoordinates(path: string, found: unknown): PlanningError {
  return new PlanningError(
    'FIELD_INVALID',
    `${path} must be an array of linear rings; found ${describe(found)}.`,
    { path },
  );
}

/** A frame centred on the bounding box of all coordinates, across the antimeridian if need be. */
function frameFor(raw: RawPolygon[]): MetricFrame {
  const all = raw.flatMap((p) => p.rings.flatMap((r) => r.coords));
  if (all.length === 0) throw new PlanningError('FIELD_EMPTY', 'The field has no coordinates.', { path: '' });
  const ref = all[0][0];
  let minLon = Number.POSITIVE_INFINITY;
  let maxLon = Number.NEGATIVE_INFINITY;
  let minLat = Number.POSITIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  for (const [lon, lat] of all) {
    const u = ref + wrapLon(lon - ref);
    minLon = Math.min(minLon, u);
    maxLon = Math.max(maxLon, u);
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
  }
  return createMetricFrame(wrapLon((minLon + maxLon) / 2), (minLat + maxLat) / 2);
}

/** Project, de-duplicate, drop spikes and collinear points. Null when nothing is left (holes and passable obstacles only). */
function cleanRing(
  rr: RawRing,
  frame: MetricFrame,
  repairs: string[],
  exterior: boolean,
  passable = false,
): Point[] | null {
  const c = rr.coords;
  if (c.length === 0) {
    if (exterior && !passable)
      throw new PlanningError('FIELD_EMPTY', `${rr.path} is an empty ring.`, { path: rr.path });
    repairs.push(`Dropped the empty ring ${rr.path}.`);
    return null;
  }
  const closed = c.length > 1 && c[0][0] === c[c.length - 1][0] && c[0][1] === c[c.length - 1][1];
  if (!closed && c.length >= 3) repairs.push(`Closed the ring ${rr.path}.`);
  const n0 = closed ? c.length - 1 : c.length;
  let pts: Point[] = [];
  for (let i = 0; i < n0; i++) pts.push(frame.toMetric(c[i][0], c[i][1]));
  const before = pts.length;
  pts = dedupe(pts);
  let removed = before - pts.length;
  let spikes = 0;
  for (let changed = true; changed && pts.length >= 3; ) {
    changed = false;
    const out: Point[] = [];
    const n = pts.length;
    for (let i = 0; i < n; i++) {
      const a = out.length ? out[out.length - 1] : pts[n - 1];
      const b = pts[i];
      const cc = pts[(i + 1) % n];
      const ab = hypot(b.x - a.x, b.y - a.y);
      const bc = hypot(cc.x - b.x, cc.y - b.y);
      const ac = hypot(cc.x - a.x, cc.y - a.y);
      const cross = (b.x - a.x) * (cc.y - a.y) - (b.y - a.y) * (cc.x - a.x);
      const dev = ac > 1e-12 ? Math.abs(cross) / ac : Math.min(ab, bc);
      const dotp = (b.x - a.x) * (cc.x - b.x) + (b.y - a.y) * (cc.y - b.y);
      if (dev < COLLINEAR_TOLERANCE && dotp > 0) {
        removed++;
        changed = true;
        continue;
      }
      // A spike: the ring runs out to b and straight back (within ~1 degree).
      if (dotp < 0 && Math.abs(cross) < 0.0175 * ab * bc) {
        spikes++;
        changed = true;
        continue;
      }
      out.push(b);
    }
    pts = dedupe(out);
  }
  if (removed > 0) repairs.push(`Removed ${removed} duplicate or collinear point(s) from ${rr.path}.`);
  if (spikes > 0) repairs.push(`Removed ${spikes} spike(s) from ${rr.path}.`);
  if (pts.length < 3) {
    if (exterior && passable) {
      repairs.push(
        `Dropped the passable obstacle ${rr.path}: it has no area (fewer than 3 distinct points).`,
      );
      return null;
    }
    if (exterior) {
      throw new PlanningError(
        'FIELD_TOO_FEW_POINTS',
        `${rr.path} has ${pts.length} distinct point(s) after removing duplicates, collinear points and spikes; a ring needs at least 3.`,
        { path: rr.path },
      );
    }
    repairs.push(`Dropped the degenerate hole ${rr.path} (fewer than 3 distinct points).`);
    return null;
  }
  const ccw = signedArea(pts) > 0;
  if (ccw !== exterior) {
    pts.reverse();
    repairs.push(`Reoriented ${rr.path} (${exterior ? 'exterior counter-clockwise' : 'holes clockwise'}).`);
  }
  return pts;
}

function dedupe(pts: Point[]): Point[] {
  const out: Point[] = [];
  for (const p of pts) {
    const last = out[out.length - 1];
    if (!last || hypot(p.x - last.x, p.y - last.y) >= DUPLICATE_TOLERANCE) out.push(p);
  }
  while (
    out.length > 1 &&
    hypot(out[0].x - out[out.length - 1].x, out[0].y - out[out.length - 1].y) < DUPLICATE_TOLERANCE
  ) {
    out.pop();
  }
  return out;
}

/**
 * Refuse rings that cross themselves or touch themselves at a vertex.
 * Edges are swept in order of their lowest x, so the check is about
 * O(n log n) for real boundaries.
 */
function checkRingsValid(outer: Point[], holes: Point[][], paths: readonly string[], frame: MetricFrame) {
  const rings = [outer, ...holes];
  interface E {
    r: number;
    i: number;
    ax: number;
    ay: number;
    bx: number;
    by: number;
    minX: number;
    maxX: number;
  }
  const edges: E[] = [];
  rings.forEach((ring, r) => {
    for (let i = 0; i < ring.length; i++) {
      const a = ring[i];
      const b = ring[(i + 1) % ring.length];
      edges.push({
        r,
        i,
        ax: a.x,
        ay: a.y,
        bx: b.x,
        by: b.y,
        minX: Math.min(a.x, b.x),
        maxX: Math.max(a.x, b.x),
      });
    }
  });
  edges.sort((p, q) => p.minX - q.minX);
  const active: E[] = [];
  // Named by the ring the crossing is in: the exterior or the hole.
  const fail = (r: number, x: number, y: number, what: string): never => {
    const [lon, lat] = frame.toLonLat({ x, y });
    const c: [number, number] = [round7(lon), round7(lat)];
    throw new PlanningError(
      'FIELD_SELF_INTERSECTION',
      `The boundary ${what} at [${c[0]}, ${c[1]}] (${paths[r]}); a field must be a simple polygon whose holes lie inside it without touching.`,
      { path: paths[r], coordinate: c },
    );
  };
  for (const e of edges) {
    for (let k = active.length - 1; k >= 0; k--) if (active[k].maxX < e.minX - 1e-9) active.splice(k, 1);
    for (const f of active) {
      // Holes that overlap each other or the exterior are resolved by the
      // polygon difference (the obstacle clips the field); only a ring that
      // crosses itself is ambiguous.
      if (e.r !== f.r) continue;
      const adjacent =
        e.r === f.r && (Math.abs(e.i - f.i) === 1 || Math.abs(e.i - f.i) === rings[e.r].length - 1);
      const hit = segmentIntersection(e, f);
      if (!hit) continue;
      if (adjacent) {
        // Adjacent edges share one endpoint; anything more is a fold.
        if (hit.overlap)
          fail(
            e.r,
            hit.x,
            hit.y,
            e.r === 0 ? 'folds back on itself' : 'has a hole that folds back on itself',
          );
        continue;
      }
      fail(e.r, hit.x, hit.y, e.r === 0 ? 'crosses itself' : 'has a hole that crosses itself');
    }
    active.push(e);
  }
}

function segmentIntersection(
  e: { ax: number; ay: number; bx: number; by: number },
  f: { ax: number; ay: number; bx: number; by: number },
): { x: number; y: number; overlap: boolean } | null {
  const rx = e.bx - e.ax;
  const ry = e.by - e.ay;
  const sx = f.bx - f.ax;
  const sy = f.by - f.ay;
  const den = rx * sy - ry * sx;
  const qpx = f.ax - e.ax;
  const qpy = f.ay - e.ay;
  const lr = hypot(rx, ry);
  const ls = hypot(sx, sy);
  if (Math.abs(den) <= 1e-12 * lr * ls) {
    // Parallel: overlapping collinear segments are a fold.
    if (Math.abs(qpx * ry - qpy * rx) > 1e-9 * lr) return null;
    const t0 = (qpx * rx + qpy * ry) / (lr * lr);
    const t1 = t0 + (sx * rx + sy * ry) / (lr * lr);
    const lo = Math.max(0, Math.min(t0, t1));
    const hi = Math.min(1, Math.max(t0, t1));
    if (hi - lo > 1e-9) return { x: e.ax + lo * rx, y: e.ay + lo * ry, overlap: true };
    if (hi - lo >= -1e-12) return { x: e.ax + lo * rx, y: e.ay + lo * ry, overlap: false };
    return null;
  }
  const t = (qpx * sy - qpy * sx) / den;
  const u = (qpx * ry - qpy * rx) / den;
  const eps = 1e-12;
  if (t < -eps || t > 1 + eps || u < -eps || u > 1 + eps) return null;
  return { x: e.ax + t * rx, y: e.ay + t * ry, overlap: false };
}

/** Exterior less holes; holes outside the exterior are dropped (and said so). */
function buildPolygon(outer: Point[], holes: Point[][], path: string, repairs: string[]): Polygon[] {
  if (holes.length === 0) return [{ outer, holes: [] }];
  const result = difference(
    [{ outer, holes: [] }],
    holes.map((h) => ({ outer: h.slice().reverse(), holes: [] })),
  );
  const kept = result.reduce((n, p) => n + p.holes.length, 0);
  if (kept < holes.length && result.length <= 1) {
    repairs.push(
      `Dropped ${holes.length - kept} hole(s) of ${path || 'the field'} that lie outside its exterior.`,
    );
  }
  return result;
}

function round7(v: number): number {
  return Math.round(v * 1e7) / 1e7;
}

function isObject(v: unknown): v is Record<string, unknown> & { type?: unknown; coordinates?: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function dot(path: string): string {
  return path ? `${path}.` : '';
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'string') return `the string "${v.length > 40 ? `${v.slice(0, 40)}...` : v}"`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}
