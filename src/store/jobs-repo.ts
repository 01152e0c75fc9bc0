import type { Database } from 'better-sqlite3';
import { nowIso } from './clock.js';

export type JobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
export type JobMode = 'full' | 'incremental';

export interface JobProgress {
  dictionary: string;
  processed: number;
  total: number;
}

export interface JobResult {
  dictionaries_processed: string[];
  total_cases: number;
  tables_created: string[];
  warnings: number;
}

export interface JobError {
  code: string;
  message: string;
  details: string;
}

export interface JobRow {
  id: string;
  dictionaries: string[];
  mode: JobMode;
  threads: number;
  overwrite: boolean;
  origin: string;
  status: JobStatus;
  pid: number | null;
  progress: JobProgress | null;
  result: JobResult | null;
  error: JobError | null;
  warnings: number;
  cancelRequested: boolean;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  heartbeatAt: string | null;
}

/** A jobs row as the database returns it (shared with the PostgreSQL repository). */
export interface RawJob {
  id: string;
  dictionaries: string;
  mode: JobMode;
  threads: number;
  overwrite: number;
  origin: string;
  status: JobStatus;
  pid: number | null;
  progress: string | null;
  result: string | null;
  error: string | null;
  warnings: number;
  cancel_requested: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  heartbeat_at: string | null;
}

const parse = <T>(s: string | null): T | null => (s === null ? null : (JSON.parse(s) as T));

/** A jobs row as the rest of sds sees it. */
export function toJob(r: RawJob): JobRow {
  return {
    id: r.id,
    dictionaries: JSON.parse(r.dictionaries) as string[],
    mode: r.mode,
    threads: r.threads,
    overwrite: r.overwrite === 1,
    origin: r.origin,
    status: r.status,
    pid: r.pid,
    progress: parse<JobProgress>(r.progress),
    result: parse<JobResult>(r.result),
    error: parse<JobError>(r.error),
    warnings: r.warnings,
    cancelRequested: r.cancel_requested === 1,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    heartbeatAt: r.heartbeat_at,
  };
}

export type NewJob = { id: string; dictionaries: string[]; mode: JobMode; threads: number; overwrite: boolean; origin: string };

/** What a job's end records: its result or error, and its warning count. */
export type FinishPayload = { result?: JobResult; error?: JobError; warnings?: number };

/**
 * The parameters of the statement that ends a job, in order: status, result, error, warnings
 * (null keeps the count), finished_at, id (the same on both stores).
 */
export function finishParams(id: string, status: 'completed' | 'failed' | 'cancelled', payload: FinishPayload) {
  return [
    status,
    payload.result ? JSON.stringify(payload.result) : null,
    payload.error ? JSON.stringify(payload.error) : null,
    payload.warnings ?? null,
    nowIso(),
    id,
  ] as const;
}

/**
 * The job statements that JobsRepo and FollowUpsRepo run inside their own synchronous
 * transactions (store-internal: outside store/ go through the repositories).
 */
export const jobStatements = {
  create(db: Database, j: NewJob): JobRow {
    db.prepare(
      `INSERT INTO jobs (id, dictionaries, mode, threads, overwrite, origin, status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
    ).run(j.id, JSON.stringify(j.dictionaries), j.mode, j.threads, j.overwrite ? 1 : 0, j.origin, nowIso());
    return jobStatements.get(db, j.id)!;
  },

  get(db: Database, id: string): JobRow | undefined {
    const r = db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as RawJob | undefined;
    return r && toJob(r);
  },

  unfinished(db: Database): JobRow[] {
    return (db.prepare(`SELECT * FROM jobs WHERE status IN ('pending', 'running')`).all() as RawJob[]).map(toJob);
  },

  finish(db: Database, id: string, status: 'completed' | 'failed' | 'cancelled', payload: FinishPayload = {}): boolean {
    return (
      db
        .prepare(
          `UPDATE jobs SET status = ?, result = ?, error = ?, warnings = coalesce(?, warnings), finished_at = ?
           WHERE id = ? AND status IN ('pending', 'running')`,
        )
        .run(...finishParams(id, status, payload)).changes > 0
    );
  },
};

/** Breakout jobs and their state machine pending → running → completed | failed | cancelled. */
export class JobsRepo {
  constructor(private readonly db: Database) {}

  async create(j: NewJob): Promise<JobRow> {
    return jobStatements.create(this.db, j);
  }

  /**
   * Creates a job unless a pending or running job already covers one of its dictionaries; the
   * check and the insert are one IMMEDIATE transaction, so two processes racing to start a
   * breakout of the same dictionary cannot both win. Returns the blocking job instead.
   */
  async createExclusive(j: NewJob): Promise<{ job: JobRow } | { busy: JobRow }> {
    return this.db
      .transaction(() => {
        const busy = jobStatements.unfinished(this.db).find((u) => u.dictionaries.some((d) => j.dictionaries.includes(d)));
        return busy ? { busy } : { job: jobStatements.create(this.db, j) };
      })
      .immediate();
  }

  async get(id: string): Promise<JobRow | undefined> {
    return jobStatements.get(this.db, id);
  }

  async list(opts: { status?: JobStatus; limit: number }): Promise<{ total: number; jobs: JobRow[] }> {
    const where = opts.status ? 'WHERE status = ?' : '';
    const args = opts.status ? [opts.status] : [];
    const total = (this.db.prepare(`SELECT count(*) AS n FROM jobs ${where}`).get(...args) as { n: number }).n;
    const rows = this.db.prepare(`SELECT * FROM jobs ${where} ORDER BY created_at DESC, id LIMIT ?`).all(...args, opts.limit) as RawJob[];
    return { total, jobs: rows.map(toJob) };
  }

  /** Jobs that should have a live process: the reaper checks them. */
  async unfinished(): Promise<JobRow[]> {
    return jobStatements.unfinished(this.db);
  }

  async setPid(id: string, pid: number): Promise<void> {
    this.db.prepare('UPDATE jobs SET pid = ? WHERE id = ?').run(pid, id);
  }

  /** pending → running; false when the job is no longer pending (cancelled before it started). */
  async markRunning(id: string, pid: number): Promise<boolean> {
    const now = nowIso();
    return (
      this.db
        .prepare(`UPDATE jobs SET status = 'running', pid = ?, started_at = ?, heartbeat_at = ? WHERE id = ? AND status = 'pending'`)
        .run(pid, now, now, id).changes > 0
    );
  }

  async saveProgress(id: string, progress: JobProgress, warnings: number): Promise<void> {
    this.db
      .prepare('UPDATE jobs SET progress = ?, warnings = ?, heartbeat_at = ? WHERE id = ?')
      .run(JSON.stringify(progress), warnings, nowIso(), id);
  }

  /** Moves an unfinished job to a final state; a job already final is left as it is. */
  async finish(id: string, status: 'completed' | 'failed' | 'cancelled', payload: FinishPayload = {}): Promise<boolean> {
    return jobStatements.finish(this.db, id, status, payload);
  }

  async requestCancel(id: string): Promise<void> {
    this.db.prepare('UPDATE jobs SET cancel_requested = 1 WHERE id = ?').run(id);
  }

  async isCancelRequested(id: string): Promise<boolean> {
    return (this.db.prepare('SELECT cancel_requested AS c FROM jobs WHERE id = ?').get(id) as { c: number } | undefined)?.c === 1;
  }

  /** Finished jobs of a dictionary, newest first (for "last successful job" questions). */
  async lastFinishedFor(dictionary: string, status: JobStatus): Promise<JobRow | undefined> {
    const r = this.db
      .prepare(`SELECT jobs.* FROM jobs, json_each(jobs.dictionaries) d WHERE d.value = ? AND status = ? ORDER BY finished_at DESC LIMIT 1`)
      .get(dictionary, status) as RawJob | undefined;
    return r && toJob(r);
  }
}
