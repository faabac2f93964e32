/**
 * Vector tile pieces: the covering tile of a bounding box (property tests),
 * tiles encoded and decoded again, and the index and byte caches.
 */
import { VectorTile } from '@mapbox/vector-tile';
import fc from 'fast-check';
import { PbfReader } from 'pbf';
import { describe, expect, it } from 'vitest';
import {
  encodeTile,
  ringsBbox,
  TileBytesCache,
  TileIndexCache,
  tileCovering,
  tileExists,
  tileLayerIndex,
} from './vector-tiles.ts';

/** [west, south, east, north] of an XYZ tile. */
function tileBounds(z: number, x: number, y: number): [number, number, number, number] {
  const n = 2 ** z;
  const lat = (yy: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * yy) / n))) * 180) / Math.PI;
  return [(x / n) * 360 - 180, lat(y + 1), ((x + 1) / n) * 360 - 180, lat(y)];
}

const bboxArb = fc
  .record({
    lon: fc.double({ min: -179, max: 178.9, noNaN: true }),
    lat: fc.double({ min: -80, max: 79.9, noNaN: true }),
    w: fc.double({ min: 1e-6, max: 0.5, noNaN: true }),
    h: fc.double({ min: 1e-6, max: 0.5, noNaN: true }),
  })
  .map(({ lon, lat, w, h }) => [lon, lat, lon + w, lat + h] as [number, number, number, number]);

describe('tileCovering', () => {
  it('answers a tile that holds the whole box, and no deeper tile does', () => {
    fc.assert(
      fc.property(bboxArb, (bbox) => {
        const t = tileCovering(bbox, 18);
        expect(tileExists(t)).toBe(true);
        const [w, s, e, n] = tileBounds(t.z, t.x, t.y);
        const eps = 1e-9;
        expect(bbox[0]).toBeGreaterThanOrEqual(w - eps);
        expect(bbox[2]).toBeLessThanOrEqual(e + eps);
        expect(bbox[1]).toBeGreaterThanOrEqual(s - eps);
        expect(bbox[3]).toBeLessThanOrEqual(n + eps);
        if (t.z < 18) {
          // One zoom deeper the box spans two tiles (else that tile would have been answered).
          const child = tileCovering(bbox, t.z + 1);
          expect(child.z).toBe(t.z);
        }
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('reads the bounding box of rings', () => {
    expect(
      ringsBbox([
        [
          [1, 2],
          [3, 1],
          [2, 5],
          [1, 2],
        ],
      ]),
    ).toEqual([1, 1, 3, 5]);
  });
});

describe('encoded tiles', () => {
  it('decode to the features and properties put in, clipped to the tile', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            lon: fc.double({ min: 10, max: 10.05, noNaN: true }),
            lat: fc.double({ min: 55, max: 55.03, noNaN: true }),
            name: fc.string({ maxLength: 20 }),
            areaHa: fc.double({ min: 0.1, max: 500, noNaN: true }),
            enabled: fc.boolean(),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        (fs) => {
          const features = fs.map((f, i) => ({
            type: 'Feature' as const,
            geometry: {
              type: 'Polygon' as const,
              coordinates: [
                [
                  [f.lon, f.lat],
                  [f.lon + 0.002, f.lat],
                  [f.lon + 0.002, f.lat + 0.001],
                  [f.lon, f.lat + 0.001],
                  [f.lon, f.lat],
                ],
              ],
            },
            properties: { fieldId: `f${i}`, name: f.name, areaHa: f.areaHa, enabled: f.enabled },
          }));
          const index = tileLayerIndex(features);
          // z 10 holds all of them (about 0.35 degrees across).
          const t = tileCovering([10, 55, 10.053, 55.032], 10);
          const bytes = encodeTile({ fields: index.features(t) });
          const layer = new VectorTile(new PbfReader(bytes)).layers.fields;
          expect(layer.length).toBe(fs.length);
          const got = Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties);
          for (const [i, f] of fs.entries()) {
            expect(got).toContainEqual({
              fieldId: `f${i}`,
              name: f.name,
              areaHa: f.areaHa,
              enabled: f.enabled,
            });
          }
          const onlyEnabled = encodeTile({ fields: index.features(t, (p) => p.enabled === true) });
          const l2 = new VectorTile(new PbfReader(onlyEnabled)).layers.fields;
          expect(l2?.length ?? 0).toBe(fs.filter((f) => f.enabled).length);
        },
      ),
      { seed: 11, numRuns: 40 },
    );
  });

  it('leaves out layers without features', () => {
    expect(Object.keys(new VectorTile(new PbfReader(encodeTile({ fields: [] }))).layers)).toEqual([]);
  });
});

describe('caches', () => {
  it('makes an index again only when the fingerprint changes, and drops the least recently used', async () => {
    const cache = new TileIndexCache(2);
    const make = async () => tileLayerIndex([]);
    await cache.get('a', '1', make);
    await cache.get('a', '1', make);
    expect(cache.builds).toBe(1);
    await cache.get('a', '2', make);
    expect(cache.builds).toBe(2);
    await cache.get('b', '1', make);
    await cache.get('a', '2', make);
    await cache.get('c', '1', make);
    expect(cache.builds).toBe(4);
    await cache.get('a', '2', make); // still there (used more recently than b)
    expect(cache.builds).toBe(4);
    await cache.get('b', '1', make); // gone
    expect(cache.builds).toBe(5);
  });

  it('does not keep a failed build', async () => {
    const cache = new TileIndexCache();
    await expect(cache.get('a', '1', async () => Promise.reject(new Error('db down')))).rejects.toThrow(
      'db down',
    );
    await cache.get('a', '1', async () => tileLayerIndex([]));
    expect(cache.builds).toBe(2);
  });

  it('keeps encoded tiles within a byte budget', () => {
    const cache = new TileBytesCache(10);
    let made = 0;
    const bytes = (n: number) => () => {
      made++;
      return new Uint8Array(n);
    };
    cache.get('a', bytes(4));
    cache.get('a', bytes(4));
    expect(made).toBe(1);
    cache.get('b', bytes(4));
    cache.get('c', bytes(4)); // over 10: a goes
    cache.get('b', bytes(4));
    expect(made).toBe(3);
    cache.get('a', bytes(4));
    expect(made).toBe(4);
  });
});
