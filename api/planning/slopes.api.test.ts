/**
 * includeSlopes through the direct HTTP interface, against a listening
 * server whose DEM directory holds GeoTIFFs with known ground: slopes on
 * every geometry part of both answers (model and GeoJSON), matching the
 * OpenAPI document; 422 DEM_NOT_AVAILABLE for a field no DEM covers; no
 * DEM read (and none needed) without includeSlopes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localMetres, planeGround, writeDem } from '../../formats/dem-testing.ts';
import { ApiError } from '../errors.ts';
import { checkJobRequest } from '../routes/jobs.ts';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import planTask from './plan-task.ts';
import { unsupportedOptions } from './supported-options.ts';

type Json = Record<string, any>;

let dir: string;
let srv: TestServer;
let key: string;
let doc: Json;

// A 6 ha field at (9, 55) on ground rising 5 % towards 60 deg, in a UTM DEM (EPSG:32632).
const field = rectangleField(6, 9, 55);
const GRADIENT_BEARING = 60;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tramline-dem-api-'));
  await writeDem(join(dir, 'plane.tif'), {
    epsg: 32632,
    centre: [9.003, 55.0008],
    width: 600,
    height: 400,
    cell: 1,
    ground: planeGround(9.003, 55.0008, 5, GRADIENT_BEARING),
  });
  srv = await startTestServer({ planning: { demDir: dir } });
  key = (await testKey({ unlimited: true })).key;
  doc = (await (await fetch(`${srv.url}/api/openapi.json`)).json()) as Json;
});

afterAll(async () => {
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(url: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const body = (extra: Record<string, unknown> = {}, boundary: unknown = field) => ({
  boundary,
  equipment: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  ...extra,
});

function expectValid(path: string, mediaType: string, value: unknown) {
  const s = doc.paths[path].post.responses['200'].content[mediaType].schema;
  const target = s.$ref
    ? s.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((o: Json, k: string) => o[k], doc)
    : s;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const validate = ajv.compile({ ...target, components: doc.components });
  expect(validate(value) ? [] : validate.errors?.slice(0, 5)).toEqual([]);
}

/** Heading of a LineString from its first to its last position [rad clockwise from north]. */
function heading(coords: [number, number][]): number {
  const local = localMetres(coords[0][0], coords[0][1]);
  const [e, n] = local(...coords[coords.length - 1]);
  return Math.atan2(e, n);
}

function expectPlanePart(d: Json, type: string, coords: [number, number][]) {
  expect(d, type).toBeDefined();
  expect(d.noDataSamples).toBe(0);
  if (d.samples === 0) return;
  expect(Math.abs(d.meanSlopePercent - 5), type).toBeLessThanOrEqual(0.1);
  if (type !== 'RouteTrack' && type !== 'GuidanceTrack') return;
  const angle = heading(coords) - (GRADIENT_BEARING * Math.PI) / 180;
  expect(Math.abs(d.meanAlongTrackPercent - 5 * Math.cos(angle))).toBeLessThanOrEqual(0.1);
  expect(Math.abs(d.meanCrossTrackPercent - 5 * Math.abs(Math.sin(angle)))).toBeLessThanOrEqual(0.1);
}

describe('includeSlopes', () => {
  it('puts slopeDetails on every geometry part and slope summaries on zones and plan', async () => {
    const a = await post(srv.url, '/api/path-plans/direct', body({ includeSlopes: true }));
    expect(a.status, JSON.stringify(a.json).slice(0, 400)).toBe(200);
    let parts = 0;
    for (const z of a.json.zones) {
      expect(z.slopeSummary.meanSlopePercent).toBeCloseTo(5, 1);
      for (const g of z.geometryGroups)
        for (const p of g.geometryParts) {
          parts++;
          expectPlanePart(p.slopeDetails, p.geometryPartType, p.geometry.coordinates);
        }
    }
    expect(parts).toBeGreaterThan(20);
    const s = a.json.slopeSummary;
    expect(s.samples).toBeGreaterThan(1000);
    expect(s.maxSlopePercent).toBeLessThanOrEqual(5.1);
    expect(s.maxElevation - s.minElevation).toBeGreaterThan(5);
    for (const k of ['workingShareAbove2Percent', 'workingShareAbove5Percent', 'workingShareAbove10Percent'])
      expect(s[k]).toBeGreaterThanOrEqual(0);
    expect(s.workingShareAbove10Percent).toBe(0);
    expectValid('/api/path-plans/direct', 'application/json', a.json);
  });

  it('the GeoJSON answer carries the same in properties.slopeDetails and slopeSummary', async () => {
    const g = await post(srv.url, '/api/path-plans/direct/geojson', body({ includeSlopes: true }));
    expect(g.status).toBe(200);
    const parts = g.json.features.filter((f: Json) => f.properties.featureType === 'geometryPart');
    expect(parts.length).toBeGreaterThan(20);
    for (const f of parts)
      expectPlanePart(f.properties.slopeDetails, f.properties.geometryPartType, f.geometry.coordinates);
    const stats = g.json.features.filter((f: Json) => f.properties.featureType.endsWith('Statistics'));
    for (const f of stats) expect(f.properties.slopeSummary.meanSlopePercent).toBeCloseTo(5, 1);
    expectValid('/api/path-plans/direct/geojson', 'application/geo+json', g.json);
  });

  it('names SlopeDetail and SlopeSummary in the OpenAPI document', () => {
    expect(doc.components.schemas.SlopeDetail.properties.meanAlongTrackPercent).toBeDefined();
    expect(doc.components.schemas.SlopeSummary.properties.workingShareAbove5Percent).toBeDefined();
    expect(JSON.stringify(doc.components.schemas.GeometryPartModel)).toContain('SlopeDetail');
  });

  it('answers 422 DEM_NOT_AVAILABLE naming the extent of a field no DEM covers, and finds a DEM added later', async () => {
    const far = rectangleField(2, 9.2, 55.3);
    const a = await post(srv.url, '/api/path-plans/direct', body({ includeSlopes: true }, far));
    expect(a.status).toBe(422);
    expect(a.json.errorCode).toBe('DEM_NOT_AVAILABLE');
    expect(a.json.details.bbox[0]).toBeCloseTo(9.2, 9);
    expect(a.json.details.bbox[1]).toBeCloseTo(55.3, 9);
    expect(a.json.message).toContain('9.2, 55.3');
    expect(a.json.message).not.toContain(dir);
    expect(typeof a.json.correlationId).toBe('string');
    await writeDem(join(dir, 'far.tif'), {
      epsg: 4326,
      centre: [9.202, 55.3005],
      width: 600,
      height: 300,
      cell: 1e-5,
      ground: planeGround(9.202, 55.3005, 5, 0),
    });
    const b = await post(srv.url, '/api/path-plans/direct', body({ includeSlopes: true }, far));
    expect(b.status).toBe(200);
    expect(b.json.slopeSummary.meanSlopePercent).toBeCloseTo(5, 1);
  });

  it('reports the parts over no-data cells', async () => {
    const edge = rectangleField(2, 9.5, 55.5);
    const plane = planeGround(9.501, 55.5003, 5, 90);
    await writeDem(join(dir, 'half.tif'), {
      epsg: 32632,
      centre: [9.501, 55.5003],
      width: 400,
      height: 200,
      cell: 1,
      ground: (lon, lat) => (lon > 9.501 ? Number.NaN : plane(lon, lat)),
    });
    const a = await post(srv.url, '/api/path-plans/direct', body({ includeSlopes: true }, edge));
    expect(a.status).toBe(200);
    const details = a.json.zones.flatMap((z: Json) =>
      z.geometryGroups.flatMap((g: Json) => g.geometryParts.map((p: Json) => p.slopeDetails)),
    );
    expect(
      details.some((d: Json) => d.samples === 0 && d.noDataSamples > 0 && d.meanSlopePercent === undefined),
    ).toBe(true);
    expect(details.some((d: Json) => d.samples > 0 && d.noDataSamples === 0)).toBe(true);
    expect(a.json.slopeSummary.noDataSamples).toBeGreaterThan(0);
  });

  it('without includeSlopes reads no DEM: plans with a DEM directory that cannot be read, and carries no slopes', async () => {
    const notADir = join(dir, 'plain-file');
    await writeFile(notADir, 'x');
    const other = await startTestServer({ planning: { demDir: notADir } });
    try {
      for (const extra of [{}, { includeSlopes: false }]) {
        const a = await post(other.url, '/api/path-plans/direct', body(extra));
        expect(a.status).toBe(200);
        expect(a.json.slopeSummary).toBeUndefined();
        expect(JSON.stringify(a.json)).not.toContain('slopeDetails');
      }
      const b = await post(other.url, '/api/path-plans/direct', body({ includeSlopes: true }));
      expect(b.status).toBe(422);
      expect(b.json.errorCode).toBe('DEM_NOT_AVAILABLE');
      expect(b.json.message).not.toContain(notADir);
    } finally {
      await other.close();
    }
  });

  it('a DEM gone between finding and reading it is DEM_NOT_AVAILABLE, not a failure of the server', async () => {
    const out = await planTask({
      request: { boundary: field, machine: { swathWidth: 6 } },
      format: 'model',
      meta: {
        pathPlanId: 'p',
        pathPlanName: 'n',
        createdAt: new Date(0).toISOString(),
        operationType: 'generic',
      },
      slopes: { demPaths: [join(dir, 'gone.tif')] },
    });
    expect(out).toMatchObject({ ok: false, code: 'DEM_NOT_AVAILABLE' });
  });

  it('plans that read no DEM (jobs, stored plans, re-routing) still refuse includeSlopes, never ignore it', () => {
    const req = { boundary: field, equipment: { swathWidth: 6 }, includeSlopes: true } as never;
    expect(unsupportedOptions(req).map((u) => u.path)).toEqual(['/includeSlopes']);
    expect(unsupportedOptions(req, { slopes: true })).toEqual([]);
    let thrown: unknown;
    try {
      checkJobRequest({ equipment: { swathWidth: 6 }, includeSlopes: true } as never);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).errorCode).toBe('OPTION_NOT_SUPPORTED');
  });
});
