/**
 * The dictionaries module: upload, list, show, delete and purge CSPro dictionaries.
 */
export {
  deleteDictionary,
  dictionarySource,
  getDictionary,
  listDictionaries,
  requireDictionary,
  requireDictionaryRow,
  uploadDictionary,
} from './dictionaries.js';
export type { BreakoutRebuildNotice, DictionaryDetail, DictionaryListItem, DictionaryShort, UploadReply } from './dictionaries.js';
export { MAX_LABEL_LENGTH } from './label.js';
export { answersTo, settleSyncName } from './sync-name.js';
export { purgeCaseCount, purgeDictionary } from './purge.js';
export type { PurgeReply } from './purge.js';
