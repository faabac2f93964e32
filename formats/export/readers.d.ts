/** Types of the independent readers the export tests read exports back with. */
declare module 'shapefile' {
  export function read(
    shp: ArrayBuffer | Uint8Array,
    dbf?: ArrayBuffer | Uint8Array,
    options?: { encoding?: string },
  ): Promise<{
    type: 'FeatureCollection';
    bbox: number[];
    features: {
      type: 'Feature';
      properties: Record<string, unknown>;
      geometry: { type: string; coordinates: unknown };
    }[];
  }>;
}

declare module 'gpxparser' {
  interface GpxPoint {
    lat: number;
    lon: number;
    ele: number | null;
  }
  export default class GpxParser {
    metadata: { name?: string; desc?: string; time?: string };
    waypoints: (GpxPoint & { name: string })[];
    tracks: { name: string; desc: string; number: string; type: string | null; points: GpxPoint[] }[];
    parse(xml: string): void;
  }
}
