/**
 * The planning view (/path-planning/boundary/{boundaryId}): loads the field,
 * plans it at once in a web worker with the same core/ as the server, draws
 * the plan with MapLibre and follows every change of the tuning form. The
 * session is an HttpOnly cookie; no key ever reaches the browser.
 */
import maplibregl, { type GeoJSONSource, type MapGeoJSONFeature, type StyleSpecification } from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import './style.css';
import type { PlanFeatureCollection } from '../../formats/plan-geojson.ts';
import type {
  GeometryGroupModel,
  PathPlanNormalizedModel,
  PathPlanZoneModel,
} from '../../formats/plan-model.ts';
import { createEmbedding } from './embed.ts';
import { bestEdges, boundsOf, type Edge, obstaclesOf, type Position, pointAlong, routeOf } from './geo.ts';
import { activeGroup, modelToFeatures } from './model.ts';
import { createOperationsPanel } from './operations.ts';
import type { PlanJob, Tuning, WorkerAnswer } from './protocol.ts';
import { createScenarioPanel } from './scenarios.ts';
import { formatStat, STATS, type Stats, ZONE_STATS } from './stats.ts';
import { createStoredPlans } from './stored.ts';
import { addSlopeShading, groundSlopeAt, partSlopeText } from './terrain.ts';
import {
  addWheelTrafficLayer,
  clearWheelTraffic,
  PASS_COLOURS,
  showWheelTraffic,
  WHEEL_TRAFFIC_LAYER,
  WHEEL_TRAFFIC_LINE_LAYER,
} from './wheel-traffic.ts';

export interface ViewConfig {
  /** 'field': the planning view of a boundary; 'shared': a plan opened by share code (read only, no session). */
  mode: 'field' | 'shared';
  boundaryId: string;
  share: { code: string; pathPlanId: string } | null;
  basemapUrl: string | null;
  basemapAttribution: string | null;
  allowedOrigins: string[];
  routeAlgorithms: string[];
  exportFormats: { value: string; label: string }[];
  user: { userId: string } | null;
}

const config: ViewConfig = JSON.parse(document.getElementById('tramline-config')?.textContent ?? '{}');
const params = new URLSearchParams(location.search);
const embedded = params.get('embedded') === 'true';
const chrome = !(embedded && params.get('chrome') === 'false');
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const embed = createEmbedding(embedded, config.allowedOrigins, (t) => applyTuning(t));

// ---------------------------------------------------------------- chrome

if (chrome) {
  const header = document.createElement('header');
  header.className = 'topbar';
  const shared = config.mode === 'shared';
  header.innerHTML = `<a class="brand" href="/docs">Tramline</a><span class="field-name" id="field-name"></span>
    <nav aria-label="Main">${shared ? '' : '<a href="#plans" id="nav-plans">Plans of this field</a>'}<a href="/docs">API</a>
    ${shared ? '<a href="/login">Sign in</a>' : '<button type="button" id="logout" class="link">Sign out</button>'}</nav>`;
  document.body.prepend(header);
  document.getElementById('logout')?.addEventListener('click', async () => {
    await fetch('/logout', { method: 'POST', credentials: 'same-origin' });
    location.assign(`/login?returnUrl=${encodeURIComponent(location.pathname + location.search)}`);
  });
} else document.body.classList.add('embedded');

// ---------------------------------------------------------------- status

function setStatus(text: string, kind: 'info' | 'error' = 'info'): void {
  const el = $('status');
  el.textContent = text;
  el.dataset.kind = kind;
}

export async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(path, {
    ...init,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
  });
  if (res.status === 401) {
    embed.post('tramline:auth-required', { boundaryId: config.boundaryId });
    if (!embedded)
      location.assign(`/login?returnUrl=${encodeURIComponent(location.pathname + location.search)}`);
    throw new Error('Your session has ended; sign in again.');
  }
  return res;
}

export async function errorText(res: Response): Promise<string> {
  try {
    const b = (await res.json()) as { message?: string; errorCode?: string };
    return b.message ?? `${res.status} ${b.errorCode ?? ''}`;
  } catch {
    return `${res.status} ${res.statusText}`;
  }
}

// The field is fetched at once, while the map and the worker start.
const boundaryResponse =
  config.mode === 'shared' && config.share
    ? api(
        `/api/shares/${encodeURIComponent(config.share.code)}/path-plans-normalized/${encodeURIComponent(config.share.pathPlanId)}`,
      )
    : api(`/api/boundaries/${encodeURIComponent(config.boundaryId)}/geojson`);

// ---------------------------------------------------------------- tuning form

const form = $<HTMLFormElement>('tuning-form');
const algorithmSelect = $<HTMLSelectElement>('algorithm');
const ALGORITHM_LABELS: Record<string, string> = {
  auto: 'Automatic (shortest turns)',
  boustrophedon: 'Back and forth',
  snake: 'Every other line',
  clusteredSpiral: 'Clustered spiral',
  optimized: 'Optimized',
};
for (const a of config.routeAlgorithms) algorithmSelect.add(new Option(ALGORITHM_LABELS[a] ?? a, a));

const num = (id: string): number | null => {
  const v = $<HTMLInputElement>(id).value.trim();
  if (v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

function readTuning(): Tuning {
  return {
    swathWidth: num('swathWidthNumber') ?? 12,
    exteriorHeadlandPasses: Math.max(0, Math.round(num('exteriorHeadlandPasses') ?? 0)),
    interiorHeadlandPasses: Math.max(0, Math.round(num('interiorHeadlandPasses') ?? 0)),
    bearingDeg: num('bearing'),
    trackType: $<HTMLSelectElement>('trackType').value as Tuning['trackType'],
    algorithm: algorithmSelect.value,
    skipCount: num('skipCount'),
    objective: $<HTMLSelectElement>('objective').value as Tuning['objective'],
    minTurningRadius: num('minTurningRadius') ?? 6,
    startPointNodeIndex: num('startNode'),
    endPointNodeIndex: num('endNode'),
  };
}

const setValue = (id: string, v: number | string | null | undefined) => {
  $<HTMLInputElement>(id).value = v === null || v === undefined ? '' : String(v);
};

/** Sets the form from a (partial) tuning and replans. */
function applyTuning(t: Partial<Tuning>): void {
  if (t.swathWidth !== undefined) {
    setValue('swathWidthNumber', t.swathWidth);
    setValue('swathWidth', t.swathWidth);
  }
  if (t.exteriorHeadlandPasses !== undefined) setValue('exteriorHeadlandPasses', t.exteriorHeadlandPasses);
  if (t.interiorHeadlandPasses !== undefined) setValue('interiorHeadlandPasses', t.interiorHeadlandPasses);
  if (t.bearingDeg !== undefined) setValue('bearing', t.bearingDeg);
  if (t.trackType !== undefined) setValue('trackType', t.trackType);
  if (t.algorithm !== undefined && config.routeAlgorithms.includes(t.algorithm))
    setValue('algorithm', t.algorithm);
  if (t.skipCount !== undefined) setValue('skipCount', t.skipCount);
  if (t.objective !== undefined) setValue('objective', t.objective);
  if (t.minTurningRadius !== undefined) setValue('minTurningRadius', t.minTurningRadius);
  if (t.startPointNodeIndex !== undefined) setValue('startNode', t.startPointNodeIndex);
  if (t.endPointNodeIndex !== undefined) setValue('endNode', t.endPointNodeIndex);
  syncRows();
  replan();
}

function syncRows(): void {
  $('skipCount-row').hidden = algorithmSelect.value !== 'clusteredSpiral';
  $('objective-row').hidden = algorithmSelect.value !== 'optimized';
  // A direction is for straight tracks: curved ones follow the field edge, a spiral its outline.
  const straight = $<HTMLSelectElement>('trackType').value === 'Straight';
  $<HTMLInputElement>('bearing').disabled = !straight;
  $<HTMLButtonElement>('bearing-auto').disabled = !straight;
}

$('swathWidth').addEventListener('input', () => {
  setValue('swathWidthNumber', $<HTMLInputElement>('swathWidth').value);
});
$('swathWidthNumber').addEventListener('input', () => {
  setValue('swathWidth', $<HTMLInputElement>('swathWidthNumber').value);
});
form.addEventListener('input', () => {
  syncRows();
  replan();
});
form.addEventListener('change', () => {
  syncRows();
  replan();
});
form.addEventListener('submit', (e) => e.preventDefault());
$('bearing-auto').addEventListener('click', () => applyTuning({ bearingDeg: null }));

// ---------------------------------------------------------------- planner worker

const worker = new Worker(new URL('./plan.worker.ts', import.meta.url), { type: 'module' });
let boundary: unknown = null;
let jobId = 0;
/** performance.now() of the last change, per job id, to measure preview latency. */
const changedAt = new Map<number, number>();
let current: { geojson: PlanFeatureCollection; tuning: Tuning } | null = null;
let firstDrawn = false;

function replan(): void {
  if (!boundary) return;
  const job: PlanJob = { id: ++jobId, boundary, tuning: readTuning() };
  changedAt.set(job.id, performance.now());
  // A preview is not a stored plan: no wheel tracks to show.
  mapReady.then(() => clearWheelTraffic(map));
  worker.postMessage(job);
  $('map').setAttribute('aria-busy', 'true');
}

/** Normalized models asked of the worker (to store a plan), by job id. */
const modelWaiters = new Map<
  number,
  { resolve: (m: PathPlanNormalizedModel) => void; reject: (e: Error) => void }
>();
let modelJobId = 1_000_000_000;

/** The normalized model (spec 2.4) of the settings on screen, planned in the worker. */
export function modelOf(meta: {
  pathPlanId: string;
  pathPlanName: string;
}): Promise<PathPlanNormalizedModel> {
  const id = ++modelJobId;
  return new Promise((resolve, reject) => {
    modelWaiters.set(id, { resolve, reject });
    const job: PlanJob = {
      id,
      boundary,
      tuning: readTuning(),
      model: { ...meta, createdAt: new Date().toISOString() },
    };
    worker.postMessage(job);
  });
}

worker.onmessage = (ev: MessageEvent<WorkerAnswer>) => {
  const a = ev.data;
  const waiter = modelWaiters.get(a.id);
  if (waiter) {
    modelWaiters.delete(a.id);
    if (!a.ok) waiter.reject(new Error(a.message));
    else if ('model' in a) waiter.resolve(a.model);
    return;
  }
  if (a.ok && !('geojson' in a)) return;
  const started = changedAt.get(a.id);
  changedAt.delete(a.id);
  if (a.id !== jobId) return; // a newer change is on its way
  $('map').removeAttribute('aria-busy');
  if (!a.ok) {
    setStatus(a.message, 'error');
    embed.post('tramline:error', { errorCode: a.code, message: a.message });
    return;
  }
  current = { geojson: a.geojson, tuning: readTuning() };
  const answered = performance.now();
  if (!firstDrawn) $('map').dataset.firstPlanOnPageMs = String(Math.round(answered));
  const first = !previewed;
  previewed = true;
  draw(a.geojson, () => {
    const now = performance.now();
    const mapEl = $('map');
    mapEl.dataset.previewMs = String(Math.round(now - (started ?? now)));
    mapEl.dataset.planMs = String(Math.round(a.ms));
    mapEl.dataset.answerMs = String(Math.round(answered - (started ?? answered)));
    if (!markDrawn(planStats(a.geojson)))
      embed.post('tramline:plan-changed', { tuning: current?.tuning, stats: planStats(a.geojson) });
    mapEl.dataset.planVersion = String(a.id);
  });
  // What the planner did instead of what was asked (a track type it fell back from) comes first.
  const warnings = (a.geojson.features as { properties?: { featureType?: string; warnings?: string[] } }[])
    .filter((f) => f.properties?.featureType === 'zoneStatistics')
    .flatMap((f) => f.properties?.warnings ?? []);
  const notes = [...new Set(warnings)].concat(a.repairs);
  setStatus(notes.length ? `Plan ready (${notes.join('; ')})` : `Plan ready in ${Math.round(a.ms)} ms.`);
  stored.onPreview();
  showFigures(
    planStats(a.geojson),
    zoneStats(a.geojson),
    first && config.mode === 'field'
      ? 'Default plan of this field, computed here (not saved)'
      : 'Preview of the settings on the left (not saved)',
  );
};

let previewed = false;

/** The first plan on screen: mark the map and tell the embedding page. Answers whether this was the first. */
function markDrawn(stats: Stats): boolean {
  if (firstDrawn) return false;
  firstDrawn = true;
  const mapEl = $('map');
  // performance.now() counts from the start of the navigation to this page.
  mapEl.dataset.timeToPlanMs = String(Math.round(performance.now()));
  mapEl.setAttribute('data-plan-drawn', '');
  embed.post('tramline:plan-drawn', { boundaryId: config.boundaryId, stats });
  return true;
}

let storedShown = 0;

/** Shows a stored plan (one geometry group per zone: the active ones unless `pick` says otherwise). */
export function showModel(
  m: PathPlanNormalizedModel,
  label: string,
  pick?: (z: PathPlanZoneModel) => GeometryGroupModel,
): void {
  jobId++; // a preview still on its way is outdated now
  const fc = modelToFeatures(m, pick);
  const zones = zoneStats(fc);
  const stats = pick ? sumZoneStats(zones, m.stats) : (m.stats as unknown as Stats);
  draw(fc, () => {
    markDrawn(stats);
    $('map').dataset.planVersion = `stored-${++storedShown}`;
  });
  showFigures(stats, zones, label);
  // The wheel tracks of a stored plan (a shared plan's reader has no key for them).
  mapReady.then(() => {
    clearWheelTraffic(map);
    if (config.mode !== 'shared' && m.pathPlanId)
      void showWheelTraffic(map, api, m.pathPlanId).catch(() => {});
  });
  // The settings of the variant on screen: its tracks carry their width, the plan its machine.
  const g = m.zones[0] ? (pick ?? activeGroup)(m.zones[0]) : undefined;
  const width = g?.geometryParts.find((p) => p.trackDetail)?.trackDetail?.width ?? m.equipment.swathWidth;
  setValue('swathWidthNumber', width);
  setValue('swathWidth', width);
  setValue('minTurningRadius', m.equipment.minTurningRadius);
  if (g && g.stats.trackCount > 0) setValue('bearing', Math.round(g.trackBearing * 10) / 10);
}

/** Plan figures as the sum of zone figures (for a variant that is not the active one). */
function sumZoneStats(zones: Stats[], like: object): Stats {
  const out: Stats = {};
  for (const k of Object.keys(like))
    out[k] = zones.reduce((a, z) => a + (typeof z[k] === 'number' ? z[k] : 0), 0);
  return out;
}
worker.onerror = (e) => setStatus(`The planner stopped: ${e.message}`, 'error');

// ---------------------------------------------------------------- figures

export function planStats(fc: PlanFeatureCollection): Stats {
  const f = fc.features.find((x) => x.properties.featureType === 'pathPlanStatistics');
  return (f?.properties ?? {}) as unknown as Stats;
}

export function zoneStats(fc: PlanFeatureCollection): Stats[] {
  return fc.features
    .filter((x) => x.properties.featureType === 'zoneStatistics')
    .map((x) => x.properties as unknown as Stats);
}

function statList(el: HTMLElement, stats: Stats, keys?: string[]): void {
  el.replaceChildren();
  for (const def of STATS) {
    if (keys && !keys.includes(def.key)) continue;
    if (typeof stats[def.key] !== 'number') continue;
    const dt = document.createElement('dt');
    dt.textContent = def.label;
    const dd = document.createElement('dd');
    dd.dataset.stat = def.key;
    dd.dataset.value = String(stats[def.key]);
    dd.textContent = formatStat(def, stats);
    el.append(dt, dd);
  }
}

export function showFigures(stats: Stats, zones: Stats[], source: string): void {
  $('plan-source').textContent = source;
  statList($('plan-stats'), stats);
  const box = $('zone-stats');
  box.replaceChildren();
  zones.forEach((z, i) => {
    const d = document.createElement('details');
    d.open = zones.length <= 3;
    const s = document.createElement('summary');
    s.textContent = `Zone ${i + 1}`;
    const dl = document.createElement('dl');
    dl.className = 'stats';
    dl.dataset.scope = 'zone';
    dl.dataset.zoneIndex = String(i);
    statList(dl, z, ZONE_STATS);
    d.append(s, dl);
    box.append(d);
  });
}

// ---------------------------------------------------------------- map

document.getElementById('map')!.dataset.scriptStartMs = String(Math.round(performance.now()));
const style: StyleSpecification = {
  version: 8,
  sources: config.basemapUrl
    ? {
        basemap: {
          type: 'raster',
          tiles: [config.basemapUrl],
          tileSize: 256,
          maxzoom: 19,
          attribution: config.basemapAttribution ?? '',
        },
      }
    : {},
  layers: [
    { id: 'background', type: 'background', paint: { 'background-color': '#eef0ea' } },
    ...(config.basemapUrl ? [{ id: 'basemap', type: 'raster' as const, source: 'basemap' }] : []),
  ],
};

const map = new maplibregl.Map({
  container: 'map',
  style,
  center: [10, 51],
  zoom: 4,
  attributionControl: config.basemapUrl ? { compact: true } : false,
  fadeDuration: 0,
});
map.addControl(new maplibregl.NavigationControl({ showCompass: true }), 'top-right');
// The map object on its container, for the browser tests to read its style and features.
Object.defineProperty($('map'), 'maplibre', { value: map });
map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-right');

const empty: PlanFeatureCollection = {
  type: 'FeatureCollection',
  properties: { pathPlanId: '', pathPlanName: '' },
  features: [],
};
const mapReady = new Promise<void>((resolve) => map.on('load', () => resolve()));

interface LayerGroup {
  id: string;
  label: string;
  layers: string[];
  color: string;
}
const GROUPS: LayerGroup[] = [
  { id: 'field', label: 'Field and zones', layers: ['field-fill', 'zone-line'], color: '#6b8e23' },
  { id: 'obstacles', label: 'Obstacles', layers: ['obstacle-fill', 'obstacle-line'], color: '#8d6e63' },
  { id: 'headlands', label: 'Headlands', layers: ['headland-line'], color: '#b26a00' },
  { id: 'tracks', label: 'Tracks', layers: ['track-line'], color: '#1565c0' },
  { id: 'turns', label: 'Turns and connectors', layers: ['turn-line', 'connector-line'], color: '#d81b60' },
  { id: 'route', label: 'Route progress', layers: ['driven-line', 'vehicle'], color: '#111' },
  { id: 'edges', label: 'Longest edges', layers: ['edge-line'], color: '#00897b' },
  {
    id: 'wheels',
    label: 'Wheel traffic (1, 2, 3+ passes)',
    layers: [WHEEL_TRAFFIC_LAYER, WHEEL_TRAFFIC_LINE_LAYER],
    color: `linear-gradient(90deg, ${PASS_COLOURS[1]}, ${PASS_COLOURS[2]}, ${PASS_COLOURS[3]})`,
  },
];
const HOVER_LAYERS = [
  'headland-line',
  'track-line',
  'turn-line',
  'connector-line',
  'obstacle-fill',
  'edge-line',
  'field-fill',
];

mapReady.then(() => {
  map.addSource('plan', { type: 'geojson', data: empty as never });
  map.addSource('obstacles', { type: 'geojson', data: empty as never });
  map.addSource('edges', { type: 'geojson', data: empty as never });
  map.addSource('driven', { type: 'geojson', data: empty as never });
  map.addSource('vehicle', { type: 'geojson', data: empty as never });
  const part = (t: string[]) => [
    'all',
    ['==', ['get', 'featureType'], 'geometryPart'],
    ['in', ['get', 'geometryPartType'], ['literal', t]],
  ];
  map.addLayer({
    id: 'field-fill',
    type: 'fill',
    source: 'plan',
    filter: ['==', ['get', 'featureType'], 'zoneBoundary'],
    paint: { 'fill-color': '#a5d6a7', 'fill-opacity': 0.35 },
  });
  map.addLayer({
    id: 'zone-line',
    type: 'line',
    source: 'plan',
    filter: ['==', ['get', 'featureType'], 'zoneBoundary'],
    paint: { 'line-color': '#33691e', 'line-width': 2 },
  });
  map.addLayer({
    id: 'obstacle-fill',
    type: 'fill',
    source: 'obstacles',
    paint: { 'fill-color': '#8d6e63', 'fill-opacity': 0.55 },
  });
  map.addLayer({
    id: 'obstacle-line',
    type: 'line',
    source: 'obstacles',
    paint: { 'line-color': '#4e342e', 'line-width': 1.5 },
  });
  addWheelTrafficLayer(map);
  map.addLayer({
    id: 'headland-line',
    type: 'line',
    source: 'plan',
    filter: part(['ExteriorHeadlandPass', 'InteriorHeadlandPass']) as never,
    paint: { 'line-color': '#b26a00', 'line-width': 2 },
  });
  map.addLayer({
    id: 'track-line',
    type: 'line',
    source: 'plan',
    filter: part(['RouteTrack', 'GuidanceTrack']) as never,
    paint: { 'line-color': '#1565c0', 'line-width': 1.4 },
  });
  map.addLayer({
    id: 'turn-line',
    type: 'line',
    source: 'plan',
    filter: part(['Turn', 'HeadlandTurn']) as never,
    paint: { 'line-color': '#d81b60', 'line-width': 1.4 },
  });
  map.addLayer({
    id: 'connector-line',
    type: 'line',
    source: 'plan',
    filter: part(['HeadlandConnector', 'Connector']) as never,
    paint: { 'line-color': '#6a1b9a', 'line-width': 1.6, 'line-dasharray': [2, 1.5] },
  });
  map.addLayer({
    id: 'edge-line',
    type: 'line',
    source: 'edges',
    paint: { 'line-color': '#00897b', 'line-width': 6, 'line-opacity': 0.55 },
  });
  map.addLayer({
    id: 'driven-line',
    type: 'line',
    source: 'driven',
    paint: { 'line-color': '#111', 'line-width': 3, 'line-opacity': 0.7 },
  });
  map.addLayer({
    id: 'vehicle',
    type: 'circle',
    source: 'vehicle',
    paint: {
      'circle-radius': 7,
      'circle-color': '#ffeb3b',
      'circle-stroke-color': '#111',
      'circle-stroke-width': 2,
    },
  });
  map.addLayer({
    id: 'route-ends',
    type: 'circle',
    source: 'plan',
    filter: ['in', ['get', 'featureType'], ['literal', ['routeStartPoint', 'routeEndPoint']]],
    paint: {
      'circle-radius': 6,
      'circle-color': ['match', ['get', 'featureType'], 'routeStartPoint', '#2e7d32', '#c62828'],
      'circle-stroke-color': '#fff',
      'circle-stroke-width': 2,
    },
  });
});
buildLegend();

function buildLegend(): void {
  const legend = $('legend');
  for (const g of GROUPS) {
    const id = `layer-${g.id}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.innerHTML = `<input type="checkbox" id="${id}" checked /><span class="swatch" style="background:${g.color}"></span>${g.label}`;
    legend.append(label);
    label.querySelector('input')!.addEventListener('change', (e) => {
      const on = (e.target as HTMLInputElement).checked;
      mapReady.then(() => {
        for (const l of g.layers) map.setLayoutProperty(l, 'visibility', on ? 'visible' : 'none');
      });
    });
  }
}

let fitted = false;

/** Room around the field for the layer list (top left) and the route player (bottom), as far as the map allows. */
function fieldPadding(): { top: number; right: number; bottom: number; left: number } {
  const w = $('map').clientWidth;
  const h = $('map').clientHeight;
  const legend = $('legend').offsetWidth + 20;
  return {
    top: 30,
    right: 60,
    bottom: Math.min(90, h / 4),
    left: w > legend * 2.5 ? legend : 30,
  };
}

/** Frames the field once, as soon as it is known, so the plan is tiled only at the zoom it is shown at. */
function fitField(): void {
  if (fitted || !boundary) return;
  const b = boundsOf(boundary);
  if (b) map.fitBounds(b, { padding: fieldPadding(), duration: 0 });
  fitted = true;
}
let route = { coords: [] as Position[], cum: [] as number[] };

function draw(fc: PlanFeatureCollection, onDrawn: () => void): void {
  mapReady.then(() => {
    (map.getSource('plan') as GeoJSONSource).setData(fc as never);
    (map.getSource('obstacles') as GeoJSONSource).setData({
      type: 'FeatureCollection',
      features: obstaclesOf(fc),
    } as never);
    route = routeOf(fc);
    setPlayhead(playT);
    fitField();
    // Drawn: the first frame rendered after the plan source has loaded the new data.
    let loaded = false;
    const onData = (e: { sourceId?: string }) => {
      if (e.sourceId === 'plan' && map.isSourceLoaded('plan')) loaded = true;
    };
    const onRender = () => {
      if (!loaded) return;
      map.off('sourcedata', onData);
      map.off('render', onRender);
      onDrawn();
    };
    map.on('sourcedata', onData);
    map.on('render', onRender);
    map.triggerRepaint();
  });
}

// ---------------------------------------------------------------- hover

const tooltip = $('tooltip');
const TYPE_TEXT: Record<string, string> = {
  GuidanceTrack: 'Guidance track',
  RouteTrack: 'Track',
  ExteriorHeadlandPass: 'Headland pass',
  InteriorHeadlandPass: 'Headland pass around an obstacle',
  Turn: 'Turn',
  HeadlandTurn: 'Turn onto the headland',
  HeadlandConnector: 'Connector along the headland',
  Connector: 'Connector',
};

export function describe(
  f: MapGeoJSONFeature | { properties: Record<string, unknown>; layer?: { id: string } },
): string {
  const p = f.properties as Record<string, unknown>;
  const len = typeof p.length === 'number' ? ` · ${Math.round(p.length)} m` : '';
  if (f.layer?.id === 'edge-line')
    return `Field edge · ${Math.round(Number(p.length))} m · ${p.bearingDeg}° — click to drive along it`;
  if (p.obstacle)
    return `Obstacle ${Number(p.obstacleIndex) + 1} in zone ${Number(p.zoneIndex) + 1} (not worked)`;
  if (p.featureType === 'zoneBoundary') return `Zone ${Number(p.zoneIndex) + 1} of the field`;
  const type = TYPE_TEXT[String(p.geometryPartType)] ?? String(p.geometryPartType);
  const bits = [type];
  if (typeof p.trackIndex === 'number') bits[0] = `${type} ${p.trackIndex + 1}`;
  if (typeof p.passNumber === 'number') bits[0] = `${type} ${p.passNumber}`;
  if (typeof p.bearing === 'number') bits.push(`${Math.round(p.bearing)}°`);
  if (p.direction) bits.push(String(p.direction));
  if (p.turnKind) bits.push(String(p.turnKind));
  if (typeof p.sequence === 'number')
    bits.push(`step ${p.sequence + 1} of the route${p.reverse ? ', reversing' : ''}`);
  return `${bits.join(' · ')}${len} · zone ${Number(p.zoneIndex) + 1}`;
}

map.on('mousemove', (e) => {
  const layers = HOVER_LAYERS.filter((l) => map.getLayer(l));
  const hits = map.queryRenderedFeatures(
    [
      [e.point.x - 4, e.point.y - 4],
      [e.point.x + 4, e.point.y + 4],
    ],
    { layers },
  );
  const f = hits[0];
  map.getCanvas().style.cursor = f?.layer.id === 'edge-line' ? 'pointer' : '';
  const ground = groundSlopeAt(map, e.point);
  if (!f && !ground) {
    tooltip.hidden = true;
    return;
  }
  const own = f ? partSlopeText(f.properties as Record<string, unknown>) : '';
  tooltip.textContent = [f ? describe(f) : 'Field', own || ground].filter(Boolean).join(' · ');
  tooltip.style.left = `${e.point.x + 14}px`;
  tooltip.style.top = `${e.point.y + 14}px`;
  tooltip.hidden = false;
});
map.on('mouseout', () => {
  tooltip.hidden = true;
});
map.on('click', 'edge-line', (e) => {
  const f = e.features?.[0];
  if (f) applyTuning({ bearingDeg: Number(f.properties.bearingDeg) });
});

// ---------------------------------------------------------------- best edges

function showEdges(edges: Edge[]): void {
  const box = $('edges');
  box.replaceChildren();
  edges.forEach((e, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'edge';
    b.textContent = `${e.bearingDeg}° · ${Math.round(e.length)} m`;
    b.setAttribute(
      'aria-label',
      `Drive along edge ${i + 1}: ${e.bearingDeg} degrees, ${Math.round(e.length)} metres long`,
    );
    b.addEventListener('click', () => applyTuning({ bearingDeg: e.bearingDeg }));
    box.append(b);
  });
  mapReady.then(() =>
    (map.getSource('edges') as GeoJSONSource).setData({
      type: 'FeatureCollection',
      features: edges.map((e, i) => ({
        type: 'Feature',
        id: i,
        geometry: { type: 'LineString', coordinates: [e.from, e.to] },
        properties: { length: e.length, bearingDeg: e.bearingDeg },
      })),
    } as never),
  );
}

// ---------------------------------------------------------------- route playback

const playBtn = $<HTMLButtonElement>('play');
const progress = $<HTMLInputElement>('progress');
let playing = false;
let lastFrame = 0;
/** Playhead as a share of the route (0..1), kept exactly: the slider holds it rounded to 1/1000. */
let playT = 0;

function setPlayhead(t: number): void {
  if (!map.getSource('vehicle')) return;
  const total = route.cum[route.cum.length - 1] ?? 0;
  const along = total * Math.min(1, Math.max(0, t));
  const { p, i } = pointAlong(route.coords, route.cum, along);
  (map.getSource('vehicle') as GeoJSONSource).setData({
    type: 'FeatureCollection',
    features: route.coords.length
      ? [{ type: 'Feature', geometry: { type: 'Point', coordinates: p }, properties: {} }]
      : [],
  } as never);
  (map.getSource('driven') as GeoJSONSource).setData({
    type: 'FeatureCollection',
    features:
      route.coords.length && t > 0
        ? [
            {
              type: 'Feature',
              geometry: { type: 'LineString', coordinates: [...route.coords.slice(0, i + 1), p] },
              properties: {},
            },
          ]
        : [],
  } as never);
  $('play-label').textContent = total ? `${(along / 1000).toFixed(2)} / ${(total / 1000).toFixed(2)} km` : '';
}

function frame(now: number): void {
  if (!playing) return;
  const total = route.cum[route.cum.length - 1] ?? 0;
  const speed = Number($<HTMLSelectElement>('play-speed').value) * 2.5; // m/s of the machine x playback factor
  const dt = lastFrame ? (now - lastFrame) / 1000 : 0;
  lastFrame = now;
  // A frame may move the machine less than a thousandth of a long route: advance the exact
  // playhead, not the rounded slider value, or playback would stand still.
  playT += total > 0 ? (speed * dt) / total : 1;
  if (playT >= 1) {
    playT = 1;
    setPlaying(false);
  }
  progress.value = String(Math.round(playT * 1000));
  setPlayhead(playT);
  if (playing) requestAnimationFrame(frame);
}

function setPlaying(on: boolean): void {
  playing = on;
  playBtn.setAttribute('aria-pressed', String(on));
  playBtn.setAttribute('aria-label', on ? 'Pause the route' : 'Play the route');
  playBtn.textContent = on ? '❚❚' : '▶';
  if (on) {
    if (playT >= 1) {
      playT = 0;
      progress.value = '0';
    }
    lastFrame = 0;
    requestAnimationFrame(frame);
  }
}
playBtn.addEventListener('click', () => setPlaying(!playing));
progress.addEventListener('input', () => {
  playT = Number(progress.value) / 1000;
  setPlayhead(playT);
});

// ---------------------------------------------------------------- start

const stored = createStoredPlans({
  boundaryId: config.boundaryId,
  fieldId: () => (boundary as { properties?: { fieldId?: string } } | null)?.properties?.fieldId,
  exportFormats: config.exportFormats,
  api,
  errorText,
  setStatus,
  readOnly: config.mode === 'shared',
  showModel,
  modelOf,
  post: embed.post,
});
embed.onSave((name) => stored.save(name, false));

async function start(): Promise<void> {
  setStatus('Loading the field…');
  const res = await boundaryResponse;
  if (!res.ok) {
    setStatus(`The field could not be loaded: ${await errorText(res)}`, 'error');
    embed.post('tramline:error', { errorCode: 'BOUNDARY_NOT_LOADED', message: `HTTP ${res.status}` });
    return;
  }
  const body = await res.json();
  const sharedModel = config.mode === 'shared' ? (body as PathPlanNormalizedModel) : null;
  boundary = sharedModel
    ? { type: 'Feature', properties: { name: sharedModel.pathPlanName }, geometry: sharedModel.boundary }
    : body;
  $('map').dataset.fieldLoadedMs = String(Math.round(performance.now()));
  const props = (boundary as { properties?: { name?: string | null; fieldName?: string } })?.properties;
  const fieldName = props?.fieldName ?? props?.name ?? undefined;
  if (fieldName && chrome) $('field-name').textContent = fieldName;
  if (fieldName) document.title = `${fieldName} · Tramline`;
  fitField();
  showEdges(bestEdges(boundary));
  syncRows();
  if (sharedModel) {
    showModel(
      sharedModel,
      `Shared plan «${sharedModel.pathPlanName}» (read only; changes here are only a preview)`,
    );
    embed.post('tramline:ready', { pathPlanId: sharedModel.pathPlanId });
    await stored.load();
    return;
  }
  // Plan the defaults at once; the field's active stored plan, when there is one, replaces them.
  replan();
  // Shaded by slope where an elevation model covers the field (nothing otherwise).
  addSlopeShading({
    map,
    mapReady,
    api,
    boundaryId: config.boundaryId,
    // Over the field's fill, under everything else (the wheel tracks stay visible on it).
    beforeLayer: 'zone-line',
    legend: $('legend'),
  }).catch(() => {});
  void createScenarioPanel({ api, errorText })
    .load()
    .catch(() => {});
  // The covered ground of the field's operations over the plan (nothing without operations).
  const fieldId = (boundary as { properties?: { fieldId?: string } }).properties?.fieldId;
  if (fieldId)
    void createOperationsPanel({
      map,
      mapReady,
      api,
      errorText,
      legend: $('legend'),
      beforeLayer: 'obstacle-fill',
    })
      .load(fieldId)
      .catch(() => {});
  embed.post('tramline:ready', { boundaryId: config.boundaryId });
  await stored.load().catch((e) => setStatus(String((e as Error).message), 'error'));
}

start().catch((e) => setStatus(String((e as Error).message ?? e), 'error'));
