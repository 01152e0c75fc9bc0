import { basename } from 'node:path';
import type { Store } from '../../store/open-store.js';
import type { PurgeCounts } from '../../store/dictionaries-repo.js';
import { AppError } from '../../shared/errors.js';
import { requireDictionaryRow } from '../dictionaries/index.js';
import { dropBreakoutTables, reapDeadJobs, processAlive } from '../breakout/index.js';
import { jobLogName, removeLogFile } from '../logs/index.js';

/** Reply of a purge: what was removed, and the breakout tables dropped or left in the target. */
export interface PurgeReply {
  message: string;
  name: string;
  removed: PurgeCounts & { log_files: number };
  /** Tables dropped from the target (only with drop tables). */
  dropped_tables: string[];
  /** Breakout tables the store knew of that stay in the target (purged without drop tables). */
  tables_left: string[];
}

/**
 * Deletes a dictionary with its cases (tombstones included), revisions, schedules and their
 * runs and log files, sync history, its own finished breakout jobs and log entries, breakout
 * state, target configuration and webhook events not yet delivered (docs/decisions.md,
 * "Purging a dictionary"). Breakout tables in the target are dropped first only with
 * `dropTables`; a target that cannot be reached then stops the purge before the store changes.
 * Refused with BREAKOUT_BUSY while a job of the dictionary is pending or running or one of its
 * schedules runs. All store changes are one transaction.
 */
export async function purgeDictionary(store: Store, given: string, opts: { dropTables?: boolean } = {}): Promise<PurgeReply> {
  const dict = await requireDictionaryRow(store, given);
  // Jobs, logs and messages know the dictionary by its own name, whichever name it was given by.
  const name = dict.name;
  await reapDeadJobs(store);
  await refuseWhenBusy(store, dict.id, name);
  const known = (await store.breakoutState.get(dict.id))?.tables ?? [];
  const dropped = opts.dropTables ? (await dropBreakoutTables(store, name)).deleted_tables : [];
  const result = await store.dictionaries.purge(dict.id, name);
  if ('busy' in result) throw busyError(name, result.busy);
  let logFiles = 0;
  // Here and in the store's file store (docs/logs.md#job-and-run-log-files).
  const names = [...result.scheduleLogs.map((f) => basename(f)), ...result.jobIds.map(jobLogName)];
  for (const name of names) {
    try {
      if (await removeLogFile(store, name)) logFiles += 1;
    } catch {
      // A log file that cannot be removed is not an error: the rows that named it are gone.
    }
  }
  const left = opts.dropTables ? [] : known;
  const c = result.counts;
  return {
    message:
      `Dictionary ${name} purged: ${c.cases} cases (${c.deleted_cases} deleted), ${c.schedules} schedules, ${c.sync_history} sync records` +
      (opts.dropTables
        ? `, ${dropped.length} breakout tables dropped`
        : left.length
          ? `; ${left.length} breakout tables left in the target`
          : ''),
    name,
    removed: { ...c, log_files: logFiles },
    dropped_tables: dropped,
    tables_left: left,
  };
}

/** Cases of a dictionary a purge would remove, soft-deleted ones included (for the confirmation). */
export async function purgeCaseCount(store: Store, name: string): Promise<number> {
  return store.cases.count((await requireDictionaryRow(store, name)).id);
}

async function refuseWhenBusy(store: Store, dictionaryId: number, name: string): Promise<void> {
  const job = (await store.jobs.unfinished()).find((j) => j.dictionaries.includes(name));
  if (job) throw busyError(name, { kind: 'job', id: job.id, status: job.status });
  // A run whose runner died is left `running` until the scheduler reaps it: it must not block.
  const schedule = await store.schedules.forDictionary(dictionaryId);
  const run =
    schedule &&
    (await store.schedules.runningRuns()).find((r) => r.scheduleId === schedule.id && r.runnerPid !== null && processAlive(r.runnerPid));
  if (run) throw busyError(name, { kind: 'schedule-run', id: String(run.id), status: 'running' });
}

function busyError(name: string, busy: { kind: 'job' | 'schedule-run'; id: string; status: string }): AppError {
  const what =
    busy.kind === 'job'
      ? `breakout job ${busy.id} of ${name} is still ${busy.status}`
      : `schedule run ${busy.id} of ${name} is still running`;
  return new AppError('BREAKOUT_BUSY', `${what}; wait for it or cancel it before purging the dictionary`, {
    dictionary: name,
    [busy.kind === 'job' ? 'job_id' : 'schedule_run_id']: busy.id,
    status: busy.status,
  });
}
