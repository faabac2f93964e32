/**
 * Turning round where no turn with one or two cusps fits: in a dead-end tip
 * or a strip narrower than a forward loop, the machine turns on the spot in
 * several moves, as a driver turns a car in a narrow street. Each move is an
 * arc of the turning radius, alternately backwards and forwards, steered so
 * that both turn the machine the same way (reversing steered right turns it
 * left, like driving forwards steered left), each as long as the field
 * allows (at most a quarter turn). After each move a turn with at most five
 * radii of reversing onto the target is tried.
 */
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { hypot } from '../geometry/vec.ts';
import { type SampledPiece, type Segment, samplePath, type TurnPath } from '../turn/path.ts';
import type { Pose } from '../types/index.ts';
import { arcEdges, type Connection } from './connect.ts';
import { angleDiffRad } from './route-geometry.ts';

/**
 * Moves (cusps) at most: near the end of a tapering tip, or in an arm whose
 * turn area is only a few metres wide, a move turns the machine 5 to 20
 * degrees, and a half turn takes twenty or more.
 */
const MAX_MOVES = 30;
/** Arc angles tried for each move, longest first [rad]. */
const MOVE_ANGLES = [90, 70, 50, 35, 20, 10, 5].map((d) => (d * Math.PI) / 180);

/**
 * A turn from `from` onto `to` of arcs back and forth, then `finish`
 * (a turn with little reversing); null when none is found within MAX_MOVES.
 */
export function multiPointTurn(
  from: Pose,
  to: Pose,
  radius: number,
  region: EdgeIndex,
  finish: (a: Pose, b: Pose) => Connection | null,
): Connection | null {
  let best: Connection | null = null;
  for (const side of [1, -1] as const) {
    for (const firstReverse of [true, false]) {
      const bound = best ? best.length : Number.POSITIVE_INFINITY;
      const c = moves(from, to, radius, region, finish, side, firstReverse, bound);
      if (c && (!best || c.length < best.length)) best = c;
    }
  }
  return best;
}

/**
 * Turning the machine's heading by `side` (+1 left) with moves starting
 * backwards or forwards; null where none is found shorter than `bound`.
 */
function moves(
  from: Pose,
  to: Pose,
  radius: number,
  region: EdgeIndex,
  finish: (a: Pose, b: Pose) => Connection | null,
  side: 1 | -1,
  firstReverse: boolean,
  bound: number,
): Connection | null {
  const pieces: SampledPiece[] = [];
  let length = 0;
  let pose = from;
  let reverse = firstReverse;
  for (let k = 0; k < MAX_MOVES; k++) {
    // Forwards steered to `side`, backwards steered the other way: both turn the heading towards `side`.
    const left = reverse ? side < 0 : side > 0;
    let moved: { pieces: SampledPiece[]; end: Pose; length: number } | null = null;
    for (const a of MOVE_ANGLES) {
      const seg: Segment = { type: left ? 'L' : 'R', length: radius * a, reverse };
      const path: TurnPath = { segments: [seg], length: radius * a, word: seg.type };
      const sampled = samplePath(pose, path, radius);
      const edges = arcEdges(region, pose, seg, radius);
      if (edges && sampled.some((p) => region.chordsCross(p.points, edges))) continue;
      const turn = (reverse ? -1 : 1) * (left ? 1 : -1) * a;
      const pts = sampled[sampled.length - 1].points;
      const end = pts[pts.length - 1];
      moved = {
        pieces: sampled,
        end: { x: end.x, y: end.y, heading: pose.heading + turn },
        length: radius * a,
      };
      break;
    }
    if (!moved) return null;
    pieces.push(...moved.pieces);
    length += moved.length;
    pose = moved.end;
    // No way on is shorter than the straight line to the target: a turn as
    // long as one found already (`bound`) is not looked for further.
    if (length + hypot(to.x - pose.x, to.y - pose.y) >= bound) return null;
    const c = finish(pose, to);
    reverse = !reverse;
    // The last move and the finishing turn meet at a cusp (driven on the same way, their arcs would meet at a kink).
    if (c?.pieces.length && c.pieces[0].reverse === reverse)
      return { pieces: [...pieces, ...c.pieces], length: length + c.length, kind: 'K' };
    // Turned past the target heading without finishing: this way round does not work.
    if (side * angleDiffRad(to.heading, pose.heading) < -Math.PI / 2) return null;
  }
  return null;
}
