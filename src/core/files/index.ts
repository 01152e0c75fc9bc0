/**
 * The files module: the store's media files (put, list, open, remove) over the store's file
 * store (src/store/file-store-contract.ts), and the sweep of uploads a crash cut.
 */
export type { FileSnapshot, StagedFile } from '../../store/file-store-contract.js';
export { fileInfo, listFiles, openFile, putFile, removeFile, storeFile } from './files.js';
export type { FileInfo, FileWriter } from './files.js';
export { mediaName } from './media-path.js';
export { removeStaleParts } from './stale-parts.js';
export type { StalePartsReport } from './stale-parts.js';
