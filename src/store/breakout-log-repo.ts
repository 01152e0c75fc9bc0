import type { Database, Statement } from 'better-sqlite3';

export type BreakoutLogLevel = 'info' | 'warn' | 'error';

export interface BreakoutLogEntry {
  id: number;
  jobId: string;
  dictionary: string;
  level: BreakoutLogLevel;
  message: string;
  /** Progress of the dictionary in its job when the entry was written, 0 to 100. */
  progress: number;
  createdAt: string;
}

export type NewBreakoutLogEntry = Omit<BreakoutLogEntry, 'id'>;

/** A breakout_log row as the database returns it. */
export interface RawEntry {
  id: number;
  job_id: string;
  dictionary: string;
  level: BreakoutLogLevel;
  message: string;
  progress: number;
  created_at: string;
}

/** A breakout log entry as the rest of sds sees it. */
export function toEntry(r: RawEntry): BreakoutLogEntry {
  return {
    id: r.id,
    jobId: r.job_id,
    dictionary: r.dictionary,
    level: r.level,
    message: r.message,
    progress: r.progress,
    createdAt: r.created_at,
  };
}

/** Structured breakout log entries, in the order they were written (the id). */
export class BreakoutLogRepo {
  private readonly insertStmt: Statement<[string, string, string, string, number, string]>;

  constructor(private readonly db: Database) {
    this.insertStmt = db.prepare(
      'INSERT INTO breakout_log (job_id, dictionary, level, message, progress, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  async add(e: NewBreakoutLogEntry): Promise<void> {
    this.insertStmt.run(e.jobId, e.dictionary, e.level, e.message, e.progress, e.createdAt);
  }

  /** The newest entries first, of one dictionary or of all. */
  async newest(opts: { dictionary?: string; limit: number }): Promise<BreakoutLogEntry[]> {
    const rows = (
      opts.dictionary === undefined
        ? this.db.prepare('SELECT * FROM breakout_log ORDER BY id DESC LIMIT ?').all(opts.limit)
        : this.db.prepare('SELECT * FROM breakout_log WHERE dictionary = ? ORDER BY id DESC LIMIT ?').all(opts.dictionary, opts.limit)
    ) as RawEntry[];
    return rows.map(toEntry);
  }

  /**
   * The newest entries first, filtered: of one dictionary, of the given levels, written at or
   * after `since` (an ISO 8601 UTC string, compared as text like every stored time).
   */
  async search(opts: { dictionary?: string; levels?: BreakoutLogLevel[]; since?: string; limit: number }): Promise<BreakoutLogEntry[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (opts.dictionary !== undefined) {
      where.push('dictionary = ?');
      args.push(opts.dictionary);
    }
    if (opts.levels !== undefined) {
      where.push(`level IN (${opts.levels.map(() => '?').join(', ')})`);
      args.push(...opts.levels);
    }
    if (opts.since !== undefined) {
      where.push('created_at >= ?');
      args.push(opts.since);
    }
    const sql = `SELECT * FROM breakout_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...args, opts.limit) as RawEntry[]).map(toEntry);
  }

  /** Deletes all but the newest `keep` entries; returns how many went. */
  async prune(keep: number): Promise<number> {
    return this.db.prepare('DELETE FROM breakout_log WHERE id <= (SELECT id FROM breakout_log ORDER BY id DESC LIMIT 1 OFFSET ?)').run(keep)
      .changes;
  }
}
