#!/usr/bin/env node
/**
 * Builds the planning view into web/dist when it is missing or stale.
 * Stale = the SHA-256 over its sources (web/ pages and src/, the core/ and
 * formats/ modules the worker bundles, the lock file) differs from the one
 * stamped at the last build. Checking takes a few milliseconds, a build a
 * few seconds, so `npm start` and `npm test` run it first (prestart,
 * pretest) and nobody has to remember a build step.
 *
 *   node web/build.ts           build if stale
 *   node web/build.ts --force   always build
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const WEB_ROOT = import.meta.dirname;
export const WEB_DIST = resolve(WEB_ROOT, 'dist');
const REPO = resolve(WEB_ROOT, '..');
const STAMP = join(WEB_DIST, '.source-hash');

function files(dir: string, keep: (f: string) => boolean, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!e.name.startsWith('dist') && e.name !== 'node_modules' && e.name !== 'e2e') files(p, keep, out);
    } else if (keep(p)) out.push(p);
  }
  return out;
}

/** The hash of everything the bundle is made from. */
export function sourceHash(): string {
  const src = (f: string) => /\.(ts|css|html)$/.test(f) && !f.endsWith('.test.ts');
  const all = [
    ...files(WEB_ROOT, src),
    ...files(join(REPO, 'core'), src),
    ...files(join(REPO, 'formats'), src),
    join(REPO, 'package-lock.json'),
  ].sort();
  const h = createHash('sha256');
  for (const f of all) {
    h.update(relative(REPO, f));
    h.update('\0');
    h.update(readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}

export function webBuildIsCurrent(): boolean {
  return (
    existsSync(join(WEB_DIST, 'index.html')) &&
    existsSync(STAMP) &&
    readFileSync(STAMP, 'utf8') === sourceHash()
  );
}

/** Builds web/dist unless it is current; answers whether it built. */
export async function ensureWebBuild(force = false): Promise<boolean> {
  if (!force && webBuildIsCurrent()) return false;
  const hash = sourceHash();
  const { build } = await import('vite');
  // Built aside, then swapped in, so a server or a parallel build never sees half a bundle.
  const tmp = `${WEB_DIST}.tmp-${process.pid}`;
  const old = `${WEB_DIST}.old-${process.pid}`;
  try {
    await build({
      configFile: join(WEB_ROOT, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: tmp, emptyOutDir: true },
    });
    writeFileSync(join(tmp, '.source-hash'), hash);
    if (existsSync(WEB_DIST)) renameSync(WEB_DIST, old);
    renameSync(tmp, WEB_DIST);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const t0 = performance.now();
  const built = await ensureWebBuild(process.argv.includes('--force'));
  console.log(
    built
      ? `planning view built into web/dist in ${Math.round(performance.now() - t0)} ms`
      : 'planning view is up to date (web/dist)',
  );
}
