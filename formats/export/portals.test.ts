/**
 * Portal connectors against a fake portal that really listens on 127.0.0.1.
 * Waiting is recorded rather than slept, so the tests take no wall-clock
 * time for the portal's Retry-After and backoff delays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePortal, startFakePortal } from './fake-portal.ts';
import { exportPlans } from './index.ts';
import {
  createPortalConnector,
  type PortalConfig,
  PortalError,
  retryAfterMs,
  transmitPlans,
} from './portals.ts';
import { fixturePlans } from './testing.ts';

let portal: FakePortal;
beforeAll(async () => {
  portal = await startFakePortal({ tokens: ['good-token'], maxBytes: 2_000_000, retryAfter: 3 });
});
afterAll(() => portal.close());

function config(over: Partial<PortalConfig> = {}): PortalConfig & { waits: number[] } {
  const waits: number[] = [];
  return {
    baseUrl: portal.url,
    token: 'good-token',
    pollIntervalMs: 5000,
    retries: 3,
    backoffMs: 1000,
    sleep: async (ms) => {
      waits.push(ms);
    },
    waits,
    ...over,
  };
}

describe('portal connectors', () => {
  it('vendor-a: uploads the John Deere layout with the token and polls until completed', async () => {
    const plans = fixturePlans().slice(0, 2);
    const c = config({ organizationId: 'org-42' });
    const t = await transmitPlans(plans, 'vendor-a', c);
    expect(t).toMatchObject({
      portal: 'vendor-a',
      status: 'completed',
      fileName: 'tramline-vendor-a-2-plans.zip',
    });
    const up = portal.uploads.find((u) => u.transferId === t.transferId)!;
    expect(up.format).toBe('vendor-a');
    expect(up.organizationId).toBe('org-42');
    expect(up.fileName).toBe('tramline-vendor-a-2-plans.zip');
    expect(up.entries).toContain('TASKDATA/TASKDATA.XML');
    // The portal asked for 3 s while processing; the connector waited the interval first, then that.
    expect(c.waits).toEqual([5000, 3000]);
  });

  it('vendor-b: uploads the CNH layout', async () => {
    const t = await transmitPlans([fixturePlans()[3]], 'vendor-b', config());
    expect(t.status).toBe('completed');
    const up = portal.uploads.find((u) => u.transferId === t.transferId)!;
    expect(up.entries.sort()).toEqual(['TASKDATA/LINKLIST.XML', 'TASKDATA/TASKDATA.XML']);
  });

  it('reports a transfer the portal refuses while processing as failed, with its reason', async () => {
    const c = createPortalConnector('vendor-a', config());
    // A CNH zip sent as the John Deere layout lacks the boundary shapefiles.
    const file = await exportPlans([fixturePlans()[0]], 'vendor-b');
    const t = await c.waitUntilDone(await c.upload(file));
    expect(t.status).toBe('failed');
    expect(t.message).toBe('no boundary shapefile under Boundaries/');
  });

  it('refuses a wrong token with PORTAL_UNAUTHORIZED', async () => {
    const c = createPortalConnector('vendor-b', config({ token: 'stolen' }));
    const file = await exportPlans([fixturePlans()[0]], 'vendor-b');
    await expect(c.upload(file)).rejects.toMatchObject({
      code: 'PORTAL_UNAUTHORIZED',
      status: 401,
      message: expect.stringContaining('the access token is not valid'),
    });
  });

  it('retries 429 and 503 answers, honouring Retry-After, then succeeds', async () => {
    portal.faults.push({ status: 429, retryAfter: 7 }, { status: 503 });
    const c = config();
    const t = await transmitPlans([fixturePlans()[0]], 'vendor-b', c);
    expect(t.status).toBe('completed');
    // 7 s from Retry-After, then the second backoff step (1 s doubled), then the polls.
    expect(c.waits.slice(0, 2)).toEqual([7000, 2000]);
  });

  it('gives up after the retries with PORTAL_UNAVAILABLE', async () => {
    portal.faults.push({ status: 502 }, { status: 502 }, { status: 502 });
    const c = createPortalConnector('vendor-b', config({ retries: 2 }));
    const file = await exportPlans([fixturePlans()[0]], 'vendor-b');
    await expect(c.upload(file)).rejects.toMatchObject({ code: 'PORTAL_UNAVAILABLE', status: 502 });
  });

  it('refuses too large files with PORTAL_FILE_TOO_LARGE', async () => {
    const c = createPortalConnector('vendor-b', config());
    await expect(c.upload({ fileName: 'big.zip', zip: new Uint8Array(2_500_000) })).rejects.toMatchObject({
      code: 'PORTAL_FILE_TOO_LARGE',
    });
  });

  it('stops polling at the time-out with PORTAL_TIMEOUT', async () => {
    const c = createPortalConnector('vendor-b', config({ timeoutMs: 4000 }));
    const file = await exportPlans([fixturePlans()[0]], 'vendor-b');
    const t = await c.upload(file);
    await expect(c.waitUntilDone(t)).rejects.toBeInstanceOf(PortalError);
    await expect(c.waitUntilDone(t)).rejects.toMatchObject({ code: 'PORTAL_TIMEOUT' });
  });

  it('says PORTAL_UNAVAILABLE when nothing listens', async () => {
    const c = createPortalConnector('vendor-a', config({ baseUrl: 'http://127.0.0.1:9', retries: 0 }));
    await expect(c.status('t1')).rejects.toMatchObject({ code: 'PORTAL_UNAVAILABLE' });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('Wed, 01 Apr 2026 08:00:10 GMT', Date.parse('2026-04-01T08:00:00Z'))).toBe(10_000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});
