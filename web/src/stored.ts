/**
 * Stored plans of the field through the platform API, with the session
 * cookie: the plan list, save (a new plan, or the preview as another
 * variant, i.e. geometry group, of each zone of the plan on screen),
 * comparing two variants of a zone and setting one active, share links and
 * exports. When the server offers no stored-plan endpoints the actions are
 * switched off with a note saying so.
 */
import type {
  GeometryGroupModel,
  PathPlanNormalizedModel,
  PathPlanZoneModel,
} from '../../formats/plan-model.ts';
import { activeGroup } from './model.ts';
import { formatDelta, formatStat, STATS, type Stats } from './stats.ts';

export interface StoredDeps {
  boundaryId: string;
  /** The field of the boundary, once it is loaded. */
  fieldId: () => string | undefined;
  exportFormats: { value: string; label: string }[];
  /** A shared plan: nothing can be stored. */
  readOnly: boolean;
  api: (path: string, init?: RequestInit) => Promise<Response>;
  errorText: (res: Response) => Promise<string>;
  setStatus: (text: string, kind?: 'info' | 'error') => void;
  showModel: (
    m: PathPlanNormalizedModel,
    label: string,
    pick?: (z: PathPlanZoneModel) => GeometryGroupModel,
  ) => void;
  modelOf: (meta: { pathPlanId: string; pathPlanName: string }) => Promise<PathPlanNormalizedModel>;
  post: (type: string, payload: Record<string, unknown>) => void;
}

export interface StoredPlans {
  /** Lists the field's plans and shows the newest one (its active variants), if any. */
  load(): Promise<void>;
  /** The settings changed: what is on screen is a preview now. */
  onPreview(): void;
  save(name: string | undefined, asVariant: boolean): Promise<void>;
}

interface ListItem {
  pathPlanId: string;
  name: string;
  createdAt: string;
  totalTime: number;
  numberOfTracks: number;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ACTIONS = ['save', 'save-variant', 'export', 'share', 'export-format'];
const COMPARE_STATS = [
  'totalTime',
  'totalDistance',
  'nonWorkingDistance',
  'overlapArea',
  'missedArea',
  'turnCount',
  'trackCount',
];

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> & { dataset?: Record<string, string> } = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  const { dataset, ...rest } = props;
  Object.assign(e, rest);
  if (dataset) Object.assign(e.dataset, dataset);
  e.append(...children);
  return e;
}

/** The preview's geometry group of each zone appended to the stored plan as a new, inactive variant. */
export function withVariant(
  base: PathPlanNormalizedModel,
  v: PathPlanNormalizedModel,
): PathPlanNormalizedModel {
  if (base.zones.length !== v.zones.length) {
    throw new Error(
      `The preview has ${v.zones.length} zone(s), the stored plan ${base.zones.length}; save it as a new plan instead.`,
    );
  }
  return {
    ...base,
    zones: base.zones.map((z, i) => {
      const g = v.zones[i].geometryGroups[0];
      const gid = `${z.zoneId}-g${z.geometryGroups.length}`;
      const group: GeometryGroupModel = {
        ...g,
        geometryGroupId: gid,
        isActive: false,
        geometryParts: g.geometryParts.map((p, k) => ({ ...p, geometryPartId: `${gid}-p${k}` })),
      };
      return { ...z, geometryGroups: [...z.geometryGroups, group] };
    }),
  };
}

export function createStoredPlans(d: StoredDeps): StoredPlans {
  const formatSelect = $<HTMLSelectElement>('export-format');
  for (const f of d.exportFormats) formatSelect.add(new Option(f.label, f.value));
  let available = false;
  /** The stored plan on screen (or the one the preview started from). */
  let base: PathPlanNormalizedModel | null = null;
  let list: ListItem[] = [];

  const disable = (why: string, ids = ACTIONS) => {
    for (const id of ids) {
      const e = $<HTMLButtonElement>(id);
      e.disabled = true;
      e.title = why;
    }
  };
  const enable = (ids: string[]) => {
    for (const id of ids) {
      const e = $<HTMLButtonElement>(id);
      e.disabled = false;
      e.title = '';
    }
  };
  const sync = () => {
    if (!available || d.readOnly) return;
    enable(['save']);
    if (base) enable(['save-variant', 'export', 'share', 'export-format']);
    else disable('Save the plan first.', ['save-variant', 'export', 'share', 'export-format']);
  };

  async function fetchModel(id: string): Promise<PathPlanNormalizedModel> {
    const res = await d.api(`/api/path-plans-normalized/${encodeURIComponent(id)}`);
    if (!res.ok) throw new Error(`The plan could not be read: ${await d.errorText(res)}`);
    return (await res.json()) as PathPlanNormalizedModel;
  }

  function show(m: PathPlanNormalizedModel): void {
    base = m;
    d.showModel(m, `Stored plan «${m.pathPlanName}» (active variants)`);
    renderList();
    renderCompare();
    sync();
  }

  async function refreshList(): Promise<void> {
    const res = await d.api(`/api/boundaries/${encodeURIComponent(d.boundaryId)}/path-plan-ids?limit=50`);
    if (!res.ok) throw new Error(`The plans of this field could not be listed: ${await d.errorText(res)}`);
    const ids = (await res.json()) as string[];
    const items = await Promise.all(
      ids.slice(0, 50).map(async (id) => {
        const r = await d.api(`/api/path-plans/${encodeURIComponent(id)}/list-item`);
        return r.ok ? ((await r.json()) as ListItem) : null;
      }),
    );
    list = items.filter((x): x is ListItem => x !== null);
    renderList();
  }

  function renderList(): void {
    const box = $('plans');
    box.replaceChildren();
    if (!list.length) {
      box.textContent = 'No stored plan yet.';
      return;
    }
    const ul = el('ul', { className: 'plan-list' });
    for (const p of list) {
      const on = base?.pathPlanId === p.pathPlanId;
      const b = el('button', { type: 'button', className: 'link' }, p.name);
      b.setAttribute('aria-label', `Show plan ${p.name}`);
      if (on) b.setAttribute('aria-current', 'true');
      b.addEventListener('click', () => fetchModel(p.pathPlanId).then(show, fail));
      const when = new Date(p.createdAt).toLocaleString();
      ul.append(
        el(
          'li',
          { dataset: { pathPlanId: p.pathPlanId } },
          b,
          el(
            'span',
            { className: 'meta' },
            ` · ${when} · ${formatStat(STATS[0], { totalTime: p.totalTime })}`,
          ),
        ),
      );
    }
    box.append(ul);
  }

  function renderCompare(): void {
    const box = $('compare');
    box.replaceChildren();
    if (!base) return;
    const m = base;
    for (const z of m.zones) {
      if (z.geometryGroups.length < 2) continue;
      const groups = z.geometryGroups;
      const label = (g: GeometryGroupModel) =>
        `Variant ${groups.indexOf(g) + 1}${g.geometryGroupId === z.activeGeometryGroupId ? ' (active)' : ''}`;
      const pickA = el('select', { id: `compare-a-${z.zoneIndex}` });
      const pickB = el('select', { id: `compare-b-${z.zoneIndex}` });
      for (const g of groups) {
        pickA.add(new Option(label(g), g.geometryGroupId));
        pickB.add(new Option(label(g), g.geometryGroupId));
      }
      pickA.value = activeGroup(z).geometryGroupId;
      pickB.value = (groups.find((g) => g.geometryGroupId !== pickA.value) ?? groups[0]).geometryGroupId;
      const table = el('table', { className: 'compare-table' });
      const draw = () => {
        const a = groups.find((g) => g.geometryGroupId === pickA.value)!;
        const b = groups.find((g) => g.geometryGroupId === pickB.value)!;
        const sa = a.stats as unknown as Stats;
        const sb = b.stats as unknown as Stats;
        table.replaceChildren(
          el(
            'tr',
            {},
            el('th', { scope: 'col' }, 'Figure'),
            el('th', { scope: 'col' }, label(a)),
            el('th', { scope: 'col' }, label(b)),
            el('th', { scope: 'col' }, 'Difference'),
          ),
        );
        for (const def of STATS.filter((s) => COMPARE_STATS.includes(s.key))) {
          const delta = sb[def.key] - sa[def.key];
          const better = def.lowerIsBetter ? delta < 0 : false;
          const worse = def.lowerIsBetter ? delta > 0 : false;
          table.append(
            el(
              'tr',
              {},
              el('th', { scope: 'row' }, def.label),
              el(
                'td',
                { dataset: { stat: def.key, value: String(sa[def.key]), variant: 'a' } },
                formatStat(def, sa),
              ),
              el(
                'td',
                { dataset: { stat: def.key, value: String(sb[def.key]), variant: 'b' } },
                formatStat(def, sb),
              ),
              el(
                'td',
                {
                  className: better ? 'better' : worse ? 'worse' : '',
                  dataset: { stat: `${def.key}Difference`, value: String(delta) },
                },
                formatDelta(def, sa[def.key], sb[def.key]),
              ),
            ),
          );
        }
      };
      pickA.addEventListener('change', draw);
      pickB.addEventListener('change', draw);
      draw();
      const buttons = el('div', { className: 'row' });
      for (const [which, pick] of [
        ['A', pickA],
        ['B', pickB],
      ] as const) {
        const show = el('button', { type: 'button', className: 'secondary' }, `Show ${which}`);
        show.addEventListener('click', () => {
          const g = groups.find((x) => x.geometryGroupId === pick.value)!;
          d.showModel(m, `Stored plan «${m.pathPlanName}», zone ${z.zoneIndex + 1}: ${label(g)}`, (zz) =>
            zz.zoneId === z.zoneId ? g : activeGroup(zz),
          );
        });
        const act = el('button', { type: 'button', className: 'secondary' }, `Set ${which} active`);
        act.disabled = d.readOnly;
        act.addEventListener('click', () => setActive(z.zoneId, pick.value).catch(fail));
        buttons.append(show, act);
      }
      box.append(
        el(
          'section',
          { className: 'compare-zone', dataset: { zoneIndex: String(z.zoneIndex) } },
          el('h4', {}, `Compare variants of zone ${z.zoneIndex + 1}`),
          el('label', { htmlFor: pickA.id }, 'Variant A'),
          pickA,
          el('label', { htmlFor: pickB.id }, 'Variant B'),
          pickB,
          table,
          buttons,
        ),
      );
    }
  }

  async function setActive(zoneId: string, groupId: string): Promise<void> {
    const res = await d.api(
      `/api/path-plan-zones/${encodeURIComponent(zoneId)}/geometry-groups/${encodeURIComponent(groupId)}/set-active`,
      { method: 'POST' },
    );
    if (!res.ok) throw new Error(`The variant could not be set active: ${await d.errorText(res)}`);
    const m = (await res.json()) as PathPlanNormalizedModel;
    show(m);
    d.setStatus('Active variant changed.');
    d.post('tramline:active-changed', { pathPlanId: m.pathPlanId, zoneId, geometryGroupId: groupId });
  }

  async function upsert(model: PathPlanNormalizedModel): Promise<PathPlanNormalizedModel> {
    const res = await d.api('/api/path-plans/upsert', {
      method: 'POST',
      body: JSON.stringify({
        plan: model,
        boundaryId: d.boundaryId,
        ...(d.fieldId() ? { fieldId: d.fieldId() } : {}),
      }),
    });
    if (!res.ok) throw new Error(`The plan could not be saved: ${await d.errorText(res)}`);
    const item = (await res.json()) as ListItem;
    return fetchModel(item.pathPlanId);
  }

  async function save(name: string | undefined, asVariant: boolean): Promise<void> {
    if (!available || d.readOnly) {
      d.setStatus('This plan cannot be stored here.', 'error');
      return;
    }
    const planName =
      name?.trim() || $<HTMLInputElement>('plan-name').value.trim() || `Plan ${new Date().toLocaleString()}`;
    d.setStatus(asVariant ? 'Saving the variant…' : 'Saving the plan…');
    if (asVariant && base) {
      const v = await d.modelOf({ pathPlanId: base.pathPlanId, pathPlanName: base.pathPlanName });
      const m = await upsert(withVariant(base, v));
      await refreshList();
      show(m);
      d.setStatus(`Saved as variant ${m.zones[0]?.geometryGroups.length ?? ''} of «${m.pathPlanName}».`);
      d.post('tramline:plan-saved', { pathPlanId: m.pathPlanId, name: m.pathPlanName, variant: true });
      return;
    }
    const model = await d.modelOf({ pathPlanId: crypto.randomUUID(), pathPlanName: planName });
    const m = await upsert(model);
    await refreshList();
    show(m);
    d.setStatus(`Saved «${m.pathPlanName}».`);
    d.post('tramline:plan-saved', { pathPlanId: m.pathPlanId, name: m.pathPlanName, variant: false });
  }

  const fail = (e: unknown) => d.setStatus(String((e as Error)?.message ?? e), 'error');

  $('save').addEventListener('click', () => save(undefined, false).catch(fail));
  $('save-variant').addEventListener('click', () => save(undefined, true).catch(fail));

  $('share').addEventListener('click', async () => {
    if (!base) return;
    try {
      const res = await d.api('/api/shares/path-plan', {
        method: 'POST',
        body: JSON.stringify({ pathPlanId: base.pathPlanId }),
      });
      if (!res.ok) throw new Error(`No share link: ${await d.errorText(res)}`);
      const s = (await res.json()) as { code: string; pathPlanId: string; expiresAt: string };
      const url = `${location.origin}/path-planning/shared/${encodeURIComponent(s.code)}/${s.pathPlanId}`;
      const input = $<HTMLInputElement>('share-url');
      input.value = url;
      input.hidden = false;
      input.select();
      await navigator.clipboard?.writeText(url).catch(() => undefined);
      d.setStatus(`Share link ready (valid until ${new Date(s.expiresAt).toLocaleDateString()}).`);
    } catch (e) {
      fail(e);
    }
  });

  $('export').addEventListener('click', async () => {
    if (!base) return;
    try {
      const format = formatSelect.value;
      d.setStatus(`Exporting as ${formatSelect.selectedOptions[0]?.text ?? format}…`);
      const res = await d.api('/api/path-plans-export', {
        method: 'POST',
        body: JSON.stringify({ pathPlanIds: [base.pathPlanId], format }),
      });
      if (res.status !== 202) throw new Error(`The export did not start: ${await d.errorText(res)}`);
      const { jobId } = (await res.json()) as { jobId: string };
      let wait = 500;
      for (;;) {
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(5000, wait * 2);
        const j = await d.api(`/api/path-plans-export/jobs/${encodeURIComponent(jobId)}`);
        if (!j.ok) throw new Error(`The export could not be followed: ${await d.errorText(j)}`);
        const job = (await j.json()) as { status: string; batchId?: string; error?: { message?: string } };
        if (job.status === 'completed' && job.batchId) {
          const a = el('a', { href: `/api/path-plans-export/${job.batchId}/file`, download: '' });
          document.body.append(a);
          a.click();
          a.remove();
          d.setStatus('Export ready; the download has started.');
          return;
        }
        if (job.status === 'failed' || job.status === 'cancelled') {
          throw new Error(`The export ${job.status}${job.error?.message ? `: ${job.error.message}` : '.'}`);
        }
      }
    } catch (e) {
      fail(e);
    }
  });

  return {
    async load() {
      if (d.readOnly) {
        disable('A shared plan is read only.');
        $('plans').textContent = 'A shared plan: sign in to store your own.';
        $('save').closest('fieldset')!.hidden = true;
        $('export').closest('fieldset')!.hidden = true;
        return;
      }
      const probe = await d.api(`/api/boundaries/${encodeURIComponent(d.boundaryId)}/path-plan-ids?limit=1`);
      if (probe.status === 404) {
        const body = (await probe.json().catch(() => ({}))) as { errorCode?: string; message?: string };
        if (body.errorCode === 'NOT_FOUND' && body.message?.startsWith('No endpoint')) {
          disable('Stored plans are not offered by this server; the preview is not saved.');
          $('plans').textContent = 'Stored plans are not offered by this server; the preview is not saved.';
          return;
        }
      }
      available = true;
      sync();
      await refreshList();
      if (list.length) show(await fetchModel(list[0].pathPlanId));
    },
    onPreview() {
      sync();
    },
    save,
  };
}
