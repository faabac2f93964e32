/**
 * Clipper2 compiled to WebAssembly (clipper2-wasm): the polygon booleans and
 * offsets of clip.ts run here, about three times faster than the same
 * algorithm in TypeScript. The module is instantiated once, when this file
 * is first imported (a top-level await: Node, workers and browsers alike).
 *
 * Coordinates cross as doubles holding the integers of clip.ts (its SCALE
 * applied, rounded), with the engine's own scaling at 10^0: the engine works
 * on exactly the integers it is given and hands back integers, so results do
 * not depend on how the engine would scale and round.
 *
 * Every object the engine hands out lives in its own memory and is freed
 * here before a function returns (`delete()`).
 */
import Clipper2Z from 'clipper2-wasm/dist/es/clipper2z.js';

/** An engine-side object: freed explicitly. */
interface Owned {
  delete(): void;
}
interface PathD extends Owned {
  /** The path's coordinates as x, y, z triples (a view into the engine's memory). */
  view(): Float64Array;
  assign(coordinates: Float64Array): void;
}
interface PathsD extends Owned {
  push_back(path: PathD): void;
  size(): number;
  get(index: number): PathD;
}
interface ClipperD extends Owned {
  AddSubject(subjects: PathsD): void;
  AddClip(clips: PathsD): void;
  ExecutePath(clipType: Enum, fillRule: Enum, closed: PathsD): boolean;
}
type Enum = { value: number };
interface Engine {
  PathD: new () => PathD;
  PathsD: new () => PathsD;
  ClipperD: new (precision: number) => ClipperD;
  ClipType: { Intersection: Enum; Union: Enum; Difference: Enum };
  FillRule: { NonZero: Enum; Positive: Enum };
  JoinType: { Square: Enum; Round: Enum; Miter: Enum };
  EndType: { Polygon: Enum; Joined: Enum; Butt: Enum; Square: Enum; Round: Enum };
  /** Summed signed area of the paths (the shoelace sum of each, as pathArea, added in order). */
  AreaPathsD(paths: PathsD): number;
  InflatePathsD(
    paths: PathsD,
    delta: number,
    join: Enum,
    end: Enum,
    miterLimit: number,
    precision: number,
    arcTolerance: number,
  ): PathsD;
}

const engine = (await Clipper2Z()) as Engine;

export const ClipType = engine.ClipType;
export const FillRule = engine.FillRule;
export const JoinType = engine.JoinType;
export const EndType = engine.EndType;

/**
 * A path of integer coordinates as the engine holds it: x, y, z for each
 * point (z unused, 0).
 */
export type IntPath = Float64Array;
/** Numbers per point of an IntPath. */
export const STRIDE = 3;

/** Paths to the engine. */
function toEngine(paths: readonly IntPath[]): PathsD {
  const out = new engine.PathsD();
  const p = new engine.PathD();
  try {
    for (const path of paths) {
      p.assign(path);
      out.push_back(p);
    }
  } finally {
    p.delete();
  }
  return out;
}

/** A boolean operation with the fill rule, as closed paths. */
export function booleanPaths(
  type: Enum,
  fill: Enum,
  subject: readonly IntPath[],
  clip: readonly IntPath[] | null,
): IntPath[] {
  return execute(type, fill, subject, clip, pathsOut);
}

/**
 * The summed signed area of what booleanPaths gives [units^2] (pathArea of
 * each path, added in order), measured where the engine holds the paths:
 * none is copied out.
 */
export function booleanArea(
  type: Enum,
  fill: Enum,
  subject: readonly IntPath[],
  clip: readonly IntPath[] | null,
): number {
  return execute(type, fill, subject, clip, (out) => engine.AreaPathsD(out));
}

/** A boolean operation, its result read by `read` before it is freed. */
function execute<T>(
  type: Enum,
  fill: Enum,
  subject: readonly IntPath[],
  clip: readonly IntPath[] | null,
  read: (out: PathsD) => T,
): T {
  const c = new engine.ClipperD(0);
  const s = toEngine(subject);
  const k = clip ? toEngine(clip) : null;
  const out = new engine.PathsD();
  try {
    c.AddSubject(s);
    if (k) c.AddClip(k);
    c.ExecutePath(type, fill, out);
    return read(out);
  } finally {
    out.delete();
    k?.delete();
    s.delete();
    c.delete();
  }
}

function pathsOut(ps: PathsD): IntPath[] {
  const out: IntPath[] = [];
  const n = ps.size();
  for (let i = 0; i < n; i++) {
    const p = ps.get(i);
    try {
      // Copied out of the engine's memory.
      out.push(p.view().slice());
    } finally {
      p.delete();
    }
  }
  return out;
}

/**
 * The paths offset by delta (integer units), as closed paths: outer rings
 * positive, holes negative. The arc tolerance is in integer units too.
 */
export function inflate(
  paths: readonly IntPath[],
  delta: number,
  join: Enum,
  end: Enum,
  miterLimit: number,
  arcTolerance: number,
): IntPath[] {
  const s = toEngine(paths);
  let out: PathsD | null = null;
  try {
    out = engine.InflatePathsD(s, delta, join, end, miterLimit, 0, arcTolerance);
    return pathsOut(out);
  } finally {
    out?.delete();
    s.delete();
  }
}

/** Signed area of a path of integer coordinates (shoelace, as Clipper2 sums it) [units^2]. */
export function pathArea(p: IntPath): number {
  const n = p.length;
  if (n < 3 * STRIDE) return 0;
  let a = 0;
  let px = p[n - STRIDE];
  let py = p[n - STRIDE + 1];
  for (let i = 0; i < n; i += STRIDE) {
    const x = p[i];
    const y = p[i + 1];
    a += (py + y) * (px - x);
    px = x;
    py = y;
  }
  return a * 0.5;
}
