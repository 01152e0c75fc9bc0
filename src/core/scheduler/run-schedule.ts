import { appendFileSync, closeSync, openSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { constants } from 'node:os';
import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { ScheduleRow, ScheduleRunOutcome, ScheduleRunRow, ScheduleRunTrigger } from '../../store/schedules-repo.js';
import { nextOccurrence } from '../../scheduler/cron.js';
import type { ChildResult } from '../../scheduler/run-child.js';
import { commandLine, formatRunLog, runLogName } from '../../scheduler/run-log.js';
import { processAlive, processLauncher, reapDeadJobs } from '../breakout/index.js';
import { logFileExists, removeLogFile, storeFinishedLog } from '../logs/index.js';
import type { SchedulerSettings } from './settings.js';
import { AppError } from '../../shared/errors.js';
import { currentNode } from '../../shared/node-id.js';

/** Exit code recorded for a run stopped by the time limit (as GNU timeout(1) reports it). */
const TIMEOUT_EXIT_CODE = 124;
/** Exit code recorded when the breakout child could not be started (as a shell reports it). */
export const SPAWN_FAILED_EXIT_CODE = 127;
/** Exit code recorded when the process watching a run died before the run ended. */
const RUNNER_DIED_EXIT_CODE = 1;

/** What one run of a schedule did. */
export interface RunOutcome {
  schedule_id: number;
  dictionary: string;
  trigger: ScheduleRunTrigger;
  run_id: number;
  outcome: ScheduleRunOutcome;
  exit_code: number | null;
  log_file: string | null;
  message: string | null;
}

/**
 * Whether the run's watching process may still be running. Its process id means something only
 * on its own host: a run of this host (or of a store older than migration 0029, which did not
 * record the host) is checked by process id; a run of another host is presumed alive until its
 * time limit, the kill grace and `foreignRunGraceSeconds` have passed since it started, as its
 * watcher would have ended it by then (docs/scheduler.md#several-nodes).
 */
function runnerMayBeAlive(run: ScheduleRunRow, now: Date, settings: SchedulerSettings): boolean {
  if (run.runnerHost === null || run.runnerHost === currentNode().host) return run.runnerPid !== null && processAlive(run.runnerPid);
  const limitMs = (settings.timeoutSeconds + settings.killGraceSeconds + settings.foreignRunGraceSeconds) * 1000;
  return now.getTime() - Date.parse(run.startedAt) < limitMs;
}

/**
 * Closes the runs whose watching process is gone (scheduler-run or run-now killed, machine
 * restarted, another node that died): recorded as failed, so no run shows `running` and no
 * schedule keeps last_exit_code -1 forever. Whatever of its log file is on this machine goes into
 * the store's file store.
 */
export async function reapDeadRuns(store: Store, now: Date, settings: SchedulerSettings): Promise<void> {
  for (const run of await store.schedules.runningRuns()) {
    if (runnerMayBeAlive(run, now, settings)) continue;
    const where = run.runnerHost !== null && run.runnerHost !== currentNode().host ? ` on ${run.runnerHost}` : '';
    const message = `the scheduler process (pid ${run.runnerPid ?? '?'}${where}) ended before the run finished; the breakout may not have completed`;
    // The end of the run and the check of its schedule in one transaction, as when they could not be interleaved.
    await store.transaction(async (tx) => {
      if (!(await tx.schedules.endRun(run.id, { endedAt: now.toISOString(), exitCode: null, outcome: 'failed', message }))) return;
      const s = await tx.schedules.get(run.scheduleId);
      if (s && s.lastExitCode === -1 && (await tx.schedules.latestRun(s.id))?.id === run.id) {
        await tx.schedules.markEnded(s.id, RUNNER_DIED_EXIT_CODE, now.toISOString());
      }
    });
    if (run.logFile !== null) await storeFinishedLog(store, basename(run.logFile));
  }
}

/**
 * Records a run of `schedule` as running, owned by this process, unless its dictionary is busy
 * (checked in the same store transaction, so two claimers cannot both win).
 */
export async function claimScheduleRun(
  store: Store,
  schedule: ScheduleRow,
  trigger: ScheduleRunTrigger,
  startedAt: Date,
): Promise<{ runId: number } | { busy: string }> {
  return store.transaction(async (tx): Promise<{ runId: number } | { busy: string }> => {
    const busy = await busyReason(tx, schedule);
    if (busy !== undefined) return { busy };
    const runId = await tx.schedules.addRun({
      scheduleId: schedule.id,
      trigger,
      startedAt: startedAt.toISOString(),
      endedAt: null,
      exitCode: null,
      outcome: 'running',
      logFile: null,
      message: null,
      runnerPid: process.pid,
      runnerHost: currentNode().host,
    });
    return { runId };
  });
}

/** Why a dictionary cannot run now, or undefined when it can (called inside the claim's transaction). */
async function busyReason(tx: StoreScope, s: ScheduleRow): Promise<string | undefined> {
  const job = (await tx.jobs.unfinished()).find((j) => j.dictionaries.includes(s.dictionary));
  if (job) return `breakout job ${job.id} of ${s.dictionary} (${job.origin}) is still ${job.status}`;
  const run = (await tx.schedules.runningRuns()).find((r) => r.scheduleId === s.id);
  if (run) return `a ${run.trigger} run of ${s.dictionary} started at ${run.startedAt} is still running`;
  return undefined;
}

/**
 * Reserves a log file name not yet used, here or in the store's file store (two runs in the same
 * second get `-1`, `-2`, ...).
 */
async function reserveLogFile(store: Store, dictionary: string, at: Date): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const name = runLogName(dictionary, at, attempt);
    try {
      if (attempt <= 1000 && (await logFileExists(store, name))) continue;
      closeSync(openSync(join(store.home.breakoutLogs, name), 'wx'));
      return name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 1000) throw err;
    }
  }
}

/** The JSON object the scheduled-breakout child printed: its job status or its error. */
function childReply(stdout: string): { status?: string; error?: unknown; message?: unknown } | undefined {
  try {
    const v = JSON.parse(stdout) as unknown;
    return typeof v === 'object' && v !== null ? (v as { status?: string; error?: unknown; message?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

interface Verdict {
  outcome: Exclude<ScheduleRunOutcome, 'running'>;
  exitCode: number;
  message: string | null;
  note?: string;
}

function judge(r: ChildResult, settings: SchedulerSettings): Verdict {
  if (r.spawnError)
    return {
      outcome: 'failed',
      exitCode: SPAWN_FAILED_EXIT_CODE,
      message: `the breakout could not be started: ${r.spawnError}`,
      note: r.spawnError,
    };
  if (r.timedOut) {
    const how = r.killed ? `SIGTERM, then SIGKILL after ${settings.killGraceSeconds} s` : 'SIGTERM';
    const note = `the breakout ran longer than the limit of ${settings.timeoutSeconds} s and was stopped (${how})`;
    return { outcome: 'interrupted', exitCode: TIMEOUT_EXIT_CODE, message: note, note };
  }
  if (r.stoppedBy) {
    const how = r.killed ? `, then SIGKILL after ${settings.killGraceSeconds} s` : '';
    const note = `the run was interrupted (${r.stoppedBy}${how}): the breakout stopped after the page it was writing`;
    return { outcome: 'interrupted', exitCode: 128 + (constants.signals[r.stoppedBy] ?? 0), message: note, note };
  }
  if (r.exitCode === null) {
    const signo = r.signal ? (constants.signals[r.signal] ?? 0) : 0;
    const note = `the breakout was ended by ${r.signal ?? 'a signal'}`;
    return { outcome: 'interrupted', exitCode: 128 + signo, message: note, note };
  }
  const reply = childReply(r.stdout);
  if (r.exitCode === 0) return { outcome: 'succeeded', exitCode: 0, message: null };
  if (reply?.error === 'BREAKOUT_BUSY') {
    // Another breakout of the dictionary started between our check and the child's: not a failure.
    return { outcome: 'skipped', exitCode: r.exitCode, message: `skipped: ${String(reply.message)}` };
  }
  const job = reply as { error?: { code?: string; message?: string } | string; message?: string } | undefined;
  let message = `the breakout ended with exit code ${r.exitCode}`;
  if (typeof job?.error === 'string') message = `${job.error}: ${String(job.message)}`;
  else if (job?.error && typeof job.error === 'object') message = `${job.error.code}: ${job.error.message}`;
  return { outcome: 'failed', exitCode: r.exitCode, message };
}

/**
 * The Command line of a run log: the operator command that does the same breakout by hand, as
 * the old scheduler wrote it, rather than the entry point's node and loader arguments
 * (docs/scheduler.md, "Run logs").
 */
function equivalentCommand(store: Store, dictionary: string): string {
  return commandLine('sds', ['--home', store.home.root, 'process-cases-by-dict', dictionary]);
}

/** Deletes the runs beyond the kept number, with their log files (here and in the store's file store). */
async function prune(store: Store, scheduleId: number, keep: number): Promise<void> {
  for (const file of await store.schedules.pruneRuns(scheduleId, keep)) {
    await removeLogFile(store, basename(file));
  }
}

/**
 * Runs one schedule's incremental breakout as a child process (the `scheduled-breakout` entry
 * point, which does what `sds process-cases-by-dict --json` does):
 * the one code path of scheduled runs and Run Now. While the child runs, last_exit_code is -1;
 * its output goes to the run log file of docs/scheduler.md#run-log-files, put in the store's file
 * store when the run ends; past the time limit it is stopped and the
 * run recorded as interrupted. A dictionary whose breakout is already running is skipped with
 * the reason in the history. A scheduled run moves next_run to the first occurrence after the
 * run ended (missed occurrences are not replayed); Run Now leaves next_run alone. `stop` aborted
 * (the command was interrupted) passes the signal on to the child: the run ends interrupted.
 */
export async function runSchedule(
  store: Store,
  schedule: ScheduleRow,
  trigger: ScheduleRunTrigger,
  settings: SchedulerSettings,
  opts: { env?: NodeJS.ProcessEnv; claimedRunId?: number; stop?: AbortSignal } = {},
): Promise<RunOutcome> {
  const startedAt = settings.now();
  const scheduledNext = async (scope: StoreScope): Promise<string | null> => {
    const s = await scope.schedules.get(schedule.id);
    return s?.enabled ? nextOccurrence(s.cronExpression, settings.now(), settings.zone).toISOString() : null;
  };
  const base = { schedule_id: schedule.id, dictionary: schedule.dictionary, trigger };

  // Check-and-claim in one store transaction: two starts of the same dictionary (a tick and a
  // Run Now, two Run Nows) cannot both pass the busy check. A Run Now started over HTTP was
  // claimed by the server before this process started (docs/scheduler.md, "Run Now").
  await reapDeadJobs(store);
  let runId: number;
  if (opts.claimedRunId !== undefined) {
    const claimed = await store.schedules.getRun(opts.claimedRunId);
    if (!claimed || claimed.scheduleId !== schedule.id || claimed.outcome !== 'running') {
      throw new AppError('USAGE', `run ${opts.claimedRunId} is not a running run of the schedule of ${schedule.dictionary}`, {
        run_id: opts.claimedRunId,
      });
    }
    runId = claimed.id;
  } else {
    const claim = await claimScheduleRun(store, schedule, trigger, startedAt);
    if ('busy' in claim) {
      const message = `skipped: ${claim.busy}`;
      // next_run is computed from the schedule as it is and written in the same transaction.
      const skippedId = await store.transaction(async (tx) => {
        const id = await tx.schedules.addRun({
          scheduleId: schedule.id,
          trigger,
          startedAt: startedAt.toISOString(),
          endedAt: startedAt.toISOString(),
          exitCode: null,
          outcome: 'skipped',
          logFile: null,
          message,
          runnerPid: null,
        });
        if (trigger === 'scheduled') await tx.schedules.setNextRun(schedule.id, await scheduledNext(tx), startedAt.toISOString());
        return id;
      });
      await prune(store, schedule.id, settings.keepRuns);
      return { ...base, run_id: skippedId, outcome: 'skipped', exit_code: null, log_file: null, message };
    }
    runId = claim.runId;
  }

  const logFile = await reserveLogFile(store, schedule.dictionary, startedAt);
  const previousExitCode = schedule.lastExitCode;
  await store.transaction(async (tx) => {
    await tx.schedules.markStarted(
      schedule.id,
      { lastRun: startedAt.toISOString(), nextRun: trigger === 'scheduled' ? await scheduledNext(tx) : schedule.nextRun, logFile },
      startedAt.toISOString(),
    );
    await tx.schedules.adoptRun(runId, {
      runnerPid: process.pid,
      runnerHost: currentNode().host,
      logFile,
      startedAt: startedAt.toISOString(),
    });
  });

  const result = await processLauncher.run('scheduled-breakout', ['--home', store.home.root, schedule.dictionary], {
    env: opts.env ?? process.env,
    timeoutMs: settings.timeoutSeconds * 1000,
    graceMs: settings.killGraceSeconds * 1000,
    stop: opts.stop,
  });
  const endedAt = settings.now();
  const v = judge(result, settings);
  writeFileSync(
    join(store.home.breakoutLogs, logFile),
    formatRunLog({
      command: equivalentCommand(store, schedule.dictionary),
      startedAt,
      endedAt,
      exitCode: v.exitCode,
      note: v.note,
      stdout: result.stdout,
      stderr: result.stderr,
    }),
  );
  // The finished log goes into the store's file store (docs/logs.md#job-and-run-log-files); one
  // that could not be stored stays here, with the reason at its end.
  const notStored = await storeFinishedLog(store, logFile);
  if (notStored) appendFileSync(join(store.home.breakoutLogs, logFile), `${notStored}\n`);

  // The run's end and the schedule's last exit code in one transaction: nobody reads a run that
  // ended while its schedule still says running (-1).
  const kept = await store.transaction(async (tx) => {
    await tx.schedules.endRun(runId, { endedAt: endedAt.toISOString(), exitCode: v.exitCode, outcome: v.outcome, message: v.message });
    if (!(await tx.schedules.get(schedule.id))) return false;
    // A skipped child did no work: the schedule keeps the exit code of its last real run.
    const recorded = v.outcome === 'skipped' ? previousExitCode : v.exitCode;
    const next = trigger === 'scheduled' ? await scheduledNext(tx) : undefined;
    await tx.schedules.markEnded(schedule.id, recorded, endedAt.toISOString(), next);
    return true;
  });
  if (kept) await prune(store, schedule.id, settings.keepRuns);
  return { ...base, run_id: runId, outcome: v.outcome, exit_code: v.exitCode, log_file: logFile, message: v.message };
}
