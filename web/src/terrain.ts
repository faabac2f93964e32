/**
 * Slope shading of the planning view: when an elevation model covers the
 * field (GET /api/boundaries/{id}/slope-classes answers), the field is
 * shaded by the slope of its ground in four classes under the plan, a
 * legend row switches the shading, and the tooltip tells the ground's
 * slope under the cursor and, for parts that carry them (plans with
 * slopes), the part's own slopes.
 */
import type { GeoJSONSource, Map as MapLibreMap, PointLike } from 'maplibre-gl';

/** Colours of the classes 0-2, 2-5, 5-10 and over 10 %. */
export const SLOPE_COLORS = ['#fff8e1', '#ffcc80', '#fb8c00', '#bf360c'];
const SLOPE_NAMES = ['0-2 %', '2-5 %', '5-10 %', 'over 10 %'];
const LAYER = 'slope-fill';

/**
 * Fetches the field's slope classes and, when there are any, shades the
 * map with them below `beforeLayer` and adds a legend row to `legend`.
 * Answers whether the field has them (false without an elevation model).
 */
export async function addSlopeShading(opts: {
  map: MapLibreMap;
  mapReady: Promise<void>;
  api: (path: string) => Promise<Response>;
  boundaryId: string;
  beforeLayer: string;
  legend: HTMLElement;
}): Promise<boolean> {
  const res = await opts.api(`/api/boundaries/${encodeURIComponent(opts.boundaryId)}/slope-classes`);
  if (!res.ok) return false;
  const classes = (await res.json()) as { features: { properties: { classIndex: number } }[] };
  if (!classes.features?.length) return false;
  await opts.mapReady;
  const { map } = opts;
  if (!map.getSource('slope')) map.addSource('slope', { type: 'geojson', data: classes as never });
  else (map.getSource('slope') as GeoJSONSource).setData(classes as never);
  if (!map.getLayer(LAYER)) {
    map.addLayer(
      {
        id: LAYER,
        type: 'fill',
        source: 'slope',
        paint: {
          'fill-color': [
            'match',
            ['get', 'classIndex'],
            0,
            SLOPE_COLORS[0],
            1,
            SLOPE_COLORS[1],
            2,
            SLOPE_COLORS[2],
            SLOPE_COLORS[3],
          ],
          'fill-opacity': 0.55,
        },
      },
      map.getLayer(opts.beforeLayer) ? opts.beforeLayer : undefined,
    );
  }
  const label = document.createElement('label');
  label.htmlFor = 'layer-slope';
  const swatches = SLOPE_COLORS.map(
    (c, i) => `<span class="swatch area" style="background:${c}" title="${SLOPE_NAMES[i]}"></span>`,
  ).join('');
  label.innerHTML = `<input type="checkbox" id="layer-slope" checked />${swatches}Ground slope (0-2, 2-5, 5-10, over 10 %)`;
  label.querySelector('input')?.addEventListener('change', (e) => {
    map.setLayoutProperty(LAYER, 'visibility', (e.target as HTMLInputElement).checked ? 'visible' : 'none');
  });
  opts.legend.append(label);
  return true;
}

/** The ground's slope class at a point of the map, in words; '' where the field is not shaded. */
export function groundSlopeAt(map: MapLibreMap, point: PointLike): string {
  if (!map.getLayer(LAYER) || map.getLayoutProperty(LAYER, 'visibility') === 'none') return '';
  const hit = map.queryRenderedFeatures(point, { layers: [LAYER] })[0];
  if (!hit) return '';
  const p = hit.properties as { slopeClass?: string; mean?: number };
  return `ground slope ${p.slopeClass ?? ''}`.trim();
}

/** A geometry part's own slopes (properties.slopeDetails of plans with slopes), in words; '' without them. */
export function partSlopeText(properties: Record<string, unknown>): string {
  let d = properties.slopeDetails as unknown;
  // Nested members of rendered features arrive as JSON text.
  if (typeof d === 'string') {
    try {
      d = JSON.parse(d);
    } catch {
      return '';
    }
  }
  const s = d as {
    meanSlopePercent?: number;
    meanAlongTrackPercent?: number;
    meanCrossTrackPercent?: number;
    exceedsMaxCrossSlope?: boolean;
  } | null;
  if (!s || typeof s.meanSlopePercent !== 'number') return '';
  const f = (v: number | undefined) => (typeof v === 'number' ? `${v.toFixed(1)} %` : '?');
  const over = s.exceedsMaxCrossSlope ? ' (over the machine limit)' : '';
  return `slope ${f(s.meanSlopePercent)}, along ${f(s.meanAlongTrackPercent)}, sideways ${f(s.meanCrossTrackPercent)}${over}`;
}
