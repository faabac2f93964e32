import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
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
