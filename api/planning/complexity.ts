/** The field complexity estimate lives in formats/ (shared with the job workers). */
export {
  type Complexity,
  type ComplexityLimits,
  DEFAULT_COMPLEXITY_LIMITS,
  estimateComplexity,
  type FieldMeasure,
  measureBoundary,
  tooComplex,
} from '../../formats/field-complexity.ts';
