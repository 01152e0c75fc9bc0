/**
 * Import of case files (.dat, .csdb, JSON) into a dictionary's cases, reading in a worker thread.
 */
export { importCases, warningLine } from './import-cases.js';
export type { ImportReport } from './import-cases.js';
