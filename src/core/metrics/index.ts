/**
 * The metrics module: cases per dictionary, breakout state and sync rate.
 */
export { metrics } from './metrics.js';
export type { MetricsReply } from './metrics.js';
