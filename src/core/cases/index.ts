/**
 * The cases module: list, show and delete cases, and every write of the store's cases
 * (docs/architecture.md#where-cases-are-written): the vector-clock merge of uploads and imports
 * (`writeMergedCases`), tombstones, the CSWeb import's "replace as it is" (`replaceCases`) and
 * revision allocation; and the import of case files (`import/`).
 */
export { deleteAllCases, deleteCase, deleteCaseOf } from './delete.js';
export { importCases, warningLine } from './import/index.js';
export type { ImportReport } from './import/index.js';
export { DEFAULT_CASES_LIMIT, MAX_CASES_LIMIT, getCase, listCases, parsePaging } from './list.js';
export type { CaseList } from './list.js';
export { toCaseWrite } from './merge.js';
export type { MergeOutcome } from './merge.js';
export { writeMergedCases, writeUpload } from './write.js';
export { replaceCases } from './replace.js';
export type { CaseAsItIs } from './replace.js';
export { keepRevision, newRevision } from './revisions.js';
export { hasBinaryContent, openBinaryContent, storeBinaryContent } from './binary-items.js';
