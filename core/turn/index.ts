/**
 * Turns: Dubins (forward only), Reeds-Shepp (with reversing) and
 * continuous-curvature (CC-Dubins, clothoid) paths of
 * one turning radius, their exact end poses and their sampling.
 */

export {
  type CCTurnGeometry,
  ccCorner,
  ccDubinsPaths,
  ccDubinsShortest,
  ccTurn,
  ccTurnGeometry,
  ccTurnLength,
} from './cc-dubins.ts';
export {
  type CurvePath,
  type CurvePiece,
  curveEndPose,
  maxCurvature,
  maxSharpness,
  pieceEnd,
  sampleCurvePath,
} from './clothoid.ts';
export { dubinsPaths, dubinsShortest } from './dubins.ts';
export {
  ARC_STEP,
  endPose,
  MIN_SEGMENT_LENGTH,
  type SampledPiece,
  type SampleOptions,
  type Segment,
  type SegmentType,
  samplePath,
  segmentEnd,
  type TurnPath,
} from './path.ts';
export { reedsSheppPaths, reedsSheppShortest } from './reeds-shepp.ts';
