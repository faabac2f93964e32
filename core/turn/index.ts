/**
 * Turns: Dubins (forward only) and Reeds-Shepp (with reversing) paths of
 * one turning radius, their exact end poses and their sampling.
 */
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
