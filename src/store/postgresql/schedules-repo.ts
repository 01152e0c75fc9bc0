/**
 * Schedules and their runs on the PostgreSQL store: the SQLite SchedulesRepo
 * (../schedules-repo.ts) translated, with the claim of a run made safe under concurrent
 * transactions (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import {
  SCHEDULES_SELECT,
  toRow,
  toRun,
  type RawRun,
  type RawSchedule,
  type ScheduleRow,
  type NewScheduleRun,
  type ScheduleRunOutcome,
  type ScheduleRunRow,
  type SchedulesRepo,
} from '../schedules-repo.js';
import type { RepoContract } from '../store-contract.js';
import { lockBreakoutClaims, sqliteLimit } from './jobs-repo.js';
import type { PgRunner } from './pg-runner.js';

/**
 * The error SQLite gives a second schedule of a dictionary: callers recognise it by its message
 * (`/UNIQUE/`), and on PostgreSQL the insert is `ON CONFLICT DO NOTHING` so that the failure does
 * not abort the caller's transaction, as a failed statement does not on SQLite.
 */
function duplicateSchedule(): Error {
  return new Error('UNIQUE constraint failed: schedules.dictionary_id');
}

/** Schedules (one per dictionary) and their run history on PostgreSQL. Times are passed in, never read here. */
export class PgSchedulesRepo implements RepoContract<SchedulesRepo> {
  constructor(private readonly db: PgRunner) {}

  async list(): Promise<ScheduleRow[]> {
    return (await this.db.rows<RawSchedule>(`${SCHEDULES_SELECT} ORDER BY d.name`)).map(toRow);
  }

  async get(id: number): Promise<ScheduleRow | undefined> {
    const r = await this.db.row<RawSchedule>(`${SCHEDULES_SELECT} WHERE s.id = $1`, [id]);
    return r && toRow(r);
  }

  async forDictionary(dictionaryId: number): Promise<ScheduleRow | undefined> {
    const r = await this.db.row<RawSchedule>(`${SCHEDULES_SELECT} WHERE s.dictionary_id = $1`, [dictionaryId]);
    return r && toRow(r);
  }

  /** Enabled schedules whose next run is at or before `now`, oldest due first. */
  async due(now: string): Promise<ScheduleRow[]> {
    return (
      await this.db.rows<RawSchedule>(`${SCHEDULES_SELECT} WHERE s.enabled = 1 AND s.next_run <= $1 ORDER BY s.next_run, d.name`, [now])
    ).map(toRow);
  }

  /** Inserts a schedule; the UNIQUE dictionary_id makes a second one for the dictionary fail (with SQLite's message). */
  async insert(
    s: { dictionaryId: number; enabled: boolean; cronExpression: string; nextRun: string | null },
    now: string,
  ): Promise<ScheduleRow> {
    const inserted = await this.db.row<{ id: number }>(
      `INSERT INTO schedules (dictionary_id, enabled, cron_expression, next_run, modified_time, created_time)
       VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (dictionary_id) DO NOTHING RETURNING id`,
      [s.dictionaryId, s.enabled ? 1 : 0, s.cronExpression, s.nextRun, now],
    );
    if (!inserted) throw duplicateSchedule();
    return (await this.get(inserted.id))!;
  }

  /** Changes the cron expression and enabled state together with the next run they imply. */
  async update(
    id: number,
    s: { enabled: boolean; cronExpression: string; nextRun: string | null },
    now: string,
  ): Promise<ScheduleRow | undefined> {
    await this.db.run('UPDATE schedules SET enabled = $1, cron_expression = $2, next_run = $3, modified_time = $4 WHERE id = $5', [
      s.enabled ? 1 : 0,
      s.cronExpression,
      s.nextRun,
      now,
      id,
    ]);
    return this.get(id);
  }

  async remove(id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM schedules WHERE id = $1', [id])) > 0;
  }

  /** Records that a run started: last_exit_code -1 means running (docs/scheduler.md#exit-codes-recorded-for-a-run). */
  async markStarted(id: number, run: { lastRun: string; nextRun: string | null; logFile: string | null }, now: string): Promise<void> {
    await this.db.run(
      'UPDATE schedules SET last_run = $1, next_run = $2, last_exit_code = -1, last_log_file = $3, modified_time = $4 WHERE id = $5',
      [run.lastRun, run.nextRun, run.logFile, now, id],
    );
  }

  /** Records how a run ended, and the next run when given (undefined leaves next_run as it is). */
  async markEnded(id: number, exitCode: number | null, now: string, nextRun?: string | null): Promise<void> {
    if (nextRun === undefined) {
      await this.db.run('UPDATE schedules SET last_exit_code = $1, modified_time = $2 WHERE id = $3', [exitCode, now, id]);
    } else {
      await this.db.run('UPDATE schedules SET last_exit_code = $1, next_run = $2, modified_time = $3 WHERE id = $4', [
        exitCode,
        nextRun,
        now,
        id,
      ]);
    }
  }

  /** Moves next_run on without a run (a skipped run). */
  async setNextRun(id: number, nextRun: string | null, now: string): Promise<void> {
    await this.db.run('UPDATE schedules SET next_run = $1, modified_time = $2 WHERE id = $3', [nextRun, now, id]);
  }

  /**
   * Inserts a run. A check-and-claim (start a run unless the dictionary is busy) is the caller's
   * `store.transaction(async (tx) => …)` around its check (tx.jobs.unfinished,
   * tx.schedules.runningRuns, which take the breakout claim lock) and `tx.schedules.addRun`: two
   * processes racing to start the same schedule then cannot both pass the check.
   */
  async addRun(r: NewScheduleRun): Promise<number> {
    const row = await this.db.row<{ id: number }>(
      `INSERT INTO schedule_runs (schedule_id, trigger, started_at, ended_at, exit_code, outcome, log_file, message, runner_pid, runner_host)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [r.scheduleId, r.trigger, r.startedAt, r.endedAt, r.exitCode, r.outcome, r.logFile, r.message, r.runnerPid, r.runnerHost ?? null],
    );
    return row!.id;
  }

  /**
   * Takes over a claimed run still marked running: its watching process and log file. False when
   * it has ended (reaped). Conditional on `outcome = 'running'`, re-checked after a concurrent
   * end commits (docs/decisions.md).
   */
  async adoptRun(
    runId: number,
    r: { runnerPid: number; runnerHost?: string; logFile: string | null; startedAt: string },
  ): Promise<boolean> {
    return (
      (await this.db.run(
        "UPDATE schedule_runs SET runner_pid = $1, runner_host = coalesce($2, runner_host), log_file = $3, started_at = $4 WHERE id = $5 AND outcome = 'running'",
        [r.runnerPid, r.runnerHost ?? null, r.logFile, r.startedAt, runId],
      )) > 0
    );
  }

  /** The run of that id, if kept. */
  async getRun(runId: number): Promise<ScheduleRunRow | undefined> {
    const r = await this.db.row<RawRun>('SELECT * FROM schedule_runs WHERE id = $1', [runId]);
    return r && toRun(r);
  }

  /**
   * Ends a run still marked running; false when it had already ended (e.g. reaped). Of two ends
   * at once (the runner and a reaper), the second waits for the first one's row lock and finds
   * the run ended (docs/decisions.md).
   */
  async endRun(
    runId: number,
    r: { endedAt: string; exitCode: number | null; outcome: ScheduleRunOutcome; message: string | null },
  ): Promise<boolean> {
    return (
      (await this.db.run(
        "UPDATE schedule_runs SET ended_at = $1, exit_code = $2, outcome = $3, message = $4 WHERE id = $5 AND outcome = 'running'",
        [r.endedAt, r.exitCode, r.outcome, r.message, runId],
      )) > 0
    );
  }

  /** A schedule's runs, newest first. */
  async runs(scheduleId: number, limit: number): Promise<ScheduleRunRow[]> {
    return (
      await this.db.rows<RawRun>('SELECT * FROM schedule_runs WHERE schedule_id = $1 ORDER BY id DESC LIMIT $2', [
        scheduleId,
        sqliteLimit(limit),
      ])
    ).map(toRun);
  }

  /** How many runs of a schedule are kept. */
  async countRuns(scheduleId: number): Promise<number> {
    return (await this.db.row<{ n: number }>('SELECT COUNT(*) AS n FROM schedule_runs WHERE schedule_id = $1', [scheduleId]))!.n;
  }

  /**
   * Every run still marked running, of every schedule. Inside a transaction it first takes the
   * breakout claim lock (see lockBreakoutClaims): a claim checks this before adding its run.
   */
  async runningRuns(): Promise<ScheduleRunRow[]> {
    await lockBreakoutClaims(this.db);
    return (await this.db.rows<RawRun>("SELECT * FROM schedule_runs WHERE outcome = 'running' ORDER BY id")).map(toRun);
  }

  /** The newest run of a schedule. */
  async latestRun(scheduleId: number): Promise<ScheduleRunRow | undefined> {
    const r = await this.db.row<RawRun>('SELECT * FROM schedule_runs WHERE schedule_id = $1 ORDER BY id DESC LIMIT 1', [scheduleId]);
    return r && toRun(r);
  }

  /**
   * Keeps the newest `keep` runs of a schedule; returns the log files of the runs removed, newest
   * first. One statement: all of it or nothing, as the SQLite version's transaction.
   */
  async pruneRuns(scheduleId: number, keep: number): Promise<string[]> {
    const gone = await this.db.rows<{ log_file: string | null }>(
      `WITH old AS (SELECT id FROM schedule_runs WHERE schedule_id = $1 ORDER BY id DESC OFFSET $2),
            gone AS (DELETE FROM schedule_runs WHERE id IN (SELECT id FROM old) RETURNING id, log_file)
       SELECT log_file FROM gone ORDER BY id DESC`,
      [scheduleId, Math.max(0, keep)],
    );
    return gone.flatMap((o) => (o.log_file ? [o.log_file] : []));
  }
}
