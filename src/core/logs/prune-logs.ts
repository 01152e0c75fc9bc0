import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../shared/errors.js';
import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import { LOG_KINDS, planPrune, type LogFile, type LogKind, type PrunePlan } from './prune-plan.js';
import { logSettings, type LogSettings } from './retention-settings.js';
import { localLogFiles, removeLogFile, storedLogFiles } from './log-files.js';

/** Rows deleted, files deleted and bytes those files held, for one kind of log. */
export interface PruneCounts {
  rows: number;
  files: number;
  bytes: number;
}

/** The rules one prune applied: an age in days, a count kept, and the time the age gives. */
export interface PruneRules {
  older_than_days: number;
  keep: number;
  /** Entries and files from before this time were pruned (unless protected). */
  cutoff: string;
}

/** The reply of `sds logs prune` (docs/logs.md#sds-logs-prune): the rules of the logs, then of the messages. */
export interface PruneReport extends PruneRules {
  dry_run: boolean;
  messages: PruneRules;
  kinds: Record<LogKind, PruneCounts>;
  total: PruneCounts;
}

/** What one prune is asked: the retention settings unless overridden, and its clock. */
export interface PruneOptions {
  /** Days to keep (0 to 36500), of every kind; default the home's `logs.retention_days` and `logs.message_retention_days`. */
  olderThanDays?: unknown;
  /** Entries kept per kind (0 to 10000000); default the home's `logs.retention_count` and `logs.message_retention_count`. */
  keep?: unknown;
  dryRun?: boolean;
  now?: Date;
  settings?: LogSettings;
}

function wholeOption(value: unknown, fallback: number, field: string, what: string, max: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > max)
    throw new AppError('USAGE', `${what} must be a whole number from 0 to ${max}; got "${String(value)}"`, {
      field,
      settings: [field],
    });
  return n;
}

function listFiles(dir: string, kind: LogFile['dir']): LogFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new AppError('IO_ERROR', `cannot list ${dir}: ${(err as Error).message}`, { file: dir }, { cause: err });
  }
  const out: LogFile[] = [];
  for (const name of names) {
    try {
      const s = statSync(join(dir, name));
      if (s.isFile()) out.push({ dir: kind, name, mtimeMs: s.mtimeMs, size: s.size });
    } catch {
      // Deleted meanwhile (another prune, a purge): nothing to do with it.
    }
  }
  return out;
}

const zero = (): PruneCounts => ({ rows: 0, files: 0, bytes: 0 });

const DAY_MS = 86_400_000;

/** The rules of `days` and `keep` at `now`. */
function rulesAt(days: number, keep: number, now: Date): PruneRules {
  return { older_than_days: days, keep, cutoff: new Date(now.getTime() - days * DAY_MS).toISOString() };
}

/**
 * Prunes the logs of a home (docs/logs.md#retention): import logs, jobs and their log files,
 * schedule runs and their log files, and breakout log entries, each by age and by count, never
 * what is still needed (see planPrune); and the sync messages, by their own age and count unless
 * `olderThanDays` or `keep` is given, which then rule every kind. The rows are planned and
 * deleted in one store transaction, then the files are deleted (one already gone is skipped):
 * job and run logs here and in the store's file store (docs/logs.md#job-and-run-log-files).
 * `dryRun` deletes nothing and reports what would go.
 */
export async function pruneLogs(store: Store, opts: PruneOptions = {}): Promise<PruneReport> {
  const settings = opts.settings ?? logSettings(store.home);
  const olderThanDays = wholeOption(opts.olderThanDays, settings.retentionDays, 'older-than', 'the age in days', 36_500);
  const keep = wholeOption(opts.keep, settings.retentionCount, 'keep', 'the number of entries kept', 10_000_000);
  const now = opts.now ?? new Date();
  const logRules = rulesAt(olderThanDays, keep, now);
  const messageRules = rulesAt(
    opts.olderThanDays === undefined ? settings.messageRetentionDays : olderThanDays,
    opts.keep === undefined ? settings.messageRetentionCount : keep,
    now,
  );
  const kinds = Object.fromEntries(LOG_KINDS.map((k) => [k, zero()])) as Record<LogKind, PruneCounts>;

  // The logs a PostgreSQL store's file store holds are listed first; the folders are listed
  // inside the transaction, synchronously, as the rows are read: one view of both. A log stored
  // meanwhile is of a job or run that ended just now, not one this prune would take by age.
  const stored = await storedLogFiles(store);
  const breakoutFiles = (): LogFile[] => {
    const byName = new Map(stored.map((f) => [f.name, { dir: 'breakout' as const, ...f }]));
    for (const f of localLogFiles(store)) if (!byName.has(f.name)) byName.set(f.name, { dir: 'breakout', ...f });
    return [...byName.values()];
  };
  const plan = async (tx: StoreScope): Promise<PrunePlan> =>
    planPrune(
      {
        jobs: await tx.logRetention.jobs(),
        logEntries: await tx.logRetention.logEntries(),
        runs: await tx.logRetention.runs(),
        scheduleLogFiles: await tx.logRetention.scheduleLogFiles(),
        files: [...listFiles(store.home.importLogs, 'import'), ...breakoutFiles()],
      },
      { olderThanDays, keep, now },
    );

  let files: PrunePlan['files'];
  if (opts.dryRun) {
    const [p, messages] = await store.readTransaction(
      async (tx) => [await plan(tx), await tx.logRetention.messagesToPrune(messageRules.cutoff, messageRules.keep)] as const,
    );
    kinds.jobs.rows = p.jobs.length;
    kinds.runs.rows = p.runs.length;
    kinds.breakout.rows = p.logEntries.length + p.jobLogEntries.length;
    kinds.messages.rows = messages;
    files = p.files;
  } else {
    files = await store.transaction(async (tx) => {
      const p = await plan(tx);
      const deleted = await tx.logRetention.delete({ jobs: p.jobs, logEntries: p.logEntries, runs: p.runs });
      kinds.jobs.rows = deleted.jobs;
      kinds.runs.rows = deleted.runs;
      kinds.breakout.rows = deleted.logEntries + deleted.jobLogEntries;
      kinds.messages.rows = await tx.logRetention.deleteMessages(messageRules.cutoff, messageRules.keep);
      return p.files;
    });
  }

  for (const f of files) {
    if (!opts.dryRun && f.dir === 'breakout') {
      // Here and in the store's file store (docs/logs.md#job-and-run-log-files).
      if (!(await removeLogFile(store, f.name))) continue;
    } else if (!opts.dryRun) {
      const path = join(store.home.importLogs, f.name);
      try {
        rmSync(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw new AppError('IO_ERROR', `cannot delete the log file ${path}: ${(err as Error).message}`, { file: path });
      }
    }
    kinds[f.kind].files += 1;
    kinds[f.kind].bytes += f.size;
  }

  const total = zero();
  for (const k of LOG_KINDS) for (const field of ['rows', 'files', 'bytes'] as const) total[field] += kinds[k][field];
  return { dry_run: opts.dryRun === true, ...logRules, messages: messageRules, kinds, total };
}
