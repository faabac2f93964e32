/** The Tramline planner: a field and a machine in, a drivable coverage plan out. Pure; runs anywhere. */
export { planField } from './plan.ts';
export * from './types/index.ts';
