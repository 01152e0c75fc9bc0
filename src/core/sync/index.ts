/**
 * The sync module: what the CSPro sync protocol asks of the server (server info, case upload and
 * download, dictionaries and files of the sync API), on top of the sync engine (src/sync).
 */
export { deviceOf, isSyncDownload, parseDownloadHeaders, parseUploadHeaders, wantsFileMd5 } from '../../sync/headers.js';
export { isCsproClient, syncApiVersion } from '../../sync/client-version.js';
export type { SyncApiVersion } from '../../sync/client-version.js';
export { deleteApp, listApps, listClientFolder, openApp, openClientFile, putApp, putClientFile } from './files.js';
export { listSyncMessages, receiveSyncMessage } from './messages.js';
export type { SyncMessageItem, SyncMessageList } from './messages.js';
export { MAX_MESSAGES_LIMIT, parseSyncMessageQuery } from './message-query.js';
export type { SyncMessageOptions, SyncMessageQuery } from './message-query.js';
export {
  chunkJson,
  deleteSyncedCase,
  downloadCases,
  readDownloadPage,
  getSyncCaseJson,
  serverInfo,
  syncHistory,
  uploadCases,
  uploadRawDictionary,
} from './sync.js';
export { DeferredSmallBody, readUploadBodyDeferring } from './upload-body.js';
export type { NamedSyncPage } from '../../store/sync-repo.js';
export { inflateLabelled } from './inflate-body.js';
export type { BinaryItemSink, UploadBodyLimits } from './upload-body.js';
export { binaryItemSink, chunkBinaryItems, chunkContainer } from './binary-items.js';
export { clearDataSource, dataSourceMetadata, openDataSourceBinary, queryDataSource } from './data-source.js';
export type { DataSourceMetadata } from './data-source.js';
export { CASES_OPTIONS_HEADER, parseCasesOptions } from '../../sync/cases-options.js';
export { CASES_CACHE_HEADER, parseCasesCache } from '../../sync/cases-cache-header.js';
export { CheckPool } from './check-pool.js';
export { INLINE_CHECKER, type UploadChecker, type UploadChecks } from './upload-checker.js';
