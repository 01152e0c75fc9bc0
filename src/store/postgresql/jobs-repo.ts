/**
 * Breakout jobs on the PostgreSQL store: the SQLite JobsRepo (../jobs-repo.ts) translated, with
 * the claims that SQLite's one writer made safe serialised explicitly (docs/decisions.md,
 * "Concurrent writers on the PostgreSQL store").
 */
import { nowIso } from '../clock.js';
import {
  claimParams,
  finishParams,
  toJob,
  toLease,
  type FinishPayload,
  type JobClaim,
  type JobLease,
  type JobProgress,
  type JobRow,
  type JobsRepo,
  type JobStatus,
  type NewJob,
  type RawJob,
  type RawLease,
} from '../jobs-repo.js';
import type { RepoContract } from '../store-contract.js';
import { PoolRunner, type PgRunner } from './pg-runner.js';

/**
 * The key of the transaction-scoped advisory lock that serialises breakout claims: the ASCII
 * bytes of "sdsclaim" as a 64-bit integer (docs/decisions.md, "Concurrent writers on the
 * PostgreSQL store").
 */
const BREAKOUT_CLAIM_LOCK_KEY = '8314897682890058093';

/**
 * Takes the breakout claim lock until the end of the transaction `r` runs in, so that a check
 * for unfinished jobs or running schedule runs and the write that follows it are not interleaved
 * with another claim: what SQLite's one writer gave (docs/decisions.md, "Concurrent writers on
 * the PostgreSQL store"). A statement of its own, so that the reads after it (READ COMMITTED: a
 * snapshot per statement) see what the claim before committed. Outside a transaction (the pool)
 * there is nothing to hold it for.
 */
export async function lockBreakoutClaims(r: PgRunner): Promise<void> {
  if (r instanceof PoolRunner) return;
  await r.run(`SELECT pg_advisory_xact_lock(${BREAKOUT_CLAIM_LOCK_KEY})`);
}

/** SQLite's `LIMIT n` with a negative n means no limit; PostgreSQL's `LIMIT NULL` does. */
export function sqliteLimit(n: number): number | null {
  return n < 0 ? null : n;
}

/**
 * The job statements that PgJobsRepo and the PostgreSQL follow-ups repository run inside their
 * own transactions (as `jobStatements` of ../jobs-repo.ts on SQLite).
 */
export const pgJobStatements = {
  async create(r: PgRunner, j: NewJob): Promise<JobRow> {
    const row = await r.row<RawJob>(
      `INSERT INTO jobs (id, dictionaries, mode, threads, overwrite, origin, status, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7) RETURNING *`,
      [j.id, JSON.stringify(j.dictionaries), j.mode, j.threads, j.overwrite ? 1 : 0, j.origin, nowIso()],
    );
    return toJob(row!);
  },

  async get(r: PgRunner, id: string): Promise<JobRow | undefined> {
    const row = await r.row<RawJob>('SELECT * FROM jobs WHERE id = $1', [id]);
    return row && toJob(row);
  },

  /**
   * The pending and running jobs. Inside a transaction it first takes the breakout claim lock:
   * whoever reads this to decide whether to start work holds the claim until it commits.
   */
  async unfinished(r: PgRunner): Promise<JobRow[]> {
    await lockBreakoutClaims(r);
    return (await r.rows<RawJob>(`SELECT * FROM jobs WHERE status IN ('pending', 'running')`)).map(toJob);
  },

  /**
   * Moves an unfinished job to a final state. A conditional UPDATE: a second writer waits for
   * the first one's row lock, re-reads the row and finds it final (docs/decisions.md).
   */
  async finish(r: PgRunner, id: string, status: 'completed' | 'failed' | 'cancelled', payload: FinishPayload = {}): Promise<boolean> {
    return (
      (await r.run(
        `UPDATE jobs SET status = $1, result = $2, error = $3, warnings = coalesce($4, warnings), finished_at = $5
         WHERE id = $6 AND status IN ('pending', 'running')`,
        finishParams(id, status, payload),
      )) > 0
    );
  },
};

/** Breakout jobs and their state machine pending → running → completed | failed | cancelled, on PostgreSQL. */
export class PgJobsRepo implements RepoContract<JobsRepo> {
  constructor(private readonly db: PgRunner) {}

  async create(j: NewJob): Promise<JobRow> {
    return pgJobStatements.create(this.db, j);
  }

  /**
   * Creates a job unless a pending or running job already covers one of its dictionaries. The
   * check (which takes the breakout claim lock) and the insert run in one transaction, so two processes
   * racing to start a breakout of the same dictionary cannot both win (docs/decisions.md,
   * "Concurrent writers on the PostgreSQL store"). Returns the blocking job instead.
   */
  async createExclusive(j: NewJob): Promise<{ job: JobRow } | { busy: JobRow }> {
    return this.db.atomic(async (r) => {
      const busy = (await pgJobStatements.unfinished(r)).find((u) => u.dictionaries.some((d) => j.dictionaries.includes(d)));
      return busy ? { busy } : { job: await pgJobStatements.create(r, j) };
    });
  }

  async get(id: string): Promise<JobRow | undefined> {
    return pgJobStatements.get(this.db, id);
  }

  async list(opts: { status?: JobStatus; limit: number }): Promise<{ total: number; jobs: JobRow[] }> {
    const where = opts.status ? 'WHERE status = $1' : '';
    const args = opts.status ? [opts.status] : [];
    const total = (await this.db.row<{ n: number }>(`SELECT count(*) AS n FROM jobs ${where}`, args))!.n;
    const rows = await this.db.rows<RawJob>(`SELECT * FROM jobs ${where} ORDER BY created_at DESC, id LIMIT $${args.length + 1}`, [
      ...args,
      sqliteLimit(opts.limit),
    ]);
    return { total, jobs: rows.map(toJob) };
  }

  /** Jobs that should have a live process: the reaper checks them (in a transaction, a claim: see pgJobStatements). */
  async unfinished(): Promise<JobRow[]> {
    return pgJobStatements.unfinished(this.db);
  }

  async setPid(id: string, pid: number): Promise<void> {
    await this.db.run('UPDATE jobs SET pid = $1 WHERE id = $2', [pid, id]);
  }

  /**
   * pending → running; false when the job is no longer pending (cancelled before it started, or
   * claimed by another process). A conditional UPDATE: of two claims at once, the second waits
   * for the first one's row lock, re-reads the row and finds it running (docs/decisions.md).
   */
  async markRunning(id: string, pid: number): Promise<boolean> {
    const now = nowIso();
    return (
      (await this.db.run(
        `UPDATE jobs SET status = 'running', pid = $1, started_at = $2, heartbeat_at = $2 WHERE id = $3 AND status = 'pending'`,
        [pid, now, id],
      )) > 0
    );
  }

  async saveProgress(id: string, progress: JobProgress, warnings: number): Promise<void> {
    await this.db.run('UPDATE jobs SET progress = $1, warnings = $2, heartbeat_at = $3 WHERE id = $4', [
      JSON.stringify(progress),
      warnings,
      nowIso(),
      id,
    ]);
  }

  /** Moves an unfinished job to a final state; a job already final is left as it is. */
  async finish(id: string, status: 'completed' | 'failed' | 'cancelled', payload: FinishPayload = {}): Promise<boolean> {
    return pgJobStatements.finish(this.db, id, status, payload);
  }

  async requestCancel(id: string): Promise<void> {
    await this.db.run('UPDATE jobs SET cancel_requested = 1 WHERE id = $1', [id]);
  }

  async isCancelRequested(id: string): Promise<boolean> {
    return (await this.db.row<{ c: number }>('SELECT cancel_requested AS c FROM jobs WHERE id = $1', [id]))?.c === 1;
  }

  /**
   * Claims a job for `c.node` in one transaction (docs/breakout.md#leases): the claimable row is
   * locked `FOR UPDATE SKIP LOCKED`, so of two nodes claiming at once each gets another job or
   * none, never the same one; the row is re-checked under the lock. Undefined when nothing is
   * claimable.
   */
  async claim(c: JobClaim): Promise<JobRow | undefined> {
    const p = claimParams(c);
    return this.db.atomic(async (r) => {
      const found = await r.row<{ id: string }>(
        `SELECT id FROM jobs WHERE ($1::text IS NULL OR id = $1) AND (
           (status = 'pending' AND lease_node IS NULL AND $1::text IS NOT NULL)
           OR (status IN ('pending', 'running') AND lease_node IS NOT NULL
               AND (lease_expires_at < $2 OR lease_node = $3 OR lease_node IN (SELECT jsonb_array_elements_text($4::jsonb)))))
         ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [p.id, p.now, p.handoff, p.dead],
      );
      if (!found) return undefined;
      const row = await r.row<RawJob>(
        `UPDATE jobs SET status = 'running', pid = $2, lease_node = $3, lease_expires_at = $4,
           started_at = coalesce(started_at, $5), heartbeat_at = $5,
           takeovers = takeovers + (CASE WHEN lease_node IS NOT NULL AND lease_node <> $6 THEN 1 ELSE 0 END)
         WHERE id = $1 RETURNING *`,
        [found.id, p.pid, p.node, p.until, p.now, p.handoff],
      );
      return toJob(row!);
    });
  }

  /** Holds a pending, unclaimed job for `node` (the process about to be spawned for it claims it from there). */
  async reserve(id: string, node: string, leaseUntil: string): Promise<boolean> {
    return (
      (await this.db.run(
        `UPDATE jobs SET lease_node = $1, lease_expires_at = $2 WHERE id = $3 AND status = 'pending' AND lease_node IS NULL`,
        [node, leaseUntil, id],
      )) > 0
    );
  }

  /** Extends the lease of `node` on a running job; false when the node no longer holds it (taken over). */
  async renewLease(id: string, node: string, leaseUntil: string, now: string): Promise<boolean> {
    return (
      (await this.db.run(
        `UPDATE jobs SET lease_expires_at = $1, heartbeat_at = $2 WHERE id = $3 AND lease_node = $4 AND status = 'running'`,
        [leaseUntil, now, id, node],
      )) > 0
    );
  }

  /** Who holds a job and whether it was asked to stop: read by its runner before each page. */
  async leaseOf(id: string): Promise<JobLease | undefined> {
    const r = await this.db.row<RawLease>('SELECT lease_node, status, cancel_requested FROM jobs WHERE id = $1', [id]);
    return r && toLease(r);
  }

  /** Records the dictionaries the job has broken out to their end. */
  async setDictionariesDone(id: string, names: string[]): Promise<void> {
    await this.db.run('UPDATE jobs SET dictionaries_done = $1 WHERE id = $2', [JSON.stringify(names), id]);
  }

  /**
   * The newest finished job of a dictionary with that status (for "last successful job"
   * questions). NULLS LAST: SQLite sorts NULL first ascending, so last descending.
   */
  async lastFinishedFor(dictionary: string, status: JobStatus): Promise<JobRow | undefined> {
    const row = await this.db.row<RawJob>(
      `SELECT * FROM jobs
       WHERE status = $2 AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(jobs.dictionaries::jsonb) AS d(value) WHERE d.value = $1)
       ORDER BY finished_at DESC NULLS LAST LIMIT 1`,
      [dictionary, status],
    );
    return row && toJob(row);
  }
}
