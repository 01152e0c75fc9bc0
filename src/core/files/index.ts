/**
 * The files module: the store's files (put, list, open, remove) and the durable write behind them.
 */
export { commitStaged, discardStaged, setTimeDurably, stageFile } from './atomic-write.js';
export { openSnapshot } from './file-snapshot.js';
export type { FileSnapshot } from './file-snapshot.js';
export { fileInfo, listFiles, openFile, putFile, removeFile, storeFile } from './files.js';
export type { FileInfo, FileWriter } from './files.js';
export { mediaName, mediaPath } from './media-path.js';
export { removeStaleParts } from './stale-parts.js';
export type { StalePartsReport } from './stale-parts.js';
