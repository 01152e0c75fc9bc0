import type { Database, Statement } from 'better-sqlite3';

/** Which counter: one (username, client address) pair, or one address across all usernames. */
type ThrottleScope = 'user' | 'address';

/** Key of a counter; `username` is '' for the address scope. */
export interface ThrottleKey {
  scope: ThrottleScope;
  username: string;
  address: string;
}

/** State of one counter. Times are epoch milliseconds. */
export interface ThrottleState {
  /** Failures counted since windowStart. */
  failures: number;
  windowStart: number;
  /** Attempts are refused until then (0: not blocked). */
  blockedUntil: number;
  /** How many blocks this counter earned since it was last quiet; each doubles the next block. */
  strikes: number;
  lastFailureAt: number;
}

/** A `login_throttle` row's state columns as both stores return them. */
export interface RawThrottleState {
  failures: number;
  window_start: number;
  blocked_until: number;
  strikes: number;
  last_failure_at: number;
}

/** The state a `login_throttle` row holds (shared by the PostgreSQL store). */
export const toState = (r: RawThrottleState): ThrottleState => ({
  failures: r.failures,
  windowStart: r.window_start,
  blockedUntil: r.blocked_until,
  strikes: r.strikes,
  lastFailureAt: r.last_failure_at,
});

/** The upsert of `put` with `values` as its VALUES list (in the order of throttlePutParams). */
export function throttlePutSql(values: string): string {
  return `INSERT INTO login_throttle (scope, username, address, failures, window_start, blocked_until, strikes, last_failure_at)
       VALUES (${values})
       ON CONFLICT (scope, username, address) DO UPDATE SET failures = excluded.failures, window_start = excluded.window_start,
         blocked_until = excluded.blocked_until, strikes = excluded.strikes, last_failure_at = excluded.last_failure_at`;
}

/** The parameters of throttlePutSql for counter `key` in state `s`. */
export function throttlePutParams(key: ThrottleKey, s: ThrottleState): [string, string, string, number, number, number, number, number] {
  return [key.scope, key.username, key.address, s.failures, s.windowStart, s.blockedUntil, s.strikes, s.lastFailureAt];
}

/** A login attempt under way on some node (table `login_attempts`). Times are epoch milliseconds. */
export interface LoginAttemptRow {
  id: string;
  /** The node checking it (shared/node-id.ts). */
  node: string;
  address: string;
  /** The user counter's name (case-folded); '' for the refresh grant, which names no user. */
  username: string;
  /** Waiting for attempts in flight to settle, or charged and being checked. */
  waiting: boolean;
  /** When its node last wrote it: older than the attempt timeout, its node is taken for dead. */
  seenAt: number;
}

/** How many attempts from one address are under way, on every node. */
export interface AttemptCounts {
  /** Charged and being checked: in flight on the address counter. */
  onAddress: number;
  /** Of those, the ones on the (username, address) counter. */
  onUser: number;
  /** Waiting for attempts in flight to settle. */
  waiting: number;
}

/** The query of `attempts` with `p(n)` as its n-th parameter (username, address, since, except: in the order they appear, as SQLite's `?` wants them); shared by the PostgreSQL store. */
export const attemptCountsSql = (p: (n: number) => string): string =>
  `SELECT count(*) FILTER (WHERE waiting = 0) AS on_address, count(*) FILTER (WHERE waiting = 0 AND username = ${p(1)}) AS on_user,
     count(*) FILTER (WHERE waiting = 1) AS waiting
   FROM login_attempts WHERE address = ${p(2)} AND seen_at > ${p(3)} AND id <> ${p(4)}`;

/** The upsert of `putAttempt` with `p(n)` as its n-th parameter (in the order of attemptParams); shared by the PostgreSQL store. */
export const putAttemptSql = (p: (n: number) => string): string =>
  `INSERT INTO login_attempts (id, node, address, username, waiting, seen_at) VALUES (${[1, 2, 3, 4, 5, 6].map(p).join(', ')})
   ON CONFLICT (id) DO UPDATE SET waiting = excluded.waiting, seen_at = excluded.seen_at`;

/** The parameters of putAttemptSql. */
export const attemptParams = (a: LoginAttemptRow): [string, string, string, string, number, number] => [
  a.id,
  a.node,
  a.address,
  a.username,
  a.waiting ? 1 : 0,
  a.seenAt,
];

/** A `count(*)` row of attemptCountsSql as counts. */
export const toCounts = (r: { on_address: number; on_user: number; waiting: number }): AttemptCounts => ({
  onAddress: Number(r.on_address),
  onUser: Number(r.on_user),
  waiting: Number(r.waiting),
});

/**
 * Failed-login counters of the token endpoint. They live in the store so that they survive a
 * restart and every `sds serve` process of a home sees the same counts; a change is a
 * read-modify-write inside one store transaction (`store.transaction(async (tx) => … tx.loginThrottle …)`),
 * so two processes cannot lose a failure.
 */
export class LoginThrottleRepo {
  private readonly getStmt: Statement<[string, string, string], RawThrottleState>;
  private readonly putStmt: Statement<[string, string, string, number, number, number, number, number]>;
  private readonly clearStmt: Statement<[string, string, string]>;
  // Prepared at first use, not when the store opens: a store one migration behind (0030 made
  // login_attempts) must still open so that /readyz can say `run sds migrate` (docs/http-api.md).
  private countStmtMemo?: Statement<[string, string, number, string], { on_address: number; on_user: number; waiting: number }>;
  private putAttemptStmtMemo?: Statement<[string, string, string, string, number, number]>;
  private dropAttemptStmtMemo?: Statement<[string]>;
  private get countStmt() {
    return (this.countStmtMemo ??= this.db.prepare(attemptCountsSql(() => '?')));
  }
  private get putAttemptStmt() {
    return (this.putAttemptStmtMemo ??= this.db.prepare(putAttemptSql(() => '?')));
  }
  private get dropAttemptStmt() {
    return (this.dropAttemptStmtMemo ??= this.db.prepare('DELETE FROM login_attempts WHERE id = ?'));
  }

  constructor(private readonly db: Database) {
    this.getStmt = db.prepare('SELECT * FROM login_throttle WHERE scope = ? AND username = ? AND address = ?');
    this.putStmt = db.prepare(throttlePutSql('?, ?, ?, ?, ?, ?, ?, ?'));
    this.clearStmt = db.prepare('DELETE FROM login_throttle WHERE scope = ? AND username = ? AND address = ?');
  }

  async get(key: ThrottleKey): Promise<ThrottleState | undefined> {
    const r = this.getStmt.get(key.scope, key.username, key.address);
    return r && toState(r);
  }

  /** Writes the state of a counter (null deletes it). */
  async put(key: ThrottleKey, s: ThrottleState | null): Promise<void> {
    if (s === null) this.clearStmt.run(key.scope, key.username, key.address);
    else this.putStmt.run(...throttlePutParams(key, s));
  }

  async clear(key: ThrottleKey): Promise<void> {
    this.clearStmt.run(key.scope, key.username, key.address);
  }

  /**
   * The attempts from `address` under way on every node and seen after `since`, but for
   * attempt `except`: in a write transaction, after `get` of the counters they are charged on.
   */
  async attempts(address: string, username: string, since: number, except: string): Promise<AttemptCounts> {
    return toCounts(this.countStmt.get(username, address, since, except)!);
  }

  /** Writes an attempt under way (a new one, or one that starts or stops waiting). */
  async putAttempt(a: LoginAttemptRow): Promise<void> {
    this.putAttemptStmt.run(...attemptParams(a));
  }

  /** An attempt settled or gave up: it is no longer under way. */
  async dropAttempt(id: string): Promise<void> {
    this.dropAttemptStmt.run(id);
  }

  /** Deletes the attempts last seen at `before` or earlier: their nodes died while checking them. */
  async purgeStaleAttempts(before: number): Promise<number> {
    return this.db.prepare('DELETE FROM login_attempts WHERE seen_at <= ?').run(before).changes;
  }

  /** Removes every (username, address) counter of a username (any address). */
  async clearUser(username: string): Promise<number> {
    return this.db.prepare("DELETE FROM login_throttle WHERE scope = 'user' AND username = ?").run(username).changes;
  }

  /** Failures per username over the counters whose window started after `since`. */
  async failuresByUser(since: number): Promise<Map<string, number>> {
    const rows = this.db
      .prepare("SELECT username, SUM(failures) AS n FROM login_throttle WHERE scope = 'user' AND window_start > ? GROUP BY username")
      .all(since) as { username: string; n: number }[];
    return new Map(rows.map((r) => [r.username, r.n]));
  }

  /** Deletes counters with no failure and no block after `before`: they no longer limit anyone. */
  async purgeQuiet(before: number): Promise<number> {
    return this.db.prepare('DELETE FROM login_throttle WHERE last_failure_at < ? AND blocked_until < ?').run(before, before).changes;
  }
}
