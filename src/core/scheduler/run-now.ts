import { spawn } from 'node:child_process';
import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';
import { reapDeadJobs } from '../breakout/follow-up.js';
import { requireSchedule, type ScheduleRef } from './schedules.js';
import { reapDeadRuns, runSchedule, SDS_BIN, type RunOutcome } from './run-schedule.js';
import type { SchedulerSettings } from './settings.js';

/**
 * Run Now in this process: the schedule's breakout runs at once through the code of scheduled
 * runs (log file, history with trigger `run-now`, time limit) and the call returns when it has
 * ended. It works on a disabled schedule too, and leaves next_run alone.
 */
export async function runNow(store: Store, ref: ScheduleRef, settings: SchedulerSettings): Promise<RunOutcome> {
  const s = requireSchedule(store, ref);
  reapDeadRuns(store, settings.now());
  return runSchedule(store, s, 'run-now', settings);
}

/** Reply of a detached Run Now (HTTP 202). */
export interface RunNowStarted {
  status: 'started';
  schedule_id: number;
  dictionary: string;
  message: string;
}

/**
 * Run Now for the HTTP API, which must answer at once: refuses with BREAKOUT_BUSY when the
 * dictionary's breakout is already running, else starts `sds schedule run-now <dict>` as a
 * detached process and returns. The run appears in the schedule's history (GET
 * /scheduler/{id}/runs) as soon as that process starts.
 */
export function startRunNow(store: Store, ref: ScheduleRef, opts: { env?: NodeJS.ProcessEnv } = {}): RunNowStarted {
  const s = requireSchedule(store, ref);
  reapDeadJobs(store);
  const job = store.jobs.unfinished().find((j) => j.dictionaries.includes(s.dictionary));
  const run = store.schedules.runningRuns().find((r) => r.scheduleId === s.id);
  if (job || run) {
    const what = job ? `breakout job ${job.id} is still ${job.status}` : `a ${run!.trigger} run started at ${run!.startedAt} is still running`;
    throw new AppError('BREAKOUT_BUSY', `the breakout of ${s.dictionary} is already running (${what})`, { dictionary: s.dictionary });
  }
  const child = spawn(process.execPath, [SDS_BIN, '--home', store.home.root, '--quiet', 'schedule', 'run-now', s.dictionary], {
    detached: true,
    stdio: 'ignore',
    env: opts.env ?? process.env,
  });
  child.unref();
  return { status: 'started', schedule_id: s.id, dictionary: s.dictionary, message: `Run Now of ${s.dictionary} started; follow it in GET /scheduler/${s.id}/runs` };
}
