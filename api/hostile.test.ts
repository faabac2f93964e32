/**
 * Hostile input over the platform routes, made from the service's own
 * OpenAPI document (api/hostile-cases.ts): a reproducible sample of about
 * 300 of the cases against a really listening server. Strict: no 5xx, no
 * 2xx for another company's id, health between batches, the other
 * company's objects unchanged and nothing stored with control characters,
 * surrogates, bidi overrides, over-long strings or extreme numbers.
 * `npm run bench:hostile` runs every case and prints the full report.
 */
import { createHash } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CaseKind,
  encodeComponent,
  generateCases,
  type HostileCase,
  idKind,
  plainValue,
  sampleCases,
} from './hostile-cases.ts';
import { junkIn, maxLengths, type Prepared, prepare, runHostile } from './hostile-run.ts';
import { startTestServer, type TestServer, testKey } from './testing.ts';

const SEED = 20261126;
const SAMPLE = 300;

let srv: TestServer;
let p: Prepared;
let cases: HostileCase[];

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 10_000_000 });
  p = await prepare(srv.url, (o) => testKey({ unlimited: true, ...o }));
  cases = generateCases({ doc: p.doc, own: p.a.ids, other: p.b.ids, seed: SEED });
});
afterAll(async () => {
  await srv?.close();
});

describe('hostile cases from the OpenAPI document', () => {
  it('are many, reproducible, and cover every kind and every route that takes input', () => {
    expect(cases.length).toBeGreaterThanOrEqual(1000);
    const again = generateCases({ doc: p.doc, own: p.a.ids, other: p.b.ids, seed: SEED });
    const digest = (list: HostileCase[]) =>
      createHash('sha256')
        .update(list.map((c) => `${c.method} ${c.url} ${c.body}`).join('\n'))
        .digest('hex');
    expect(digest(again)).toBe(digest(cases));
    const kinds = new Set<CaseKind>(cases.map((c) => c.kind));
    expect([...kinds].sort()).toEqual(['cross', 'deep', 'number', 'string', 'type']);
    // Every operation with a parameter or a JSON body gets cases.
    const routes = new Set(cases.map((c) => c.route));
    for (const [path, ops] of Object.entries(p.doc.paths)) {
      for (const [m, op] of Object.entries(ops)) {
        const takes = (op.parameters ?? []).some((x: { in: string }) => x.in !== 'header') || op.requestBody;
        if (path.startsWith('/api/') && takes)
          expect(routes, `${m} ${path}`).toContain(`${m.toUpperCase()} ${path}`);
      }
    }
    // Each string member gets every hostile string; each number every extreme.
    const equipment = cases.filter((c) => c.route === 'POST /api/equipment');
    const name = equipment.filter((c) => c.slot === 'body/name' && c.kind === 'string').map((c) => c.value);
    expect(name.map((v) => v.split(':')[0])).toEqual([
      'control U+0000',
      'control U+0001',
      'control U+001b',
      expect.stringMatching(/^lone surrogate U\+d[89a-f]/),
      expect.stringMatching(/^bidi override U\+20/),
      expect.stringMatching(/^70000 × /),
    ]);
    const width = equipment.filter((c) => c.slot === 'body/swathWidth' && c.kind === 'number');
    expect(width.map((c) => c.value)).toEqual(['1e308', '-1e308', '3e9', '-1', '0', '1e999']);
    expect(width.find((c) => c.value === '1e999')!.body).toContain('"swathWidth":1e999');
    const cross = equipment.filter((c) => c.kind === 'cross' && c.slot === 'body/companyId');
    expect(cross).toHaveLength(1);
    expect(JSON.parse(cross[0].body!).companyId).toBe(p.b.ids.companyId);
    const sample = sampleCases(cases, SAMPLE, SEED);
    expect(sample).toHaveLength(SAMPLE);
    expect(new Set(sample.map((c) => c.kind)).size).toBe(5);
  });

  it('start from plain bodies the schemas accept, so each case changes one thing', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv as never);
    const n = { seq: 0 };
    const refused: string[] = [];
    let total = 0;
    for (const [path, ops] of Object.entries(p.doc.paths)) {
      for (const [m, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (!schema || !path.startsWith('/api/')) continue;
        total++;
        const body = plainValue(schema, '', p.a.ids, n);
        if (!ajv.validate(schema, body)) refused.push(`${m} ${path}: ${ajv.errorsText(ajv.errors)}`);
      }
    }
    expect(total).toBeGreaterThan(50);
    expect(refused).toEqual([]);
  });

  it('tell ids by name and find junk wherever it is stored', () => {
    expect(idKind('pathPlanIds')).toBe('pathPlanId');
    expect(idKind('shareIdOrCode')).toBe('shareId');
    expect(idKind('id')).toBe('id');
    expect(idKind('name')).toBeNull();
    expect(encodeComponent('a\ud800b c')).toBe('a%ED%A0%80b%20c');
    const limits = maxLengths({
      paths: { '/x': { post: { schema: { properties: { name: { type: 'string', maxLength: 5 } } } } } },
    });
    expect(
      junkIn(
        { list: [{ name: 'ok' }, { name: 'toolong' }, { note: 'a\u0000b' }, { n: 3e9 }, { t: 'x\u202ey' }] },
        limits,
      ),
    ).toEqual([
      '/list/1/name: 7 characters, over 5',
      '/list/2/note: control character in "a\\u0000b"',
      '/list/3/n: number 3000000000',
      '/list/4/t: bidi override in "x\\u202ey"',
    ]);
    expect(junkIn({ ok: 'line\nbreak\ttab', emoji: '\u{1F33E}' }, limits)).toEqual([]);
  });
});

describe('hostile requests against a listening server', () => {
  it(`a sample of ${SAMPLE}: no 5xx, nothing of another company reached, nothing stored wrongly, healthy`, async () => {
    const sample = sampleCases(cases, SAMPLE, SEED);
    const out = await runHostile(srv.url, p, sample);
    expect(out.result.outcomes).toHaveLength(SAMPLE);
    const failing = out.result.outcomes.filter((o) => o.failure);
    expect(
      failing.map((o) => `${o.c.route} [${o.c.kind} ${o.c.slot} = ${o.c.value}]: ${o.failure}`),
      out.text,
    ).toEqual([]);
    expect(out.result.healthFailures, out.text).toEqual([]);
    expect(out.otherChanged, out.text).toEqual([]);
    expect(out.storedJunk, out.text).toEqual([]);
  });
});
