import { AppError } from '../../shared/errors.js';
import type { Store } from '../../store/open-store.js';
import type { ThrottleKey, ThrottleState } from '../../store/login-throttle-repo.js';
import type { LoginThrottlePolicy } from './login-throttle-policy.js';
import { InFlightLogins } from './login-throttle-waits.js';

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

/** A counter as it starts: nothing counted, nothing blocked. */
const fresh = (now: number): ThrottleState => ({ failures: 0, windowStart: now, blockedUntil: 0, strikes: 0, lastFailureAt: now });

/**
 * The state of a counter after charging one attempt at `now` (pure): one more failure counted,
 * no block yet. Failures are counted in a fixed window opened by the first one; a quiet or lapsed
 * window starts afresh but keeps the charges of the `inFlight` attempts still being checked.
 */
export function afterCharge(prev: ThrottleState | undefined, now: number, policy: LoginThrottlePolicy, inFlight = 0): ThrottleState {
  const s: ThrottleState = !prev || isQuiet(prev, now, policy) ? { ...fresh(now), failures: inFlight } : { ...prev };
  if (now - s.windowStart >= policy.windowMs) {
    s.failures = inFlight;
    s.windowStart = now;
  }
  s.failures += 1;
  s.lastFailureAt = now;
  return s;
}

/**
 * Blocks a counter whose settled failures (`settled`) reached `maxFailures` and that is not
 * blocked already (pure). Once the block ends, the window may still hold `maxFailures` failures,
 * so every further failure blocks again, each time twice as long (capped): the growing backoff.
 */
export function withBlock(s: ThrottleState, settled: number, now: number, maxFailures: number, policy: LoginThrottlePolicy): ThrottleState {
  if (settled < maxFailures || s.blockedUntil > now) return s;
  const strikes = s.strikes + 1;
  return { ...s, strikes, blockedUntil: now + blockLength(strikes, policy) };
}

/**
 * The state of a counter after one more failure at `now` (pure), with no attempt in flight:
 * charged, and blocked when it reaches `maxFailures`. A quiet window forgets everything.
 */
export function afterFailure(prev: ThrottleState | undefined, now: number, maxFailures: number, policy: LoginThrottlePolicy): ThrottleState {
  const s = afterCharge(prev, now, policy);
  return withBlock(s, s.failures, now, maxFailures, policy);
}

/**
 * What to do with a new attempt on one counter (pure): refuse it while the counter is blocked;
 * let it wait while its charge would pass `maxFailures` and `inFlight` attempts on the counter
 * (charged, still being checked) may give their charges back; else charge it. With nothing in
 * flight, a counter already at its limit (a block just ended) lets one attempt through at a time.
 */
export function admission(
  cur: ThrottleState | undefined,
  now: number,
  maxFailures: number,
  inFlight: number,
  policy: LoginThrottlePolicy,
): { kind: 'blocked'; until: number } | { kind: 'wait' } | { kind: 'charge'; next: ThrottleState } {
  if (cur && cur.blockedUntil > now) return { kind: 'blocked', until: cur.blockedUntil };
  const next = afterCharge(cur, now, policy, inFlight);
  if (next.failures > maxFailures && inFlight > 0) return { kind: 'wait' };
  return { kind: 'charge', next };
}

/**
 * The state of a counter when a charged attempt's credential was refused (pure): the charge
 * stays, and the failures counted minus the `othersInFlight` still being checked are the settled
 * ones that may block. A counter cleared meanwhile (by another process) counts this failure afresh.
 */
export function afterSettledFailure(
  cur: ThrottleState | undefined,
  now: number,
  maxFailures: number,
  othersInFlight: number,
  policy: LoginThrottlePolicy,
): ThrottleState {
  const s = cur && !isQuiet(cur, now, policy) ? cur : afterCharge(undefined, now, policy, othersInFlight);
  return withBlock(s, s.failures - othersInFlight, now, maxFailures, policy);
}

/**
 * The state of a counter when a charged attempt gives its charge back (pure): as it was before
 * the charge when nothing else touched it, else one failure less (gone when nothing is left).
 */
export function afterGiveBack(cur: ThrottleState | undefined, before: ThrottleState | undefined, after: ThrottleState): ThrottleState | null {
  if (same(cur, after)) return before ?? null;
  if (!cur) return null;
  const s = { ...cur, failures: Math.max(0, cur.failures - 1) };
  return s.failures === 0 && s.strikes === 0 && s.blockedUntil === 0 ? null : s;
}

/**
 * A (user, address) counter after a right password (pure): cleared, failures and blocks alike,
 * but the charges of the `othersInFlight` attempts still being checked stay, so that they cannot
 * be outnumbered by new ones.
 */
export function afterClear(cur: ThrottleState | undefined, now: number, othersInFlight: number): ThrottleState | null {
  if (othersInFlight <= 0) return null;
  return { ...fresh(cur?.windowStart ?? now), failures: othersInFlight, lastFailureAt: cur?.lastFailureAt ?? now };
}

/** Whole seconds to wait before `blockedUntil` (at least 1), as Retry-After wants them. */
function secondsUntil(blockedUntil: number, now: number): number {
  return Math.max(1, Math.ceil((blockedUntil - now) / 1000));
}

/** Retry-After of an attempt refused because too many were already waiting: not a block. */
export const WAITING_FULL_RETRY_SECONDS = 1;

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

function same(a: ThrottleState | undefined, b: ThrottleState | undefined): boolean {
  return a !== undefined && b !== undefined && a.failures === b.failures && a.windowStart === b.windowStart && a.blockedUntil === b.blockedUntil && a.strikes === b.strikes;
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

  function throttled(grant: LoginEvent['grant'], username: string | null, address: string, now: number, retry: number, why: 'blocked' | 'waiting full'): AppError {
    const reason = why === 'blocked' ? `blocked for ${retry} s` : `${policy.maxWaiting} logins from this address waiting already`;
    onEvent({ kind: 'throttled', grant, username: shown(username), address, at: now, reason, retryAfterSeconds: retry });
    const what = why === 'blocked' ? 'too many failed logins' : 'too many logins at once';
    return new AppError('API-004', `${what} from ${address}; retry after ${retry} seconds`, { retry_after: retry });
  }

  /** Counts the attempt out of the in-flight set (waking the waiters) after `step` ran, whatever happened. */
  function settle<T>(a: LoginAttempt, step: () => T): T {
    if (a.settled) throw new Error('a login attempt settles once');
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
        if (inFlight.waitersFrom(address) >= policy.maxWaiting) throw throttled(grant, username, address, now, WAITING_FULL_RETRY_SECONDS, 'waiting full');
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
            repo.put(k, k.scope === 'user' && clearUser ? afterClear(cur, now, inFlight.count(k) - 1) : afterGiveBack(cur, a.before[i], a.after[i]!));
          }),
        ),
      );
    },
  };
}
