/**
 * The planning view's layers and panels end to end, in Debian's Chromium
 * driven by playwright-core against a really listening server: the field
 * shaded by slope class from a DEM of the server's directory (legend switch,
 * slope in the tooltip), the machine comparison of an equipment scenario set
 * (table and charts equal to the API's figures), the wheel traffic of the
 * stored plan by passes, and a field operation's covered ground over the
 * plan with its covered share. Screenshots go to /tmp/views-*.png. Skips
 * when /usr/bin/chromium is missing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, call, client, expectOk } from '../../api/platform/client.ts';
import { startTestServer, type TestServer, testStore } from '../../api/testing.ts';
import { localMetres, rectangleAt, writeDem } from '../../formats/dem-testing.ts';
import { ensureWebBuild } from '../build.ts';

const CHROMIUM = '/usr/bin/chromium';
// The field: 300 x 200 m over a bowl whose ground steepens outwards (every slope class on it).
const LON = 10.1;
const LAT = 56.1;
const FIELD = rectangleAt(LON, LAT, 300, 200);
const CENTRE: [number, number] = [
  LON + 150 / (111_320 * Math.cos((LAT * Math.PI) / 180)),
  LAT + 100 / 111_200,
];
const bowl = () => {
  const local = localMetres(...CENTRE);
  return (lon: number, lat: number) => {
    const [e, n] = local(lon, lat);
    return 100 + 0.0003 * (e * e + n * n);
  };
};

// biome-ignore lint/suspicious/noExplicitAny: answers and map objects are inspected freely
type Json = Record<string, any>;

describe.skipIf(!existsSync(CHROMIUM))('planning view layers and panels in the browser', () => {
  let dir: string;
  let server: TestServer;
  let browser: Browser;
  let api: Client;
  let boundaryId: string;
  let fieldId: string;
  let planId: string;
  const email = `layers-${Date.now()}@example.org`;
  const password = 'correct horse battery';
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await ensureWebBuild();
    dir = await mkdtemp(join(tmpdir(), 'tramline-views-'));
    await writeDem(join(dir, 'bowl.tif'), {
      epsg: 4326,
      centre: CENTRE,
      width: 800,
      height: 400,
      cell: 1e-5,
      ground: bowl(),
    });
    server = await startTestServer({ rateLimitPerMin: 100_000, planning: { demDir: dir, graceMs: 120_000 } });
    const reg = await call(server.url, '/api/account/register', { body: { email, password } });
    expect(reg.status, reg.text).toBe(201);
    api = client(server.url, { bearer: reg.json.accessToken });
    const companyId = reg.json.companyId;
    await (await testStore()).credits.set(companyId, 1000);
    const grower = await api.post(`/api/companies/${companyId}/growers`, { name: 'Hill farm' });
    expectOk(grower, 201);
    const farm = await api.post(`/api/growers/${grower.json.growerId}/farms`, { name: 'Home' });
    expectOk(farm, 201);
    const saved = await api.post('/api/fields/save', {
      farmId: farm.json.farmId,
      name: 'Bowl',
      boundary: FIELD.coordinates,
    });
    expectOk(saved, 201);
    boundaryId = saved.json.vBoundary.boundaryId;
    fieldId = saved.json.field.fieldId;

    // The stored plan with the machine's tyres: its wheel tracks are measurable.
    const direct = await api.post('/api/path-plans/direct', {
      boundary: FIELD,
      equipment: { swathWidth: 12, minTurningRadius: 6 },
      exteriorHeadlandPasses: 2,
    });
    expectOk(direct);
    const stored = await api.post('/api/path-plans/upsert', { plan: direct.json, boundaryId });
    expectOk(stored, 201);
    planId = stored.json.pathPlanId;
    expectOk(
      await api.post(`/api/path-plans/${planId}/update-equipment-snapshot`, {
        trackWidths: [1.8],
        tireWidths: [0.5],
      }),
    );

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A signed-in page of the field with the stored plan drawn. */
  async function openField(): Promise<Page> {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 1360, height: 900 });
    page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
    await page.goto(`${server.url}/path-planning/boundary/${boundaryId}`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('#map[data-plan-drawn]', { state: 'attached', timeout: 30_000 });
    await expect
      .poll(() => page.locator('#plan-source').textContent(), { timeout: 20_000 })
      .toMatch(/Stored plan/);
    return page;
  }

  /** The map's layer ids in drawing order and the features of `layer` (source data, by property). */
  const layerIds = (page: Page) =>
    page
      .locator('#map')
      .evaluate((el) =>
        (el as unknown as { maplibre: { getStyle(): { layers: { id: string }[] } } }).maplibre
          .getStyle()
          .layers.map((l) => l.id),
      );
  const sourceFeatures = (page: Page, source: string, layer: string) =>
    page.locator('#map').evaluate(
      (el, [s, l]) => {
        const map = (el as unknown as { maplibre: Json }).maplibre;
        return {
          source: map.querySourceFeatures(s).map((f: { properties: Json }) => f.properties),
          rendered: map.queryRenderedFeatures({ layers: [l] }).length,
          visibility: map.getLayoutProperty(l, 'visibility') ?? 'visible',
        };
      },
      [source, layer],
    );

  it('shades the field by slope class, switches the shading in the legend and tells the slope under the cursor', async () => {
    const classes = await api.get(`/api/boundaries/${boundaryId}/slope-classes`);
    expectOk(classes);
    const indexes = new Set(classes.json.features.map((f: Json) => f.properties.classIndex));
    expect(indexes.size).toBeGreaterThanOrEqual(3);

    const page = await openField();
    await page.waitForSelector('#layer-slope', { state: 'attached', timeout: 20_000 });
    const ids = await layerIds(page);
    expect(ids).toContain('slope-fill');
    // Under the plan's lines.
    expect(ids.indexOf('slope-fill')).toBeLessThan(ids.indexOf('track-line'));
    expect(ids.indexOf('slope-fill')).toBeLessThan(ids.indexOf('wheel-traffic-fill'));
    await expect
      .poll(async () => (await sourceFeatures(page, 'slope', 'slope-fill')).rendered)
      .toBeGreaterThan(0);
    const shown = await sourceFeatures(page, 'slope', 'slope-fill');
    expect(new Set(shown.source.map((p: Json) => p.classIndex))).toEqual(indexes);
    expect(await page.locator('label[for="layer-slope"]').textContent()).toMatch(/Ground slope/);
    expect(await page.locator('label[for="layer-slope"] .swatch').count()).toBe(4);

    // The tooltip over the field tells the ground's slope.
    const box = (await page.locator('#map').boundingBox())!;
    let told = '';
    for (let i = 0; i < 40 && !/ground slope/.test(told); i++) {
      await page.mouse.move(
        box.x + box.width * (0.35 + (i % 8) * 0.04),
        box.y + box.height * (0.3 + Math.floor(i / 8) * 0.08),
      );
      await page.waitForTimeout(40);
      if (await page.locator('#tooltip').isVisible())
        told = (await page.locator('#tooltip').textContent()) ?? '';
    }
    expect(told).toMatch(/ground slope (0-2|2-5|5-10|over 10)/);
    await page.screenshot({ path: '/tmp/views-terrain.png' });

    // The legend switch hides the shading and the slope leaves the tooltip.
    await page.locator('#layer-slope').uncheck();
    expect((await sourceFeatures(page, 'slope', 'slope-fill')).visibility).toBe('none');
    await page.screenshot({ path: '/tmp/views-terrain-off.png' });
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });

  it('draws the stored plan’s wheel traffic by passes', async () => {
    const traffic = await api.post(`/api/wheel-traffic-summary/${planId}/geojson`, {});
    expectOk(traffic);
    const passes = new Set(traffic.json.features.map((f: Json) => f.properties.passes));
    expect(passes.size).toBeGreaterThanOrEqual(2);

    const page = await openField();
    // The layer and its features by passes, its legend row.
    await expect
      .poll(async () => (await sourceFeatures(page, 'wheel-traffic', 'wheel-traffic-fill')).rendered, {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    const wheels = await sourceFeatures(page, 'wheel-traffic', 'wheel-traffic-fill');
    // Every pass count the API answers for more than a sliver is drawn (tiny pieces may vanish in the tiling).
    const drawn = new Set(wheels.source.map((p: Json) => p.passes));
    for (const f of traffic.json.features as Json[])
      if (f.properties.area > 50) expect(drawn).toContain(f.properties.passes);
    for (const p of drawn) expect(passes).toContain(p);
    expect(await page.locator('label[for="layer-wheels"]').textContent()).toMatch(/Wheel traffic/);
    await page.screenshot({ path: '/tmp/views-wheel-traffic.png' });

    expect(await layerIds(page)).toContain('wheel-traffic-line');
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });

  it('shows a field operation’s covered ground over the plan with its covered share', async () => {
    // An operation that worked the first half of the plan's route.
    const model = (await api.get(`/api/path-plans-normalized/${planId}`)).json;
    const zone = model.zones[0];
    const group = zone.geometryGroups.find((g: Json) => g.geometryGroupId === zone.activeGeometryGroupId);
    const route = group.geometryParts
      .filter((p: Json) => p.sequence !== undefined)
      .sort((p: Json, q: Json) => p.sequence - q.sequence);
    const half = route.slice(0, Math.ceil(route.length / 2));
    const t0 = Date.parse('2026-05-04T06:00:00Z');
    const points: Json[] = [];
    for (const part of half) {
      const c = part.geometry.coordinates as number[][];
      for (let i = 0; i + 1 < c.length; i++) {
        const [a0, a1] = c[i]!;
        const [b0, b1] = c[i + 1]!;
        const steps = Math.max(1, Math.ceil(Math.hypot((b0! - a0!) * 62_000, (b1! - a1!) * 111_000) / 2));
        for (let k = 0; k < steps; k++) {
          points.push({
            t: new Date(t0 + points.length * 1000).toISOString(),
            lon: a0! + ((b0! - a0!) * k) / steps,
            lat: a1! + ((b1! - a1!) * k) / steps,
            working: part.working,
          });
        }
      }
    }
    const start = await api.post('/api/field-operations/start', {
      fieldId,
      boundaryId,
      pathPlanId: planId,
      operationType: 'spraying',
      startedAt: new Date(t0).toISOString(),
    });
    expectOk(start, 201);
    const opId = start.json.fieldOpId;
    expectOk(await api.post(`/api/field-operations/${opId}/log`, { points }));
    const op = (await api.get(`/api/fields/${fieldId}/operations/${opId}`)).json;
    expect(op.coveredPercent).toBeGreaterThan(10);
    expect(op.coveredPercent).toBeLessThan(90);

    const page = await openField();
    await expect
      .poll(() => page.locator('#operation-figures').getAttribute('data-covered-percent'), {
        timeout: 20_000,
      })
      .toBe(String(op.coveredPercent));
    expect(await page.locator('#operation-figures').textContent()).toContain(
      `${op.coveredPercent.toFixed(1)} %`,
    );
    expect(await page.getByLabel('Field operation', { exact: true }).inputValue()).toBe(opId);
    const ids = await layerIds(page);
    expect(ids).toContain('operation-covered-fill');
    // Over the field, under the plan's lines.
    expect(ids.indexOf('operation-covered-fill')).toBeGreaterThan(ids.indexOf('field-fill'));
    expect(ids.indexOf('operation-covered-fill')).toBeLessThan(ids.indexOf('track-line'));
    expect(ids.indexOf('operation-covered-fill')).toBeGreaterThan(ids.indexOf('slope-fill'));
    await expect
      .poll(async () => (await sourceFeatures(page, 'operation-coverage', 'operation-covered-fill')).rendered)
      .toBeGreaterThan(0);
    const cov = await sourceFeatures(page, 'operation-coverage', 'operation-covered-fill');
    expect(cov.source.some((p: Json) => p.kind === 'covered')).toBe(true);
    expect(await page.locator('label[for="layer-operation"]').textContent()).toMatch(
      /Covered by the operation/,
    );
    await page.screenshot({ path: '/tmp/views-operation.png' });

    // The legend switch hides the coverage; "None" clears it.
    await page.locator('#layer-operation').uncheck();
    expect((await sourceFeatures(page, 'operation-coverage', 'operation-covered-fill')).visibility).toBe(
      'none',
    );
    await page.locator('#layer-operation').check();
    await page.getByLabel('Field operation', { exact: true }).selectOption('');
    await expect
      .poll(async () => (await sourceFeatures(page, 'operation-coverage', 'operation-covered-fill')).rendered)
      .toBe(0);
    await page.context().close();
    expect(pageErrors).toEqual([]);
  }, 120_000);
  // Last: the set's plans are stored for the field, the newest becomes the one the view opens.
  it('compares an equipment scenario set in a table and bar charts with the API’s figures', async () => {
    const post = await api.post('/api/equipment-scenarios/normalized', {
      name: 'Drill widths',
      boundaryIds: [boundaryId],
      scenarios: [6, 12, 18].map((w) => ({
        name: `Drill ${w} m`,
        equipment: { swathWidth: w, minTurningRadius: 6, trackWidths: [1.8], tireWidths: [0.5] },
        exteriorHeadlandPasses: 1,
        routeOptions: { algorithm: 'boustrophedon' },
      })),
    });
    expectOk(post, 202);
    let job = await api.get(`/api/equipment-scenarios/normalized/jobs/${post.json.jobId}`);
    for (let i = 0; i < 600 && (job.json.status === 'queued' || job.json.status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 200));
      job = await api.get(`/api/equipment-scenarios/normalized/jobs/${post.json.jobId}`);
    }
    expect(job.json.status).toBe('completed');
    const set = await api.get(`/api/equipment-scenarios/${job.json.equipmentScenarioId}`);
    expectOk(set);

    const page = await openField();
    // The comparison: a row per scenario, figures equal to the API's.
    await page.getByLabel('Equipment scenario set').selectOption(job.json.equipmentScenarioId);
    const rows = page.locator('#scenario-table tbody tr');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(3);
    const metrics = ['costPerHa', 'totalHours', 'fuelLitres', 'ghgKgCo2e', 'traffickedAreaPercent'];
    for (const [i, s] of (set.json.scenarios as Json[]).entries()) {
      const row = rows.nth(i);
      expect(await row.locator('th').textContent()).toContain(s.name);
      for (const m of metrics) {
        const v = await row.locator(`td[data-metric="${m}"]`).getAttribute('data-value');
        expect(Number(v)).toBe(s.totals[m]);
      }
    }
    const charts = page.locator('#scenario-chart svg.bar-chart');
    expect(await charts.count()).toBe(5);
    for (const m of metrics) {
      const bars = page.locator(`#scenario-chart svg[data-metric="${m}"] rect`);
      expect(await bars.count()).toBe(3);
      const values = await bars.evaluateAll((r) => r.map((x) => Number(x.getAttribute('data-value'))));
      expect(values).toEqual((set.json.scenarios as Json[]).map((s) => s.totals[m]));
    }
    await page.locator('#scenarios').scrollIntoViewIfNeeded();
    await page.screenshot({ path: '/tmp/views-scenarios.png', fullPage: true });
    await page.context().close();
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
