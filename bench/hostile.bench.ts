/**
 * The hostile-input suite in full: every case the OpenAPI document gives
 * (api/hostile-cases.ts) against a listening server on a fresh embedded
 * database, then the checks of api/hostile-run.ts. Prints counts per status
 * class and per route and every failing case; exits 1 when any failed.
 *
 *   npm run bench:hostile                      all cases
 *   npm run bench:hostile -- --limit 300       a reproducible sample
 *   npm run bench:hostile -- --seed 7          other details (where characters go, how deep)
 *   npm run bench:hostile -- --route /api/equipment   only routes containing this text
 */
import { parseArgs } from 'node:util';
import { generateCases, sampleCases } from '../api/hostile-cases.ts';
import { prepare, runHostile } from '../api/hostile-run.ts';
import { startTestServer, testKey } from '../api/testing.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '20261126' },
    limit: { type: 'string', default: '0' },
    route: { type: 'string' },
  },
});
const seed = Number(values.seed);

const srv = await startTestServer({ rateLimitPerMin: 10_000_000 });
let ok = false;
try {
  const t0 = performance.now();
  const p = await prepare(srv.url, (o) => testKey({ unlimited: true, ...o }));
  let cases = generateCases({ doc: p.doc, own: p.a.ids, other: p.b.ids, seed });
  if (values.route) cases = cases.filter((c) => c.route.includes(values.route!));
  const limit = Number(values.limit);
  if (limit > 0) cases = sampleCases(cases, limit, seed);
  console.log(
    `${cases.length} cases (seed ${seed}); fixture ready in ${Math.round(performance.now() - t0)} ms`,
  );
  console.log(`attacking company A: ${JSON.stringify(p.a.ids)}`);
  console.log(`other company B: ${JSON.stringify(p.b.ids)}`);
  const t1 = performance.now();
  const out = await runHostile(srv.url, p, cases, (done, total) => {
    if (done % 500 === 0 || done === total) process.stderr.write(`  ${done}/${total}\n`);
  });
  console.log(out.text);
  console.log(`run took ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  ok = out.ok;
} finally {
  await srv.close();
}
process.exit(ok ? 0 : 1);
