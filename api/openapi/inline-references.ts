/**
 * The published document with every local reference (`#/components/...`)
 * replaced by what it names, for readers that walk schemas as plain trees
 * (tests, the hostile-input generator). Named schemas are not recursive; a
 * reference met again inside itself is left as it is.
 */
type Json = Record<string, unknown>;

export function inlineReferences<T>(doc: T): T {
  const lookup = (ref: string): unknown =>
    ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((o, k) => (o as Json | undefined)?.[k], doc);
  const walk = (s: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(s)) return s.map((v) => walk(v, seen));
    if (typeof s !== 'object' || s === null) return s;
    const o = s as Json;
    if (typeof o.$ref === 'string' && o.$ref.startsWith('#/') && !seen.includes(o.$ref)) {
      const { $ref, ...siblings } = o;
      const target = walk(lookup($ref), [...seen, $ref]) as Json;
      return { ...target, ...(walk(siblings, seen) as Json) };
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, walk(v, seen)]));
  };
  return walk(doc, []) as T;
}
