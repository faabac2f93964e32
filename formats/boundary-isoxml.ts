/**
 * Boundary import from ISO 11783-10 task data: every partfield (PFD) with a
 * boundary polygon (PLN type 1) becomes a WGS84 polygon; its line strings
 * of type 1 are exterior rings and of type 2 interior rings (holes), points
 * (PNT) carry C = north (latitude) and D = east (longitude). Partfields in
 * external files (XFR, as some farm software writes them) are followed.
 * Accepts a TASKDATA zip, or TASKDATA.XML alone.
 *
 * Errors name the file, the line and column for XML that is not well formed,
 * and the partfield, polygon, line string and point for bad coordinates.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  type BoundaryImport,
  checkLonLat,
  closeRing,
  type ImportedPolygon,
  importError,
  pointInRing,
} from './boundary-import.ts';
import { unzipFiles } from './boundary-shapefile.ts';
import { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS } from './file-limits.ts';
import { decodeXml } from './xml-safety.ts';

export type IsoxmlNode = { '@'?: Record<string, string> } & {
  [element: string]: IsoxmlNode[] | Record<string, string> | undefined;
};
type Node = IsoxmlNode;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  attributesGroupName: '@',
  parseAttributeValue: false,
  parseTagValue: false,
  isArray: (_name, _jpath, _isLeaf, isAttribute) => !isAttribute,
});

export const kids = (n: Node, name: string): Node[] => {
  const v = n[name];
  return Array.isArray(v) ? v : [];
};
export const attr = (n: Node, a: string): string | undefined => n['@']?.[a];

function parseXml(bytes: Uint8Array, file: string): Node {
  const text = decodeXml(bytes, file);
  const v = XMLValidator.validate(text);
  if (v !== true) {
    throw importError(
      `${file} line ${v.err.line}, column ${v.err.col}: not well-formed XML (${v.err.msg}).`,
      `${file}:${v.err.line}:${v.err.col}`,
      { line: v.err.line, column: v.err.col },
    );
  }
  return parser.parse(text) as Node;
}

/** Reads the partfield boundaries of a TASKDATA zip. */
export function readIsoxmlZip(
  zip: Uint8Array,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): BoundaryImport {
  return readIsoxmlFiles(readIsoxmlZipFiles(zip, limits));
}

/** The XML files of a TASKDATA zip: binary task data (grids, time logs) stays packed. */
export function readIsoxmlZipFiles(
  zip: Uint8Array,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Map<string, Uint8Array> {
  return unzipFiles(zip, 'The ISOXML upload', limits, (n) => /\.xml$/i.test(n));
}

/** A partfield (PFD) element and the file it was read from. */
export interface IsoxmlPartfield {
  node: IsoxmlNode;
  file: string;
}

/**
 * The partfields of unpacked task data (path → bytes), those in external
 * files (XFR) included; the TASKDATA.XML may be in any folder.
 */
export function isoxmlPartfields(files: Map<string, Uint8Array>): {
  main: string;
  partfields: IsoxmlPartfield[];
} {
  const main = [...files.keys()]
    .filter((n) => /(^|\/)taskdata\.xml$/i.test(n))
    .sort((a, b) => a.split('/').length - b.split('/').length)[0];
  if (!main) {
    throw importError(
      `No TASKDATA.XML found (files: ${[...files.keys()].slice(0, 10).join(', ') || 'none'}); ISO 11783-10 task data keeps its main file as TASKDATA.XML.`,
      'TASKDATA.XML',
    );
  }
  const dir = main.slice(0, main.lastIndexOf('/') + 1);
  const doc = parseXml(files.get(main)!, main);
  const root = kids(doc, 'ISO11783_TaskData')[0];
  if (!root) {
    throw importError(`${main}: the root element is not ISO11783_TaskData.`, main);
  }
  const partfields: { node: Node; file: string }[] = kids(root, 'PFD').map((node) => ({ node, file: main }));
  for (const x of kids(root, 'XFR')) {
    const name = attr(x, 'A');
    if (!name?.startsWith('PFD')) continue;
    const want = `${dir}${name}.xml`.toLowerCase();
    const entry = [...files.entries()].find(([n]) => n.toLowerCase() === want);
    if (!entry) {
      throw importError(
        `${main}: refers to the external file ${name}.XML (XFR), which is not in the upload.`,
        main,
      );
    }
    const ext = parseXml(entry[1], entry[0]);
    const xfc = kids(ext, 'XFC')[0] ?? ext;
    for (const node of kids(xfc, 'PFD')) partfields.push({ node, file: entry[0] });
  }
  return { main, partfields };
}

/** The same from files already unpacked (path → bytes); the TASKDATA.XML may be in any folder. */
export function readIsoxmlFiles(files: Map<string, Uint8Array>): BoundaryImport {
  const { main, partfields } = isoxmlPartfields(files);
  const polygons: ImportedPolygon[] = [];
  for (const { node, file } of partfields) {
    const p = partfieldPolygon(node, file);
    if (p) polygons.push(p);
  }
  if (polygons.length === 0) {
    throw importError(
      `${main}: ${partfields.length} partfield(s) and none with a boundary polygon (PLN of type 1 with a line string of type 1).`,
      main,
    );
  }
  return { format: 'isoxml', crs: 'WGS 84 (ISO 11783-10)', polygons };
}

function partfieldPolygon(pfd: Node, file: string): ImportedPolygon | null {
  const id = attr(pfd, 'A') ?? '?';
  const designator = attr(pfd, 'C') ?? null;
  const label = `${file} PFD ${id}${designator ? ` ('${designator}')` : ''}`;
  const exteriors: number[][][] = [];
  const interiors: number[][][] = [];
  kids(pfd, 'PLN').forEach((pln, pi) => {
    if (attr(pln, 'A') !== '1') return;
    const plnLabel = `${label} PLN ${attr(pln, 'E') ?? pi + 1}`;
    const rings = kids(pln, 'LSG').filter((l) => attr(l, 'A') === '1' || attr(l, 'A') === '2');
    rings.forEach((lsg, li) => {
      const where = `${plnLabel} LSG ${li + 1}`;
      const pts = kids(lsg, 'PNT').map((pnt, k) => {
        const lat = Number(attr(pnt, 'C'));
        const lon = Number(attr(pnt, 'D'));
        return checkLonLat(
          [lon, lat],
          `${where} PNT ${k + 1} (C="${attr(pnt, 'C')}", D="${attr(pnt, 'D')}")`,
          `${file}#${id}`,
        );
      });
      if (pts.length < 3) {
        throw importError(
          `${where}: a ring needs at least 3 points (PNT); it has ${pts.length}.`,
          `${file}#${id}`,
        );
      }
      (attr(lsg, 'A') === '1' ? exteriors : interiors).push(closeRing(pts));
    });
  });
  if (exteriors.length === 0) {
    // Some displays write each hole as a PLN of its own; holes without any exterior ring are an error.
    if (interiors.length > 0) {
      throw importError(
        `${label}: boundary polygons (PLN type 1) with interior rings (LSG type 2) but no exterior ring (LSG type 1).`,
        `${file}#${id}`,
      );
    }
    return null;
  }
  const polys = exteriors.map((e) => [e]);
  for (const hole of interiors) {
    const owner = polys.find((p) => pointInRing(hole[0], p[0])) ?? polys[0];
    owner.push(hole);
  }
  const area = Number(attr(pfd, 'D'));
  return {
    name: designator,
    source: `${file} PFD ${id}`,
    geometry:
      polys.length === 1
        ? { type: 'Polygon', coordinates: polys[0] }
        : { type: 'MultiPolygon', coordinates: polys },
    properties: {
      partfieldId: id,
      ...(designator ? { designator } : {}),
      ...(Number.isFinite(area) ? { area } : {}),
      ...(attr(pfd, 'E') ? { customerId: attr(pfd, 'E') } : {}),
      ...(attr(pfd, 'F') ? { farmId: attr(pfd, 'F') } : {}),
    },
  };
}
