/**
 * The machine comparison of the planning view: the company's equipment
 * scenario sets (GET /api/equipment-scenarios/enterprise-company), and for
 * the one picked its scenarios side by side (GET
 * /api/equipment-scenarios/{id}) as a table and as bar charts of cost per
 * hectare, hours, fuel, emissions and trafficked share, one chart a figure.
 * The view only reads: sets are made through the API.
 */

export interface ScenarioTotals {
  areaHa: number;
  totalHours: number;
  fuelLitres: number;
  ghgKgCo2e: number;
  costTotal: number;
  costPerHa: number;
  traffickedAreaPercent: number;
  [k: string]: number;
}

export interface ScenarioSetView {
  equipmentScenarioId: string;
  name: string;
  status: string;
  scenarios: { name: string; totals: ScenarioTotals; fields: { figures: unknown }[] }[];
}

export interface ScenarioMetric {
  key: keyof ScenarioTotals & string;
  label: string;
  /** The table's column head (the panel is narrow); the label is its tooltip. */
  short: string;
  /** The table's unit under the head. */
  shortUnit: string;
  unit: string;
  digits: number;
}

/** The figures compared, in the order shown; lower is better for every one. */
export const SCENARIO_METRICS: ScenarioMetric[] = [
  { key: 'costPerHa', label: 'Cost per ha', short: 'Cost', shortUnit: '/ha', unit: '/ha', digits: 2 },
  { key: 'totalHours', label: 'Hours', short: 'Hours', shortUnit: 'h', unit: 'h', digits: 1 },
  { key: 'fuelLitres', label: 'Fuel', short: 'Fuel', shortUnit: 'l', unit: 'l', digits: 0 },
  { key: 'ghgKgCo2e', label: 'Emissions', short: 'CO₂e', shortUnit: 'kg', unit: 'kg CO₂e', digits: 0 },
  {
    key: 'traffickedAreaPercent',
    label: 'Trafficked',
    short: 'Trafficked',
    shortUnit: '%',
    unit: '%',
    digits: 1,
  },
];

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

const fmt = (v: number, digits: number) =>
  Number.isFinite(v)
    ? v.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';

/** The comparison table: a row a scenario, a column a figure; the best value of each column marked. */
export function comparisonTableHtml(set: ScenarioSetView): string {
  const best = SCENARIO_METRICS.map((m) =>
    Math.min(...set.scenarios.map((s) => s.totals[m.key] ?? Infinity)),
  );
  const head = SCENARIO_METRICS.map(
    (m) =>
      `<th scope="col" title="${escapeHtml(`${m.label} [${m.unit}]`)}">${escapeHtml(m.short)}<small>${escapeHtml(m.shortUnit)}</small></th>`,
  ).join('');
  const rows = set.scenarios
    .map((s) => {
      const planned = s.fields.filter((f) => f.figures).length;
      const cells = SCENARIO_METRICS.map((m, i) => {
        const v = s.totals[m.key] ?? Number.NaN;
        return `<td data-metric="${m.key}" data-value="${v}"${v === best[i] ? ' class="best"' : ''}>${fmt(v, m.digits)}</td>`;
      }).join('');
      return `<tr><th scope="row">${escapeHtml(s.name)}<small>${planned}/${s.fields.length} fields</small></th>${cells}</tr>`;
    })
    .join('');
  return `<table class="compare-table scenario-table"><thead><tr><th scope="col">Machine</th>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** One horizontal bar chart (SVG) of a figure over the scenarios, bars scaled to the largest value. */
export function barChartSvg(set: ScenarioSetView, m: ScenarioMetric, width = 300): string {
  const bar = 16;
  const gap = 6;
  const labelW = 110;
  const values = set.scenarios.map((s) => s.totals[m.key] ?? 0);
  const max = Math.max(...values, 1e-9);
  const height = set.scenarios.length * (bar + gap) + 18;
  const bars = set.scenarios
    .map((s, i) => {
      const y = 18 + i * (bar + gap);
      const w = Math.max(0, ((width - labelW - 70) * values[i]) / max);
      return `<text x="0" y="${y + 12}" class="bar-label">${escapeHtml(s.name.slice(0, 18))}</text><rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${bar}" data-value="${values[i]}" /><text x="${(labelW + w + 4).toFixed(1)}" y="${y + 12}" class="bar-value">${fmt(values[i], m.digits)}</text>`;
    })
    .join('');
  return `<svg class="bar-chart" data-metric="${m.key}" role="img" aria-label="${escapeHtml(`${m.label} by machine`)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"><text x="0" y="12" class="bar-title">${escapeHtml(`${m.label} [${m.unit}]`)}</text>${bars}</svg>`;
}

export interface ScenarioPanelDeps {
  api: (path: string, init?: RequestInit) => Promise<Response>;
  errorText: (res: Response) => Promise<string>;
}

/** Fills the comparison section: the set picker, then the table and the charts of the set picked. */
export function createScenarioPanel(deps: ScenarioPanelDeps): { load(): Promise<void> } {
  const $ = (id: string) => document.getElementById(id) as HTMLElement;
  const picker = $('scenario-set') as HTMLSelectElement;
  const show = async (id: string) => {
    $('scenario-table').innerHTML = '';
    $('scenario-chart').innerHTML = '';
    if (!id) return;
    const res = await deps.api(`/api/equipment-scenarios/${encodeURIComponent(id)}`);
    if (!res.ok) {
      $('scenario-table').textContent = `The comparison could not be loaded: ${await deps.errorText(res)}`;
      return;
    }
    const set = (await res.json()) as ScenarioSetView;
    $('scenario-table').innerHTML = comparisonTableHtml(set);
    $('scenario-chart').innerHTML = SCENARIO_METRICS.map((m) => barChartSvg(set, m)).join('');
    if (set.status !== 'completed')
      $('scenario-table').insertAdjacentText('afterbegin', `Planning: ${set.status}. `);
  };
  picker.addEventListener('change', () => void show(picker.value));
  return {
    async load() {
      const res = await deps.api('/api/equipment-scenarios/enterprise-company');
      if (!res.ok) {
        $('scenarios').hidden = true;
        return;
      }
      const body = (await res.json()) as {
        equipmentScenarios: { equipmentScenarioId: string; name: string }[];
      };
      picker.replaceChildren(
        new Option(body.equipmentScenarios.length ? 'Pick a comparison…' : 'No comparisons yet', ''),
        ...body.equipmentScenarios.map((s) => new Option(s.name, s.equipmentScenarioId)),
      );
      $('scenarios').hidden = false;
    },
  };
}
