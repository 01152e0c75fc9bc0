/**
 * The reports module: the sync history as supervisors read it, and the supervision reports over
 * the sync history and the stored cases (docs/supervision.md#sync-history-and-reports).
 */
export { listSyncHistory } from './history.js';
export type { SyncHistoryItem, SyncHistoryList, SyncHistoryOptions } from './history.js';
export { syncReport } from './sync-report.js';
export type { DayReportRow, DeviceReportRow, IdsReportRow, SyncReport, SyncReportOptions, UserReportRow } from './sync-report.js';
export { historyCsv, reportCsv } from './report-csv.js';
export { MAX_REPORT_LIMIT } from './report-options.js';
export { storeAreaNames } from './area-names.js';
export type { AreaNamesReply } from './area-names.js';
export { devicesSeen } from './devices-seen.js';
export { noteAppVersion } from './app-version.js';
