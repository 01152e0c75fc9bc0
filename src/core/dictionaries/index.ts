/**
 * The dictionaries module: upload, list, show and delete CSPro dictionaries (the purge with
 * their cases is core/dictionary-purge).
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
export { clearDictionaryGps, getDictionaryGps, setDictionaryGps } from './gps.js';
export type { DictionaryGpsReply } from './gps.js';
