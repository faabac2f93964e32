import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, help, main } from './tramline.ts';

const BIN = fileURLToPath(new URL('./tramline.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tramline-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const io = {
    out: '',
    err: '',
    stdout: (s: string) => {
      io.out += s;
    },
    stderr: (s: string) => {
      io.err += s;
    },
  };
  return io;
}

describe('tramline dispatcher', () => {
  it('lists the commands in its help', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.out).toBe(help());
    for (const name of Object.keys(COMMANDS)) expect(io.out).toContain(`  ${name} `);
  });

  it('exits 2 without a command or with an unknown one', async () => {
    const none = capture();
    expect(await main([], none)).toBe(2);
    expect(none.out).toBe('');
    expect(none.err).toContain('Usage: tramline <command>');
    const unknown = capture();
    expect(await main(['frobnicate'], unknown)).toBe(2);
    expect(unknown.err).toContain('unknown command "frobnicate"');
    const proto = capture();
    expect(await main(['toString'], proto)).toBe(2);
  });

  it('loads each command module with a run function', async () => {
    for (const c of Object.values(COMMANDS)) expect(typeof (await c.load()).run).toBe('function');
  });
});

describe('tramline executable', () => {
  const run = (args: string[], input?: string) =>
    spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', input, timeout: 60_000 });

  it('runs on Node type stripping and prints its version', () => {
    const r = run(['--version']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^tramline \d+\.\d+\.\d+\n$/);
    expect(readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('plans a field end to end and writes only the plan to standard output', () => {
    // A 200 x 120 m rectangle.
    const field = {
      type: 'Feature',
      properties: {},
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [10, 52],
            [10.00293, 52],
            [10.00293, 52.00108],
            [10, 52.00108],
            [10, 52],
          ],
        ],
      },
    };
    const path = join(dir, 'rect.geojson');
    writeFileSync(path, JSON.stringify(field));
    const r = run(['plan', path, '--swath', '12', '--headlands', '1']);
    expect(r.status, r.stderr).toBe(0);
    const fc = JSON.parse(r.stdout);
    expect(fc.type).toBe('FeatureCollection');
    const parts = fc.features.filter(
      (f: { properties: { featureType: string } }) => f.properties.featureType === 'geometryPart',
    );
    expect(parts.length).toBeGreaterThan(5);
    expect(r.stderr).toMatch(/^tramline plan: rect: 2\.\d\d ha/m);

    const svg = run(['plan', '-', '--format', 'svg'], JSON.stringify(field));
    expect(svg.status, svg.stderr).toBe(0);
    expect(svg.stdout.startsWith('<svg')).toBe(true);
  });

  it('exits 1 with the error code on a field it cannot plan, and 2 on a usage error', () => {
    const r = run(['plan', '-'], '{"type": "Point", "coordinates": [10, 52]}');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^tramline plan: FIELD_[A-Z_]+: .+\n$/);
    const u = run(['plan']);
    expect(u.status).toBe(2);
    expect(u.stdout).toBe('');
  });
});
