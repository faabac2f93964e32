/** The machine comparison's table and bar charts from a scenario set. */
import { describe, expect, it } from 'vitest';
import { barChartSvg, comparisonTableHtml, SCENARIO_METRICS, type ScenarioSetView } from './scenarios.ts';

const totals = (costPerHa: number, totalHours: number, traffickedAreaPercent: number) => ({
  areaHa: 100,
  totalHours,
  fuelLitres: totalHours * 10,
  ghgKgCo2e: totalHours * 26.8,
  costTotal: costPerHa * 100,
  costPerHa,
  traffickedAreaPercent,
});

const set: ScenarioSetView = {
  equipmentScenarioId: 'x',
  name: 'Drills',
  status: 'completed',
  scenarios: [
    { name: 'Drill <6 m>', totals: totals(12.5, 40, 17), fields: [{ figures: {} }, { figures: null }] },
    { name: 'Drill 12 m', totals: totals(9.25, 22, 9), fields: [{ figures: {} }, { figures: {} }] },
  ],
};

describe('machine comparison', () => {
  it('tables every figure per machine, the lowest of each column marked, names escaped', () => {
    const html = comparisonTableHtml(set);
    expect(html).toContain('Drill &lt;6 m&gt;');
    expect(html).not.toContain('<6 m>');
    expect(html).toContain('1/2 fields');
    for (const m of SCENARIO_METRICS) expect(html).toContain(`data-metric="${m.key}"`);
    expect(html.match(/class="best"/g)).toHaveLength(SCENARIO_METRICS.length);
    expect(html).toContain('<td data-metric="costPerHa" data-value="9.25" class="best">9.25</td>');
  });

  it('draws bars in proportion to the values, the largest full width', () => {
    const svg = barChartSvg(set, SCENARIO_METRICS[1]!, 300);
    const widths = [...svg.matchAll(/<rect [^>]*width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths).toHaveLength(2);
    expect(widths[0]).toBeCloseTo(120, 1);
    expect(widths[1]! / widths[0]!).toBeCloseTo(22 / 40, 2);
    expect(svg).toContain('aria-label="Hours by machine"');
  });
});
