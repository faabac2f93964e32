import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { auditZone } from '../core/metrics/plan-audit.ts';
import { planField } from '../core/plan.ts';
import type { PathPart, Point } from '../core/types/index.ts';
import { samplePlanResult } from './plan-sample.ts';
import { toSvg } from './plan-svg.ts';

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

function parse(svg: string): Node {
  const v = XMLValidator.validate(svg);
  if (v !== true) throw new Error(`not well-formed: ${JSON.stringify(v)}`);
  return (parser.parse(svg).svg as Node[])[0];
}

/** The <g> with the given id, anywhere below `n`. */
function group(n: Node, id: string): Node | undefined {
  for (const g of (n.g as Node[] | undefined) ?? []) {
    if (g.id === id) return g;
    const inner = group(g, id);
    if (inner) return inner;
  }
  return undefined;
}

describe('toSvg', () => {
  const result = samplePlanResult();
  const svg = toSvg(result, { title: 'North field' });
  const root = parse(svg);

  it('is a well-formed standalone SVG with a title and size', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(root.width).toBe('1000');
    expect(Number(root.height)).toBeGreaterThan(200);
    expect(root.viewBox).toMatch(/^0 0 1000 \d+$/);
    expect(root.title).toEqual(['North field']);
    expect(svg).not.toMatch(/NaN|Infinity|undefined/);
  });

  it('draws the field with even-odd fill and the obstacle', () => {
    const field = group(root, 'field');
    const paths = field?.path as Node[];
    expect(paths).toHaveLength(3); // two zones, one obstacle
    expect(paths[0]['fill-rule']).toBe('evenodd');
    // The first zone's path holds its exterior and its hole.
    expect(String(paths[0].d).match(/M/g)).toHaveLength(2);
  });

  it('draws the workable area dashed and the reference geometry', () => {
    const workable = group(root, 'workable');
    expect(workable?.['stroke-dasharray']).toBeTruthy();
    expect(workable?.path as Node[]).toHaveLength(2);
    // 3 guidance tracks and 2 reference headland passes of the active groups.
    expect(group(root, 'reference')?.path as Node[]).toHaveLength(5);
  });

  it('draws every route part in driving order: reversing dashed, turns orange, arrows on tracks', () => {
    const route = group(root, 'route')?.path as Node[];
    expect(route).toHaveLength(8); // 7 driven parts in zone 0, 1 in zone 1
    const dashed = route.filter((p) => p['stroke-dasharray']);
    expect(dashed).toHaveLength(1);
    const colours = route.map((p) => String(p.stroke));
    expect(colours.filter((c) => c === '#f08a24')).toHaveLength(3); // U-turn, K-turn forward leg, connector
    // The first part is the start colour, the last the end colour.
    expect(colours[0]).toBe('#0d3b8e');
    expect(colours.at(-1)).toBe('#c51b7d');
    expect(group(root, 'arrows')?.path as Node[]).toHaveLength(3);
    expect(group(root, 'coverage')?.path as Node[]).toHaveLength(4);
  });

  it('marks the start and end of each zone, and has a legend, the figures and a scale bar', () => {
    const ends = group(root, 'route-ends');
    expect(ends?.circle as Node[]).toHaveLength(2);
    expect(ends?.rect as Node[]).toHaveLength(2);
    expect(group(root, 'legend')).toBeDefined();
    expect(group(root, 'scale-bar')).toBeDefined();
    expect(group(root, 'north')).toBeDefined();
    const figures = JSON.stringify(group(root, 'figures'));
    expect(figures).toContain('1.19 ha');
    expect(figures).toContain('97.9 %');
    expect(figures).toContain('4.7 %');
    expect(figures).toContain('0.67 km');
    expect(figures).toContain('4 min');
  });

  it('puts north up: a point further north is drawn higher', () => {
    // Zone 1's start (y = 20 m) is drawn above the first track (y = 15 m) of zone 0.
    const circles = group(root, 'route-ends')?.circle as Node[];
    expect(Number(circles[1].cy)).toBeLessThan(Number(circles[0].cy));
  });

  it('escapes the title and honours the width', () => {
    const out = toSvg(result, { title: 'A & B <"field">', width: 400 });
    const r = parse(out);
    expect(r.width).toBe('400');
    expect(out).toContain('A &amp; B &lt;&quot;field&quot;&gt;');
  });

  it('draws an empty plan', () => {
    const r = samplePlanResult();
    r.plan.zones = [];
    const out = toSvg(r);
    parse(out);
    expect(out).not.toMatch(/NaN|Infinity/);
  });
});

describe('toSvg shows what the plan leaves undone', () => {
  /** The sample plan with an audit of zone 0 that finds a planned pass never driven. */
  function withUndrivenPass() {
    const r = samplePlanResult();
    const z = r.plan.zones[0];
    const g = z.groups[z.activeGroup];
    z.audit = auditZone({
      boundary: z.boundary,
      passes: [
        {
          kind: 'exterior',
          passNumber: 2,
          ring: [
            { x: 10, y: 10 },
            { x: 90, y: 10 },
            { x: 90, y: 70 },
            { x: 10, y: 70 },
          ],
        },
      ],
      tracks: [],
      parts: g.parts,
      swathWidth: r.plan.machine.swathWidth,
      turningRadius: r.plan.machine.minTurningRadius,
    });
    r.plan.stats.undrivenPassLength = z.audit.undrivenPassLength;
    return r;
  }

  it('draws planned passes never driven dashed red, with a legend entry, and says how much in the figures', () => {
    const r = withUndrivenPass();
    expect(r.plan.zones[0].audit?.undrivenPasses.length).toBeGreaterThan(0);
    const root = parse(toSvg(r));
    const undriven = group(root, 'undriven');
    expect(undriven?.stroke).toBe('#e31a1c');
    expect(undriven?.['stroke-dasharray']).toBe('6 4');
    expect(((undriven?.path as Node[] | undefined) ?? []).length).toBe(
      r.plan.zones[0].audit?.undrivenPasses.length,
    );
    expect(JSON.stringify(group(root, 'legend'))).toContain('planned, not driven');
    expect(JSON.stringify(group(root, 'figures'))).toMatch(/undriven \d+ m/);
  });

  it('hatches the ground no swath covers', () => {
    const root = parse(toSvg(samplePlanResult()));
    const missed = group(root, 'missed');
    expect(missed?.fill).toBe('url(#missed-hatch)');
    // The sample misses ground along its edges and round its obstacle.
    expect((missed?.path as Node[] | undefined)?.length ?? 0).toBeGreaterThan(0);
    expect(JSON.stringify(group(root, 'legend'))).toContain('not worked (missed)');
  });

  it('puts the arrow of a curved track on the track, halfway along it, along its tangent', () => {
    const r = samplePlanResult();
    const g = r.plan.zones[1].groups[r.plan.zones[1].activeGroup];
    // A half circle of radius 15 m round (230, 5): its chord's middle is 15 m off the path.
    const arc: Point[] = [];
    for (let k = 0; k <= 36; k++) {
      const a = Math.PI - (k * Math.PI) / 36;
      arc.push({ x: 230 + 15 * Math.cos(a), y: 5 + 15 * Math.sin(a) });
    }
    const track = g.parts.find((p) => p.type === 'RouteTrack') as PathPart;
    track.points = arc;
    const root = parse(toSvg(r));
    // The arc as drawn: its middle vertex (the top) in pixels.
    const drawn = ((group(root, 'route')?.path as Node[] | undefined) ?? [])
      .map((p) =>
        String(p.d)
          .split(/[MLZ]/)
          .filter(Boolean)
          .map((xy) => xy.split(' ').map(Number)),
      )
      .find((pts) => pts.length === 37) as number[][];
    expect(drawn).toBeDefined();
    const [tx, ty] = drawn[18];
    const arrows = ((group(root, 'arrows')?.path as Node[] | undefined) ?? []).map((a) => {
      const m = /translate\(([-\d.]+) ([-\d.]+)\) rotate\(([-\d.]+)\)/.exec(
        String(a.transform),
      ) as RegExpExecArray;
      return { x: Number(m[1]), y: Number(m[2]), angle: Number(m[3]) };
    });
    const on = arrows.find((a) => Math.hypot(a.x - tx, a.y - ty) < 1.5);
    expect(on, JSON.stringify({ tx, ty, arrows })).toBeDefined();
    // Driven west to east over the top: pointing east.
    expect(Math.abs(on?.angle ?? 99)).toBeLessThan(3);
  });

  it('counts headland passes as asked, the pieces apart; obstacles only where there are some; no bearing for spiral tracks', () => {
    const r = samplePlanResult();
    r.plan.options.exteriorHeadlandPasses = 1;
    r.plan.options.interiorHeadlandPasses = 1;
    r.plan.stats.headlandPassCount = 5;
    let svg = toSvg(r);
    // Zone 0 has an obstacle.
    expect(svg).toContain('1 headland pass, 1 round obstacles');
    expect(JSON.stringify(group(parse(svg), 'figures'))).toContain('1 pass, 1 round obstacles · 5 pieces');
    for (const z of r.plan.zones) z.boundary.holes = [];
    svg = toSvg(r);
    expect(svg).not.toContain('round obstacles');
    expect(svg).toContain('track bearing');
    for (const z of r.plan.zones) for (const g of z.groups) g.trackType = 'Spiral';
    svg = toSvg(r);
    expect(svg).not.toContain('track bearing');
    expect(svg).toContain('spiral tracks');
  });

  it('marks turns over the field edge on a planned field', () => {
    const k = 111_320;
    const c = Math.cos((52 * Math.PI) / 180);
    const ring = [
      [0, 0],
      [30, 0],
      [30, 200],
      [0, 200],
    ].map(([x, y]) => [10 + x / (k * c), 52 + y / k]);
    const r = planField({
      boundary: { type: 'Polygon', coordinates: [[...ring, ring[0]]] },
      machine: { swathWidth: 6, minTurningRadius: 6 },
    });
    const root = parse(toSvg(r));
    const overhang = group(root, 'overhang');
    const n = r.plan.zones.reduce(
      (a, z) => a + (z.audit?.overhangs.reduce((b, o) => b + o.stretches.length, 0) ?? 0),
      0,
    );
    expect(((overhang?.path as Node[] | undefined) ?? []).length).toBe(n);
  });
});
