/**
 * Breakout jobs: start, run, wait for, cancel and list them, the process that runs one, and the
 * follow-up run a trigger asks for.
 */
export { reapDeadJobs } from './follow-up.js';
export { startJobSweeper } from './job-sweeper.js';
export { JOB_LEASE_SETTINGS, jobLeaseSettings } from './lease-settings.js';
export { reportedError } from './job-error.js';
export { processAlive, spawnJobProcess } from './job-process.js';
export { jobExitCode } from './job-replies.js';
export type { JobListItem, JobStatusReply } from './job-replies.js';
export { processLauncher } from './launcher.js';
export { cancelJob, jobStatus, listJobs, runBreakoutNow, startBreakout, waitForJob } from './jobs.js';
export type { StartReply } from './jobs.js';
export { runJob } from './run-job.js';
export { TRIGGER_MODES, triggerBreakout } from './trigger.js';
export type { TriggerReply } from './trigger.js';
