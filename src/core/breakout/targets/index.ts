/**
 * Breakout targets: the database a dictionary breaks out into, and the drivers that reach it.
 */
export { checkDatabaseDrivers } from './drivers.js';
export {
  clearTarget,
  effectiveTarget,
  effectiveTargetWithoutSecrets,
  isBreakoutConfigured,
  setTarget,
  showTarget,
  testTarget,
} from './targets.js';
export type { TargetInput } from './targets.js';
