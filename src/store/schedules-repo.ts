import type { Database, Statement } from 'better-sqlite3';

/** A dictionary's schedule (docs/scheduler.md#commands), with the dictionary's name for display. */
export interface ScheduleRow {
  id: number;
  dictionaryId: number;
  dictionary: string;
  enabled: boolean;
  cronExpression: string;
  lastRun: string | null;
  nextRun: string | null;
  lastExitCode: number | null;
  lastLogFile: string | null;
  modifiedTime: string;
  createdTime: string;
}

export type ScheduleRunTrigger = 'scheduled' | 'run-now';
export type ScheduleRunOutcome = 'running' | 'succeeded' | 'failed' | 'interrupted' | 'skipped';

/** One run of a schedule, kept as history (`sds schedule runs`). */
export interface ScheduleRunRow {
  id: number;
  scheduleId: number;
  trigger: ScheduleRunTrigger;
  startedAt: string;
  endedAt: string | null;
  exitCode: number | null;
  outcome: ScheduleRunOutcome;
  logFile: string | null;
  message: string | null;
  /** The process watching the child while the run is `running`. */
  runnerPid: number | null;
  /** The host runnerPid is a process of (null in runs recorded before migration 0029): only a node of that host can check it. */
  runnerHost: string | null;
}

/** A new run: its runner's host may be left out (no runner, or one not yet known). */
export type NewScheduleRun = Omit<ScheduleRunRow, 'id' | 'runnerHost'> & { runnerHost?: string | null };

/** A schedules row joined with its dictionary's name, as the database returns it. */
export interface RawSchedule {
  id: number;
  dictionary_id: number;
  dictionary: string;
  enabled: number;
  cron_expression: string;
  last_run: string | null;
  next_run: string | null;
  last_exit_code: number | null;
  last_log_file: string | null;
  modified_time: string;
  created_time: string;
}

/** A schedule_runs row as the database returns it. */
export interface RawRun {
  id: number;
  schedule_id: number;
  trigger: ScheduleRunTrigger;
  started_at: string;
  ended_at: string | null;
  exit_code: number | null;
  outcome: ScheduleRunOutcome;
  log_file: string | null;
  message: string | null;
  runner_pid: number | null;
  runner_host: string | null;
}

/** The schedules with their dictionary's name (the same SQL on both stores). */
export const SCHEDULES_SELECT = `SELECT s.*, d.name AS dictionary FROM schedules s JOIN dictionaries d ON d.id = s.dictionary_id`;

/** A schedule as the rest of sds sees it. */
export function toRow(r: RawSchedule): ScheduleRow {
  return {
    id: r.id,
    dictionaryId: r.dictionary_id,
    dictionary: r.dictionary,
    enabled: r.enabled === 1,
    cronExpression: r.cron_expression,
    lastRun: r.last_run,
    nextRun: r.next_run,
    lastExitCode: r.last_exit_code,
    lastLogFile: r.last_log_file,
    modifiedTime: r.modified_time,
    createdTime: r.created_time,
  };
}

/** A schedule run as the rest of sds sees it. */
export function toRun(r: RawRun): ScheduleRunRow {
  return {
    id: r.id,
    scheduleId: r.schedule_id,
    trigger: r.trigger,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    exitCode: r.exit_code,
    outcome: r.outcome,
    logFile: r.log_file,
    message: r.message,
    runnerPid: r.runner_pid,
    runnerHost: r.runner_host,
  };
}

/** Schedules (one per dictionary) and their run history. Times are passed in, never read here. */
export class SchedulesRepo {
  private readonly byDictionaryStmt: Statement;

  constructor(private readonly db: Database) {
    this.byDictionaryStmt = db.prepare(`${SCHEDULES_SELECT} WHERE s.dictionary_id = ?`);
  }

  async list(): Promise<ScheduleRow[]> {
    return (this.db.prepare(`${SCHEDULES_SELECT} ORDER BY d.name`).all() as RawSchedule[]).map(toRow);
  }

  async get(id: number): Promise<ScheduleRow | undefined> {
    return this.getSync(id);
  }

  private getSync(id: number): ScheduleRow | undefined {
    const r = this.db.prepare(`${SCHEDULES_SELECT} WHERE s.id = ?`).get(id) as RawSchedule | undefined;
    return r && toRow(r);
  }

  async forDictionary(dictionaryId: number): Promise<ScheduleRow | undefined> {
    const r = this.byDictionaryStmt.get(dictionaryId) as RawSchedule | undefined;
    return r && toRow(r);
  }

  /** Enabled schedules whose next run is at or before `now`, oldest due first. */
  async due(now: string): Promise<ScheduleRow[]> {
    return (
      this.db.prepare(`${SCHEDULES_SELECT} WHERE s.enabled = 1 AND s.next_run <= ? ORDER BY s.next_run, d.name`).all(now) as RawSchedule[]
    ).map(toRow);
  }

  /** Inserts a schedule; the UNIQUE dictionary_id makes a second one for the dictionary fail. */
  async insert(
    s: { dictionaryId: number; enabled: boolean; cronExpression: string; nextRun: string | null },
    now: string,
  ): Promise<ScheduleRow> {
    const { lastInsertRowid } = this.db
      .prepare(
        `INSERT INTO schedules (dictionary_id, enabled, cron_expression, next_run, modified_time, created_time)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(s.dictionaryId, s.enabled ? 1 : 0, s.cronExpression, s.nextRun, now, now);
    return this.getSync(Number(lastInsertRowid))!;
  }

  /** Changes the cron expression and enabled state together with the next run they imply. */
  async update(
    id: number,
    s: { enabled: boolean; cronExpression: string; nextRun: string | null },
    now: string,
  ): Promise<ScheduleRow | undefined> {
    this.db
      .prepare('UPDATE schedules SET enabled = ?, cron_expression = ?, next_run = ?, modified_time = ? WHERE id = ?')
      .run(s.enabled ? 1 : 0, s.cronExpression, s.nextRun, now, id);
    return this.getSync(id);
  }

  async remove(id: number): Promise<boolean> {
    return this.db.prepare('DELETE FROM schedules WHERE id = ?').run(id).changes > 0;
  }

  /** Records that a run started: last_exit_code -1 means running (docs/scheduler.md#exit-codes-recorded-for-a-run). */
  async markStarted(id: number, run: { lastRun: string; nextRun: string | null; logFile: string | null }, now: string): Promise<void> {
    this.db
      .prepare('UPDATE schedules SET last_run = ?, next_run = ?, last_exit_code = -1, last_log_file = ?, modified_time = ? WHERE id = ?')
      .run(run.lastRun, run.nextRun, run.logFile, now, id);
  }

  /** Records how a run ended, and the next run when given (undefined leaves next_run as it is). */
  async markEnded(id: number, exitCode: number | null, now: string, nextRun?: string | null): Promise<void> {
    if (nextRun === undefined) {
      this.db.prepare('UPDATE schedules SET last_exit_code = ?, modified_time = ? WHERE id = ?').run(exitCode, now, id);
    } else {
      this.db
        .prepare('UPDATE schedules SET last_exit_code = ?, next_run = ?, modified_time = ? WHERE id = ?')
        .run(exitCode, nextRun, now, id);
    }
  }

  /** Moves next_run on without a run (a skipped run). */
  async setNextRun(id: number, nextRun: string | null, now: string): Promise<void> {
    this.db.prepare('UPDATE schedules SET next_run = ?, modified_time = ? WHERE id = ?').run(nextRun, now, id);
  }

  /**
   * Inserts a run. A check-and-claim (start a run unless the dictionary is busy) is the caller's
   * `store.transaction(async (tx) => …)` around its check and `tx.schedules.addRun`: two processes
   * racing to start the same schedule then cannot both pass the check.
   */
  async addRun(r: NewScheduleRun): Promise<number> {
    const { lastInsertRowid } = this.db
      .prepare(
        `INSERT INTO schedule_runs (schedule_id, trigger, started_at, ended_at, exit_code, outcome, log_file, message, runner_pid, runner_host)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.scheduleId, r.trigger, r.startedAt, r.endedAt, r.exitCode, r.outcome, r.logFile, r.message, r.runnerPid, r.runnerHost ?? null);
    return Number(lastInsertRowid);
  }

  /** Takes over a claimed run still marked running: its watching process and log file. False when it has ended (reaped). */
  async adoptRun(
    runId: number,
    r: { runnerPid: number; runnerHost?: string; logFile: string | null; startedAt: string },
  ): Promise<boolean> {
    return (
      this.db
        .prepare(
          "UPDATE schedule_runs SET runner_pid = ?, runner_host = coalesce(?, runner_host), log_file = ?, started_at = ? WHERE id = ? AND outcome = 'running'",
        )
        .run(r.runnerPid, r.runnerHost ?? null, r.logFile, r.startedAt, runId).changes > 0
    );
  }

  /** The run of that id, if kept. */
  async getRun(runId: number): Promise<ScheduleRunRow | undefined> {
    const r = this.db.prepare('SELECT * FROM schedule_runs WHERE id = ?').get(runId) as RawRun | undefined;
    return r && toRun(r);
  }

  /** Ends a run still marked running; false when it had already ended (e.g. reaped). */
  async endRun(
    runId: number,
    r: { endedAt: string; exitCode: number | null; outcome: ScheduleRunOutcome; message: string | null },
  ): Promise<boolean> {
    return (
      this.db
        .prepare("UPDATE schedule_runs SET ended_at = ?, exit_code = ?, outcome = ?, message = ? WHERE id = ? AND outcome = 'running'")
        .run(r.endedAt, r.exitCode, r.outcome, r.message, runId).changes > 0
    );
  }

  /** A schedule's runs, newest first. */
  async runs(scheduleId: number, limit: number): Promise<ScheduleRunRow[]> {
    return (
      this.db.prepare('SELECT * FROM schedule_runs WHERE schedule_id = ? ORDER BY id DESC LIMIT ?').all(scheduleId, limit) as RawRun[]
    ).map(toRun);
  }

  /** How many runs of a schedule are kept. */
  async countRuns(scheduleId: number): Promise<number> {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM schedule_runs WHERE schedule_id = ?').get(scheduleId) as { n: number }).n;
  }

  /** Every run still marked running, of every schedule. */
  async runningRuns(): Promise<ScheduleRunRow[]> {
    return (this.db.prepare("SELECT * FROM schedule_runs WHERE outcome = 'running' ORDER BY id").all() as RawRun[]).map(toRun);
  }

  /** The newest run of a schedule. */
  async latestRun(scheduleId: number): Promise<ScheduleRunRow | undefined> {
    const r = this.db.prepare('SELECT * FROM schedule_runs WHERE schedule_id = ? ORDER BY id DESC LIMIT 1').get(scheduleId) as
      RawRun | undefined;
    return r && toRun(r);
  }

  /** Keeps the newest `keep` runs of a schedule; returns the log files of the runs removed. */
  async pruneRuns(scheduleId: number, keep: number): Promise<string[]> {
    const old = this.db
      .prepare('SELECT id, log_file FROM schedule_runs WHERE schedule_id = ? ORDER BY id DESC LIMIT -1 OFFSET ?')
      .all(scheduleId, keep) as { id: number; log_file: string | null }[];
    if (old.length === 0) return [];
    const del = this.db.prepare('DELETE FROM schedule_runs WHERE id = ?');
    this.db.transaction(() => old.forEach((o) => del.run(o.id)))();
    return old.flatMap((o) => (o.log_file ? [o.log_file] : []));
  }
}
