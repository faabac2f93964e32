/**
 * Boundary import through user files over HTTP (PGlite and PostgreSQL): a
 * zipped shapefile in UTM (test/fixtures/shapefile/dk) and ISOXML partfields
 * (test/fixtures/isoxml/greendb_partfields) upload, list their polygons and
 * import one into a field; the stored boundary reads back as the same
 * geometry; bad files and choices get 400 saying what and where.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readShapefileZip } from '../../formats/boundary-shapefile.ts';
import { repoRoot } from '../../test/helpers/corpus.ts';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk, uploadFile } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let kb: Awaited<ReturnType<typeof testKey>>;
let fieldId: string;
let fieldB: string;

const RINGS = [
  [
    [10.1, 56.1],
    [10.104, 56.1],
    [10.104, 56.102],
    [10.1, 56.102],
    [10.1, 56.1],
  ],
];

async function makeField(c: Client, companyId: string): Promise<string> {
  const g = await c.post(`/api/companies/${companyId}/growers`, { name: 'Grower' });
  const f = await c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'Farm' });
  const s = await c.post('/api/fields/save', { farmId: f.json.farmId, name: 'Field', boundary: RINGS });
  expectOk(s, 201);
  return s.json.field.fieldId;
}

const dk = resolve(repoRoot, 'test/fixtures/shapefile/dk');
const dkFiles = Object.fromEntries(
  ['shp', 'shx', 'dbf', 'prj'].map((e) => [
    `Marker_2026.${e}`,
    readFileSync(resolve(dk, `Marker_2026.${e}`)),
  ]),
);
const shpZip = zipSync(dkFiles);

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey();
  kb = await testKey();
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  fieldId = await makeField(a, ka.companyId);
  fieldB = await makeField(b, kb.companyId);
});
afterAll(async () => {
  await srv?.close();
});

describe('import from a zipped shapefile', () => {
  it('lists the polygons and imports one as the active boundary, read back as the same geometry', async () => {
    const id = await uploadFile(a, ka.companyId, shpZip, 'parcels.zip');
    const polys = await a.get(`/api/user-files/${id}/polygons`);
    expectOk(polys);
    expect(polys.json).toMatchObject({ format: 'shapefile', crs: 'ETRS_1989_UTM_Zone_32N' });
    expect(polys.json.polygons).toHaveLength(100);
    expect(polys.json.polygons[3]).toMatchObject({ index: 3, source: 'Marker_2026.shp record 4', parts: 1 });

    const many = await a.post(`/api/user-files/${id}/import-boundary`, { fieldId });
    expectError(many, 400, 'VALIDATION_ERROR');
    expect(many.json.errors[0].path).toBe('/polygon');
    expect(many.json.message).toMatch(/holds 100 polygons/);
    expectError(
      await a.post(`/api/user-files/${id}/import-boundary`, { fieldId, polygon: 100 }),
      400,
      'VALIDATION_ERROR',
    );

    const imp = await a.post(`/api/user-files/${id}/import-boundary`, { fieldId, polygon: 3 });
    expectOk(imp, 201);
    expect(imp.json).toMatchObject({ source: 'Marker_2026.shp record 4', crs: 'ETRS_1989_UTM_Zone_32N' });
    expect(imp.json.vBoundary).toMatchObject({ fieldId, active: true, name: polys.json.polygons[3].name });
    const expected = (await readShapefileZip(shpZip)).polygons[3].geometry;
    const gj = await a.get(`/api/boundaries/${imp.json.vBoundary.boundaryId}/geojson`);
    expectOk(gj);
    const geom = gj.json.geometry ?? gj.json.features?.[0]?.geometry;
    expect(geom.coordinates).toEqual(expected.coordinates);
    const field = await a.get(`/api/fields/${fieldId}`);
    expect(field.json.activeBoundaryId ?? field.json.field?.activeBoundaryId).toBe(
      imp.json.vBoundary.boundaryId,
    );
  });

  it('says what is wrong with a bad file and where', async () => {
    const cut = zipSync({ ...dkFiles, 'Marker_2026.shp': dkFiles['Marker_2026.shp'].subarray(0, 5000) });
    const id = await uploadFile(a, ka.companyId, cut, 'cut.zip');
    const r = await a.post(`/api/user-files/${id}/import-boundary`, { fieldId, polygon: 0 });
    expectError(r, 400, 'FIELD_PARSE_ERROR');
    expect(r.json.message).toMatch(/^cut\.zip: Marker_2026\.shp record \d+: /);

    const noPrj = zipSync({
      'Marker_2026.shp': dkFiles['Marker_2026.shp'],
      'Marker_2026.dbf': dkFiles['Marker_2026.dbf'],
    });
    const id2 = await uploadFile(a, ka.companyId, noPrj, 'noprj.zip');
    const r2 = await a.get(`/api/user-files/${id2}/polygons`);
    expectError(r2, 400, 'FIELD_PARSE_ERROR');
    expect(r2.json.message).toMatch(
      /record 1, ring 1, point 1: \(554787\.348, 6258009\.309\) is not a longitude\/latitude/,
    );

    const gpx = await uploadFile(a, ka.companyId, '<gpx version="1.1"><trk/></gpx>', 'track.gpx');
    expectError(
      await a.post(`/api/user-files/${gpx}/import-boundary`, { fieldId }),
      400,
      'UNSUPPORTED_BOUNDARY_FILE',
    );
  });
});

describe('import from ISOXML, GeoJSON and WKT', () => {
  it('imports a partfield with holes from TASKDATA.XML', async () => {
    const xml = readFileSync(resolve(repoRoot, 'test/fixtures/isoxml/greendb_partfields/TASKDATA.XML'));
    const id = await uploadFile(a, ka.companyId, xml, 'TASKDATA.XML');
    const polys = await a.get(`/api/user-files/${id}/polygons`);
    expectOk(polys);
    expect(polys.json.format).toBe('isoxml');
    expect(polys.json.polygons).toHaveLength(13);
    const withHoles = polys.json.polygons.find(
      (p: { holes: number; parts: number }) => p.holes > 0 && p.parts === 1,
    );
    const index = withHoles ? withHoles.index : 0;
    const imp = await a.post(`/api/user-files/${id}/import-boundary`, {
      fieldId,
      polygon: index,
      activate: false,
      name: 'From the terminal',
    });
    expectOk(imp, 201);
    expect(imp.json.vBoundary).toMatchObject({ active: false, name: 'From the terminal' });
    if (withHoles) expect(imp.json.vBoundary.boundary.length).toBe(withHoles.holes + 1);
  });

  it('imports the one polygon of a GeoJSON or WKT file without choosing', async () => {
    const g = await uploadFile(
      a,
      ka.companyId,
      JSON.stringify({
        type: 'Feature',
        properties: { name: 'North' },
        geometry: { type: 'Polygon', coordinates: RINGS },
      }),
      'n.geojson',
    );
    const ig = await a.post(`/api/user-files/${g}/import-boundary`, { fieldId });
    expectOk(ig, 201);
    expect(ig.json.vBoundary).toMatchObject({ name: 'North', boundary: RINGS });
    const w = await uploadFile(
      a,
      ka.companyId,
      'POLYGON ((10.1 56.1, 10.104 56.1, 10.104 56.102, 10.1 56.1))',
      'w.wkt',
    );
    const iw = await a.post(`/api/user-files/${w}/import-boundary`, { fieldId });
    expectOk(iw, 201);
    expect(iw.json.vBoundary.name).toBe('w.wkt');
    const self = await uploadFile(
      a,
      ka.companyId,
      'POLYGON ((10.1 56.1, 10.104 56.102, 10.104 56.1, 10.1 56.102, 10.1 56.1))',
      'bow.wkt',
    );
    const bad = await a.post(`/api/user-files/${self}/import-boundary`, { fieldId });
    expectError(bad, 400, 'FIELD_SELF_INTERSECTION');
  });
});

describe('another company', () => {
  it('cannot read or import a file, nor import into a field, of another company', async () => {
    const id = await uploadFile(
      a,
      ka.companyId,
      'POLYGON ((10.1 56.1, 10.104 56.1, 10.104 56.102, 10.1 56.1))',
      'a.wkt',
    );
    expectError(await b.get(`/api/user-files/${id}/polygons`), 404, 'NOT_FOUND');
    expectError(await b.post(`/api/user-files/${id}/import-boundary`, { fieldId: fieldB }), 404, 'NOT_FOUND');
    const own = await uploadFile(
      b,
      kb.companyId,
      'POLYGON ((10.1 56.1, 10.104 56.1, 10.104 56.102, 10.1 56.1))',
      'b.wkt',
    );
    expectError(await b.post(`/api/user-files/${own}/import-boundary`, { fieldId }), 404, 'NOT_FOUND');
    const before = await a.get(`/api/fields/${fieldId}/boundaries`);
    expectError(await a.post(`/api/user-files/${id}/import-boundary`, { fieldId: fieldB }), 404, 'NOT_FOUND');
    expect((await a.get(`/api/fields/${fieldId}/boundaries`)).json).toEqual(before.json);
  });
});
