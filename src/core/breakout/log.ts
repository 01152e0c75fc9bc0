import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { BreakoutLogEntry, BreakoutLogLevel } from '../../store/breakout-log-repo.js';
import type { JobError, JobProgress } from '../../store/jobs-repo.js';
import { AppError } from '../../shared/errors.js';
import { requireDictionary } from '../dictionaries/index.js';
import { jobErrorLabel } from './jobs/job-error.js';

const DEFAULT_LOGS_LIMIT = 100;
const MAX_LOGS_LIMIT = 1000;
/** Warnings of one job written to the breakout log; the rest are only in the job's log file. */
export const MAX_LOGGED_WARNINGS = 100;
/** Entries kept in the store; older ones are pruned when a job ends. */
const LOG_ENTRIES_KEPT = 100_000;

/** Item of the log reply (docs/http-api.md#breakout-routes). */
export interface BreakoutLogItem {
  timestamp: string;
  level: BreakoutLogLevel;
  dictionary: string;
  message: string;
  /** Progress of the dictionary in its job at that moment, e.g. `45%`. */
  progress: string;
}

/**
 * The breakout log (docs/http-api.md#breakout-routes, `GET /api/logs/breakout`), newest first: of one dictionary (which
 * must exist) or of all. `limit` is 1 to 1000, default 100.
 */
export async function listBreakoutLogs(
  store: Store,
  opts: { dictionary?: string; limit?: unknown } = {},
): Promise<{ logs: BreakoutLogItem[] }> {
  const given = opts.limit;
  let limit = DEFAULT_LOGS_LIMIT;
  if (typeof given === 'number') limit = given;
  else if (given !== undefined) limit = typeof given === 'string' && /^\d+$/.test(given) ? Number(given) : Number.NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LOGS_LIMIT) {
    throw new AppError('USAGE', `limit must be a whole number from 1 to ${MAX_LOGS_LIMIT}; got "${String(opts.limit)}"`, {
      field: 'limit',
    });
  }
  const dictionary = opts.dictionary === undefined ? undefined : (await requireDictionary(store, opts.dictionary)).name;
  const entries = await store.breakoutLog.newest({ dictionary, limit });
  return { logs: entries.map(logItem) };
}

/** A stored entry as the breakout log routes show it. */
function logItem(e: BreakoutLogEntry): BreakoutLogItem {
  return { timestamp: e.createdAt, level: e.level, dictionary: e.dictionary, message: e.message, progress: `${e.progress}%` };
}

const LEVELS: readonly BreakoutLogLevel[] = ['info', 'warn', 'error'];

/** Log reply of the log-reader webhook: the items of docs/http-api.md#breakout-routes plus the job each entry belongs to. */
export interface LogReaderReply {
  logs: (BreakoutLogItem & { job_id: string })[];
}

/**
 * The breakout log for an external system (`GET /log-reader-webhook.php`), newest first:
 * `dictionary` (must exist), `level` (the least severe level wanted: `warn` gives warnings and
 * errors), `since` (an ISO 8601 time; entries written at or after it) and `limit` (1 to 1000,
 * default 100). Bad values are USAGE naming the parameter.
 */
export async function readBreakoutLog(
  store: Store,
  opts: { dictionary?: string; level?: string; since?: string; limit?: unknown } = {},
): Promise<LogReaderReply> {
  const limit = parseLogsLimit(opts.limit);
  let levels: BreakoutLogLevel[] | undefined;
  if (opts.level !== undefined) {
    const at = LEVELS.indexOf(opts.level as BreakoutLogLevel);
    if (at < 0) throw new AppError('USAGE', `level must be one of ${LEVELS.join(', ')}; got "${opts.level}"`, { field: 'level' });
    levels = LEVELS.slice(at);
  }
  let since: string | undefined;
  if (opts.since !== undefined) {
    const t = /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/.test(opts.since)
      ? Date.parse(opts.since.replace(' ', 'T'))
      : NaN;
    if (Number.isNaN(t))
      throw new AppError('USAGE', `since must be an ISO 8601 time such as 2025-01-31T08:00:00Z; got "${opts.since}"`, { field: 'since' });
    since = new Date(t).toISOString();
  }
  const dictionary = opts.dictionary === undefined ? undefined : (await requireDictionary(store, opts.dictionary)).name;
  const entries = await store.breakoutLog.search({ dictionary, levels, since, limit });
  return { logs: entries.map((e) => ({ ...logItem(e), job_id: e.jobId })) };
}

function parseLogsLimit(given: unknown): number {
  let limit = DEFAULT_LOGS_LIMIT;
  if (typeof given === 'number') limit = given;
  else if (given !== undefined) limit = typeof given === 'string' && /^\d+$/.test(given) ? Number(given) : Number.NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LOGS_LIMIT) {
    throw new AppError('USAGE', `limit must be a whole number from 1 to ${MAX_LOGS_LIMIT}; got "${String(given)}"`, { field: 'limit' });
  }
  return limit;
}

/**
 * Writes the breakout log entries of one job as it runs (`jobs/run-job.ts`): started and
 * finished per dictionary, progress when it passes each further 10 %, the first warnings, and
 * how the job ended (one entry per dictionary of the job, so a dictionary's log always shows it).
 * A failure to write an entry never fails the job: it is reported to `onWriteError`.
 */
export class JobLogWriter {
  private readonly percent = new Map<string, number>();
  private readonly tenths = new Map<string, number>();
  private warnings = 0;

  constructor(
    private readonly store: StoreScope,
    private readonly jobId: string,
    private readonly now: () => Date = () => new Date(),
    private readonly onWriteError: (message: string) => void = () => {},
  ) {}

  private async write(dictionary: string, level: BreakoutLogLevel, message: string): Promise<void> {
    try {
      await this.store.breakoutLog.add({
        jobId: this.jobId,
        dictionary,
        level,
        message,
        progress: this.percent.get(dictionary) ?? 0,
        createdAt: this.now().toISOString(),
      });
    } catch (err) {
      this.onWriteError(`could not write the breakout log entry "${message}": ${(err as Error).message}`);
    }
  }

  /** Sets where a dictionary stands without writing an entry. */
  at(dictionary: string, percent: number): void {
    this.percent.set(dictionary, Math.max(0, Math.min(100, Math.floor(percent))));
  }

  async started(dictionary: string, message: string): Promise<void> {
    this.percent.set(dictionary, 0);
    this.tenths.set(dictionary, 0);
    await this.write(dictionary, 'info', message);
  }

  /** Writes an entry when the dictionary passes a further tenth (not at 0 % or 100 %: started and finished say those). */
  async progress(dictionary: string, processed: number, total: number): Promise<void> {
    if (total <= 0) return;
    const pct = Math.min(100, Math.floor((processed * 100) / total));
    this.percent.set(dictionary, pct);
    const tenth = Math.floor(pct / 10);
    if (pct >= 100 || tenth <= (this.tenths.get(dictionary) ?? 0)) return;
    this.tenths.set(dictionary, tenth);
    await this.write(dictionary, 'info', `${dictionary}: ${processed} of ${total} cases (${pct}%)`);
  }

  /** The first MAX_LOGGED_WARNINGS warnings of the job, then one line saying the rest are in the job's log file. */
  async warning(dictionary: string, message: string): Promise<void> {
    this.warnings += 1;
    if (this.warnings <= MAX_LOGGED_WARNINGS) await this.write(dictionary, 'warn', message);
    else if (this.warnings === MAX_LOGGED_WARNINGS + 1) {
      const file = `logs/breakout/job-${this.jobId}.log`;
      await this.write(
        dictionary,
        'warn',
        `more than ${MAX_LOGGED_WARNINGS} warnings in job ${this.jobId}: the others are only in its log file ${file}`,
      );
    }
  }

  /**
   * One entry per table dropped (warn: its rows are gone until the run reloads them) and one per
   * table created, each with the table's name and why (docs/breakout.md#destructive-changes).
   */
  async tables(dictionary: string, change: { dropped: string[]; created: string[]; reason: string; detail: string }): Promise<void> {
    for (const t of change.dropped)
      await this.write(dictionary, 'warn', `${dictionary}: dropped table ${t} (${change.reason}: ${change.detail})`);
    for (const t of change.created)
      await this.write(dictionary, 'info', `${dictionary}: created table ${t} (${change.reason}: ${change.detail})`);
  }

  /** One entry when the label tables were rewritten (nothing when they already matched). */
  async labels(dictionary: string, sync: { written: boolean; valueSetRows: number; itemRows: number; tables: string[] }): Promise<void> {
    if (!sync.written) return;
    await this.write(
      dictionary,
      'info',
      `${dictionary}: wrote value sets and item labels (${sync.valueSetRows} value rows, ${sync.itemRows} item columns) to ${sync.tables.join(', ')}`,
    );
  }

  async finished(dictionary: string, message: string): Promise<void> {
    this.percent.set(dictionary, 100);
    await this.write(dictionary, 'info', message);
  }

  /** How the job ended, once per dictionary of the job; old entries are pruned afterwards. */
  async ended(dictionaries: string[], level: BreakoutLogLevel, message: string): Promise<void> {
    for (const d of dictionaries) await this.write(d, level, message);
    try {
      await this.store.breakoutLog.prune(LOG_ENTRIES_KEPT);
    } catch (err) {
      this.onWriteError(`could not prune the breakout log: ${(err as Error).message}`);
    }
  }
}

/**
 * A job's progress as the breakout log records it: a whole percent from 0 to 100 (the store
 * refuses anything else), never the count of cases done.
 */
export function progressPercent(p: JobProgress | null | undefined): number {
  return p && p.total > 0 ? Math.min(100, Math.floor((p.processed * 100) / p.total)) : 0;
}

/** Logs a job that failed without running (its target was down at start, or its process died). */
export async function logJobFailure(
  store: StoreScope,
  job: { id: string; dictionaries: string[]; progress?: JobProgress | null },
  error: JobError,
): Promise<void> {
  const writer = new JobLogWriter(store, job.id);
  const p = job.progress;
  if (p && p.total > 0) writer.at(p.dictionary, progressPercent(p));
  await writer.ended(job.dictionaries, 'error', `job ${job.id} failed: ${jobErrorLabel(error)}: ${error.message}`);
}
