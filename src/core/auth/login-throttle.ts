import { AppError } from '../../shared/errors.js';
import type { Store } from '../../store/open-store.js';
import type { ThrottleKey, ThrottleState } from '../../store/login-throttle-repo.js';
import type { LoginThrottlePolicy } from './login-throttle-policy.js';
import { admission, afterClear, afterGiveBack, afterSettledFailure } from './login-throttle-steps.js';
import { InFlightLogins } from './login-throttle-waits.js';

export {
  admission,
  afterCharge,
  afterClear,
  afterFailure,
  afterGiveBack,
  afterSettledFailure,
  blockLength,
} from './login-throttle-steps.js';

/**
 * One audited event of the token endpoint: a refused credential, an attempt refused by the
 * throttle, or the re-hash of a CSWeb bcrypt password after a right one (stored, or failed).
 */
export interface LoginEvent {
  kind: 'failed' | 'throttled' | 'rehashed' | 'rehash-failed';
  grant: 'password' | 'refresh_token';
  /** As sent (cut to 64 characters); null for the refresh grant, which names no user. */
  username: string | null;
  address: string;
  /** Epoch milliseconds of the server clock. */
  at: number;
  /** Why the credential was refused (failed), how long to wait (throttled), what was re-hashed or why not. */
  reason: string;
  retryAfterSeconds?: number;
}

/** Longest user name an account can have; longer names in requests are cut before use as a key. */
const MAX_NAME = 64;

/** The counter key of a user name: case-folded, so changing case does not buy fresh attempts. */
export function userKeyName(username: string): string {
  return username.slice(0, MAX_NAME).toLowerCase();
}

/** Whole seconds to wait before `blockedUntil` (at least 1), as Retry-After wants them. */
function secondsUntil(blockedUntil: number, now: number): number {
  return Math.max(1, Math.ceil((blockedUntil - now) / 1000));
}

/** Retry-After of an attempt refused because too many were already waiting: not a block. */
const WAITING_FULL_RETRY_SECONDS = 1;

/** An attempt under way: what it charged, so that a success can give it back. */
export interface LoginAttempt {
  grant: LoginEvent['grant'];
  username: string | null;
  address: string;
  keys: ThrottleKey[];
  before: (ThrottleState | undefined)[];
  after: ThrottleState[];
  /** Set once failed() or succeeded() ran: an attempt settles once. */
  settled: boolean;
}

export interface LoginGuard {
  /**
   * Fails with API-004 (429, `retry_after`) when the address, or this user from this address, is
   * blocked; else charges the attempt as a failure before the credential is checked, so that
   * concurrent guesses cannot all slip past the limit while their passwords are being verified.
   * An attempt whose charge would pass a limit while attempts of this process on that counter are
   * still in flight waits for them to settle (they may give their charges back) and looks again;
   * past `maxWaiting` attempts from its address waiting already, it fails with API-004 and a 1 s
   * `retry_after` (no block).
   * `clock` is read again after each wait.
   */
  begin(grant: LoginEvent['grant'], username: string | null, address: string, clock: () => number): Promise<LoginAttempt>;
  /** The credential was refused: returns the error to answer with, `refused` or API-004 when this failure reached a limit. */
  failed(attempt: LoginAttempt, now: number, refused: AppError): AppError;
  /**
   * The credential was right: clears the (user, address) counter and gives the address its
   * charge back. With `clearUser` false (the check failed for another reason) both get their charge back.
   */
  succeeded(attempt: LoginAttempt, now: number, clearUser?: boolean): void;
}

/**
 * The failed-login throttle of the token endpoint, over the store's counters (store/login-throttle-repo).
 * Password failures count for (username, address) and for the address; refresh-token failures,
 * which name no user, count for the address only. Attempts refused by the throttle are not
 * counted (a patient client is not punished for asking) and do not check the password.
 * A success clears only its (username, address) counter: clearing the address counter too would
 * let anyone holding one valid account reset the address's count between guesses at others.
 * Only a settled failure blocks: a charge in flight never does, so concurrent right passwords
 * (a field team behind one NAT) wait for each other instead of being refused.
 */
export function createLoginGuard(store: Store, policy: LoginThrottlePolicy, onEvent: (e: LoginEvent) => void = () => {}): LoginGuard {
  const repo = store.loginThrottle;
  const inFlight = new InFlightLogins();
  const limit = (k: ThrottleKey) => (k.scope === 'user' ? policy.maxFailuresPerUser : policy.maxFailuresPerAddress);
  const keys = (username: string | null, address: string): ThrottleKey[] => {
    const k: ThrottleKey[] = [{ scope: 'address', username: '', address }];
    if (username !== null) k.push({ scope: 'user', username: userKeyName(username), address });
    return k;
  };
  const shown = (username: string | null) => (username === null ? null : username.slice(0, MAX_NAME));

  function throttled(
    grant: LoginEvent['grant'],
    username: string | null,
    address: string,
    now: number,
    retry: number,
    why: 'blocked' | 'waiting full',
  ): AppError {
    const reason = why === 'blocked' ? `blocked for ${retry} s` : `${policy.maxWaiting} logins from this address waiting already`;
    onEvent({ kind: 'throttled', grant, username: shown(username), address, at: now, reason, retryAfterSeconds: retry });
    const what = why === 'blocked' ? 'too many failed logins' : 'too many logins at once';
    return new AppError('API-004', `${what} from ${address}; retry after ${retry} seconds`, { retry_after: retry });
  }

  /** Counts the attempt out of the in-flight set (waking the waiters) after `step` ran, whatever happened. */
  function settle<T>(a: LoginAttempt, step: () => T): T {
    if (a.settled)
      throw new AppError(
        'INTERNAL',
        `the login attempt of ${a.username ?? 'a refresh token'} from ${a.address} was settled twice (an attempt settles once)`,
      );
    a.settled = true;
    try {
      return step();
    } finally {
      inFlight.remove(a.keys);
    }
  }

  return {
    async begin(grant, username, address, clock) {
      const ks = keys(username, address);
      for (;;) {
        const now = clock();
        const look = () => {
          const before = ks.map((k) => repo.get(k));
          const each = ks.map((k, i) => admission(before[i], now, limit(k), inFlight.count(k), policy));
          const until = Math.max(0, ...each.map((v) => (v.kind === 'blocked' ? v.until : 0)));
          if (until > now) return { kind: 'blocked' as const, until };
          const w = each.findIndex((v) => v.kind === 'wait');
          if (w >= 0) return { kind: 'wait' as const, key: ks[w]! };
          return { kind: 'free' as const, before, after: each.map((v) => (v as { next: ThrottleState }).next) };
        };
        // A plain read first, so that the many attempts woken to look again take no write lock
        // just to wait again; then looked at again and charged in one transaction, as another
        // process may have written in between.
        const first = look();
        const verdict =
          first.kind !== 'free'
            ? first
            : repo.transaction(() => {
                const v = look();
                if (v.kind === 'free') ks.forEach((k, i) => repo.put(k, v.after[i]!));
                return v;
              });
        if (verdict.kind === 'free') {
          // Only once committed: an attempt counted in flight must be settled, or others would wait for it forever.
          inFlight.add(ks);
          return { grant, username, address, keys: ks, before: verdict.before, after: verdict.after, settled: false };
        }
        if (verdict.kind === 'blocked') throw throttled(grant, username, address, now, secondsUntil(verdict.until, now), 'blocked');
        if (inFlight.waitersFrom(address) >= policy.maxWaiting)
          throw throttled(grant, username, address, now, WAITING_FULL_RETRY_SECONDS, 'waiting full');
        await inFlight.wait(verdict.key);
      }
    },
    failed(a, now, refused) {
      const after = settle(a, () =>
        repo.transaction(() =>
          a.keys.map((k) => {
            const s = afterSettledFailure(repo.get(k), now, limit(k), inFlight.count(k) - 1, policy);
            repo.put(k, s);
            return s;
          }),
        ),
      );
      onEvent({ kind: 'failed', grant: a.grant, username: shown(a.username), address: a.address, at: now, reason: refused.message });
      repo.purgeQuiet(now - policy.windowMs);
      const until = Math.max(...after.map((s) => s.blockedUntil));
      return until > now ? throttled(a.grant, a.username, a.address, now, secondsUntil(until, now), 'blocked') : refused;
    },
    succeeded(a, now, clearUser = true) {
      settle(a, () =>
        repo.transaction(() =>
          a.keys.forEach((k, i) => {
            const cur = repo.get(k);
            repo.put(
              k,
              k.scope === 'user' && clearUser ? afterClear(cur, now, inFlight.count(k) - 1) : afterGiveBack(cur, a.before[i], a.after[i]!),
            );
          }),
        ),
      );
    },
  };
}
