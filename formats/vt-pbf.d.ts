/** Types of vt-pbf (Mapbox vector tile encoding), which ships none. */
declare module 'vt-pbf' {
  interface GeojsonVtTile {
    features: ReadonlyArray<{
      id?: number | string;
      type: 1 | 2 | 3;
      geometry: unknown;
      tags: Record<string, unknown> | null;
    }>;
  }
  /** MVT bytes of geojson-vt tiles, one layer per key. */
  function fromGeojsonVt(
    layers: Record<string, GeojsonVtTile>,
    options?: { version?: 1 | 2; extent?: number },
  ): Uint8Array;
  const vtpbf: { fromGeojsonVt: typeof fromGeojsonVt };
  export default vtpbf;
}
