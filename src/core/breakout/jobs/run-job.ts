import type { Store } from '../../../store/open-store.js';
import type { JobRow } from '../../../store/jobs-repo.js';
import { toAppError } from '../../../shared/errors.js';
import { escapeLogText } from '../../../shared/log-escape.js';
import { requireDictionary } from '../../dictionaries/index.js';
import { effectiveTarget } from '../targets/targets.js';
import { JobLogWriter } from '../log.js';
import { hms } from './durations.js';
import { finishJob } from './follow-up.js';
import { jobError, jobErrorLabel } from './job-error.js';
import { getDialect } from '../../../breakout/dialects/index.js';
import { runDictionary, type TableChange } from '../../../breakout/run-dictionary.js';
import type { FlattenWarning } from '../../../breakout/flatten.js';
import type { CursorSaving } from '../../../breakout/cursor-saver.js';
import { currentNode, type NodeIdentity } from '../../../shared/node-id.js';
import { claimJob, JobLeaseKeeper } from './job-lease.js';
import { jobLeaseSettings, type JobLeaseSettings } from './lease-settings.js';

/** Largest page, in cases, of one target transaction: big enough for the bulk paths. */
const PAGE_SIZE = 2000;

export interface RunJobOptions {
  /** Aborted on SIGTERM/SIGINT or `breakout cancel`: the job stops after the current page. */
  signal?: AbortSignal;
  /** Where warnings and progress lines go (the job's log file); the store's breakout log gets an abridged copy. */
  log?: (line: string) => void;
  /** Called after each page with the cases done of the dictionary being broken out (a progress bar). */
  onProgress?: (dictionary: string, processed: number, total: number) => void;
  /** Called when a dictionary's tables were dropped or created, before its cases load (a command says so on screen). */
  onTables?: (dictionary: string, change: TableChange) => void;
  pageSize?: number;
  /** How often the store cursor is saved, each time after the target was made durable (default: the home's `jobs.cursor_save_*`). */
  cursorSaving?: Partial<CursorSaving>;
  now?: () => Date;
  /** The node that runs the job (default this process's, src/shared/node-id.ts); tests run two in one process. */
  node?: NodeIdentity;
  /** The lease kept while the job runs (default the home's settings, docs/breakout.md#leases). */
  leases?: JobLeaseSettings;
  /** The node that handed the job to this process (the start or sweep that spawned it): its hold passes at once. */
  handoffFrom?: string;
}

/** How often the home's settings save a running job's cursor (config.json `jobs.cursor_save_*`, docs/limits.md). */
function homeCursorSaving(store: Store): CursorSaving {
  const { cursorSavePages, cursorSaveMs } = jobLeaseSettings(store.home);
  return { everyPages: cursorSavePages, everyMs: cursorSaveMs };
}

/**
 * Runs a job to its end in this process: claims it with a lease (a pending job, or one whose
 * node died: docs/breakout.md#leases), then each dictionary in turn not yet done, status and
 * progress saved in the store as it goes; a job taken over resumes at its cursor. Its end starts
 * the follow-up job that incoming case events asked for while it ran, if any (follow-up.ts).
 * Returns the final job row (still running when another node took the job over); never throws
 * for a job failure (the failure is the job's state, with its error code), only when the job
 * does not exist.
 */
export async function runJob(store: Store, jobId: string, opts: RunJobOptions = {}): Promise<JobRow> {
  const log = opts.log ?? (() => {});
  const now = opts.now ?? (() => new Date());
  const node = (opts.node ?? currentNode()).id;
  const leases = opts.leases ?? jobLeaseSettings(store.home);
  const job = await claimJob(store, { id: jobId, node, now: now(), leases, handoffFrom: opts.handoffFrom });
  if (!job) return (await store.jobs.get(jobId))!;
  // A stop asked by a signal is recorded at once: a process that then dies before it records
  // the end (its output gone with the command that started it) is cancelled, not taken over.
  const recordStop = () => void store.jobs.requestCancel(jobId).catch(() => undefined);
  if (opts.signal?.aborted) recordStop();
  else opts.signal?.addEventListener('abort', recordStop, { once: true });
  const lease = new JobLeaseKeeper(store, jobId, node, leases, now);
  lease.start();
  try {
    return await runClaimed(store, job, lease, { ...opts, log, now });
  } finally {
    opts.signal?.removeEventListener('abort', recordStop);
    lease.stop();
  }
}

async function runClaimed(
  store: Store,
  job: JobRow,
  lease: JobLeaseKeeper,
  opts: RunJobOptions & { log: (line: string) => void; now: () => Date },
): Promise<JobRow> {
  const { log, now } = opts;
  const jobId = job.id;
  const entries = new JobLogWriter(store, jobId, now, log);
  const started = now();
  const done: string[] = [...job.dictionariesDone];
  const created: string[] = [];
  let total = 0;
  let warnings = job.takeovers > 0 ? job.warnings : 0;
  let stopped = false;
  if (job.takeovers > 0)
    log(`taken over (${job.takeovers}) by node ${lease.node}: resuming after ${done.length} finished dictionaries, from the saved cursor`);
  try {
    for (const name of job.dictionaries) {
      if (done.includes(name)) continue;
      const dict = await requireDictionary(store, name);
      const target = await effectiveTarget(store, dict);
      log(`${name}: ${job.mode} breakout into ${target.identity} with ${job.threads} thread(s)`);
      await entries.started(
        name,
        `${name}: ${job.mode} breakout started (job ${jobId}) into ${target.identity} with ${job.threads} thread(s)`,
      );
      const r = await runDictionary({
        store,
        dict,
        dialect: getDialect(target.config.type),
        target,
        jobId,
        mode: job.mode,
        overwrite: job.overwrite,
        threads: job.threads,
        pageSize: opts.pageSize ?? PAGE_SIZE,
        cursorSaving: opts.cursorSaving ?? homeCursorSaving(store),
        shouldStop: async () => opts.signal?.aborted === true || (await lease.shouldStop()),
        signal: opts.signal,
        onProgress: async (processed, dictTotal, w) => {
          await lease.renewIfDue();
          await store.jobs.saveProgress(jobId, { dictionary: name, processed, total: dictTotal }, warnings + w);
          await entries.progress(name, processed, dictTotal);
          opts.onProgress?.(name, processed, dictTotal);
        },
        onWarning: async (w: FlattenWarning) => {
          // The case id and value came from a device: escaped, so the breakout log keeps one line per warning (docs/logs.md#control-characters).
          const line = escapeLogText(
            `warning: case ${w.case}${w.record ? ` record ${w.record}` : ''}${w.occurrence ? `(${w.occurrence})` : ''} item ${w.item}: ${w.reason} (value "${w.value}")`,
          );
          log(line);
          await entries.warning(name, `${name}: ${line}`);
        },
        onTables: async (change) => {
          if (change.dropped.length)
            log(`${name}: dropped ${change.dropped.length} table(s) (${change.reason}: ${change.detail}): ${change.dropped.join(', ')}`);
          if (change.created.length) log(`${name}: created ${change.created.length} table(s): ${change.created.join(', ')}`);
          await entries.tables(name, change);
          opts.onTables?.(name, change);
        },
        onLabels: async (sync) => {
          log(`${name}: labels ${sync.written ? 'written' : 'unchanged'} in ${sync.tables.join(', ')}`);
          await entries.labels(name, sync);
        },
        now,
      });
      total += r.processed;
      warnings += r.warnings;
      created.push(...r.tablesCreated);
      if (r.stopped) {
        stopped = true;
        break;
      }
      done.push(name);
      await store.jobs.setDictionariesDone(jobId, done);
      log(`${name}: ${r.processed} cases, ${r.warnings} warnings`);
      await entries.finished(
        name,
        `${name}: finished, ${r.processed} cases, ${r.warnings} warnings, ${r.tablesCreated.length} tables created`,
      );
    }
    if (lease.lost) return await leftToOtherNode(store, jobId, log);
    const result = { dictionaries_processed: done, total_cases: total, tables_created: created, warnings };
    await finishJob(store, jobId, stopped ? 'cancelled' : 'completed', { result, warnings }, { now });
    const took = hms((now().getTime() - started.getTime()) / 1000);
    await entries.ended(
      job.dictionaries,
      'info',
      stopped
        ? `job ${jobId} cancelled after ${total} cases (${took}); the next run continues from there`
        : `job ${jobId} completed: ${total} cases, ${warnings} warnings in ${took}`,
    );
  } catch (err) {
    if (lease.lost) return await leftToOtherNode(store, jobId, log);
    const e = toAppError(err);
    const error = jobError(e);
    const code = jobErrorLabel(error);
    log(`failed: ${code}: ${e.message}`);
    await finishJob(store, jobId, 'failed', { error, warnings }, { now });
    await entries.ended(job.dictionaries, 'error', `job ${jobId} failed: ${code}: ${e.message}`);
  }
  return (await store.jobs.get(jobId))!;
}

/** The job was taken over by another node while this one ran it: it is that node's to end. */
async function leftToOtherNode(store: Store, jobId: string, log: (line: string) => void): Promise<JobRow> {
  const row = (await store.jobs.get(jobId))!;
  log(`stopped: the job's lease is now held by ${row.leaseNode ?? 'no node'} (docs/breakout.md#leases); it goes on there`);
  return row;
}
