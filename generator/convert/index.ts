// Public face of the converter: Runtime + landscape settings (+ live Shoot) → Shoot + companions.
export { convertRuntime } from './convert-runtime.js';
