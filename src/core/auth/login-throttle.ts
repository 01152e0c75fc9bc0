import { AppError } from '../../shared/errors.js';
import type { Store } from '../../store/open-store.js';
import type { ThrottleKey, ThrottleState } from '../../store/login-throttle-repo.js';
import type { LoginThrottlePolicy } from './login-throttle-policy.js';

/** One audited event of the token endpoint: a refused credential, or an attempt refused by the throttle. */
export interface LoginEvent {
  kind: 'failed' | 'throttled';
  grant: 'password' | 'refresh_token';
  /** As sent (cut to 64 characters); null for the refresh grant, which names no user. */
  username: string | null;
  address: string;
  /** Epoch milliseconds of the server clock. */
  at: number;
  /** Why the credential was refused (failed), or how long to wait (throttled). */
  reason: string;
  retryAfterSeconds?: number;
}

/** Longest user name an account can have; longer names in requests are cut before use as a key. */
const MAX_NAME = 64;

/** The counter key of a user name: case-folded, so changing case does not buy fresh attempts. */
export function userKeyName(username: string): string {
  return username.slice(0, MAX_NAME).toLowerCase();
}

/** Length of the block earned by the `strikes`-th block of a counter: doubling, capped. */
export function blockLength(strikes: number, policy: LoginThrottlePolicy): number {
  return Math.min(policy.blockMs * 2 ** Math.max(0, strikes - 1), policy.maxBlockMs);
}

/** A counter with no failure and no block for a whole window limits nobody and starts afresh. */
export function isQuiet(s: ThrottleState, now: number, policy: LoginThrottlePolicy): boolean {
  return now >= Math.max(s.lastFailureAt, s.blockedUntil) + policy.windowMs;
}

/**
 * The state of a counter after one more failure at `now` (pure). Failures are counted in a fixed
 * window opened by the first one; reaching `maxFailures` blocks the counter. Once the block ends,
 * the window may still hold `maxFailures` failures, so every further failure blocks again, each
 * time twice as long (capped): the growing backoff. A quiet window forgets everything.
 */
export function afterFailure(prev: ThrottleState | undefined, now: number, maxFailures: number, policy: LoginThrottlePolicy): ThrottleState {
  const s: ThrottleState =
    !prev || isQuiet(prev, now, policy) ? { failures: 0, windowStart: now, blockedUntil: 0, strikes: 0, lastFailureAt: now } : { ...prev };
  if (now - s.windowStart >= policy.windowMs) {
    s.failures = 0;
    s.windowStart = now;
  }
  s.failures += 1;
  s.lastFailureAt = now;
  if (s.failures >= maxFailures && s.blockedUntil <= now) {
    s.strikes += 1;
    s.blockedUntil = now + blockLength(s.strikes, policy);
  }
  return s;
}

/** Whole seconds to wait before `blockedUntil` (at least 1), as Retry-After wants them. */
function secondsUntil(blockedUntil: number, now: number): number {
  return Math.max(1, Math.ceil((blockedUntil - now) / 1000));
}

/** An attempt under way: what it charged, so that a success can give it back. */
export interface LoginAttempt {
  grant: LoginEvent['grant'];
  username: string | null;
  address: string;
  keys: ThrottleKey[];
  before: (ThrottleState | undefined)[];
  after: ThrottleState[];
}

export interface LoginGuard {
  /**
   * Fails with API-004 (429, `retry_after`) when the address, or this user from this address, is
   * blocked; else charges the attempt as a failure before the credential is checked, so that
   * concurrent guesses cannot all slip past the limit while their passwords are being verified.
   */
  begin(grant: LoginEvent['grant'], username: string | null, address: string, now: number): LoginAttempt;
  /** The credential was refused: returns the error to answer with, `refused` or API-004 when this failure reached a limit. */
  failed(attempt: LoginAttempt, now: number, refused: AppError): AppError;
  /**
   * The credential was right: clears the (user, address) counter and gives the address its
   * charge back. With `clearUser` false (the check failed for another reason) both get their charge back.
   */
  succeeded(attempt: LoginAttempt, clearUser?: boolean): void;
}

const same = (a: ThrottleState | undefined, b: ThrottleState | undefined) =>
  a !== undefined && b !== undefined && a.failures === b.failures && a.windowStart === b.windowStart && a.blockedUntil === b.blockedUntil && a.strikes === b.strikes;

/**
 * The failed-login throttle of the token endpoint, over the store's counters (store/login-throttle-repo).
 * Password failures count for (username, address) and for the address; refresh-token failures,
 * which name no user, count for the address only. Attempts refused by the throttle are not
 * counted (a patient client is not punished for asking) and do not check the password.
 * A success clears only its (username, address) counter: clearing the address counter too would
 * let anyone holding one valid account reset the address's count between guesses at others.
 */
export function createLoginGuard(store: Store, policy: LoginThrottlePolicy, onEvent: (e: LoginEvent) => void = () => {}): LoginGuard {
  const keys = (username: string | null, address: string): ThrottleKey[] => {
    const k: ThrottleKey[] = [{ scope: 'address', username: '', address }];
    if (username !== null) k.push({ scope: 'user', username: userKeyName(username), address });
    return k;
  };
  const shown = (username: string | null) => (username === null ? null : username.slice(0, MAX_NAME));

  function throttled(grant: LoginEvent['grant'], username: string | null, address: string, now: number, until: number): AppError {
    const retry = secondsUntil(until, now);
    onEvent({ kind: 'throttled', grant, username: shown(username), address, at: now, reason: `blocked for ${retry} s`, retryAfterSeconds: retry });
    return new AppError('API-004', `too many failed logins from ${address}; retry after ${retry} seconds`, { retry_after: retry });
  }

  return {
    begin(grant, username, address, now) {
      const ks = keys(username, address);
      let blocked = 0;
      for (const k of ks) blocked = Math.max(blocked, store.loginThrottle.get(k)?.blockedUntil ?? 0);
      if (blocked > now) throw throttled(grant, username, address, now, blocked);
      const charged = store.loginThrottle.update(ks, (k, cur) => {
        // Another process may have blocked it in between: then this attempt is not charged again.
        if (cur && cur.blockedUntil > now) {
          blocked = Math.max(blocked, cur.blockedUntil);
          return cur;
        }
        return afterFailure(cur, now, k.scope === 'user' ? policy.maxFailuresPerUser : policy.maxFailuresPerAddress, policy);
      });
      if (blocked > now) throw throttled(grant, username, address, now, blocked);
      return { grant, username, address, keys: ks, before: charged.before, after: charged.after as ThrottleState[] };
    },
    failed(a, now, refused) {
      onEvent({ kind: 'failed', grant: a.grant, username: shown(a.username), address: a.address, at: now, reason: refused.message });
      store.loginThrottle.purgeQuiet(now - policy.windowMs);
      const until = Math.max(...a.after.map((s) => s.blockedUntil));
      return until > now ? throttled(a.grant, a.username, a.address, now, until) : refused;
    },
    succeeded(a, clearUser = true) {
      store.loginThrottle.update(a.keys, (k, cur) => {
        if (k.scope === 'user' && clearUser) return null;
        const i = a.keys.indexOf(k);
        // Nothing else touched the counter since the charge: put it back as it was.
        if (same(cur, a.after[i])) return a.before[i] ?? null;
        return cur ? { ...cur, failures: Math.max(0, cur.failures - 1) } : null;
      });
    },
  };
}
