import { randomUUID } from 'node:crypto';
import type { Store } from '../../../store/open-store.js';
import type { JobMode, JobRow, JobStatus } from '../../../store/jobs-repo.js';
import { AppError, toAppError } from '../../../shared/errors.js';
import { requireDictionary } from '../../dictionaries/index.js';
import { existingPlanTables } from '../../../breakout/run-dictionary.js';
import { runJob, type RunJobOptions } from './run-job.js';
import { processAlive, spawnJobProcess } from './job-process.js';
import { currentNode } from '../../../shared/node-id.js';
import { localHolder, reapDeadJobs } from './follow-up.js';
import { withTargetSession } from '../targets/targets.js';
import { humanDuration } from './durations.js';
import { jobListItem, jobStatusReply, type JobListItem, type JobStatusReply } from './job-replies.js';
import { logJobFailure } from '../log.js';
import { isTargetConnectionError, jobError } from './job-error.js';
import { startCheckConnectTimeout } from './start-check-timeout.js';

const MIN_THREADS = 1;
const MAX_THREADS = 10;
const DEFAULT_JOBS_LIMIT = 50;
const MAX_JOBS_LIMIT = 1000;
/** Throughput assumed for the first estimate, before any job of this store has completed. */
const DEFAULT_CASES_PER_SECOND = 5000;

/**
 * Checks `threads`: a whole number from 1 to 10 (docs/breakout.md#jobs), else INVALID_THREADS. A string is
 * refused too (`"2"` is not an integer of the JSON body); the CLI turns its text into a number.
 */
export function parseThreads(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_THREADS || value > MAX_THREADS) {
    throw new AppError(
      'INVALID_THREADS',
      `threads must be a whole number from ${MIN_THREADS} to ${MAX_THREADS}; got ${JSON.stringify(value)}`,
      { field: 'threads' },
    );
  }
  return value;
}

/** Start reply of docs/http-api.md#breakout-routes (HTTP 202). */
export interface StartReply {
  status: 'started';
  job_id: string;
  dictionaries: string[];
  threads: number;
  estimated_time: string;
  message: string;
}

export interface StartInput {
  dictionaries: unknown;
  threads?: unknown;
  overwrite?: boolean;
  origin?: string;
}

async function parseDictionaryNames(store: Store, value: unknown): Promise<string[]> {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new AppError('USAGE', 'dictionaries must be a non-empty array of dictionary names', { field: 'dictionaries' });
  }
  // By the dictionaries' own names, whichever name each was given by (docs/sync.md#syncable-names).
  const names: string[] = [];
  for (const n of value as string[]) names.push((await requireDictionary(store, n)).name);
  return [...new Set(names)];
}

/**
 * Starts a full breakout of dictionaries as a background job (docs/http-api.md#breakout-routes): refused with
 * TABLES_ALREADY_EXIST and the existing tables when any exist and overwrite is false. The
 * target is checked before the job is handed to its process, its connect bounded by
 * SDS_BREAKOUT_CHECK_CONNECT_TIMEOUT_MS (3000 ms) so a target that never answers cannot hold the
 * reply (docs/breakout.md). A target that cannot be used (or does not answer in time) does
 * not refuse the request (the spec's flow answers 202 to a valid request): the job is started
 * and ends at once `failed` with DB_CONNECTION_ERROR, its DB-00x code in the details.
 */
export async function startBreakout(
  store: Store,
  input: StartInput,
  opts: { spawn?: boolean; env?: NodeJS.ProcessEnv; checkConnectTimeoutMs?: number } = {},
): Promise<StartReply> {
  const checkConnectTimeoutMs = opts.checkConnectTimeoutMs ?? startCheckConnectTimeout(opts.env);
  const dictionaries = await parseDictionaryNames(store, input.dictionaries);
  const threads = input.threads === undefined ? 1 : parseThreads(input.threads);
  const overwrite = input.overwrite === true;
  const job = await createJob(store, { dictionaries, mode: 'full', threads, overwrite, origin: input.origin ?? 'cli' });
  let failed = false;
  try {
    const existing = overwrite ? [] : await findExistingTables(store, dictionaries, checkConnectTimeoutMs);
    if (existing.length > 0) {
      await store.jobs.finish(job.id, 'cancelled');
      throw new AppError('TABLES_ALREADY_EXIST', `breakout tables already exist: ${existing.join(', ')}; use overwrite to rebuild them`, {
        existing_tables: existing,
        job_id: job.id,
      });
    }
  } catch (err) {
    const e = toAppError(err);
    if (e.code === 'TABLES_ALREADY_EXIST') throw e;
    const error = jobError(e);
    await store.jobs.finish(job.id, 'failed', { error });
    await logJobFailure(store, job, error);
    if (!isTargetConnectionError(e)) {
      e.details.job_id = job.id;
      throw e;
    }
    failed = true;
  }
  if (!failed && opts.spawn !== false) await spawnJobProcess(store, job.id);
  let cases = 0;
  for (const d of dictionaries) cases += await store.cases.countActive((await requireDictionary(store, d)).id);
  return {
    status: 'started',
    job_id: job.id,
    dictionaries,
    threads,
    estimated_time: humanDuration(cases / (await casesPerSecond(store))),
    message: `Breakout of ${dictionaries.join(', ')} started in the background (${cases} cases)`,
  };
}

/**
 * Creates a pending job, refused with BREAKOUT_BUSY while another job of one of its dictionaries
 * is pending or running: two jobs writing the same tables would corrupt each other's work (a
 * rebuild dropping tables under a running load, two cursors racing). Dead jobs are reaped first
 * so a killed job never blocks the next run.
 */
export async function createJob(store: Store, spec: Omit<Parameters<Store['jobs']['create']>[0], 'id'>): Promise<JobRow> {
  await reapDeadJobs(store);
  const created = await store.jobs.createExclusive({ id: randomUUID(), ...spec });
  if ('job' in created) return created.job;
  const { busy } = created;
  const shared = busy.dictionaries.filter((d) => spec.dictionaries.includes(d));
  throw new AppError('BREAKOUT_BUSY', `breakout job ${busy.id} of ${shared.join(', ')} is still ${busy.status}; wait for it or cancel it`, {
    job_id: busy.id,
    status: busy.status,
    dictionaries: shared,
  });
}

async function findExistingTables(store: Store, dictionaries: string[], connectTimeoutMs: number): Promise<string[]> {
  const found: string[] = [];
  for (const name of dictionaries) {
    found.push(
      ...(await withTargetSession(store, await requireDictionary(store, name), (session, plan) => existingPlanTables(session, plan), {
        connectTimeoutMs,
      })),
    );
  }
  return found;
}

async function casesPerSecond(store: Store): Promise<number> {
  const last = (await store.jobs.list({ status: 'completed', limit: 1 })).jobs[0];
  if (last?.result && last.startedAt && last.finishedAt) {
    const s = (Date.parse(last.finishedAt) - Date.parse(last.startedAt)) / 1000;
    if (s > 0 && last.result.total_cases > 100) return last.result.total_cases / s;
  }
  return DEFAULT_CASES_PER_SECOND;
}

/** The status of a job in the shape of docs/http-api.md#breakout-routes; a job whose process died is reported failed. */
export async function jobStatus(store: Store, jobId: string): Promise<JobStatusReply> {
  await reapDeadJobs(store);
  const job = await store.jobs.get(jobId);
  if (!job) throw new AppError('NOT_FOUND', `breakout job ${jobId} not found`, { job_id: jobId });
  return jobStatusReply(job);
}

const STATUSES: readonly JobStatus[] = ['pending', 'running', 'completed', 'failed', 'cancelled'];

/** Job list envelope of docs/http-api.md#breakout-routes, newest first. */
export async function listJobs(
  store: Store,
  opts: { status?: unknown; limit?: unknown } = {},
): Promise<{ total: number; limit: number; data: JobListItem[] }> {
  if (opts.status !== undefined && !(STATUSES as readonly unknown[]).includes(opts.status)) {
    throw new AppError('USAGE', `status must be one of ${STATUSES.join(', ')}; got "${String(opts.status)}"`, { field: 'status' });
  }
  const limit = opts.limit === undefined ? DEFAULT_JOBS_LIMIT : Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_JOBS_LIMIT) {
    throw new AppError('USAGE', `limit must be a whole number from 1 to ${MAX_JOBS_LIMIT}; got "${String(opts.limit)}"`, {
      field: 'limit',
    });
  }
  await reapDeadJobs(store);
  const { total, jobs } = await store.jobs.list({ status: opts.status as JobStatus | undefined, limit });
  return { total, limit, data: jobs.map((j) => jobListItem(j)) };
}

/**
 * Asks a job to stop: its process finishes the page it is writing (each page is atomic) and
 * marks the job cancelled. A job not yet started is cancelled at once, and its process (if one
 * was spawned) then finds it final and does nothing. A job that has already ended cannot be
 * cancelled: CONFLICT, with its status in the details.
 */
export async function cancelJob(store: Store, jobId: string): Promise<JobStatusReply> {
  await reapDeadJobs(store);
  // The check of the status and the cancel in one transaction, as when they could not be interleaved.
  const job = await store.transaction(async (tx) => {
    const found = await tx.jobs.get(jobId);
    if (!found) throw new AppError('NOT_FOUND', `breakout job ${jobId} not found`, { job_id: jobId });
    if (found.status !== 'pending' && found.status !== 'running') {
      throw new AppError(
        'CONFLICT',
        `breakout job ${jobId} has already ended (${found.status}); only a pending or running job can be cancelled`,
        {
          job_id: jobId,
          status: found.status,
        },
      );
    }
    await tx.jobs.requestCancel(jobId);
    // A pending job is claimed (pending → running is atomic) and ended here, so its process finds
    // it final and never starts the work. A running job reads the cancel flag before each page;
    // it is not signalled: SIGTERM would take effect at the same point, and would kill a process
    // that runs the job without handling it (quickstart) or one still starting up.
    if (found.status === 'pending' && (await tx.jobs.markRunning(jobId, process.pid))) {
      await tx.jobs.finish(jobId, 'cancelled', {
        result: { dictionaries_processed: [], total_cases: 0, tables_created: [], warnings: 0 },
      });
    }
    return (await tx.jobs.get(jobId))!;
  });
  return jobStatusReply(job);
}

/**
 * How long `waitForJob` waits, once the job has ended, for its process on this machine to exit:
 * it stores the finished log last (docs/logs.md#job-and-run-log-files), a matter of milliseconds.
 */
const JOB_EXIT_WAIT_MS = 10_000;

/**
 * Waits for a job to end, calling `onUpdate` with each new state, and returns the final one.
 * Polls the store: the job runs in another process. When that process ran on this machine, it
 * also waits (at most `exitWaitMs`) for it to exit, so that its log is in the store by then and
 * `sds logs show` from any home finds it.
 */
export async function waitForJob(
  store: Store,
  jobId: string,
  onUpdate?: (s: JobStatusReply) => void,
  intervalMs = 250,
  exitWaitMs = JOB_EXIT_WAIT_MS,
): Promise<JobStatusReply> {
  const pause = () => new Promise((r) => setTimeout(r, intervalMs));
  for (;;) {
    const s = await jobStatus(store, jobId);
    onUpdate?.(s);
    if (s.status !== 'pending' && s.status !== 'running') {
      const job = await store.jobs.get(jobId);
      const here = job !== undefined && localHolder(job, currentNode().host);
      for (let waited = 0; here && waited < exitWaitMs && processAlive(job.pid!); waited += intervalMs) await pause();
      return s;
    }
    await pause();
  }
}

/**
 * Incremental breakout in this process (`process-cases-by-dict`, scheduled runs): creates
 * missing tables, then applies only the cases changed since the last run; `overwrite` rebuilds
 * everything instead. `onJob` gets the job's id once it exists. Returns the final job state.
 */
export async function runBreakoutNow(
  store: Store,
  input: { dictionary: string; threads?: unknown; overwrite?: boolean; origin?: string },
  opts: Pick<RunJobOptions, 'signal' | 'log' | 'onProgress' | 'onTables'> & { onJob?: (jobId: string) => void } = {},
): Promise<JobStatusReply> {
  const [name] = await parseDictionaryNames(store, [input.dictionary]);
  const threads = input.threads === undefined ? 1 : parseThreads(input.threads);
  const mode: JobMode = input.overwrite ? 'full' : 'incremental';
  const job: JobRow = await createJob(store, {
    dictionaries: [name!],
    mode,
    threads,
    overwrite: input.overwrite === true,
    origin: input.origin ?? 'cli',
  });
  opts.onJob?.(job.id);
  const final = await runJob(store, job.id, opts);
  return jobStatusReply(final);
}
