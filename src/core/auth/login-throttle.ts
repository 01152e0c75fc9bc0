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

export interface LoginGuard {
  /** Fails with API-004 (429, `retry_after`) when the address, or this user from this address, is blocked. */
  check(grant: LoginEvent['grant'], username: string | null, address: string, now: number): void;
  /**
   * Counts a refused credential and returns the error to answer with: `refused` itself, or
   * API-004 when this failure reached the limit (the caller learns of the block at once).
   */
  failed(grant: LoginEvent['grant'], username: string | null, address: string, now: number, refused: AppError): AppError;
  /** A successful password login clears the counter of this user from this address. */
  succeeded(username: string, address: string): void;
}

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
    check(grant, username, address, now) {
      let until = 0;
      for (const k of keys(username, address)) until = Math.max(until, store.loginThrottle.get(k)?.blockedUntil ?? 0);
      if (until > now) throw throttled(grant, username, address, now, until);
    },
    failed(grant, username, address, now, refused) {
      onEvent({ kind: 'failed', grant, username: shown(username), address, at: now, reason: refused.message });
      const states = store.loginThrottle.update(keys(username, address), (k, cur) =>
        afterFailure(cur, now, k.scope === 'user' ? policy.maxFailuresPerUser : policy.maxFailuresPerAddress, policy),
      );
      store.loginThrottle.purgeQuiet(now - policy.windowMs);
      const until = Math.max(...states.map((s) => s.blockedUntil));
      return until > now ? throttled(grant, username, address, now, until) : refused;
    },
    succeeded(username, address) {
      store.loginThrottle.clear({ scope: 'user', username: userKeyName(username), address });
    },
  };
}
