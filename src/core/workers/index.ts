/**
 * The workers module: how many server processes `sds serve` runs on one machine and how it
 * restarts one that ends unasked (docs/production.md#workers).
 */
export { MAX_CHECK_THREADS, MAX_WORKERS, WORKER_SETTINGS, checkThreadsFlag, workerSettings, workersFlag } from './settings.js';
export type { WorkerSettings } from './settings.js';
export { restartDelay } from './restart-policy.js';
export { prepareWorkerStore } from './prepare-store.js';
