/**
 * Structured breakout log entries on the PostgreSQL store: the SQLite BreakoutLogRepo
 * (../breakout-log-repo.ts) translated. Entries are only added and pruned by id, so nothing here
 * relies on one writer at a time.
 */
import {
  toEntry,
  type BreakoutLogEntry,
  type BreakoutLogLevel,
  type BreakoutLogRepo,
  type NewBreakoutLogEntry,
  type RawEntry,
} from '../breakout-log-repo.js';
import type { RepoContract } from '../store-contract.js';
import { sqliteLimit } from './jobs-repo.js';
import type { PgRunner } from './pg-runner.js';

/** Structured breakout log entries on PostgreSQL, in the order they were written (the id). */
export class PgBreakoutLogRepo implements RepoContract<BreakoutLogRepo> {
  constructor(private readonly db: PgRunner) {}

  async add(e: NewBreakoutLogEntry): Promise<void> {
    await this.db.run(
      'INSERT INTO breakout_log (job_id, dictionary, level, message, progress, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [e.jobId, e.dictionary, e.level, e.message, e.progress, e.createdAt],
    );
  }

  /** The newest entries first, of one dictionary or of all. */
  async newest(opts: { dictionary?: string; limit: number }): Promise<BreakoutLogEntry[]> {
    return this.search({ dictionary: opts.dictionary, limit: opts.limit });
  }

  /**
   * The newest entries first, filtered: of one dictionary, of the given levels (none: no entry),
   * written at or after `since` (an ISO 8601 UTC string, compared as text like every stored time).
   */
  async search(opts: { dictionary?: string; levels?: BreakoutLogLevel[]; since?: string; limit: number }): Promise<BreakoutLogEntry[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const arg = (v: unknown): string => `$${args.push(v)}`;
    if (opts.dictionary !== undefined) where.push(`dictionary = ${arg(opts.dictionary)}`);
    if (opts.levels !== undefined) where.push(`level = ANY(${arg(opts.levels)}::text[])`);
    if (opts.since !== undefined) where.push(`created_at >= ${arg(opts.since)}`);
    const sql = `SELECT * FROM breakout_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${arg(sqliteLimit(opts.limit))}`;
    return (await this.db.rows<RawEntry>(sql, args)).map(toEntry);
  }

  /** Deletes all but the newest `keep` entries; returns how many went. */
  async prune(keep: number): Promise<number> {
    return this.db.run('DELETE FROM breakout_log WHERE id <= (SELECT id FROM breakout_log ORDER BY id DESC LIMIT 1 OFFSET $1)', [
      Math.max(0, keep),
    ]);
  }
}
