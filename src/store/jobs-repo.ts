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
  /** The node (src/shared/node-id.ts) whose claim on the job holds until `leaseExpiresAt` (docs/breakout.md#leases). */
  leaseNode: string | null;
  leaseExpiresAt: string | null;
  /** How often the job was taken over from a node whose lease was over. */
  takeovers: number;
  /** The dictionaries of the job already broken out to their end: a takeover skips them. */
  dictionariesDone: string[];
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
  lease_node: string | null;
  lease_expires_at: string | null;
  takeovers: number;
  dictionaries_done: string;
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
    leaseNode: r.lease_node,
    leaseExpiresAt: r.lease_expires_at,
    takeovers: Number(r.takeovers),
    dictionariesDone: JSON.parse(r.dictionaries_done) as string[],
  };
}

/**
 * A claim of a job by a node (docs/breakout.md#leases). Times are ISO 8601 of the claimer's clock.
 * A job is claimable when it is pending and unclaimed (only by its id), or pending or running
 * with a lease that is over: expired, held by `handoffFrom`, or held by one of `deadNodes`.
 */
export interface JobClaim {
  /** The job; absent, the oldest claimable job whose lease is over (a sweep's takeover). */
  id?: string;
  node: string;
  pid: number;
  now: string;
  leaseUntil: string;
  /** The node that handed the job to this process (the sweep or start that spawned it): its hold passes at once. */
  handoffFrom?: string;
  /** Holders known to be gone (processes of this host that no longer run): their leases are over whatever their expiry. */
  deadNodes?: string[];
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

/** The named parameters of a claim (the same names on both stores' statements). */
export function claimParams(c: JobClaim) {
  return {
    id: c.id ?? null,
    node: c.node,
    pid: c.pid,
    now: c.now,
    until: c.leaseUntil,
    handoff: c.handoffFrom ?? '',
    dead: JSON.stringify(c.deadNodes ?? []),
  };
}

/** Who holds a job, as its runner checks it between pages. */
export interface JobLease {
  node: string | null;
  status: JobStatus;
  cancelRequested: boolean;
}

/** A lease as the database returns it (shared with the PostgreSQL repository). */
export interface RawLease {
  lease_node: string | null;
  status: JobStatus;
  cancel_requested: number;
}

/** A lease as the rest of sds sees it. */
export function toLease(r: RawLease): JobLease {
  return { node: r.lease_node, status: r.status, cancelRequested: Number(r.cancel_requested) === 1 };
}

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

  /**
   * Claims a job for `c.node` in one IMMEDIATE transaction (SQLite's one writer makes it exclusive):
   * running, held by the node until `c.leaseUntil`. Undefined when nothing is claimable.
   */
  async claim(c: JobClaim): Promise<JobRow | undefined> {
    return this.db
      .transaction(() => {
        const found = this.db
          .prepare(
            `SELECT id FROM jobs WHERE (:id IS NULL OR id = :id) AND (
               (status = 'pending' AND lease_node IS NULL AND :id IS NOT NULL)
               OR (status IN ('pending', 'running') AND lease_node IS NOT NULL
                   AND (lease_expires_at < :now OR lease_node = :handoff OR lease_node IN (SELECT value FROM json_each(:dead)))))
             ORDER BY created_at, id LIMIT 1`,
          )
          .get(claimParams(c)) as { id: string } | undefined;
        if (!found) return undefined;
        this.db
          .prepare(
            `UPDATE jobs SET status = 'running', pid = :pid, lease_node = :node, lease_expires_at = :until,
               started_at = coalesce(started_at, :now), heartbeat_at = :now,
               takeovers = takeovers + (CASE WHEN lease_node IS NOT NULL AND lease_node <> :handoff THEN 1 ELSE 0 END)
             WHERE id = :found`,
          )
          .run({ ...claimParams(c), found: found.id });
        return jobStatements.get(this.db, found.id);
      })
      .immediate();
  }

  /** Holds a pending, unclaimed job for `node` (the process about to be spawned for it claims it from there). */
  async reserve(id: string, node: string, leaseUntil: string): Promise<boolean> {
    return (
      this.db
        .prepare(`UPDATE jobs SET lease_node = ?, lease_expires_at = ? WHERE id = ? AND status = 'pending' AND lease_node IS NULL`)
        .run(node, leaseUntil, id).changes > 0
    );
  }

  /** Extends the lease of `node` on a running job; false when the node no longer holds it (taken over). */
  async renewLease(id: string, node: string, leaseUntil: string, now: string): Promise<boolean> {
    return (
      this.db
        .prepare(`UPDATE jobs SET lease_expires_at = ?, heartbeat_at = ? WHERE id = ? AND lease_node = ? AND status = 'running'`)
        .run(leaseUntil, now, id, node).changes > 0
    );
  }

  /** Who holds a job and whether it was asked to stop: read by its runner before each page. */
  async leaseOf(id: string): Promise<JobLease | undefined> {
    const r = this.db.prepare('SELECT lease_node, status, cancel_requested FROM jobs WHERE id = ?').get(id) as RawLease | undefined;
    return r && toLease(r);
  }

  /** Records the dictionaries the job has broken out to their end. */
  async setDictionariesDone(id: string, names: string[]): Promise<void> {
    this.db.prepare('UPDATE jobs SET dictionaries_done = ? WHERE id = ?').run(JSON.stringify(names), id);
  }

  /** Finished jobs of a dictionary, newest first (for "last successful job" questions). */
  async lastFinishedFor(dictionary: string, status: JobStatus): Promise<JobRow | undefined> {
    const r = this.db
      .prepare(`SELECT jobs.* FROM jobs, json_each(jobs.dictionaries) d WHERE d.value = ? AND status = ? ORDER BY finished_at DESC LIMIT 1`)
      .get(dictionary, status) as RawJob | undefined;
    return r && toJob(r);
  }
}
