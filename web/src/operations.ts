/**
 * Field operations in the planning view: when the field has operations
 * (GET /api/fields/{fieldId}/operations), a picker lists them and the one
 * chosen (the newest at first) shows its covered ground over the plan
 * (the GeoJSON coverage export, POST
 * /api/companies/{companyId}/field-operations/export) with its covered
 * share of the field; a legend row switches the layer. The view only reads:
 * operations are recorded through the API.
 */
import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';

const SOURCE = 'operation-coverage';
export const OPERATION_COVERED_LAYER = 'operation-covered-fill';
export const OPERATION_EDGE_LAYER = 'operation-covered-line';
export const OPERATION_COLOUR = '#7b1fa2';

export interface FieldOperationItem {
  fieldOpId: string;
  companyId: string;
  operationType: string;
  status: string;
  startedAt: string;
  coveredArea: number;
  coveredPercent: number;
  fieldArea: number;
}

const empty = { type: 'FeatureCollection', features: [] };

/** The picker's text of an operation: type, start day, status and covered share. */
export function operationLabel(o: FieldOperationItem): string {
  const status =
    o.status === 'completed' ? '' : ` (${o.status.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()})`;
  return `${o.coveredPercent.toFixed(1)} % · ${o.operationType} ${o.startedAt.slice(0, 10)}${status}`;
}

/** The figures line of the operation on screen. */
export function operationFiguresText(o: FieldOperationItem): string {
  return `Covered ${(o.coveredArea / 10_000).toFixed(2)} of ${(o.fieldArea / 10_000).toFixed(2)} ha: ${o.coveredPercent.toFixed(1)} %`;
}

export interface OperationsPanelDeps {
  map: MapLibreMap;
  mapReady: Promise<void>;
  api: (path: string, init?: RequestInit) => Promise<Response>;
  errorText: (res: Response) => Promise<string>;
  legend: HTMLElement;
  /** The layer the coverage is drawn below (the plan's lines stay on top). */
  beforeLayer: string;
}

/** Fills the operations section of the figures panel and the coverage layer of the map. */
export function createOperationsPanel(deps: OperationsPanelDeps): { load(fieldId: string): Promise<void> } {
  const $ = (id: string) => document.getElementById(id) as HTMLElement;
  const picker = $('operation-pick') as HTMLSelectElement;
  const figures = $('operation-figures');
  const { map } = deps;
  let items: FieldOperationItem[] = [];
  let legendRow: HTMLLabelElement | null = null;

  const ensureLayers = () => {
    if (map.getSource(SOURCE)) return;
    map.addSource(SOURCE, { type: 'geojson', data: empty as never });
    const before = map.getLayer(deps.beforeLayer) ? deps.beforeLayer : undefined;
    map.addLayer(
      {
        id: OPERATION_COVERED_LAYER,
        type: 'fill',
        source: SOURCE,
        filter: ['==', ['get', 'kind'], 'covered'],
        paint: { 'fill-color': OPERATION_COLOUR, 'fill-opacity': 0.45 },
      },
      before,
    );
    map.addLayer(
      {
        id: OPERATION_EDGE_LAYER,
        type: 'line',
        source: SOURCE,
        filter: ['==', ['get', 'kind'], 'covered'],
        paint: { 'line-color': OPERATION_COLOUR, 'line-width': 1.5 },
      },
      before,
    );
  };

  const addLegendRow = () => {
    if (legendRow) return;
    legendRow = document.createElement('label');
    legendRow.htmlFor = 'layer-operation';
    legendRow.innerHTML = `<input type="checkbox" id="layer-operation" checked /><span class="swatch area" style="background:${OPERATION_COLOUR}"></span>Covered by the operation`;
    legendRow.querySelector('input')?.addEventListener('change', (e) => {
      const v = (e.target as HTMLInputElement).checked ? 'visible' : 'none';
      for (const l of [OPERATION_COVERED_LAYER, OPERATION_EDGE_LAYER])
        map.setLayoutProperty(l, 'visibility', v);
    });
    deps.legend.append(legendRow);
  };

  const show = async (id: string) => {
    await deps.mapReady;
    ensureLayers();
    const source = map.getSource(SOURCE) as GeoJSONSource;
    const op = items.find((o) => o.fieldOpId === id);
    if (!op) {
      source.setData(empty as never);
      figures.textContent = '';
      if (legendRow) legendRow.hidden = true;
      return;
    }
    const res = await deps.api(`/api/companies/${encodeURIComponent(op.companyId)}/field-operations/export`, {
      method: 'POST',
      body: JSON.stringify({ format: 'geojson', fieldOpIds: [op.fieldOpId] }),
    });
    if (picker.value !== id) return; // another one was picked meanwhile
    if (!res.ok) {
      source.setData(empty as never);
      figures.textContent = `The coverage could not be loaded: ${await deps.errorText(res)}`;
      return;
    }
    source.setData((await res.json()) as never);
    figures.textContent = operationFiguresText(op);
    figures.dataset.coveredPercent = String(op.coveredPercent);
    addLegendRow();
    if (legendRow) legendRow.hidden = false;
  };
  picker.addEventListener('change', () => void show(picker.value));

  return {
    async load(fieldId: string) {
      const res = await deps.api(`/api/fields/${encodeURIComponent(fieldId)}/operations?limit=100`);
      if (!res.ok) return;
      items = ((await res.json()) as { items: FieldOperationItem[] }).items;
      if (!items.length) return;
      picker.replaceChildren(
        ...items.map((o) => new Option(operationLabel(o), o.fieldOpId)),
        new Option('None', ''),
      );
      picker.value = items[0]!.fieldOpId;
      $('operations').hidden = false;
      await show(picker.value);
    },
  };
}
