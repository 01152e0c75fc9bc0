/**
 * The cases module: list, show and delete cases, the vector-clock merge, the one case-write
 * path (`writeMergedCases`) and the import of case files (`import/`).
 */
export { deleteAllCases, deleteCase } from './delete.js';
export { importCases, warningLine } from './import/index.js';
export type { ImportReport } from './import/index.js';
export { DEFAULT_CASES_LIMIT, MAX_CASES_LIMIT, getCase, listCases, parsePaging } from './list.js';
export type { CaseList } from './list.js';
export { toCaseWrite } from './merge.js';
export type { MergeOutcome } from './merge.js';
export { writeMergedCases } from './write.js';
export { hasBinaryContent, openBinaryContent, storeBinaryContent } from './binary-items.js';
