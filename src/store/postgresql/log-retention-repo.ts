/**
 * Log retention's rows on the PostgreSQL store: the SQLite LogRetentionRepo
 * (../log-retention-repo.ts) translated. Deletions are by id and by age, each conditional on the
 * row having ended, so concurrent writers need no lock beyond the rows' own.
 */
import {
  PRUNED_MESSAGES,
  RETAINED_SQL,
  toRetainedJob,
  type LogRetentionRepo,
  type RawRetainedJob,
  type RetainedJob,
  type RetainedLogEntry,
  type RetainedRun,
  type RetentionDeleted,
} from '../log-retention-repo.js';
import type { RepoContract } from '../store-contract.js';
import type { PgRunner } from './pg-runner.js';

/** SQLite's PRUNED_MESSAGES with positional parameters: $1 the cutoff, $2 how many to keep. */
const PG_PRUNED_MESSAGES = PRUNED_MESSAGES.replace('@cutoff', '$1').replace('@keep', '$2');

/**
 * The rows that log retention reads and deletes (docs/logs.md#retention) on PostgreSQL: jobs,
 * breakout log entries, schedule runs and sync messages.
 */
export class PgLogRetentionRepo implements RepoContract<LogRetentionRepo> {
  constructor(private readonly db: PgRunner) {}

  async jobs(): Promise<RetainedJob[]> {
    return (await this.db.rows<RawRetainedJob>(RETAINED_SQL.jobs)).map(toRetainedJob);
  }

  async logEntries(): Promise<RetainedLogEntry[]> {
    return this.db.rows<RetainedLogEntry & Record<string, unknown>>(RETAINED_SQL.logEntries);
  }

  async runs(): Promise<RetainedRun[]> {
    return this.db.rows<RetainedRun & Record<string, unknown>>(RETAINED_SQL.runs);
  }

  /** The log file each schedule shows as its latest (`last_log_file`), where set. */
  async scheduleLogFiles(): Promise<string[]> {
    return (await this.db.rows<{ f: string }>(RETAINED_SQL.scheduleLogFiles)).map((r) => r.f);
  }

  /**
   * How many sync messages a prune with these rules would delete (docs/logs.md#retention):
   * received before `cutoff` (an ISO 8601 UTC time), or not among the newest `keep` by id.
   */
  async messagesToPrune(cutoff: string, keep: number): Promise<number> {
    return (await this.db.row<{ n: number }>(`SELECT count(*) AS n FROM sync_messages WHERE ${PG_PRUNED_MESSAGES}`, [
      cutoff,
      Math.max(0, keep),
    ]))!.n;
  }

  /** Deletes the sync messages messagesToPrune counts; returns how many went. */
  async deleteMessages(cutoff: string, keep: number): Promise<number> {
    return this.db.run(`DELETE FROM sync_messages WHERE ${PG_PRUNED_MESSAGES}`, [cutoff, Math.max(0, keep)]);
  }

  /**
   * Deletes breakout log entries, schedule runs and ended jobs (with their own log entries), the
   * whole plan the caller passes in one transaction (a savepoint of the caller's) as on SQLite,
   * one statement per kind rather than per row. A job or run still unfinished is left alone
   * whatever the plan said (checked in the statement: a concurrent claim's row lock makes it
   * wait and re-check).
   */
  async delete(ids: { jobs: string[]; logEntries: number[]; runs: number[] }): Promise<RetentionDeleted> {
    return this.db.atomic(async (r) => {
      const logEntries = await r.run('DELETE FROM breakout_log WHERE id = ANY($1::bigint[])', [ids.logEntries]);
      // Deleted explicitly rather than by ON DELETE CASCADE, so the report can count them.
      const jobLogEntries = await r.run(
        `DELETE FROM breakout_log WHERE job_id = ANY($1::text[])
           AND job_id IN (SELECT id FROM jobs WHERE id = ANY($1::text[]) AND status NOT IN ('pending', 'running'))`,
        [ids.jobs],
      );
      const jobs = await r.run("DELETE FROM jobs WHERE id = ANY($1::text[]) AND status NOT IN ('pending', 'running')", [ids.jobs]);
      const runs = await r.run("DELETE FROM schedule_runs WHERE id = ANY($1::bigint[]) AND outcome <> 'running'", [ids.runs]);
      return { jobs, jobLogEntries, logEntries, runs };
    });
  }
}
