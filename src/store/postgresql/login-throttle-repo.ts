/**
 * Failed-login counters on the PostgreSQL store: the same answers as the SQLite LoginThrottleRepo,
 * with the read-modify-write of a counter made safe for
 * several writers at once (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import {
  attemptCountsSql,
  attemptParams,
  putAttemptSql,
  toCounts,
  type AttemptCounts,
  type LoginAttemptRow,
  throttlePutParams,
  throttlePutSql,
  toState,
  type LoginThrottleRepo,
  type RawThrottleState,
  type ThrottleKey,
  type ThrottleState,
} from '../login-throttle-repo.js';
import type { RepoContract } from '../store-contract.js';
import type { PgRunner } from './pg-runner.js';

/**
 * The first key of the two-key pg_advisory_xact_lock that guards one counter: the ASCII bytes of
 * "sdsT", so the counters' locks cannot meet the one-key locks of migrations or other repositories.
 */
const THROTTLE_LOCK_CLASS = 0x73647354;

const PUT_SQL = throttlePutSql('$1, $2, $3, $4, $5, $6, $7, $8');
const COUNT_SQL = attemptCountsSql((n) => `$${n}`);
const PUT_ATTEMPT_SQL = putAttemptSql((n) => `$${n}`);
const CLEAR_SQL = 'DELETE FROM login_throttle WHERE scope = $1 AND username = $2 AND address = $3';

/** Failed-login counters of the token endpoint, in PostgreSQL. */
export class PgLoginThrottleRepo implements RepoContract<LoginThrottleRepo> {
  constructor(private readonly db: PgRunner) {}

  /**
   * The state of a counter. In a write transaction it also locks the counter until the commit:
   * the caller reads, computes and `put`s the next state in the same transaction, and under READ
   * COMMITTED two failed logins at once would otherwise both read the same count and one failure
   * would be lost. A row lock alone cannot guard a counter that has no row yet (the first
   * failure), so a transaction-scoped advisory lock on the key comes first, then the row is read
   * FOR UPDATE (which also makes `clearUser` and `purgeQuiet` wait for the writer). In a read-only
   * transaction (the look before the write) nothing is locked (docs/decisions.md, "Concurrent
   * writers on the PostgreSQL store").
   */
  async get(key: ThrottleKey): Promise<ThrottleState | undefined> {
    const params = [key.scope, key.username, key.address];
    const locked = await this.db.rows(
      `SELECT pg_advisory_xact_lock(${THROTTLE_LOCK_CLASS}, hashtext(concat_ws(chr(1), $1::text, $2::text, $3::text)))
       WHERE current_setting('transaction_read_only') = 'off'`,
      params,
    );
    const r = await this.db.row<RawThrottleState>(
      `SELECT * FROM login_throttle WHERE scope = $1 AND username = $2 AND address = $3${locked.length > 0 ? ' FOR UPDATE' : ''}`,
      params,
    );
    return r && toState(r);
  }

  /** Writes the state of a counter (null deletes it). */
  async put(key: ThrottleKey, s: ThrottleState | null): Promise<void> {
    if (s === null) await this.clear(key);
    else await this.db.run(PUT_SQL, throttlePutParams(key, s));
  }

  async clear(key: ThrottleKey): Promise<void> {
    await this.db.run(CLEAR_SQL, [key.scope, key.username, key.address]);
  }

  /**
   * The attempts from `address` under way on every node and seen after `since`, but for
   * attempt `except`. Read after `get` of the counters they are charged on, whose locks every
   * writer of these rows holds, so the count is the committed one (READ COMMITTED).
   */
  async attempts(address: string, username: string, since: number, except: string): Promise<AttemptCounts> {
    return toCounts(
      (await this.db.row<{ on_address: number; on_user: number; waiting: number }>(COUNT_SQL, [username, address, since, except]))!,
    );
  }

  /** Writes an attempt under way (a new one, or one that starts or stops waiting). */
  async putAttempt(a: LoginAttemptRow): Promise<void> {
    await this.db.run(PUT_ATTEMPT_SQL, attemptParams(a));
  }

  /** An attempt settled or gave up: it is no longer under way. */
  async dropAttempt(id: string): Promise<void> {
    await this.db.run('DELETE FROM login_attempts WHERE id = $1', [id]);
  }

  /** Deletes the attempts last seen at `before` or earlier: their nodes died while checking them. */
  async purgeStaleAttempts(before: number): Promise<number> {
    return this.db.run('DELETE FROM login_attempts WHERE seen_at <= $1', [before]);
  }

  /** Removes every (username, address) counter of a username (any address). */
  async clearUser(username: string): Promise<number> {
    return this.db.run("DELETE FROM login_throttle WHERE scope = 'user' AND username = $1", [username]);
  }

  /** Failures per username (in name order, as SQLite groups them) over the counters whose window started after `since`. */
  async failuresByUser(since: number): Promise<Map<string, number>> {
    const rows = await this.db.rows<{ username: string; n: number }>(
      "SELECT username, SUM(failures)::bigint AS n FROM login_throttle WHERE scope = 'user' AND window_start > $1 GROUP BY username ORDER BY username",
      [since],
    );
    return new Map(rows.map((r) => [r.username, r.n]));
  }

  /** Deletes counters with no failure and no block after `before`: they no longer limit anyone. */
  async purgeQuiet(before: number): Promise<number> {
    return this.db.run('DELETE FROM login_throttle WHERE last_failure_at < $1 AND blocked_until < $1', [before]);
  }
}
