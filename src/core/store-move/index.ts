/**
 * The store-move module: `sds store copy` moves a stopped SQLite home's store into an empty
 * PostgreSQL store, `sds store verify` compares the two again (docs/production.md, "Moving a home
 * to PostgreSQL").
 */
export { copyHomeToPostgres } from './copy-home.js';
export type { CopyHomeOptions, CopyHomeResult } from './copy-home.js';
export { verifyHomeCopy } from './verify-copy.js';
export type { VerifyCopyResult } from './verify-copy.js';
export type { AreaMoved, FilesMoved } from './copy-files.js';
