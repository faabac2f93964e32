/**
 * Uploads and imports that an attack on the service turned into crashes,
 * 500s and unbounded storage, over HTTP (PGlite and PostgreSQL): zip bombs
 * refused on upload and, stored before these checks, on reading; XML with
 * a DOCTYPE; multipart bodies without their closing boundary; declared
 * charsets; names with folders and bidi overrides; per-company quotas; the
 * open registration switch.
 */
import { request } from 'node:http';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overlapBomb, plainBomb, understatedBomb } from '../../formats/archive-testing.ts';
import { createUserFilesRepository } from '../../store/repositories/user-files.ts';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

const MB = 1024 * 1024;
let srv: TestServer;
let a: Client;
let ka: Awaited<ReturnType<typeof testKey>>;

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey({ credits: 0 });
  a = client(srv.url, { key: ka.key });
});
afterAll(async () => {
  await srv?.close();
});

const uploadPath = (companyId: string, name?: string) =>
  `/api/companies/${companyId}/user-files/file-upload${name ? `?fileName=${encodeURIComponent(name)}` : ''}`;

async function upload(c: Client, companyId: string, raw: Uint8Array | string, name?: string, type?: string) {
  return c.call(uploadPath(companyId, name), {
    method: 'POST',
    raw,
    type: type ?? 'application/octet-stream',
  });
}

/** A file stored as it was before uploads were checked (straight into the store). */
async function storeDirectly(companyId: string, userId: string, kind: string, content: Uint8Array) {
  const files = createUserFilesRepository((await testStore()).db);
  const f = await files.create({
    companyId,
    userId,
    fileName: `stored.${kind}`,
    kind,
    mediaType: 'application/octet-stream',
    content: Buffer.from(content),
  });
  return f.id;
}

const ISO_DOCTYPE =
  '<?xml version="1.0"?>\n<!DOCTYPE ISO11783_TaskData [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<ISO11783_TaskData><PFD A="PFD1" C="&x;"/></ISO11783_TaskData>';

describe('zip bombs', () => {
  it('are refused on upload, naming the limit and its value', async () => {
    const overlap = expectRefused(
      await upload(a, ka.companyId, await overlapBomb(8, 512 * MB), 'o.zip'),
      422,
      'ARCHIVE_ENTRY_OVERLAP',
    );
    expect(overlap.details).toMatchObject({ limit: 'overlappingEntries' });
    const plain = expectRefused(
      await upload(a, ka.companyId, await plainBomb(256 * MB), 'p.zip'),
      413,
      'ARCHIVE_ENTRY_TOO_LARGE',
    );
    expect(plain.details).toMatchObject({ limit: 'maxEntryBytes', limitValue: 64 * MB });
    expect(plain.message).toMatch(/^p\.zip: .*at most 64 MB/);
    // Headers that understate the entry pass the directory checks and are caught unpacking, on a reader thread.
    const under = expectRefused(
      await upload(a, ka.companyId, await understatedBomb(256 * MB, 4000), 'u.zip'),
      422,
      'ARCHIVE_SIZE_MISMATCH',
    );
    expect(under.details).toMatchObject({ limit: 'declaredSize', limitValue: 4000 });
    expect((await a.get(`/api/companies/${ka.companyId}/user-files?includeHidden=true`)).json).toEqual([]);
  });

  it('stored before these checks, are refused when read (422), and the server stays up', async () => {
    for (const [bomb, code] of [
      [await overlapBomb(8, 512 * MB), 'ARCHIVE_ENTRY_OVERLAP'],
      [await plainBomb(256 * MB), 'ARCHIVE_ENTRY_TOO_LARGE'],
      [await understatedBomb(256 * MB, 4000), 'ARCHIVE_SIZE_MISMATCH'],
    ] as const) {
      const id = await storeDirectly(ka.companyId, ka.userId, 'shapefile-zip', bomb);
      const t0 = performance.now();
      const r = await a.get(`/api/user-files/${id}/polygons`);
      expect(performance.now() - t0).toBeLessThan(2000);
      expectError(r, 422, code);
      expect(r.json.message).toMatch(/^stored\.shapefile-zip: /);
      expect(r.json.details.limit).toBeTruthy();
      expectOk(await a.get('/api/healthz'));
    }
  });
});

function expectRefused(r: Awaited<ReturnType<Client['get']>>, status: number, code: string) {
  expectError(r, status, code);
  return r.json as { message: string; details: Record<string, unknown> };
}

describe('XML with a DOCTYPE', () => {
  it('is refused on upload and, stored, when read: 400 XML_DOCTYPE_NOT_ALLOWED, not 500', async () => {
    expectError(await upload(a, ka.companyId, ISO_DOCTYPE, 'TASKDATA.XML'), 400, 'XML_DOCTYPE_NOT_ALLOWED');
    const id = await storeDirectly(ka.companyId, ka.userId, 'isoxml', strToU8(ISO_DOCTYPE));
    expectError(await a.get(`/api/user-files/${id}/polygons`), 400, 'XML_DOCTYPE_NOT_ALLOWED');
    // Inside a zip it is found when the zip is read.
    const zipId = await upload(
      a,
      ka.companyId,
      zipSync({ 'TASKDATA/TASKDATA.XML': strToU8(ISO_DOCTYPE) }),
      't.zip',
    );
    expectOk(zipId, 201);
    expect(zipId.json.kind).toBe('isoxml-zip');
    const read = await a.get(`/api/user-files/${zipId.json.userFileId}/polygons`);
    expectError(read, 400, 'XML_DOCTYPE_NOT_ALLOWED');
    expect(read.json.message).toMatch(/^t\.zip: TASKDATA\/TASKDATA\.XML: /);
  });
});

/** Sends a raw multipart body (no client would send one cut short). */
function rawPost(
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; json: { errorCode?: string; fileName?: string } }> {
  return new Promise((resolvePost, reject) => {
    const u = new URL(srv.url + path);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () =>
          resolvePost({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('multipart bodies', () => {
  const head = (name: string) =>
    `--XyZ\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`;
  const headers = { 'x-api-key': '', 'content-type': 'multipart/form-data; boundary=XyZ' };

  it('without the closing boundary, or cut short, answer 400 INVALID_MULTIPART', async () => {
    const h = { ...headers, 'x-api-key': ka.key };
    const wkt = 'POLYGON ((10 55, 10.01 55, 10.01 55.01, 10 55))';
    for (const body of [
      `${head('a.wkt')}${wkt}\r\n`,
      `${head('a.wkt')}${wkt}`,
      `${head('a.wkt')}${wkt}\r\n--Xy`,
      head('a.wkt').slice(0, 30),
    ]) {
      const r = await rawPost(uploadPath(ka.companyId), h, body);
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(r.json.errorCode).toBe('INVALID_MULTIPART');
    }
    // Complete, it is stored, under the last component of its name without the bidi override.
    const ok = await rawPost(
      uploadPath(ka.companyId),
      h,
      `${head('..\\..\\x/evil\u202Etxt.wkt')}${wkt}\r\n--XyZ--\r\n`,
    );
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
    expect(ok.json.fileName).toBe('eviltxt.wkt');
  });
});

describe('text and names', () => {
  it('reads text in its declared charset and stores it as UTF-8; an unknown charset is 415', async () => {
    const text =
      '{"type":"Feature","properties":{"name":"Ærø Søndermark"},"geometry":{"type":"Polygon","coordinates":[[[10,55],[10.01,55],[10.01,55.01],[10,55]]]}}';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const r = await upload(a, ka.companyId, le, 'f.geojson', 'application/geo+json; charset=utf-16');
    expectOk(r, 201);
    expect(r.json).toMatchObject({ kind: 'geojson', size: Buffer.byteLength(text) });
    const dl = await fetch(`${srv.url}/api/user-files/${r.json.userFileId}`, {
      headers: { 'x-api-key': ka.key },
    });
    expect(await dl.text()).toBe(text);
    const polys = await a.get(`/api/user-files/${r.json.userFileId}/polygons`);
    expect(polys.json.polygons[0].name).toBe('Ærø Søndermark');

    const latin = await upload(
      a,
      ka.companyId,
      Buffer.from(text, 'latin1'),
      'l.geojson',
      'application/json; charset=ISO-8859-1',
    );
    expectOk(latin, 201);
    expect(latin.json.sha256).toBe(r.json.sha256);

    const bad = await upload(a, ka.companyId, text, 'x.geojson', 'text/plain; charset=koi8-r');
    expectError(bad, 415, 'UNSUPPORTED_CHARSET');
    expect(bad.json.message).toMatch(/accepted: utf-8, us-ascii, utf-16/);
    expectError(
      await upload(a, ka.companyId, Buffer.from([0x50, 0x4f, 0xff]), 'x.wkt', 'text/plain; charset=utf-8'),
      400,
      'INVALID_TEXT_ENCODING',
    );
  });

  it('tells large text files apart on a reader thread', async () => {
    const ring = Array.from({ length: 20_000 }, (_, i) => [10 + i * 1e-7, 55 + (i % 2) * 1e-4]);
    ring.push(ring[0]);
    const big = JSON.stringify({ type: 'Polygon', coordinates: [ring] });
    expect(big.length).toBeGreaterThan(256 * 1024);
    const r = await upload(a, ka.companyId, big, 'big.geojson', 'application/geo+json');
    expectOk(r, 201);
    expect(r.json.kind).toBe('geojson');
    const bad = await upload(a, ka.companyId, `${big.slice(0, -1)},`, 'bad.json', 'application/json');
    expectError(bad, 415, 'UNSUPPORTED_FILE_TYPE');
    expect(bad.json.message).toMatch(/not valid JSON/);
  });

  it('keeps a safe display name: no folders, `..`, bidi or control characters', async () => {
    // A name in the query is text of the request: control and bidi characters are refused there.
    for (const bad of ['pass\u202Ewd.wkt', 'pass\u0007wd.wkt']) {
      const refused = await upload(a, ka.companyId, 'POLYGON EMPTY', bad);
      expectError(refused, 400, 'INVALID_TEXT');
      expect(refused.json.message).toContain('/querystring/fileName');
    }
    const r = await upload(a, ka.companyId, 'POLYGON EMPTY', '../../etc/passwd..wkt');
    expectOk(r, 201);
    expect(r.json.fileName).toBe('passwd.wkt');
    const dl = await fetch(`${srv.url}/api/user-files/${r.json.userFileId}`, {
      headers: { 'x-api-key': ka.key },
    });
    expect(dl.headers.get('content-disposition')).toBe(
      `attachment; filename="passwd.wkt"; filename*=UTF-8''passwd.wkt`,
    );
  });

  it('reads KMZ (a zipped KML)', async () => {
    const doc = `<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>North</name><Polygon><outerBoundaryIs><LinearRing><coordinates>10,55 10.01,55 10.01,55.01 10,55</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></Document></kml>`;
    const r = await upload(a, ka.companyId, zipSync({ 'doc.kml': strToU8(doc) }), 'north.kmz');
    expectOk(r, 201);
    expect(r.json).toMatchObject({ kind: 'kmz', mediaType: 'application/vnd.google-earth.kmz' });
    const polys = await a.get(`/api/user-files/${r.json.userFileId}/polygons`);
    expectOk(polys);
    expect(polys.json).toMatchObject({
      format: 'kml',
      polygons: [{ name: 'North', source: 'doc.kml feature 1' }],
    });
  });
});

describe('quotas and registration', () => {
  let small: TestServer;
  afterAll(async () => {
    await small?.close();
  });

  it('a company keeps at most its quota of files and bytes: 403 QUOTA_EXCEEDED naming quota and use', async () => {
    small = await startTestServer({
      rateLimitPerMin: 100_000,
      openRegistration: false,
      uploads: { fileQuota: { maxFiles: 3, maxBytes: 1000 } },
    });
    const k = await testKey({ credits: 0 });
    const c = client(small.url, { key: k.key });
    const wkt = 'POLYGON ((10 55, 10.01 55, 10.01 55.01, 10 55))';
    // Six at once: exactly three are stored.
    const all = await Promise.all(Array.from({ length: 6 }, () => upload(c, k.companyId, wkt, 'f.wkt')));
    expect(all.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = all.find((r) => r.status !== 201)!;
    expectError(refused, 403, 'QUOTA_EXCEEDED');
    expect(refused.json.details).toMatchObject({
      quota: 'maxFiles',
      limit: 3,
      used: { files: 3, bytes: 3 * wkt.length },
    });
    expect(refused.json.message).toMatch(/at most 3 files and it keeps 3 file\(s\)/);
    // A form is refused as well, before its body is read.
    const form = new FormData();
    form.append('file', new Blob([wkt]), 'g.wkt');
    const res = await fetch(`${small.url}${uploadPath(k.companyId)}`, {
      method: 'POST',
      headers: { 'x-api-key': k.key },
      body: form,
    });
    expect(res.status).toBe(403);
    expect((await res.json()).errorCode).toBe('QUOTA_EXCEEDED');

    const k2 = await testKey({ credits: 0 });
    const c2 = client(small.url, { key: k2.key });
    expectOk(await upload(c2, k2.companyId, 'POLYGON EMPTY'.padEnd(600), 'a.wkt'), 201);
    const over = await upload(c2, k2.companyId, `POLYGON EMPTY${' '.repeat(500)}`, 'b.wkt');
    expectError(over, 403, 'QUOTA_EXCEEDED');
    expect(over.json.details).toMatchObject({
      quota: 'maxBytes',
      limit: 1000,
      used: { files: 1, bytes: 600 },
      fileSize: 513,
    });
    // Deleting makes room.
    const list = await c2.get(`/api/companies/${k2.companyId}/user-files`);
    expectOk(await c2.del(`/api/user-files/${list.json[0].userFileId}`), 204);
    expectOk(await upload(c2, k2.companyId, `POLYGON EMPTY${' '.repeat(500)}`, 'b.wkt'), 201);
  });

  it('registration answers 403 REGISTRATION_CLOSED when closed, and is open by default', async () => {
    const body = { email: `closed-${Date.now()}@example.org`, password: 'a long enough password' };
    const closed = await client(small.url, {}).post('/api/account/register', body);
    expectError(closed, 403, 'REGISTRATION_CLOSED');
    expectOk(await client(srv.url, {}).post('/api/account/register', body), 201);
  });

  it('the OpenAPI document names the new answers of the upload and import routes', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    const up = doc.paths['/api/companies/{companyId}/user-files/file-upload'].post.responses;
    expect(up['403'].description).toMatch(/QUOTA_EXCEEDED/);
    expect(up['413'].description).toMatch(/ARCHIVE_ENTRY_TOO_LARGE/);
    expect(up['422'].description).toMatch(/ARCHIVE_ENTRY_OVERLAP/);
    expect(up['415'].description).toMatch(/UNSUPPORTED_CHARSET/);
    expect(doc.paths['/api/user-files/{userFileId}/polygons'].get.responses['422'].description).toMatch(
      /ARCHIVE_ENTRY_OVERLAP/,
    );
    expect(doc.paths['/api/account/register'].post.responses['403'].description).toMatch(
      /REGISTRATION_CLOSED/,
    );
  });
});
