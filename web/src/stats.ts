/**
 * The figures the view shows, with their units. Every figure is rendered in
 * an element carrying `data-stat="<name>"` (the PlanStats member it shows)
 * and `data-value` (the raw SI value: m, m^2, s, count).
 */
export type Stats = Record<string, number>;

export interface StatDef {
  key: string;
  label: string;
  kind: 'time' | 'distance' | 'area' | 'count' | 'percent';
  /** For percentages: the stat this one is a share of. */
  of?: string;
  /** Lower is better (used to colour differences between variants). */
  lowerIsBetter?: boolean;
}

export const STATS: StatDef[] = [
  { key: 'totalTime', label: 'Total time', kind: 'time', lowerIsBetter: true },
  { key: 'workingTime', label: 'Working time', kind: 'time', lowerIsBetter: true },
  { key: 'nonWorkingTime', label: 'Non-working time', kind: 'time', lowerIsBetter: true },
  { key: 'totalDistance', label: 'Total distance', kind: 'distance', lowerIsBetter: true },
  { key: 'workingDistance', label: 'Track distance', kind: 'distance', lowerIsBetter: true },
  { key: 'headlandDistance', label: 'Headland distance', kind: 'distance', lowerIsBetter: true },
  { key: 'turnDistance', label: 'Turn distance', kind: 'distance', lowerIsBetter: true },
  { key: 'nonWorkingDistance', label: 'Non-working distance', kind: 'distance', lowerIsBetter: true },
  { key: 'overlapArea', label: 'Overlap', kind: 'area', of: 'fieldArea', lowerIsBetter: true },
  { key: 'missedArea', label: 'Missed area', kind: 'area', of: 'fieldArea', lowerIsBetter: true },
  { key: 'turnCount', label: 'Turns', kind: 'count', lowerIsBetter: true },
  { key: 'trackCount', label: 'Tracks', kind: 'count' },
  { key: 'headlandPassCount', label: 'Headland passes', kind: 'count' },
  { key: 'fieldArea', label: 'Field area', kind: 'area' },
  { key: 'coveredArea', label: 'Covered area', kind: 'area', of: 'fieldArea' },
];

/** The figures shown per zone (a shorter list). */
export const ZONE_STATS = [
  'totalTime',
  'totalDistance',
  'overlapArea',
  'missedArea',
  'turnCount',
  'fieldArea',
];

export function formatValue(kind: StatDef['kind'], v: number): string {
  if (!Number.isFinite(v)) return '–';
  switch (kind) {
    case 'time': {
      const mins = Math.round(Math.abs(v) / 60);
      const h = Math.floor(mins / 60);
      const text = h > 0 ? `${h} h ${String(mins % 60).padStart(2, '0')} min` : `${mins} min`;
      return v < 0 ? `−${text}` : text;
    }
    case 'distance':
      return Math.abs(v) >= 1000 ? `${(v / 1000).toFixed(2)} km` : `${Math.round(v)} m`;
    case 'area':
      return `${(v / 10_000).toFixed(2)} ha`;
    case 'percent':
      return `${v.toFixed(1)} %`;
    default:
      return String(Math.round(v));
  }
}

/** "1 h 05 min", "12.3 km", "0.41 ha (1.2 %)" … */
export function formatStat(def: StatDef, stats: Stats): string {
  const v = stats[def.key];
  const text = formatValue(def.kind, v);
  if (def.of && stats[def.of] > 0) return `${text} (${((100 * v) / stats[def.of]).toFixed(1)} %)`;
  return text;
}

/** A signed difference b - a with its unit, e.g. "+3 min", "−120 m". */
export function formatDelta(def: StatDef, a: number, b: number): string {
  const d = b - a;
  if (Math.abs(d) < 1e-9) return '±0';
  const text = formatValue(def.kind, Math.abs(d));
  return `${d > 0 ? '+' : '−'}${text}`;
}
