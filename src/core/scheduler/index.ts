/**
 * The scheduler module: schedules, scheduler settings, run-now and the scheduler's run, on top of
 * the schedule engine (src/scheduler).
 */
export { runNow, startRunNow } from './run-now.js';
export type { RunNowStarted } from './run-now.js';
export type { RunOutcome } from './run-schedule.js';
export { schedulerRun } from './scheduler-run.js';
export { addSchedule, listSchedules, removeSchedule, scheduleRuns, toggleSchedule, updateSchedule } from './schedules.js';
export type { ScheduleItem, ScheduleList, ScheduleRuns } from './schedules.js';
export { schedulerSettings } from './settings.js';
