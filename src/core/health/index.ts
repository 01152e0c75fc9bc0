/**
 * The health module: the readiness of the server (`GET /readyz`), its settings, and the figures
 * that monitoring reads from the home at each scrape of `GET /metrics` (docs/metrics.md).
 */
export { readinessProbe } from './readiness.js';
export type { FsSpace, Readiness, ReadyCheck } from './readiness.js';
export { monitoringReadings } from './readings.js';
export type { MonitoringReadings } from './readings.js';
export { MIN_FREE_ENV, READY_CACHE_ENV, healthSettings } from './settings.js';
