/**
 * The logs module: retention of the home's logs (import logs, jobs, schedule runs, the breakout
 * log) and the log settings (docs/logs.md).
 */
export { pruneLogs } from './prune-logs.js';
export type { PruneReport, PruneCounts, PruneRules } from './prune-logs.js';
export { autoPruneLogs, pruneSummary, startLogPruner } from './auto-prune.js';
export type { LogPruner } from './auto-prune.js';
export { LOG_KINDS } from './prune-plan.js';
export { jobLogName, logFileExists, removeLogFile, showLogFile, storeFinishedLog } from './log-files.js';
export { planPrune } from './prune-plan.js';
export type { PruneInventory, PrunePlan } from './prune-plan.js';
export { LOG_FORMATS, LOG_NUMBER_SETTINGS, logSettings, logSettingsFrom } from './retention-settings.js';
export type { LogFormat, LogSettings } from './retention-settings.js';
