/**
 * The rate-limit repository on PostgreSQL (docs/architecture.md#the-store-contract): the SQLite
 * RateLimitRepo's sliding log over a PgRunner.
 */
import type { RepoContract } from '../store-contract.js';
import type { RateDecision, RateLimitRepo } from '../rate-limit-repo.js';
import type { PgRunner } from './pg-runner.js';

/**
 * The first key of the two-key advisory locks that serialise the hits of one rate-limit key
 * (the second is the hash of the key): "rate" in ASCII. Two-key locks never meet the one-key
 * locks of migrations (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
const RATE_LIMIT_LOCK_CLASS = 0x72617465;

/**
 * A sliding log of accepted request times per key
 * (docs/status-and-incoming-webhooks.md#rate-limit-all-four-scripts), shared by every node of
 * the store. Times are passed in (epoch ms), never read here.
 */
export class PgRateLimitRepo implements RepoContract<RateLimitRepo> {
  constructor(private readonly db: PgRunner) {}

  /**
   * Counts the requests of `key` in the window (nowMs - windowMs, nowMs]; at `max` already the
   * request is refused and not recorded, otherwise it is recorded; entries of every key older
   * than the window are pruned. SQLite's IMMEDIATE transaction made count-then-insert safe; here
   * the hits of one key take a transaction-scoped advisory lock on the key first, so two
   * concurrent requests never both see the last free place (docs/decisions.md, "Concurrent
   * writers on the PostgreSQL store"). The prune skips rows another transaction is deleting
   * (it deletes them), so prunes of different keys never wait on each other or deadlock; the
   * count therefore bounds the window itself rather than trusting the prune.
   */
  async hit(key: string, nowMs: number, max: number, windowMs: number): Promise<RateDecision> {
    const since = nowMs - windowMs;
    return this.db.atomic(async (r) => {
      await r.run('SELECT pg_advisory_xact_lock($1, hashtext($2))', [RATE_LIMIT_LOCK_CLASS, key]);
      await r.run('DELETE FROM rate_limit_hits WHERE ctid IN (SELECT ctid FROM rate_limit_hits WHERE at_ms <= $1 FOR UPDATE SKIP LOCKED)', [
        since,
      ]);
      const { n, oldest } = (await r.row<{ n: number; oldest: number | null }>(
        'SELECT count(*) AS n, min(at_ms) AS oldest FROM rate_limit_hits WHERE key = $1 AND at_ms > $2',
        [key, since],
      ))!;
      if (n >= max) return { allowed: false, retryAfterMs: Math.max(1, (oldest ?? nowMs) + windowMs - nowMs) };
      await r.run('INSERT INTO rate_limit_hits (key, at_ms) VALUES ($1, $2)', [key, nowMs]);
      return { allowed: true, remaining: max - n - 1 };
    });
  }
}
