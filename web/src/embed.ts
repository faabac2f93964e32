/**
 * The embedding contract (README "The planning view"): in an iframe the view
 * posts events to its parent and accepts a few commands from it, only to and
 * from this server's own origin and the configured allowed origins. Every
 * message is `{ source: 'tramline', type, ...payload }`.
 *
 * Sent:     tramline:ready, tramline:plan-drawn, tramline:plan-changed,
 *           tramline:plan-saved, tramline:active-changed, tramline:error,
 *           tramline:auth-required
 * Accepted: tramline:set-tuning { tuning }, tramline:save { name? },
 *           tramline:request-state
 */
import type { Tuning } from './protocol.ts';

export interface Embedding {
  post(type: string, payload: Record<string, unknown>): void;
  onSave(handler: (name: string | undefined) => void): void;
}

export function createEmbedding(
  embedded: boolean,
  allowedOrigins: string[],
  setTuning: (t: Partial<Tuning>) => void,
): Embedding {
  const allowed = new Set([location.origin, ...allowedOrigins]);
  const parentOrigin = (() => {
    if (window.parent === window) return null;
    const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
    const o = ancestors?.length ? ancestors[0] : document.referrer ? new URL(document.referrer).origin : null;
    return o && allowed.has(o) ? o : null;
  })();
  let saveHandler: ((name: string | undefined) => void) | null = null;
  const last: Record<string, Record<string, unknown>> = {};

  const post = (type: string, payload: Record<string, unknown>) => {
    last[type] = payload;
    if (!embedded || !parentOrigin) return;
    window.parent.postMessage({ source: 'tramline', type, ...payload }, parentOrigin);
  };

  if (embedded) {
    window.addEventListener('message', (ev: MessageEvent) => {
      if (!allowed.has(ev.origin) || ev.source !== window.parent) return;
      const m = ev.data as { type?: string; tuning?: Partial<Tuning>; name?: unknown };
      if (!m || typeof m !== 'object') return;
      if (m.type === 'tramline:set-tuning' && m.tuning && typeof m.tuning === 'object') setTuning(m.tuning);
      else if (m.type === 'tramline:save') saveHandler?.(typeof m.name === 'string' ? m.name : undefined);
      else if (m.type === 'tramline:request-state')
        post('tramline:state', {
          drawn: last['tramline:plan-changed'] ?? last['tramline:plan-drawn'] ?? null,
        });
    });
  }
  return {
    post,
    onSave(h) {
      saveHandler = h;
    },
  };
}
