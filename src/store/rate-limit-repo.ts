import type { Database, Statement } from 'better-sqlite3';

/** Outcome of one rate-limit check. */
export type RateDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterMs: number };

/**
 * A sliding log of accepted request times per key
 * (docs/status-and-incoming-webhooks.md#rate-limit-all-four-scripts: N requests per sliding
 * window). The
 * check, the pruning and the record are one IMMEDIATE transaction, so several serve processes of
 * one home count together. Times are passed in (epoch ms), never read here.
 */
export class RateLimitRepo {
  private readonly pruneStmt: Statement;
  private readonly countStmt: Statement;
  private readonly insertStmt: Statement;

  constructor(private readonly db: Database) {
    this.pruneStmt = db.prepare('DELETE FROM rate_limit_hits WHERE at_ms <= ?');
    this.countStmt = db.prepare('SELECT count(*) AS n, min(at_ms) AS oldest FROM rate_limit_hits WHERE key = ?');
    this.insertStmt = db.prepare('INSERT INTO rate_limit_hits (key, at_ms) VALUES (?, ?)');
  }

  /**
   * Counts the requests of `key` in the window (nowMs - windowMs, nowMs]; at `max` already the
   * request is refused and not recorded (a refused caller cannot push its own window forward),
   * otherwise it is recorded. Entries of every key older than the window are pruned here.
   */
  async hit(key: string, nowMs: number, max: number, windowMs: number): Promise<RateDecision> {
    return this.db
      .transaction((): RateDecision => {
        this.pruneStmt.run(nowMs - windowMs);
        const { n, oldest } = this.countStmt.get(key) as { n: number; oldest: number | null };
        if (n >= max) return { allowed: false, retryAfterMs: Math.max(1, (oldest ?? nowMs) + windowMs - nowMs) };
        this.insertStmt.run(key, nowMs);
        return { allowed: true, remaining: max - n - 1 };
      })
      .immediate();
  }
}
