/**
 * Slope-aware planning through the direct HTTP interface, against a
 * listening server whose DEM directory holds planes of known gradient (in
 * UTM and in EPSG:4326): trackDirection 'Contour' lays the tracks at right
 * angles to the gradient, equipment.maxCrossSlopePercent flags the parts
 * over it, and both are refused where no DEM is read.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineAngle, localMetres, planeGround, writeDem } from '../../formats/dem-testing.ts';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { unsupportedOptions } from './supported-options.ts';

type Json = Record<string, any>;

let dir: string;
let srv: TestServer;
let key: string;

// 6 ha at (9, 55) on a UTM plane rising 5 % towards 60 deg; 4 ha at (9.1, 55.1) on a 4326 plane rising 8 % towards 300 deg.
const utmField = rectangleField(6, 9, 55);
const geoField = rectangleField(4, 9.1, 55.1);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tramline-contour-api-'));
  await writeDem(join(dir, 'plane-utm.tif'), {
    epsg: 32632,
    centre: [9.003, 55.0008],
    width: 600,
    height: 400,
    cell: 1,
    ground: planeGround(9.003, 55.0008, 5, 60),
  });
  await writeDem(join(dir, 'plane-4326.tif'), {
    epsg: 4326,
    centre: [9.1025, 55.1008],
    width: 700,
    height: 400,
    cell: 1e-5,
    ground: planeGround(9.1025, 55.1008, 8, 300),
  });
  srv = await startTestServer({ planning: { demDir: dir } });
  key = (await testKey({ unlimited: true })).key;
});

afterAll(async () => {
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${srv.url}/api/path-plans/direct`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Bearing of a LineString from its first to its last position [deg clockwise from north]. */
function bearing(coords: [number, number][]): number {
  const local = localMetres(coords[0][0], coords[0][1]);
  const [e, n] = local(...coords[coords.length - 1]);
  return (Math.atan2(e, n) * 180) / Math.PI;
}

function routeTracks(plan: Json): Json[] {
  return plan.zones.flatMap((z: Json) =>
    z.geometryGroups.flatMap((g: Json) =>
      g.geometryParts.filter((p: Json) => p.geometryPartType === 'RouteTrack'),
    ),
  );
}

describe("trackDirection 'Contour'", () => {
  for (const [name, boundary, percent, gradient] of [
    ['a UTM DEM', utmField, 5, 60],
    ['an EPSG:4326 DEM', geoField, 8, 300],
  ] as const) {
    it(`lays the tracks at right angles to the gradient of a plane in ${name} (+- 2 degrees)`, async () => {
      const a = await post({
        boundary,
        equipment: { swathWidth: 6 },
        exteriorHeadlandPasses: 1,
        trackDirection: 'Contour',
        includeSlopes: true,
      });
      expect(a.status, JSON.stringify(a.json).slice(0, 400)).toBe(200);
      const tracks = routeTracks(a.json);
      expect(tracks.length).toBeGreaterThan(10);
      for (const t of tracks) {
        expect(lineAngle(bearing(t.geometry.coordinates), gradient + 90)).toBeLessThanOrEqual(2);
        expect(Math.abs(t.slopeDetails.meanAlongTrackPercent)).toBeLessThan(0.2);
        expect(t.slopeDetails.meanCrossTrackPercent).toBeCloseTo(percent, 0);
      }
      for (const z of a.json.zones) {
        expect(lineAngle(z.contour.bearingDeg, gradient + 90)).toBeLessThanOrEqual(2);
        expect(z.contour.meanSlopePercent).toBeCloseTo(percent, 1);
        expect(z.contour.meanAlongTrackPercent).toBeLessThan(0.1);
      }
      // On the level tracks no working distance climbs over 2 % but the headland pass.
      const auto = await post({
        boundary,
        equipment: { swathWidth: 6 },
        exteriorHeadlandPasses: 1,
        includeSlopes: true,
      });
      expect(a.json.slopeSummary.workingShareAbove2Percent).toBeLessThan(
        auto.json.slopeSummary.workingShareAbove2Percent + 1e-9,
      );
    });
  }

  it('answers 422 DEM_NOT_AVAILABLE where no DEM covers the field, and refuses a bearing with it', async () => {
    const far = await post({
      boundary: rectangleField(2, 8, 54),
      equipment: { swathWidth: 6 },
      trackDirection: 'Contour',
    });
    expect(far.status).toBe(422);
    expect(far.json.errorCode).toBe('DEM_NOT_AVAILABLE');
    expect(far.json.message).toContain('Contour');
    const both = await post({
      boundary: utmField,
      equipment: { swathWidth: 6 },
      trackDirection: 'Contour',
      trackBearing: 10,
    });
    expect(both.status).toBeGreaterThanOrEqual(400);
    expect(both.status).toBeLessThan(500);
    expect(both.json.message).toMatch(/trackBearing|track bearing/);
    const auto = await post({
      boundary: rectangleField(2, 8, 54),
      equipment: { swathWidth: 6 },
      trackDirection: 'Auto',
    });
    expect(auto.status).toBe(200);
    expect(auto.json.zones[0].contour).toBeUndefined();
  });

  it('the GeoJSON answer reports the contour on the zone statistics', async () => {
    const res = await fetch(`${srv.url}/api/path-plans/direct/geojson`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ boundary: utmField, equipment: { swathWidth: 6 }, trackDirection: 'Contour' }),
    });
    expect(res.status).toBe(200);
    const g = (await res.json()) as Json;
    const stats = g.features.filter((f: Json) => f.properties.featureType === 'zoneStatistics');
    expect(stats.length).toBeGreaterThan(0);
    for (const f of stats) expect(lineAngle(f.properties.contour.bearingDeg, 150)).toBeLessThanOrEqual(2);
  });

  it('names trackDirection and its modes in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${srv.url}/api/openapi.json`)).json()) as Json;
    const text = JSON.stringify(doc);
    expect(text).toContain('"trackDirection"');
    expect(text).toContain('"Contour"');
    expect(text).toContain('maxCrossSlopePercent');
  });
});

describe('equipment.maxCrossSlopePercent', () => {
  it('flags the parts across a steeper slope in their slopeDetails and in a zone warning', async () => {
    const plan = (limit: number) =>
      post({
        boundary: utmField,
        equipment: { swathWidth: 6, maxCrossSlopePercent: limit },
        exteriorHeadlandPasses: 1,
        trackDirection: 'Contour',
        includeSlopes: true,
      });
    const strict = await plan(4);
    expect(strict.status).toBe(200);
    const tracks = routeTracks(strict.json);
    for (const t of tracks) {
      expect(t.slopeDetails.exceedsMaxCrossSlope).toBe(true);
      expect(t.slopeDetails.maxCrossTrackPercent).toBeGreaterThan(4.9);
      expect(t.slopeDetails.overMaxCrossSlopeLength).toBeGreaterThan(0);
    }
    const warning = strict.json.zones[0].warnings.find((w: string) => w.includes('maxCrossSlopePercent'));
    expect(warning).toMatch(/limit of 4 % sideways/);
    expect(warning).toContain('RouteTrack');
    const loose = await plan(6);
    expect(loose.status).toBe(200);
    for (const t of routeTracks(loose.json)) expect(t.slopeDetails.exceedsMaxCrossSlope).toBe(false);
    expect(JSON.stringify(loose.json.zones[0].warnings ?? [])).not.toContain('maxCrossSlopePercent');
  });

  it('is refused without includeSlopes, and plans that read no DEM refuse Contour', async () => {
    const a = await post({ boundary: utmField, equipment: { swathWidth: 6, maxCrossSlopePercent: 10 } });
    expect(a.status).toBe(422);
    expect(a.json.errorCode).toBe('OPTION_NOT_SUPPORTED');
    expect(a.json.message).toContain('equipment.maxCrossSlopePercent');
    const req = { boundary: utmField, equipment: { swathWidth: 6 }, trackDirection: 'Contour' } as never;
    expect(unsupportedOptions(req).map((u) => u.path)).toEqual(['/trackDirection']);
    expect(unsupportedOptions(req, { slopes: true })).toEqual([]);
  });
});
