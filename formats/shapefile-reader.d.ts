/** Types of the `shapefile` package's record-by-record reader (the boundary import uses it). */
declare module 'shapefile' {
  export function open(
    shp: ArrayBuffer | Uint8Array,
    dbf?: ArrayBuffer | Uint8Array,
    options?: { encoding?: string },
  ): Promise<{
    bbox: number[];
    read(): Promise<{
      done: boolean;
      value?: {
        type: 'Feature';
        properties: Record<string, unknown>;
        geometry: { type: string; coordinates: unknown } | null;
      };
    }>;
  }>;
}
