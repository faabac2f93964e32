/**
 * Imported guidance lines over HTTP (PGlite and PostgreSQL): ISOXML
 * guidance patterns (test/fixtures/isoxml/guidance, and the real samples of
 * ../shared/samples when present), KML and GeoJSON in the request import as
 * groups; a boundary answers the lines meeting it as GeoJSON; deletes take
 * one group or all; bad files and requests get 4xx with an errorCode;
 * another company's boundary, file and group are 404.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shpLayerFiles } from '../../formats/export/shp-layer.ts';
import { repoRoot } from '../../test/helpers/corpus.ts';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk, makeBoundary, uploadFile } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let kb: Awaited<ReturnType<typeof testKey>>;
let boundaryA: string;
let boundaryB: string;

const RINGS = [
  [
    [10.1, 56.1],
    [10.104, 56.1],
    [10.104, 56.102],
    [10.1, 56.102],
    [10.1, 56.1],
  ],
];
const fixture = readFileSync(resolve(repoRoot, 'test/fixtures/isoxml/guidance/TASKDATA.XML'));
const samples = resolve(repoRoot, '../shared/samples/isoxml');

const names = (fc: { features: { properties: { name: string | null } }[] }) =>
  fc.features.map((f) => f.properties.name).sort();

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey();
  kb = await testKey();
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  boundaryA = await makeBoundary(a, ka.companyId, RINGS);
  boundaryB = await makeBoundary(b, kb.companyId, RINGS);
});
afterAll(async () => {
  await srv?.close();
});

describe('imported lines', () => {
  let groupId: string;

  it('imports the guidance patterns of an ISOXML file as a group; the boundary answers those meeting it', async () => {
    const fileId = await uploadFile(a, ka.companyId, fixture, 'TASKDATA.XML');
    const imp = await a.post(`/api/companies/${ka.companyId}/imported-lines`, { userFileId: fileId });
    expectOk(imp, 201);
    expect(imp.json).toMatchObject({
      companyId: ka.companyId,
      name: 'TASKDATA.XML',
      source: 'isoxml',
      userFileId: fileId,
      lineCount: 4,
      skipped: 1,
    });
    groupId = imp.json.importedLineGroupId;

    const got = await a.get(`/api/boundaries/${boundaryA}/imported-lines`);
    expectOk(got);
    expect(got.headers.get('content-type')).toMatch(/^application\/geo\+json/);
    expect(got.json.type).toBe('FeatureCollection');
    // 'Far away' lies outside; 'Across' crosses the field with no point inside it.
    expect(names(got.json)).toEqual(['AB east', 'Across', 'Curve along the brook']);
    const ab = got.json.features.find(
      (f: { properties: { name: string } }) => f.properties.name === 'AB east',
    );
    expect(ab).toMatchObject({
      type: 'Feature',
      geometry: {
        type: 'LineString',
        coordinates: [
          [10.1005, 56.1005],
          [10.1035, 56.1005],
        ],
      },
      properties: {
        importedLineGroupId: groupId,
        groupName: 'TASKDATA.XML',
        source: 'isoxml',
        patternType: 'ab',
        origin: "TASKDATA.XML PFD PFD1 GGP GGP1 GPN GPN1 ('Spring lines')",
      },
    });
    expect(ab.id).toBe(ab.properties.importedLineId);
  });

  it('imports GeoJSON LineStrings from the request, a KML file and a polyline shapefile', async () => {
    const body = await a.post(`/api/companies/${ka.companyId}/imported-lines`, {
      name: 'From the app',
      lines: {
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            properties: { name: 'drawn' },
            geometry: {
              type: 'LineString',
              coordinates: [
                [10.1001, 56.1001],
                [10.1002, 56.1019],
              ],
            },
          },
        ],
      },
    });
    expectOk(body, 201);
    expect(body.json).toMatchObject({
      name: 'From the app',
      source: 'geojson',
      userFileId: null,
      lineCount: 1,
    });
    const kml = `<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>kml line</name><LineString><coordinates>10.1011,56.1001 10.1011,56.1019</coordinates></LineString></Placemark></Document></kml>`;
    const kmlId = await uploadFile(a, ka.companyId, kml, 'lines.kml');
    const k = await a.post(`/api/companies/${ka.companyId}/imported-lines`, { userFileId: kmlId });
    expectOk(k, 201);
    expect(k.json).toMatchObject({ source: 'kml', lineCount: 1 });
    const shp: Record<string, Uint8Array> = {};
    for (const f of shpLayerFiles({
      name: 'lines',
      shapeType: 'POLYLINE',
      fields: [{ name: 'NAME', type: 'C', size: 20 }],
      records: [
        {
          parts: [
            [
              [10.1021, 56.1001],
              [10.1021, 56.1019],
            ],
          ],
          attributes: { NAME: 'shp line' },
        },
      ],
    }))
      shp[f.path] = typeof f.data === 'string' ? new TextEncoder().encode(f.data) : f.data;
    const shpId = await uploadFile(a, ka.companyId, zipSync(shp), 'lines.zip');
    const s = await a.post(`/api/companies/${ka.companyId}/imported-lines`, { userFileId: shpId });
    expectOk(s, 201);
    expect(s.json).toMatchObject({ source: 'shapefile', lineCount: 1, name: 'lines.zip' });
    expect(names((await a.get(`/api/boundaries/${boundaryA}/imported-lines`)).json)).toContain('shp line');
    // The shapefile group is deleted at once: the later tests count the ISOXML, GeoJSON and KML groups.
    const gone = await a.del(
      `/api/companies/${ka.companyId}/imported-lines?importedLineGroupId=${s.json.importedLineGroupId}`,
    );
    expect(gone.json).toEqual({ deletedGroups: 1, deletedLines: 1 });
    const got = await a.get(`/api/boundaries/${boundaryA}/imported-lines`);
    expect(names(got.json)).toEqual(['AB east', 'Across', 'Curve along the brook', 'drawn', 'kml line']);
  });

  it('answers bad files and requests with 4xx and an errorCode naming the problem', async () => {
    const bad = await uploadFile(
      a,
      ka.companyId,
      fixture.toString('utf8').replace('D="10.1035"', 'D="999"'),
      't.xml',
    );
    const r = await a.post(`/api/companies/${ka.companyId}/imported-lines`, { userFileId: bad });
    expectError(r, 400, 'FIELD_PARSE_ERROR');
    expect(r.json.message).toMatch(/^t\.xml: .*GPN GPN1 PNT 2/);
    const poly = await uploadFile(
      a,
      ka.companyId,
      'POLYGON((10 56, 10.1 56, 10.1 56.1, 10 56))',
      'field.wkt',
    );
    const p = await a.post(`/api/companies/${ka.companyId}/imported-lines`, { userFileId: poly });
    expectError(p, 400, 'UNSUPPORTED_LINE_FILE');
    expect(p.json.message).toMatch(/kind 'wkt'/);
    const both = await a.post(`/api/companies/${ka.companyId}/imported-lines`, {
      userFileId: poly,
      lines: { type: 'LineString', coordinates: [] },
    });
    expectError(both, 400, 'VALIDATION_ERROR');
    expectError(await a.post(`/api/companies/${ka.companyId}/imported-lines`, {}), 400, 'VALIDATION_ERROR');
    const short = await a.post(`/api/companies/${ka.companyId}/imported-lines`, {
      lines: { type: 'LineString', coordinates: [[10, 56]] },
    });
    expectError(short, 400, 'FIELD_PARSE_ERROR');
    expect(short.json.errors[0].path).toBe('/lines');
    expectError(
      await a.post(`/api/companies/${ka.companyId}/imported-lines`, { lines: { type: 'Polygon' } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it("keeps companies apart: another company's boundary, file and group are 404", async () => {
    expectError(await b.get(`/api/boundaries/${boundaryA}/imported-lines`), 404, 'NOT_FOUND');
    const own = await b.get(`/api/boundaries/${boundaryB}/imported-lines`);
    expectOk(own);
    expect(own.json.features).toEqual([]);
    const fileA = await uploadFile(a, ka.companyId, fixture, 'TASKDATA.XML');
    expectError(
      await b.post(`/api/companies/${kb.companyId}/imported-lines`, { userFileId: fileA }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await b.post(`/api/companies/${ka.companyId}/imported-lines`, {
        lines: {
          type: 'LineString',
          coordinates: [
            [10, 56],
            [10.1, 56],
          ],
        },
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await b.del(`/api/companies/${kb.companyId}/imported-lines?importedLineGroupId=${groupId}`),
      404,
      'NOT_FOUND',
    );
    expectError(await b.del(`/api/companies/${ka.companyId}/imported-lines`), 404, 'NOT_FOUND');
    expect((await a.get(`/api/boundaries/${boundaryA}/imported-lines`)).json.features).toHaveLength(5);
  });

  it('deletes one group, then all of the company', async () => {
    expectError(
      await a.del(
        `/api/companies/${ka.companyId}/imported-lines?importedLineGroup=${groupId}&importedLineGroupId=${ka.companyId}`,
      ),
      400,
      'VALIDATION_ERROR',
    );
    const one = await a.del(`/api/companies/${ka.companyId}/imported-lines?importedLineGroup=${groupId}`);
    expectOk(one);
    expect(one.json).toEqual({ deletedGroups: 1, deletedLines: 4 });
    expect(names((await a.get(`/api/boundaries/${boundaryA}/imported-lines`)).json)).toEqual([
      'drawn',
      'kml line',
    ]);
    expectError(
      await a.del(`/api/companies/${ka.companyId}/imported-lines?importedLineGroupId=${groupId}`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await a.del(`/api/companies/${ka.companyId}/imported-lines?importedLineGroupId=nope`),
      400,
      'VALIDATION_ERROR',
    );
    const all = await a.del(`/api/companies/${ka.companyId}/imported-lines`);
    expectOk(all);
    expect(all.json).toEqual({ deletedGroups: 2, deletedLines: 2 });
    expect((await a.get(`/api/boundaries/${boundaryA}/imported-lines`)).json.features).toEqual([]);
  });

  it.skipIf(!existsSync(samples))('imports the guidance patterns of real task data', async () => {
    const id = await uploadFile(
      a,
      ka.companyId,
      readFileSync(resolve(samples, 'cnh_another_single_acp/TASKDATA.XML')),
      'TASKDATA.XML',
    );
    const r = await a.post(`/api/companies/${ka.companyId}/imported-lines`, {
      userFileId: id,
      name: 'CNH display',
    });
    expectOk(r, 201);
    expect(r.json.lineCount + r.json.skipped).toBe(19);
    expect((await a.del(`/api/companies/${ka.companyId}/imported-lines`)).json.deletedLines).toBe(
      r.json.lineCount,
    );
  });
});
