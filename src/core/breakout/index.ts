/**
 * The breakout module: breakout jobs (`jobs/`), targets (`targets/`), the tables, the status and
 * the breakout log, on top of the breakout engine (src/breakout).
 */
export {
  TRIGGER_MODES,
  cancelJob,
  JOB_LEASE_SETTINGS,
  jobExitCode,
  jobLeaseSettings,
  jobStatus,
  listJobs,
  processAlive,
  processLauncher,
  reapDeadJobs,
  reportedError,
  runBreakoutNow,
  runJob,
  spawnJobProcess,
  startBreakout,
  startJobSweeper,
  triggerBreakout,
  waitForJob,
} from './jobs/index.js';
export type { JobListItem, JobStatusReply, StartReply, TriggerReply } from './jobs/index.js';
export { breakoutInterruption, casesBrokenOut } from './interruption.js';
export type { BreakoutInterruption } from './interruption.js';
export { listBreakoutLogs, readBreakoutLog } from './log.js';
export type { BreakoutLogItem, LogReaderReply } from './log.js';
export { breakoutStatus, statusConnectTimeout } from './status.js';
export type { StatusItem, StatusReply } from './status.js';
export { breakoutTables, dropBreakoutTables } from './tables.js';
export type { BreakoutTablesReply } from './tables.js';
export {
  checkDatabaseDrivers,
  clearTarget,
  effectiveTarget,
  effectiveTargetWithoutSecrets,
  isBreakoutConfigured,
  setTarget,
  showTarget,
  testTarget,
} from './targets/index.js';
export type { TargetInput } from './targets/index.js';
