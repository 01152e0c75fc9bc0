import type { Database } from 'better-sqlite3';

/** A job as log retention sees it: whether it ended, and when. */
export interface RetainedJob {
  id: string;
  dictionaries: string[];
  status: string;
  createdAt: string;
  finishedAt: string | null;
}

/** A breakout log entry as log retention sees it. */
export interface RetainedLogEntry {
  id: number;
  jobId: string;
  createdAt: string;
}

/** A schedule run as log retention sees it. */
export interface RetainedRun {
  id: number;
  scheduleId: number;
  outcome: string;
  startedAt: string;
  endedAt: string | null;
  logFile: string | null;
}

/** What one deletion removed, by table. */
export interface RetentionDeleted {
  jobs: number;
  jobLogEntries: number;
  logEntries: number;
  runs: number;
}

/**
 * Messages past the rules (named parameters @cutoff and @keep): received before the cutoff, or at or below the id of the
 * (keep + 1)-th newest, which is NULL (nothing by count) when there are no more than `keep`.
 */
export const PRUNED_MESSAGES =
  'received_at < @cutoff OR id <= coalesce((SELECT id FROM sync_messages ORDER BY id DESC LIMIT 1 OFFSET @keep), -1)';

/**
 * What log retention reads, the same SQL on both stores (aliases quoted: PostgreSQL folds
 * unquoted names to lower case).
 */
export const RETAINED_SQL = {
  jobs: 'SELECT id, dictionaries, status, created_at, finished_at FROM jobs',
  logEntries: 'SELECT id, job_id AS "jobId", created_at AS "createdAt" FROM breakout_log',
  runs: 'SELECT id, schedule_id AS "scheduleId", outcome, started_at AS "startedAt", ended_at AS "endedAt", log_file AS "logFile" FROM schedule_runs',
  scheduleLogFiles: 'SELECT last_log_file AS f FROM schedules WHERE last_log_file IS NOT NULL',
} as const;

/** A jobs row as RETAINED_SQL.jobs reads it. */
export interface RawRetainedJob {
  id: string;
  dictionaries: string;
  status: string;
  created_at: string;
  finished_at: string | null;
}

/** A job as log retention sees it. */
export function toRetainedJob(r: RawRetainedJob): RetainedJob {
  return {
    id: r.id,
    dictionaries: JSON.parse(r.dictionaries) as string[],
    status: r.status,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
  };
}

/**
 * The rows that log retention reads and deletes (docs/logs.md#retention): jobs, breakout log
 * entries, schedule runs and sync messages. Only the columns retention needs, so the whole history fits in memory.
 */
export class LogRetentionRepo {
  constructor(private readonly db: Database) {}

  async jobs(): Promise<RetainedJob[]> {
    return (this.db.prepare(RETAINED_SQL.jobs).all() as RawRetainedJob[]).map(toRetainedJob);
  }

  async logEntries(): Promise<RetainedLogEntry[]> {
    return this.db.prepare(RETAINED_SQL.logEntries).all() as RetainedLogEntry[];
  }

  async runs(): Promise<RetainedRun[]> {
    return this.db.prepare(RETAINED_SQL.runs).all() as RetainedRun[];
  }

  /** The log file each schedule shows as its latest (`last_log_file`), where set. */
  async scheduleLogFiles(): Promise<string[]> {
    return (this.db.prepare(RETAINED_SQL.scheduleLogFiles).all() as { f: string }[]).map((r) => r.f);
  }

  /**
   * How many sync messages a prune with these rules would delete (docs/logs.md#retention):
   * received before `cutoff` (an ISO 8601 UTC time), or not among the newest `keep` by id.
   */
  async messagesToPrune(cutoff: string, keep: number): Promise<number> {
    return (this.db.prepare(`SELECT count(*) AS n FROM sync_messages WHERE ${PRUNED_MESSAGES}`).get({ cutoff, keep }) as { n: number }).n;
  }

  /** Deletes the sync messages messagesToPrune counts; returns how many went. */
  async deleteMessages(cutoff: string, keep: number): Promise<number> {
    return this.db.prepare(`DELETE FROM sync_messages WHERE ${PRUNED_MESSAGES}`).run({ cutoff, keep }).changes;
  }

  /**
   * Deletes breakout log entries, schedule runs and ended jobs (with their own log entries).
   * A job or run still unfinished is left alone whatever the plan said (checked in the statement,
   * inside the caller's store transaction).
   */
  async delete(ids: { jobs: string[]; logEntries: number[]; runs: number[] }): Promise<RetentionDeleted> {
    const out: RetentionDeleted = { jobs: 0, jobLogEntries: 0, logEntries: 0, runs: 0 };
    const entry = this.db.prepare('DELETE FROM breakout_log WHERE id = ?');
    for (const id of ids.logEntries) out.logEntries += entry.run(id).changes;
    const jobEntries = this.db.prepare(
      "DELETE FROM breakout_log WHERE job_id = ? AND EXISTS (SELECT 1 FROM jobs WHERE id = ? AND status NOT IN ('pending', 'running'))",
    );
    const job = this.db.prepare("DELETE FROM jobs WHERE id = ? AND status NOT IN ('pending', 'running')");
    for (const id of ids.jobs) {
      // Deleted explicitly rather than by ON DELETE CASCADE, so the report can count them.
      out.jobLogEntries += jobEntries.run(id, id).changes;
      out.jobs += job.run(id).changes;
    }
    const run = this.db.prepare("DELETE FROM schedule_runs WHERE id = ? AND outcome <> 'running'");
    for (const id of ids.runs) out.runs += run.run(id).changes;
    return out;
  }
}
