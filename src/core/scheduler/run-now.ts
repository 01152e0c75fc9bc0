import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';
import { processLauncher, reapDeadJobs } from '../breakout/index.js';
import { requireSchedule, type ScheduleRef } from './schedules.js';
import { claimScheduleRun, reapDeadRuns, runSchedule, SPAWN_FAILED_EXIT_CODE, type RunOutcome } from './run-schedule.js';
import { schedulerSettings, type SchedulerSettings } from './settings.js';
import { currentNode } from '../../shared/node-id.js';

/**
 * Run Now in this process: the schedule's breakout runs at once through the code of scheduled
 * runs (log file, history with trigger `run-now`, time limit) and the call returns when it has
 * ended. It works on a disabled schedule too, and leaves next_run alone.
 */
export async function runNow(
  store: Store,
  ref: ScheduleRef,
  settings: SchedulerSettings,
  opts: { claimedRunId?: number; stop?: AbortSignal } = {},
): Promise<RunOutcome> {
  const s = await requireSchedule(store, ref);
  await reapDeadRuns(store, settings.now(), settings);
  return runSchedule(store, s, 'run-now', settings, { claimedRunId: opts.claimedRunId, stop: opts.stop });
}

/** Reply of a detached Run Now (HTTP 202). */
export interface RunNowStarted {
  status: 'started';
  schedule_id: number;
  dictionary: string;
  message: string;
}

/**
 * Run Now for the HTTP API, which must answer at once: the busy check and the claim of the run
 * (a history entry `running`) are one store transaction, so of two requests racing for the same
 * dictionary one gets BREAKOUT_BUSY. The claimed run is then handed to a detached process
 * (the `run-now` entry point), which takes it over; if that process dies first, the
 * next reaper closes the run as failed.
 */
export async function startRunNow(
  store: Store,
  ref: ScheduleRef,
  opts: { env?: NodeJS.ProcessEnv; now?: () => Date } = {},
): Promise<RunNowStarted> {
  const s = await requireSchedule(store, ref);
  const now = (opts.now ?? (() => new Date()))();
  await reapDeadJobs(store);
  await reapDeadRuns(store, now, schedulerSettings(store.home, { env: opts.env }));
  const claim = await claimScheduleRun(store, s, 'run-now', now);
  if ('busy' in claim) {
    throw new AppError('BREAKOUT_BUSY', `the breakout of ${s.dictionary} is already running (${claim.busy})`, { dictionary: s.dictionary });
  }
  let child;
  try {
    child = processLauncher.detached('run-now', ['--home', store.home.root, '--claimed-run', String(claim.runId), s.dictionary], {
      output: 'ignore',
      env: opts.env,
    });
  } catch (err) {
    await store.schedules.endRun(claim.runId, {
      endedAt: now.toISOString(),
      exitCode: SPAWN_FAILED_EXIT_CODE,
      outcome: 'failed',
      message: `the breakout could not be started: ${(err as Error).message}`,
    });
    throw err;
  }
  // From here the child watches the run: if it dies before taking it over, the reaper closes it.
  if (child.pid !== undefined)
    await store.schedules.adoptRun(claim.runId, {
      runnerPid: child.pid,
      runnerHost: currentNode().host,
      logFile: null,
      startedAt: now.toISOString(),
    });
  child.once('error', (err) => {
    // Nobody awaits an event listener: a write that fails here must not become an unhandled rejection.
    void (async () => {
      try {
        await store.schedules.endRun(claim.runId, {
          endedAt: new Date().toISOString(),
          exitCode: SPAWN_FAILED_EXIT_CODE,
          outcome: 'failed',
          message: `the breakout could not be started: ${err.message}`,
        });
      } catch {
        // the run stays `running` until a reaper finds its process gone
      }
    })();
  });
  return {
    status: 'started',
    schedule_id: s.id,
    dictionary: s.dictionary,
    message: `Run Now of ${s.dictionary} started; follow it in GET /scheduler/${s.id}/runs`,
  };
}
