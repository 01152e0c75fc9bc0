/**
 * Import of case files (.dat, .csdb, JSON) into a dictionary's cases, reading in a worker thread.
 */
export { DEFAULT_IMPORT_MISMATCH_CASES } from './dat-dictionary-check.js';
export { importCases, warningLine } from './import-cases.js';
export type { ImportReport } from './import-cases.js';
