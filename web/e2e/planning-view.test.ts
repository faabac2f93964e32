/**
 * The planning view end to end: Debian's Chromium driven by playwright-core
 * against a really listening server. Screenshots go to web/e2e/screenshots
 * (git-ignored). Figures (time to plan, preview latency) are printed, not
 * asserted. Skips when /usr/bin/chromium is missing (.ci/run installs it).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client } from '../../api/platform/client.ts';
import { rectangleField, startTestServer, type TestServer, testKey } from '../../api/testing.ts';
import { hasCorpus, loadBenchmarkSelection } from '../../test/helpers/corpus.ts';
import { ensureWebBuild } from '../build.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, 'screenshots');
/** How long a page may take to show the server's answer (sign-in hashes a password; a loaded machine is slow). */
const ANSWER = { timeout: 10_000 };
/** A 1x1 green PNG, the basemap tile the test serves. */
const TILE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M/wHwAEBgIApD5fRAAAAABJRU5ErkJggg==',
  'base64',
);
let tileRequests = 0;

/** A real field of about 100 ha (one part) from the shared corpus, else a 100 ha rectangle. */
function field100ha(): { name: string; geometry: unknown } {
  if (hasCorpus()) {
    const best = loadBenchmarkSelection()
      .filter((s) => Number(s.feature.properties.parts ?? 1) === 1)
      .filter((s) => (s.feature.geometry as { type?: string }).type === 'Polygon')
      .sort(
        (a, b) =>
          Math.abs(Number(a.feature.properties.area_ha) - 100) -
          Math.abs(Number(b.feature.properties.area_ha) - 100),
      )[0];
    if (best)
      return { name: `${best.id} (${best.feature.properties.area_ha} ha)`, geometry: best.feature.geometry };
  }
  return { name: '100 ha rectangle', geometry: rectangleField(100) };
}

describe.skipIf(!existsSync(CHROMIUM))('planning view in the browser', () => {
  let server: TestServer;
  let parent: Server;
  let parentOrigin: string;
  let browser: Browser;
  const email = `viewer-${Date.now()}@example.org`;
  const password = 'correct horse battery';
  let boundaryId: string;
  let fieldName: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await ensureWebBuild();
    mkdirSync(SHOTS, { recursive: true });
    // The embedding site: another origin (localhost, not 127.0.0.1) with a page that holds the view in an iframe.
    parent = createServer((req, res) => {
      if (req.url?.startsWith('/tiles/')) {
        tileRequests++;
        res.setHeader('content-type', 'image/png');
        res.setHeader('access-control-allow-origin', '*');
        res.end(TILE_PNG);
        return;
      }
      const src = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '';
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><title>Farm portal</title><h1>Farm portal</h1>
        <iframe id="view" title="Field plan" src="${src.replace(/"/g, '&quot;')}" style="width:1100px;height:640px;border:0"></iframe>
        <script>window.messages=[];addEventListener('message',e=>{if(e.data&&e.data.source==='tramline')window.messages.push({origin:e.origin,data:e.data})});</script>`);
    });
    await new Promise<void>((r) => parent.listen(0, '127.0.0.1', r));
    parentOrigin = `http://localhost:${(parent.address() as AddressInfo).port}`;

    server = await startTestServer({ web: { allowedOrigins: [parentOrigin] } });
    // The user and the field (grower, farm, field and boundary) through the platform interface.
    const reg = await call(server.url, '/api/account/register', { body: { email, password } });
    expect(reg.status).toBe(201);
    fieldName = field100ha().name;
    boundaryId = await makeField(client(server.url, { bearer: reg.json.accessToken }), reg.json.companyId);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      // playwright-core gives every launch a fresh user-data-dir of its own (removed on close).
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((r) => parent?.close(r));
  });

  const watch = (page: Page) => {
    page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
  };

  async function newPage(ctx: BrowserContext): Promise<Page> {
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 1360, height: 820 });
    watch(page);
    return page;
  }

  const viewUrl = () => `${server.url}/path-planning/boundary/${boundaryId}`;
  const stat = (page: Page, name: string) =>
    page.locator(`#plan-stats [data-stat="${name}"]`).getAttribute('data-value').then(Number);

  it('sends a visitor without a session to the login page, then opens the field and plans it', async () => {
    const ctx = await browser.newContext();
    const page = await newPage(ctx);
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith('blob:') && !r.url().startsWith('data:'))
        elsewhere.push(r.url());
    });
    await page.goto(viewUrl());
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('wrong password!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#login-error').textContent(), ANSWER).toMatch(/wrong password/i);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('#map[data-plan-drawn]', { state: 'attached', timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe(`/path-planning/boundary/${boundaryId}`);
    const cookies = await ctx.cookies();
    const session = cookies.find((c) => c.name === 'tramline_session');
    expect(session?.httpOnly).toBe(true);
    expect(await page.evaluate(() => document.cookie)).not.toContain('tramline_session');

    const t = await page.locator('#map').evaluate((el) => ({ ...(el as HTMLElement).dataset }));
    const html = await page.evaluate(() =>
      Math.round((performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).responseEnd),
    );
    console.log(
      `time to plan on screen, ${fieldName}: ${t.timeToPlanMs} ms after navigation start (page received ${html} ms, script running ${t.scriptStartMs} ms, field loaded ${t.fieldLoadedMs} ms, plan back from the worker ${t.firstPlanOnPageMs} ms, planner ${t.planMs} ms)`,
    );

    // Figures with units, for the plan and per zone.
    expect(await stat(page, 'totalTime')).toBeGreaterThan(0);
    expect(await page.locator('#plan-stats [data-stat="totalTime"]').textContent()).toMatch(/(h|min)$/);
    expect(await page.locator('#plan-stats [data-stat="totalDistance"]').textContent()).toMatch(/k?m$/);
    expect(await page.locator('#plan-stats [data-stat="overlapArea"]').textContent()).toMatch(/ha/);
    expect(await page.locator('#plan-stats [data-stat="missedArea"]').textContent()).toMatch(/ha/);
    expect(await page.locator('#plan-stats [data-stat="turnCount"]').textContent()).toMatch(/^\d+$/);
    expect(await page.locator('[data-scope="zone"] [data-stat="totalTime"]').count()).toBeGreaterThan(0);

    // Hovering a part tells what it is.
    const box = (await page.locator('#map').boundingBox())!;
    let told = '';
    for (let i = 0; i < 40 && !told; i++) {
      await page.mouse.move(
        box.x + box.width * (0.3 + (i % 8) * 0.05),
        box.y + box.height * (0.35 + Math.floor(i / 8) * 0.07),
      );
      await page.waitForTimeout(30);
      if (await page.locator('#tooltip').isVisible())
        told = (await page.locator('#tooltip').textContent()) ?? '';
    }
    expect(told).toMatch(/Track|Headland|Turn|Connector|Zone|Obstacle|edge/);
    await page.screenshot({ path: join(SHOTS, '01-plan.png') });

    // Change the swath: the preview follows.
    const tracksBefore = await stat(page, 'trackCount');
    const version = await page.locator('#map').getAttribute('data-plan-version');
    await page.getByLabel('Swath width in metres').fill('24');
    await page.waitForFunction((v) => document.getElementById('map')?.dataset.planVersion !== v, version);
    const m = await page.locator('#map').evaluate((el) => ({ ...(el as HTMLElement).dataset }));
    console.log(
      `preview after a swath change (12 m -> 24 m): ${m.previewMs} ms from the change to the drawn map (planner ${m.planMs} ms, plan back on the page after ${m.answerMs} ms)`,
    );
    expect(await stat(page, 'trackCount')).toBeLessThan(tracksBefore);
    await page.screenshot({ path: join(SHOTS, '02-swath-24m.png') });

    // Pick the longest edge as the direction; keyboard works on the edge buttons.
    const edge = page.locator('#edges button').first();
    await edge.focus();
    const v2 = await page.locator('#map').getAttribute('data-plan-version');
    await page.keyboard.press('Enter');
    await page.waitForFunction((v) => document.getElementById('map')?.dataset.planVersion !== v, v2);
    expect(await page.getByLabel(/Direction/).inputValue()).not.toBe('');

    // Offline after load: the planner keeps following.
    await ctx.setOffline(true);
    const v3 = await page.locator('#map').getAttribute('data-plan-version');
    await page.getByLabel('Headland passes').fill('3');
    await page.waitForFunction((v) => document.getElementById('map')?.dataset.planVersion !== v, v3);
    expect(await stat(page, 'headlandPassCount')).toBeGreaterThan(0);
    await ctx.setOffline(false);

    // Route orders and their options.
    for (const [algorithm, option] of [
      ['clusteredSpiral', '#skipCount-row'],
      ['optimized', '#objective-row'],
    ] as const) {
      const before = await page.locator('#map').getAttribute('data-plan-version');
      await page.getByLabel('Route order').selectOption(algorithm);
      await page.waitForFunction((x) => document.getElementById('map')?.dataset.planVersion !== x, before);
      expect(await page.locator(option).isVisible()).toBe(true);
      expect(await page.locator('#status').getAttribute('data-kind')).not.toBe('error');
    }

    // Track types: curved and spiral plans; the direction is for straight tracks only.
    for (const trackType of ['Curved', 'Spiral', 'Straight']) {
      const before = await page.locator('#map').getAttribute('data-plan-version');
      await page.getByLabel('Track type').selectOption(trackType);
      await page.waitForFunction((x) => document.getElementById('map')?.dataset.planVersion !== x, before, {
        timeout: 30_000,
      });
      expect(await page.locator('#status').getAttribute('data-kind')).not.toBe('error');
      expect(await page.getByLabel(/Direction/).isDisabled()).toBe(trackType !== 'Straight');
      expect(await stat(page, 'trackCount')).toBeGreaterThan(0);
      if (trackType === 'Spiral') await page.screenshot({ path: join(SHOTS, '03a-spiral.png') });
    }

    // Route playback.
    await page.getByRole('button', { name: 'Play the route' }).click();
    await page.waitForFunction(
      () => Number((document.getElementById('progress') as HTMLInputElement).value) > 0,
    );
    await page.getByRole('button', { name: 'Pause the route' }).click();
    await page.screenshot({ path: join(SHOTS, '03-direction-offline-playback.png') });
    // Without a configured basemap nothing is fetched from anywhere else.
    expect(elsewhere).toEqual([]);
    await ctx.close();
    expect(pageErrors).toEqual([]);
  });

  /** Skips a test whose endpoints this server does not offer. */
  const needs = (ctx: { skip: (note?: string) => void }, ...routes: [string, string][]) => {
    for (const [method, url] of routes)
      if (!server.app.hasRoute({ method: method as 'GET', url })) ctx.skip(`no ${method} ${url}`);
  };

  it('saves the plan and a second variant, compares them, sets one active, exports and shares', async (t) => {
    needs(
      t,
      ['POST', '/api/path-plans/upsert'],
      ['POST', '/api/shares/path-plan'],
      ['POST', '/api/path-plans-export'],
    );
    const ctx = await browser.newContext({ acceptDownloads: true });
    const page = await newPage(ctx);
    await page.goto(viewUrl());
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('#map[data-plan-drawn]', { state: 'attached', timeout: 30_000 });
    const status = () => page.locator('#status').textContent();
    await expect.poll(() => page.getByRole('button', { name: 'Save plan' }).isEnabled(), ANSWER).toBe(true);

    await page.getByLabel('Plan name').fill('Spring, 12 m');
    await page.getByRole('button', { name: 'Save plan' }).click();
    await expect.poll(status, { timeout: 20_000 }).toMatch(/Saved «Spring, 12 m»/);
    expect(await page.locator('#plans li').count()).toBe(1);
    expect(await page.locator('#plan-source').textContent()).toMatch(/Stored plan «Spring, 12 m»/);
    const tracks12 = await stat(page, 'trackCount');

    // A second variant: 18 m swath, along the longest edge.
    const v = await page.locator('#map').getAttribute('data-plan-version');
    await page.getByLabel('Swath width in metres').fill('18');
    await page.waitForFunction((x) => document.getElementById('map')?.dataset.planVersion !== x, v);
    await page.getByRole('button', { name: 'Save as variant' }).click();
    await expect.poll(status, { timeout: 20_000 }).toMatch(/Saved as variant 2/);
    expect(await page.locator('#plans li').count()).toBe(1);

    // Compare the two variants of the zone.
    const cmp = page.locator('.compare-zone').first();
    const a = Number(
      await cmp.locator('td[data-variant="a"][data-stat="trackCount"]').getAttribute('data-value'),
    );
    const b = Number(
      await cmp.locator('td[data-variant="b"][data-stat="trackCount"]').getAttribute('data-value'),
    );
    expect(a).toBe(tracks12);
    expect(b).toBeLessThan(a);
    expect(await cmp.locator('td[data-stat="totalTimeDifference"]').textContent()).toMatch(/^[+−±]/);
    await page.locator('#compare').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, '06-compare.png') });

    // Set variant B active: the plan's figures follow.
    await cmp.getByRole('button', { name: 'Set B active' }).click();
    await expect.poll(status, ANSWER).toMatch(/Active variant changed/);
    expect(await stat(page, 'trackCount')).toBe(b);

    // Export: the download of the zip.
    await page.getByLabel('Export format').selectOption('isoxml');
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.getByRole('button', { name: 'Export' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);

    // Share: the link opens in a fresh context without a session.
    await page.getByRole('button', { name: 'Share link' }).click();
    await expect
      .poll(() => page.locator('#share-url').inputValue(), ANSWER)
      .toMatch(/\/path-planning\/shared\//);
    const shareUrl = await page.locator('#share-url').inputValue();
    await page.screenshot({ path: join(SHOTS, '07-saved-active-shared.png') });
    await ctx.close();

    const fresh = await browser.newContext();
    const shared = await newPage(fresh);
    await shared.goto(shareUrl);
    await shared.waitForSelector('#map[data-plan-drawn]', { state: 'attached', timeout: 30_000 });
    expect(new URL(shared.url()).pathname).toMatch(/^\/path-planning\/shared\//);
    expect(await stat(shared, 'trackCount')).toBe(b);
    expect(await shared.locator('#plan-source').textContent()).toMatch(/Shared plan «Spring, 12 m»/);
    await shared.screenshot({ path: join(SHOTS, '08-shared.png') });
    await fresh.close();
    expect(pageErrors).toEqual([]);
  });

  it('takes the partner hand-over at /launch and refuses foreign return URLs', async (t) => {
    needs(t, ['POST', '/api/partner/launch']);
    const bad = await fetch(
      `${server.url}/launch?code=x&userId=y&returnUrl=${encodeURIComponent('https://evil.example/')}`,
      {
        redirect: 'manual',
      },
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errorCode: string }).errorCode).toBe('INVALID_RETURN_URL');
    const missing = await fetch(`${server.url}/launch?code=x`, { redirect: 'manual' });
    expect(missing.status).toBe(400);

    const { launchUrl, boundaryId: launched } = await partnerLaunch((b) => `/path-planning/boundary/${b}`);
    const ctx = await browser.newContext();
    const page = await newPage(ctx);
    await page.goto(launchUrl);
    await page.waitForSelector('#map[data-plan-drawn]', { state: 'attached', timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe(`/path-planning/boundary/${launched}`);
    // The code is single use.
    const again = await fetch(launchUrl, { redirect: 'manual' });
    expect(again.status).toBeGreaterThanOrEqual(400);
    await page.screenshot({ path: join(SHOTS, '04-launch.png') });
    await ctx.close();
    expect(pageErrors).toEqual([]);
  });

  it('works embedded in an iframe of another origin and talks postMessage', async (t) => {
    needs(t, ['POST', '/api/partner/launch']);
    const { launchUrl } = await partnerLaunch(
      (b) => `/path-planning/boundary/${b}?embedded=true&chrome=false`,
    );
    const ctx = await browser.newContext();
    const page = await newPage(ctx);
    await page.goto(`${parentOrigin}/?src=${encodeURIComponent(launchUrl)}`);
    const frame = page.frameLocator('#view');
    await frame
      .locator('#map[data-plan-drawn]')
      .waitFor({ state: 'attached', timeout: 30_000 })
      .catch(async (e) => {
        throw new Error(
          `${e}; frames: ${page
            .frames()
            .map((f) => f.url())
            .join(', ')}`,
        );
      });
    const inner = page.frames().find((f) => f.url().includes('/path-planning/'))!;
    const chromeCount = await inner.evaluate(
      () => document.querySelectorAll('header, nav, [role="banner"], [role="navigation"]').length,
    );
    expect(chromeCount).toBe(0);
    await page.waitForFunction(() =>
      (window as unknown as { messages: { data: { type: string } }[] }).messages.some(
        (m) => m.data.type === 'tramline:plan-drawn',
      ),
    );
    // The parent sets the swath; the view replans and says so.
    await page.evaluate((origin) => {
      const f = document.getElementById('view') as HTMLIFrameElement;
      f.contentWindow!.postMessage({ type: 'tramline:set-tuning', tuning: { swathWidth: 30 } }, origin);
    }, new URL(server.url).origin);
    await page.waitForFunction(() =>
      (
        window as unknown as { messages: { data: { type: string; tuning?: { swathWidth: number } } }[] }
      ).messages.some((m) => m.data.type === 'tramline:plan-changed' && m.data.tuning?.swathWidth === 30),
    );
    const messages = await page.evaluate(
      () => (window as unknown as { messages: { origin: string; data: { type: string } }[] }).messages,
    );
    expect(new Set(messages.map((m) => m.origin))).toEqual(new Set([new URL(server.url).origin]));
    expect(messages.map((m) => m.data.type)).toEqual(
      expect.arrayContaining(['tramline:ready', 'tramline:plan-drawn', 'tramline:plan-changed']),
    );
    expect(await inner.getByLabel('Swath width in metres').inputValue()).toBe('30');
    await page.screenshot({ path: join(SHOTS, '05-embedded.png') });
    await ctx.close();
    expect(pageErrors).toEqual([]);
  });

  it('draws the basemap of the configuration under the plan', async () => {
    const withBasemap = await startTestServer({
      web: { basemapUrl: `${parentOrigin}/tiles/{z}/{x}/{y}.png`, basemapAttribution: 'Test tiles' },
    });
    try {
      const ctx = await browser.newContext();
      const page = await newPage(ctx);
      const url = `${withBasemap.url}/path-planning/boundary/${boundaryId}`;
      await page.goto(url);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForSelector('#map[data-plan-drawn]', { state: 'attached', timeout: 30_000 });
      await expect.poll(() => tileRequests, { timeout: 20_000 }).toBeGreaterThan(0);
      expect(await page.locator('.maplibregl-ctrl-attrib').textContent()).toContain('Test tiles');
      await page.screenshot({ path: join(SHOTS, '09-basemap.png') });
      await ctx.close();
    } finally {
      await withBasemap.close();
    }
    expect(pageErrors).toEqual([]);
  });

  /** Creates a grower, a farm and the ~100 ha field in a company through the platform interface; answers the boundary id. */
  async function makeField(api: ReturnType<typeof client>, companyId: string): Promise<string> {
    const grower = await api.post(`/api/companies/${companyId}/growers`, {
      name: 'Test grower',
      source: 'api',
      archived: false,
    });
    expect(grower.status, grower.text).toBe(201);
    const farm = await api.post(`/api/growers/${grower.json.growerId}/farms`, {
      name: 'Home farm',
      source: 'api',
      archived: false,
    });
    expect(farm.status, farm.text).toBe(201);
    const f = field100ha();
    const saved = await api.post('/api/fields/save', {
      farmId: farm.json.farmId,
      name: f.name,
      boundary: (f.geometry as { coordinates: number[][][] }).coordinates,
    });
    expect(saved.status, saved.text).toBe(201);
    return saved.json.vBoundary.boundaryId;
  }

  let partner: Promise<{ key: string; partnerUserId: string; boundaryId: string }> | undefined;

  /** A partner with a company holding the field and a user with access to it (made once). */
  function partnerSetup() {
    partner ??= (async () => {
      const admin = await testKey({ partnerAdmin: true, unlimited: true });
      const api = client(server.url, { key: admin.key });
      const partnerUserId = `farmer-${Math.random().toString(36).slice(2)}`;
      const partnerCompanyId = `farm-${Math.random().toString(36).slice(2)}`;
      const c = await api.post('/api/partner/companies', { partnerCompanyId, name: 'Partner farm' });
      expect([200, 201], c.text).toContain(c.status);
      const u = await api.post('/api/partner/users', {
        partnerUserId,
        email: `${partnerUserId}@example.org`,
        firstName: 'Field',
        lastName: 'Worker',
      });
      expect([200, 201], u.text).toContain(u.status);
      const a = await api.post('/api/partner/company-accesses', { partnerUserId, partnerCompanyId });
      expect([200, 201], a.text).toContain(a.status);
      return { key: admin.key, partnerUserId, boundaryId: await makeField(api, c.json.companyId) };
    })();
    return partner;
  }

  /** A launch URL for the partner's user that returns to `path(boundaryId)`. */
  async function partnerLaunch(
    path: (boundaryId: string) => string,
  ): Promise<{ launchUrl: string; boundaryId: string }> {
    const p = await partnerSetup();
    const l = await call(server.url, '/api/partner/launch', {
      key: p.key,
      body: { userId: p.partnerUserId, returnUrl: `${server.url}${path(p.boundaryId)}` },
    });
    expect([200, 201], l.text).toContain(l.status);
    return { launchUrl: `${server.url}${l.json.launchUrl}`, boundaryId: p.boundaryId };
  }
});
