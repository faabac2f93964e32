/**
 * Field operation logs: a day's work (about 50,000 positions, sampled at
 * 10 Hz with 0.3 m of noise along the route of a stored 40 ha plan) posted
 * in batches of 10,000 to a listening server on PGlite; prints the time of
 * each log call (the batch stored and the coverage measured again from all
 * positions) and per 10,000 positions.
 *
 *   node bench/field-operations.bench.ts [batchSize]
 */
import { rectangleField, startTestServer, testKey } from '../api/testing.ts';
import { createMetricFrame } from '../core/geometry/projection.ts';
import { simulateDrive } from '../test/helpers/simulated-drive.ts';

const BATCH = Number(process.argv[2] ?? 10_000);
const LON = 10.2;
const LAT = 55.3;
const T0 = Date.parse('2026-05-04T06:00:00Z');

const srv = await startTestServer({ rateLimitPerMin: 1_000_000 });
const k = await testKey({ credits: 1000 });
const post = async (path: string, body: unknown) => {
  const res = await fetch(srv.url + path, {
    method: 'POST',
    headers: { 'x-api-key': k.key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};
const get = async (path: string) => (await fetch(srv.url + path, { headers: { 'x-api-key': k.key } })).json();

const boundary = rectangleField(40, LON, LAT);
const growerId = (await post(`/api/companies/${k.companyId}/growers`, { name: 'G' })).growerId;
const farmId = (await post(`/api/growers/${growerId}/farms`, { name: 'F' })).farmId;
const fieldId = (await post('/api/fields/save', { farmId, name: 'N', boundary: boundary.coordinates })).field
  .fieldId;
const boundaryId = (await get(`/api/fields/${fieldId}/boundaries`))[0].boundaryId;
const direct = await post('/api/path-plans/direct', {
  boundary,
  equipment: { swathWidth: 12, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
});
const planId = (await post('/api/path-plans/upsert', { plan: direct, boundaryId })).pathPlanId;
const zone = direct.zones[0];
const group = zone.geometryGroups.find(
  (g: { geometryGroupId: string }) => g.geometryGroupId === zone.activeGeometryGroupId,
);
const frame = createMetricFrame(LON, LAT);
const parts = group.geometryParts
  .filter((p: { sequence?: number }) => p.sequence !== undefined)
  .sort((p: { sequence: number }, q: { sequence: number }) => p.sequence - q.sequence)
  .map((p: { working: boolean; geometry: { coordinates: [number, number][] } }) => ({
    working: p.working,
    points: p.geometry.coordinates.map(([lon, lat]) => frame.toMetric(lon, lat)),
  }));
const points = simulateDrive(parts, { hz: 10, sigma: 0.3, seed: 1, speed: 5 })
  .slice(0, 50_000)
  .map((p) => {
    const [lon, lat] = frame.toLonLat(p);
    return { t: new Date(T0 + Math.round(p.t * 1000)).toISOString(), lon, lat, working: p.working };
  });
const op = (
  await post('/api/field-operations/start', {
    fieldId,
    boundaryId,
    pathPlanId: planId,
    operationType: 'spraying',
  })
).fieldOpId;
const times: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < points.length; i += BATCH) {
  const body = { points: points.slice(i, i + BATCH) };
  const t0 = performance.now();
  // CPU time of this process (server and client alike): less swayed by other load on the machine than wall time.
  const c0 = process.cpuUsage();
  await post(`/api/field-operations/${op}/log`, body);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
  times.push(performance.now() - t0);
}
const per10k = (xs: number[]) => ((xs.reduce((s, t) => s + t, 0) / points.length) * 10_000).toFixed(0);
const list = (xs: number[]) => xs.map((t) => t.toFixed(0)).join(' ');
console.log(
  `field-operations: ${points.length} positions in ${times.length} calls of ${BATCH}; wall ms per call ${list(times)} (${per10k(times)} per 10,000); CPU ms per call ${list(cpu)} (${per10k(cpu)} per 10,000)`,
);
const final = await get(`/api/fields/${fieldId}/operations/${op}`);
console.log(
  `covered ${(final.coveredArea / 10_000).toFixed(2)} ha (${final.coveredPercent.toFixed(1)} %), tracks driven ${final.trackSummary.driven}`,
);
await srv.close();
process.exit(0);
