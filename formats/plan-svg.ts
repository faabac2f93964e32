/**
 * A plan as a standalone SVG picture, drawn in the metric frame with north up:
 *
 *   +-------------------------------------------+
 *   | title, machine line                       |
 *   +-------------------------------------------+
 *   |                                      N    |
 *   |     field, obstacles, workable area,      |
 *   |     headland passes, tracks, route        |
 *   | [scale bar]                               |
 *   +---------------------+---------------------+
 *   | legend              | key figures         |
 *   +---------------------+---------------------+
 *
 * The route is coloured by driving order (blue first, magenta last) with an
 * arrow on each track (on the path, halfway along it); turns and connectors
 * are orange, reversing is dashed red; a green dot marks the start and a red
 * square the end. The working swaths are shaded lightly underneath, so
 * overlap shows darker. What the plan audit finds shows too: planned passes
 * and tracks never driven dashed red, ground no swath covers hatched red,
 * turns over the field edge or an obstacle with a red halo.
 */
import { missedPieces } from '../core/metrics/plan-audit.ts';
import type { PathPart, Plan, PlanResult, Point, Polygon, Zone } from '../core/types/index.ts';

export interface SvgOptions {
  /** Width of the picture [px]; the height follows the field's shape. Default 1000. */
  width?: number;
  /** Title at the top; default "Field plan". */
  title?: string;
}

const C = {
  paper: '#ffffff',
  ink: '#1f2421',
  muted: '#5b6360',
  field: '#e4f1d9',
  fieldEdge: '#3f6f32',
  obstacle: '#d8d2c7',
  obstacleEdge: '#8a7d6a',
  workable: '#5f8f50',
  swath: '#6fa35a',
  headland: '#2b5222',
  guidance: '#9c9c9c',
  turn: '#f08a24',
  reverse: '#d7191c',
  start: '#1a9850',
  end: '#d73027',
  panel: '#f5f5f1',
  panelEdge: '#dcdcd4',
  defect: '#e31a1c',
};

/** Missed pieces smaller than this are not drawn [m^2] (slivers along every edge). */
const MIN_MISSED = 1;

/** Route colours from first to last. */
const ROUTE_STOPS: [number, number, number][] = [
  [13, 59, 142],
  [106, 61, 154],
  [197, 27, 125],
];

const HEADER = 52;
const FIGURES_W = 360;
const FIGURES_W_MAX = 420;
const PANEL = 176;
const MARGIN = 24;
/** Layout width [px]: narrower pictures are scaled down as a whole. */
const MIN_LAYOUT = 760;
/** Strip under the field for the scale bar and the north arrow [px]. */
const FOOT = 40;

export function toSvg(result: PlanResult, opts: SvgOptions = {}): string {
  const { plan } = result;
  const width = Math.max(100, Math.round(opts.width ?? 1000));
  const L = Math.max(width, MIN_LAYOUT);
  const title = opts.title ?? 'Field plan';

  // Frame: fit the field into the map area (at most 1.25 times as tall as wide).
  const b = bounds(plan);
  const dx = Math.max(b.maxX - b.minX, 1);
  const dy = Math.max(b.maxY - b.minY, 1);
  const innerW = L - 2 * MARGIN;
  const mapH = Math.round(Math.min(innerW * (dy / dx), innerW * 1.25) + MARGIN + FOOT);
  const s = Math.min(innerW / dx, (mapH - MARGIN - FOOT) / dy);
  const ox = (L - dx * s) / 2;
  const oy = HEADER + MARGIN + (mapH - MARGIN - FOOT - dy * s) / 2;
  const X = (p: Point) => ox + (p.x - b.minX) * s;
  const Y = (p: Point) => oy + (b.maxY - p.y) * s;
  const H = HEADER + mapH + PANEL;

  const path = (pts: readonly Point[], close = false): string => {
    let d = '';
    let last = '';
    for (let i = 0; i < pts.length; i++) {
      const xy = `${fx(X(pts[i]))} ${fx(Y(pts[i]))}`;
      if (xy === last) continue;
      d += (d ? 'L' : 'M') + xy;
      last = xy;
    }
    return close && d ? `${d}Z` : d;
  };
  const polyPath = (p: Polygon) => path(p.outer, true) + p.holes.map((h) => path(h, true)).join('');

  const swathPx = plan.machine.swathWidth * s;
  const lw = clamp(swathPx * 0.28, 0.7, 2.6);
  const thin = clamp(lw * 0.55, 0.5, 1.2);

  const route = drivenParts(plan);
  const last = Math.max(route.length - 1, 1);
  const rank = new Map<PathPart, number>(route.map((p, i) => [p, i]));

  const o: string[] = [];
  o.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${Math.round((H * width) / L)}" viewBox="0 0 ${L} ${H}" font-family="Helvetica, Arial, sans-serif">`,
  );
  o.push(`<title>${esc(title)}</title>`);
  o.push('<defs>');
  o.push(
    `<linearGradient id="route-gradient" x1="0" x2="1" y1="0" y2="0">${ROUTE_STOPS.map(
      (c, i) => `<stop offset="${i / (ROUTE_STOPS.length - 1)}" stop-color="${rgb(c)}"/>`,
    ).join('')}</linearGradient>`,
  );
  o.push(
    `<pattern id="missed-hatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" fill="${C.defect}" fill-opacity="0.10"/><line x1="0" y1="0" x2="0" y2="6" stroke="${C.defect}" stroke-width="1.6" stroke-opacity="0.7"/></pattern>`,
  );
  o.push('</defs>');
  o.push(`<rect width="${L}" height="${H}" fill="${C.paper}"/>`);

  // Header.
  o.push(`<text x="${MARGIN}" y="26" font-size="18" font-weight="bold" fill="${C.ink}">${esc(title)}</text>`);
  o.push(`<text x="${MARGIN}" y="44" font-size="12" fill="${C.muted}">${esc(machineLine(plan))}</text>`);
  o.push(`<line x1="0" y1="${HEADER}" x2="${L}" y2="${HEADER}" stroke="${C.panelEdge}" stroke-width="1"/>`);

  // Map layers, bottom to top.
  o.push('<g id="field">');
  for (const z of plan.zones) {
    o.push(
      `<path d="${polyPath(z.boundary)}" fill="${C.field}" fill-rule="evenodd" stroke="${C.fieldEdge}" stroke-width="1.6" stroke-linejoin="round"/>`,
    );
    for (const h of z.boundary.holes) {
      o.push(
        `<path d="${path(h, true)}" fill="${C.obstacle}" stroke="${C.obstacleEdge}" stroke-width="1" stroke-linejoin="round"/>`,
      );
    }
  }
  o.push('</g>');

  o.push(`<g id="coverage" fill="none" stroke="${C.swath}" stroke-opacity="0.16" stroke-linecap="butt">`);
  for (const p of route) {
    if (p.working) o.push(`<path d="${path(p.points)}" stroke-width="${fx(swathPx)}"/>`);
  }
  o.push('</g>');

  // Ground no swath covers, per field part (the zones of a decomposed part cover each other's edges).
  o.push(
    `<g id="missed" fill="url(#missed-hatch)" stroke="${C.defect}" stroke-width="0.6" stroke-opacity="0.6">`,
  );
  for (const piece of missed(plan)) o.push(`<path d="${polyPath(piece)}" fill-rule="evenodd"/>`);
  o.push('</g>');

  o.push(
    `<g id="workable" fill="none" stroke="${C.workable}" stroke-width="1" stroke-dasharray="5 3" stroke-linejoin="round">`,
  );
  for (const z of plan.zones) for (const w of z.workable) o.push(`<path d="${polyPath(w)}"/>`);
  o.push('</g>');

  o.push(`<g id="reference" fill="none" stroke-linejoin="round">`);
  for (const z of plan.zones) {
    for (const p of z.groups[z.activeGroup].parts) {
      if (rank.has(p)) continue;
      if (p.type === 'GuidanceTrack') {
        o.push(`<path d="${path(p.points)}" stroke="${C.guidance}" stroke-width="${fx(thin)}"/>`);
      } else if (p.type === 'ExteriorHeadlandPass' || p.type === 'InteriorHeadlandPass') {
        o.push(`<path d="${path(p.points)}" stroke="${C.headland}" stroke-width="${fx(thin)}"/>`);
      }
    }
  }
  o.push('</g>');

  // Turns and connectors over the field edge or an obstacle: a red halo under them.
  o.push(
    `<g id="overhang" fill="none" stroke="${C.defect}" stroke-opacity="0.35" stroke-width="${fx(lw * 3)}" stroke-linecap="round" stroke-linejoin="round">`,
  );
  for (const z of plan.zones)
    for (const oh of z.audit?.overhangs ?? [])
      for (const st of oh.stretches) o.push(`<path d="${path(st)}"/>`);
  o.push('</g>');

  // The route: working parts coloured by order, then turns on top, then arrows.
  o.push(`<g id="route" fill="none" stroke-linejoin="round" stroke-linecap="round">`);
  const arrows: string[] = [];
  for (const p of route) {
    const t = (rank.get(p) ?? 0) / last;
    const d = path(p.points);
    if (!d) continue;
    if (p.reverse) {
      o.push(`<path d="${d}" stroke="${C.reverse}" stroke-width="${fx(lw)}" stroke-dasharray="4 3"/>`);
    } else if (p.working) {
      o.push(`<path d="${d}" stroke="${routeColour(t)}" stroke-width="${fx(lw)}"/>`);
      if (p.type === 'RouteTrack') arrows.push(arrow(p.points, X, Y, routeColour(t), lw));
    } else {
      o.push(`<path d="${d}" stroke="${C.turn}" stroke-width="${fx(thin * 1.2)}"/>`);
    }
  }
  o.push('</g>');
  o.push(`<g id="arrows">${arrows.join('')}</g>`);

  // Planned passes and tracks no driven part runs along.
  o.push(
    `<g id="undriven" fill="none" stroke="${C.defect}" stroke-width="${fx(Math.max(lw, 1.6))}" stroke-dasharray="6 4" stroke-linejoin="round">`,
  );
  for (const z of plan.zones)
    for (const u of [...(z.audit?.undrivenPasses ?? []), ...(z.audit?.undrivenTracks ?? [])])
      o.push(`<path d="${path(u.points)}"/>`);
  o.push('</g>');

  o.push('<g id="route-ends">');
  for (const z of plan.zones) {
    if (z.routeStart) {
      o.push(
        `<circle cx="${fx(X(z.routeStart))}" cy="${fx(Y(z.routeStart))}" r="6.5" fill="${C.start}" stroke="#fff" stroke-width="2"/>`,
      );
    }
    if (z.routeEnd) {
      o.push(
        `<rect x="${fx(X(z.routeEnd) - 6)}" y="${fx(Y(z.routeEnd) - 6)}" width="12" height="12" fill="${C.end}" stroke="#fff" stroke-width="2"/>`,
      );
    }
  }
  o.push('</g>');

  // North arrow and scale bar.
  o.push(scaleBar(MARGIN, HEADER + mapH - 12, dx, s, innerW));
  o.push(northArrow(L - MARGIN - 14, HEADER + mapH - 20));

  // Panel: legend and key figures.
  const top = HEADER + mapH;
  o.push(`<rect x="0" y="${top}" width="${L}" height="${PANEL}" fill="${C.panel}"/>`);
  o.push(`<line x1="0" y1="${top}" x2="${L}" y2="${top}" stroke="${C.panelEdge}" stroke-width="1"/>`);
  o.push(legend(MARGIN, top + 22));
  // Wide pictures give the figures more room.
  const figuresW = Math.max(FIGURES_W, Math.min(FIGURES_W_MAX, L - 2 * MARGIN - 380));
  o.push(figures(plan, L - MARGIN - figuresW, top + 14, figuresW));
  o.push('</svg>');
  return `${o.join('\n')}\n`;
}

/** Route parts of the active groups in driving order. */
function drivenParts(plan: Plan): PathPart[] {
  const out: PathPart[] = [];
  for (const z of plan.zones)
    for (const p of z.groups[z.activeGroup].parts) if (p.sequence !== undefined) out.push(p);
  return out.sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
}

function bounds(plan: Plan): { minX: number; minY: number; maxX: number; maxY: number } {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  const take = (p: Point) => {
    if (p.x < minX) minX = p.x;
    if (p.x > maxX) maxX = p.x;
    if (p.y < minY) minY = p.y;
    if (p.y > maxY) maxY = p.y;
  };
  for (const z of plan.zones) {
    for (const p of z.boundary.outer) take(p);
    for (const p of z.groups[z.activeGroup].parts) for (const q of p.points) take(q);
  }
  if (!Number.isFinite(minX)) return { minX: 0, minY: 0, maxX: 1, maxY: 1 };
  return { minX, minY, maxX, maxY };
}

function machineLine(plan: Plan): string {
  const m = plan.machine;
  // A bearing only for straight tracks (curved and spiral tracks have none).
  const g = plan.zones.find((z) => z.groups[z.activeGroup].parts.length);
  const group = g?.groups[g.activeGroup];
  const tracks = !group
    ? ''
    : group.trackType === 'Straight'
      ? ` · track bearing ${fmt(group.bearingDeg, 1)}°`
      : ` · ${group.trackType.toLowerCase()} tracks`;
  return `Swath ${fmt(m.swathWidth, 2)} m · turning radius ${fmt(m.minTurningRadius, 2)} m · ${passesAsked(plan)}${tracks}`;
}

/** The same, short: '2 passes, 1 round obstacles'. */
function headlandAsked(plan: Plan): string {
  const o = plan.options;
  const ext = `${o.exteriorHeadlandPasses} ${o.exteriorHeadlandPasses === 1 ? 'pass' : 'passes'}`;
  const obstacles = plan.zones.some((z) => z.boundary.holes.length > 0);
  return obstacles && o.interiorHeadlandPasses > 0
    ? `${ext}, ${o.interiorHeadlandPasses} round obstacles`
    : ext;
}

/** The headland passes as asked: exterior, and round obstacles where the field has any. */
function passesAsked(plan: Plan): string {
  const o = plan.options;
  const ext = `${o.exteriorHeadlandPasses} headland ${o.exteriorHeadlandPasses === 1 ? 'pass' : 'passes'}`;
  const obstacles = plan.zones.some((z) => z.boundary.holes.length > 0);
  return obstacles && o.interiorHeadlandPasses > 0
    ? `${ext}, ${o.interiorHeadlandPasses} round obstacles`
    : ext;
}

/** The ground no swath covers, per field part: its zones' working parts taken from the part. */
function missed(plan: Plan): Polygon[] {
  const parts = new Map<number, Zone[]>();
  for (const z of plan.zones) {
    const k = z.fieldPart ?? z.index;
    parts.set(k, [...(parts.get(k) ?? []), z]);
  }
  const out: Polygon[] = [];
  for (const zones of parts.values()) {
    const field = zones[0].partBoundary ?? zones[0].boundary;
    const driven = zones.flatMap((z) => z.groups[z.activeGroup]?.parts ?? []);
    for (const piece of missedPieces(
      zones[0].partBoundary ? [field] : zones.map((z) => z.boundary),
      driven,
      plan.machine.swathWidth,
      Number.POSITIVE_INFINITY,
    ))
      if (piece.area >= MIN_MISSED) out.push(piece.polygon);
  }
  return out;
}

/** A chevron halfway along a track, pointing the way it is driven. */
function arrow(
  pts: readonly Point[],
  X: (p: Point) => number,
  Y: (p: Point) => number,
  colour: string,
  lw: number,
): string {
  if (pts.length < 2) return '';
  // Halfway along the path (a curved or spiral track's chord may lie off it), along its tangent there.
  let len = 0;
  for (let i = 1; i < pts.length; i++)
    len += Math.hypot(X(pts[i]) - X(pts[i - 1]), Y(pts[i]) - Y(pts[i - 1]));
  if (len < 28) return '';
  let left = len / 2;
  let k = 1;
  for (; k < pts.length - 1; k++) {
    const l = Math.hypot(X(pts[k]) - X(pts[k - 1]), Y(pts[k]) - Y(pts[k - 1]));
    if (left <= l) break;
    left -= l;
  }
  const ax = X(pts[k - 1]);
  const ay = Y(pts[k - 1]);
  const bx = X(pts[k]);
  const by = Y(pts[k]);
  const seg = Math.hypot(bx - ax, by - ay) || 1;
  const t = clamp(left / seg, 0, 1);
  const size = clamp(lw * 3.2, 4, 8);
  const angle = (Math.atan2(by - ay, bx - ax) * 180) / Math.PI;
  const mx = ax + t * (bx - ax);
  const my = ay + t * (by - ay);
  return `<path d="M${fx(-size)} ${fx(-size * 0.7)}L${fx(size * 0.4)} 0L${fx(-size)} ${fx(size * 0.7)}Z" transform="translate(${fx(mx)} ${fx(my)}) rotate(${fx(angle)})" fill="${colour}" stroke="#fff" stroke-width="0.6"/>`;
}

function northArrow(x: number, y: number): string {
  return [
    `<g id="north" transform="translate(${x} ${y})">`,
    '<circle r="13" fill="#fff" fill-opacity="0.85" stroke="#c9c9c2"/>',
    `<path d="M0 -9L5 6L0 2.5L-5 6Z" fill="${C.ink}"/>`,
    `<text x="-18" y="4" font-size="12" font-weight="bold" text-anchor="end" fill="${C.ink}">N</text>`,
    '</g>',
  ].join('');
}

/** A scale bar of a round length up to a quarter of the map width, in four black and white blocks. */
function scaleBar(x: number, y: number, spanM: number, s: number, maxPx: number): string {
  const target = Math.min(spanM / 4, (maxPx * 0.4) / s);
  const mag = 10 ** Math.floor(Math.log10(target));
  const len =
    [1, 2, 2.5, 5, 10]
      .map((k) => k * mag)
      .filter((v) => v <= target)
      .pop() ?? mag;
  const px = len * s;
  const o = [`<g id="scale-bar" transform="translate(${x} ${y})">`];
  for (let i = 0; i < 4; i++) {
    o.push(
      `<rect x="${fx((i * px) / 4)}" y="0" width="${fx(px / 4)}" height="5" fill="${i % 2 ? '#fff' : C.ink}" stroke="${C.ink}" stroke-width="0.8"/>`,
    );
  }
  const label = len >= 1000 ? `${fmt(len / 1000, 3)} km` : `${fmt(len, 3)} m`;
  o.push(`<text x="0" y="-6" font-size="11" fill="${C.ink}">0</text>`);
  o.push(`<text x="${fx(px)}" y="-6" font-size="11" text-anchor="middle" fill="${C.ink}">${label}</text>`);
  o.push('</g>');
  return o.join('');
}

/** Legend entries per column. */
const LEGEND_ROWS = 7;

function legend(x: number, y: number): string {
  const line = (stroke: string, width: number, dash = '') =>
    `<line x1="0" y1="0" x2="30" y2="0" stroke="${stroke}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
  const items: [string, string][] = [
    [
      `<rect x="0" y="-7" width="30" height="14" fill="${C.field}" stroke="${C.fieldEdge}" stroke-width="1.4"/>`,
      'field',
    ],
    [
      `<rect x="0" y="-7" width="30" height="14" fill="${C.obstacle}" stroke="${C.obstacleEdge}"/>`,
      'obstacle',
    ],
    [line(C.workable, 1.2, '5 3'), 'workable area'],
    [line(C.headland, 1.2), 'headland pass'],
    [line(C.guidance, 1.2), 'guidance track'],
    [
      `<rect x="0" y="-2.5" width="30" height="5" fill="url(#route-gradient)"/><path d="M12 -5L19 0L12 5Z" fill="${rgb(ROUTE_STOPS[1])}"/>`,
      'route: first → last',
    ],
    [line(C.turn, 2), 'turn, connector'],
    [line(C.reverse, 2.5, '4 3'), 'reversing'],
    [`<circle cx="15" cy="0" r="6" fill="${C.start}" stroke="#fff" stroke-width="1.5"/>`, 'start'],
    [`<rect x="9" y="-6" width="12" height="12" fill="${C.end}" stroke="#fff" stroke-width="1.5"/>`, 'end'],
    [line(C.defect, 2, '6 4'), 'planned, not driven'],
    [
      `<rect x="0" y="-7" width="30" height="14" fill="url(#missed-hatch)" stroke="${C.defect}" stroke-width="0.6"/>`,
      'not worked (missed)',
    ],
    [
      `<line x1="0" y1="0" x2="30" y2="0" stroke="${C.defect}" stroke-opacity="0.35" stroke-width="7" stroke-linecap="round"/>${line(C.turn, 2)}`,
      'turn over the edge',
    ],
  ];
  const o = [`<g id="legend" transform="translate(${x} ${y})" font-size="12.5" fill="${C.ink}">`];
  items.forEach(([swatch, label], i) => {
    const col = Math.floor(i / LEGEND_ROWS);
    const row = i % LEGEND_ROWS;
    o.push(
      `<g transform="translate(${col * 170} ${row * 21})">${swatch}<text x="40" y="4.5">${esc(label)}</text></g>`,
    );
  });
  o.push('</g>');
  return o.join('');
}

function figures(plan: Plan, x: number, y: number, width: number): string {
  const st = plan.stats;
  const km = (m: number) => `${(m / 1000).toFixed(2)} km`;
  const ha = (m2: number) => `${(m2 / 10000).toFixed(2)} ha`;
  const m = (v: number) => `${v >= 10 ? Math.round(v) : Math.round(v * 10) / 10} m`;
  // Passes as asked; the pieces the route drives them in only where they differ.
  const pieces = st.headlandPassCount;
  const asked =
    plan.options.exteriorHeadlandPasses +
    (plan.zones.some((z) => z.boundary.holes.length > 0) ? plan.options.interiorHeadlandPasses : 0);
  const defects = [
    (st.undrivenPassLength ?? 0) + (st.undrivenTrackLength ?? 0) >= 0.5
      ? `undriven ${m((st.undrivenPassLength ?? 0) + (st.undrivenTrackLength ?? 0))}`
      : '',
    (st.duplicateTrackLength ?? 0) >= 1 ? `twice ${m(st.duplicateTrackLength ?? 0)}` : '',
    (st.overhangLength ?? 0) >= 0.05 ? `overhang ${m(st.overhangLength ?? 0)}` : '',
  ].filter(Boolean);
  const rows: [string, string][] = [
    ['Field area', `${ha(st.fieldArea)} (workable ${ha(st.workableArea)})`],
    ['Tracks', `${st.trackCount} · turns ${st.turnCount}`],
    ['Headland', `${headlandAsked(plan)}${pieces !== asked && pieces > 0 ? ` · ${pieces} pieces` : ''}`],
    ['Covered', `${st.coveredPercent.toFixed(1)} % · missed ${ha(st.missedArea)}`],
    ['Overlap', `${st.overlapPercent.toFixed(1)} % · ${ha(st.overlapArea)}`],
    ['Distance', `${km(st.totalDistance)} · not working ${km(st.nonWorkingDistance)}`],
    ['Total time', formatTime(st.totalTime)],
    ...(defects.length ? ([['Defects', defects.join(' · ')]] as [string, string][]) : []),
  ];
  const o = [`<g id="figures" transform="translate(${x} ${y})" fill="${C.ink}">`];
  const step = rows.length > 7 ? 18 : 20;
  o.push(
    `<rect width="${width}" height="${rows.length * step + 14}" rx="6" fill="#fff" stroke="${C.panelEdge}"/>`,
  );
  rows.forEach(([k, v], i) => {
    const ty = 22 + i * step;
    o.push(`<text x="12" y="${ty}" font-size="12" fill="${C.muted}">${esc(k)}</text>`);
    o.push(`<text x="94" y="${ty}" font-size="12.5" font-weight="bold">${esc(v)}</text>`);
  });
  o.push('</g>');
  return o.join('');
}

function routeColour(t: number): string {
  const n = ROUTE_STOPS.length - 1;
  const u = clamp(t, 0, 1) * n;
  const i = Math.min(Math.floor(u), n - 1);
  const f = u - i;
  const a = ROUTE_STOPS[i];
  const c = ROUTE_STOPS[i + 1];
  return rgb([0, 1, 2].map((k) => Math.round(a[k] + (c[k] - a[k]) * f)) as [number, number, number]);
}

function rgb(c: readonly number[]): string {
  return `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

function formatTime(seconds: number): string {
  const total = Math.round(seconds / 60);
  const h = Math.floor(total / 60);
  const m = total % 60;
  return h ? `${h} h ${m} min` : `${m} min`;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** Pixel coordinates with one decimal. */
function fx(v: number): string {
  return (Math.round(v * 10) / 10).toString();
}

/** A number with at most `digits` decimals, for display. */
function fmt(v: number, digits: number): string {
  return (Math.round(v * 10 ** digits) / 10 ** digits).toString();
}

function esc(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
