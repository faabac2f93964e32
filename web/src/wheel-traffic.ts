/**
 * The wheel traffic layer of the planning view: the wheel tracks of the
 * stored plan on screen (POST /api/wheel-traffic-summary/{id}/geojson),
 * coloured by passes: 1 yellow, 2 orange, 3 or more red. Previews of unsaved
 * settings have none (the layer is emptied).
 */
import type { Map as MapLibre } from 'maplibre-gl';

const SOURCE = 'wheel-traffic';
export const WHEEL_TRAFFIC_LAYER = 'wheel-traffic-fill';
/** The tracks' outline: a tyre is under a pixel wide at field zoom, the outline keeps it visible. */
export const WHEEL_TRAFFIC_LINE_LAYER = 'wheel-traffic-line';
/** Fill colours by passes. */
export const PASS_COLOURS: Record<1 | 2 | 3, string> = { 1: '#fdd835', 2: '#fb8c00', 3: '#c62828' };

const empty = { type: 'FeatureCollection', features: [] };

const PASS_COLOUR = ['match', ['get', 'passes'], 1, PASS_COLOURS[1], 2, PASS_COLOURS[2], PASS_COLOURS[3]];

export function addWheelTrafficLayer(map: MapLibre, before?: string): void {
  map.addSource(SOURCE, { type: 'geojson', data: empty as never });
  map.addLayer(
    {
      id: WHEEL_TRAFFIC_LINE_LAYER,
      type: 'line',
      source: SOURCE,
      paint: {
        'line-color': PASS_COLOUR as never,
        'line-width': ['interpolate', ['linear'], ['zoom'], 15, 2.5, 19, 1],
        'line-opacity': 0.9,
      },
    },
    before,
  );
  map.addLayer(
    {
      id: WHEEL_TRAFFIC_LAYER,
      type: 'fill',
      source: SOURCE,
      paint: {
        'fill-color': PASS_COLOUR as never,
        'fill-opacity': 0.7,
      },
    },
    before,
  );
}

export function clearWheelTraffic(map: MapLibre): void {
  (map.getSource(SOURCE) as { setData?: (d: unknown) => void } | undefined)?.setData?.(empty);
}

/** Loads and shows a stored plan's wheel tracks; answers their share of the field [%] (null when unavailable). */
export async function showWheelTraffic(
  map: MapLibre,
  api: (path: string, init?: RequestInit) => Promise<Response>,
  pathPlanId: string,
): Promise<number | null> {
  const res = await api(`/api/wheel-traffic-summary/${encodeURIComponent(pathPlanId)}/geojson`, {
    method: 'POST',
    body: '{}',
  });
  if (!res.ok) {
    clearWheelTraffic(map);
    return null;
  }
  const fc = (await res.json()) as { traffickedAreaPercent: number };
  (map.getSource(SOURCE) as { setData?: (d: unknown) => void } | undefined)?.setData?.(fc);
  return fc.traffickedAreaPercent;
}
