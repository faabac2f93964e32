/**
 * What a test file leaves open (servers, stores, job workers) is closed when
 * the file ends: test files share their process, and the next file must not
 * meet a server or job worker of the last. Modules that open such things
 * register a closer here; `file-scope-setup.ts` runs them after each file.
 */
const closers = new Set<() => Promise<void>>();

export function onFileEnd(close: () => Promise<void>): void {
  closers.add(close);
}

export async function closeFileScope(): Promise<void> {
  for (const close of closers) await close();
}
