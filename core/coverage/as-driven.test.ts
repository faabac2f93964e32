/**
 * As-driven coverage of simulated drives of real plans: a drive of the whole
 * route at 10 Hz with 0.3 m of noise covers what the plan covers (within
 * 1 %); a drive leaving out three tracks reports them missed and their
 * ground as missed area; cross-track errors measure the noise.
 */
import { describe, expect, it } from 'vitest';
import { rectangleField } from '../../api/testing.ts';
import { type DrivenPoint, simulateDrive } from '../../test/helpers/simulated-drive.ts';
import { planField } from '../plan.ts';
import type { PathPart } from '../types/index.ts';
import { type DrivenLog, measureCoverage } from './as-driven.ts';
import { crossTrackDeviation } from './cross-track.ts';

function logOf(points: readonly DrivenPoint[]): DrivenLog {
  return {
    t: Float64Array.from(points, (p) => p.t),
    x: Float64Array.from(points, (p) => p.x),
    y: Float64Array.from(points, (p) => p.y),
    working: Uint8Array.from(points, (p) => (p.working ? 1 : 0)),
  };
}

const SWATH = 12;
const { plan } = planField({
  boundary: rectangleField(8, 10, 55, 2),
  machine: { swathWidth: SWATH, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
});
const zone = plan.zones[0];
const route = zone.groups[zone.activeGroup].parts
  .filter((p) => p.sequence !== undefined)
  .sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
const tracks = route
  .filter((p) => p.type === 'RouteTrack')
  .map((p) => ({ zoneIndex: 0, trackIndex: p.trackIndex ?? 0, points: p.points }));
const field = [zone.boundary];

describe('as-driven coverage', () => {
  it('finds the covered area of the plan in a noisy 10 Hz drive of its route', () => {
    const log = logOf(simulateDrive(route, { hz: 10, sigma: 0.3, seed: 7 }));
    const c = measureCoverage(field, SWATH, log);
    expect(c.fieldArea).toBeCloseTo(zone.stats.fieldArea, 0);
    expect(Math.abs(c.coveredArea - zone.stats.coveredArea) / zone.stats.coveredArea).toBeLessThan(0.01);
    expect(c.missedArea).toBeCloseTo(c.fieldArea - c.coveredArea, 6);
    expect(c.overlapArea).toBeGreaterThanOrEqual(0);
    expect(c.overlapArea).toBeLessThan(zone.stats.overlapArea + 0.02 * c.fieldArea);
    const dev = crossTrackDeviation(tracks, log, SWATH);
    expect(dev.length).toBe(tracks.length);
    for (const d of dev) {
      expect(d.status).toBe('driven');
      // Noise of 0.3 m per axis: about 0.3 m across the track.
      expect(d.rmsError!).toBeGreaterThan(0.2);
      expect(d.rmsError!).toBeLessThan(0.4);
      expect(Math.abs(d.meanError!)).toBeLessThan(0.1);
    }
  });

  it('reports three tracks left out as missed, with their ground', () => {
    const skip = new Set([tracks[1].trackIndex, tracks[4].trackIndex, tracks[6].trackIndex]);
    const parts: PathPart[] = route.map((p) =>
      p.type === 'RouteTrack' && skip.has(p.trackIndex ?? -1) ? { ...p, working: false } : p,
    );
    const log = logOf(simulateDrive(parts, { hz: 10, sigma: 0.3, seed: 8 }));
    const c = measureCoverage(field, SWATH, log);
    const skippedLength = tracks
      .filter((t) => skip.has(t.trackIndex))
      .reduce((s, t) => s + Math.hypot(t.points[1].x - t.points[0].x, t.points[1].y - t.points[0].y), 0);
    expect(c.missedArea - zone.stats.missedArea).toBeGreaterThan(0.95 * skippedLength * SWATH);
    expect(c.missedArea - zone.stats.missedArea).toBeLessThan(1.05 * skippedLength * SWATH);
    const dev = crossTrackDeviation(tracks, log, SWATH);
    const missed = dev.filter((d) => d.status === 'missed').map((d) => d.trackIndex);
    expect(missed.sort()).toEqual([...skip].sort());
    expect(dev.filter((d) => d.status === 'driven').length).toBe(tracks.length - 3);
  });

  it('returns the covered polygons and is unchanged by the order of equal data', () => {
    const log = logOf(simulateDrive(route, { hz: 5, sigma: 0.1, seed: 3 }));
    const a = measureCoverage(field, SWATH, log, { withGeometry: true });
    const b = measureCoverage(field, SWATH, log);
    expect(a.covered!.length).toBeGreaterThan(0);
    expect(a.coveredArea).toBeCloseTo(b.coveredArea, 3);
  });

  it('covers nothing without working positions', () => {
    const log = logOf(simulateDrive(route, { hz: 1, sigma: 0 }).map((p) => ({ ...p, working: false })));
    const c = measureCoverage(field, SWATH, log);
    expect(c.coveredArea).toBe(0);
    expect(c.missedArea).toBeCloseTo(c.fieldArea, 6);
    expect(crossTrackDeviation(tracks, log, SWATH).every((d) => d.status === 'missed')).toBe(true);
  });
});
