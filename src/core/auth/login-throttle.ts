import { AppError } from '../../shared/errors.js';
import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
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
  /** The credential was refused: resolves to the error to answer with, `refused` or API-004 when this failure reached a limit. */
  failed(attempt: LoginAttempt, now: number, refused: AppError): Promise<AppError>;
  /**
   * The credential was right: clears the (user, address) counter and gives the address its
   * charge back. With `clearUser` false (the check failed for another reason) both get their charge back.
   */
  succeeded(attempt: LoginAttempt, now: number, clearUser?: boolean): Promise<void>;
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

  // The counters and the attempts in flight (`inFlight`) are read and changed together inside one
  // store transaction, which no other attempt of this process can interleave with: an attempt is
  // counted in flight with its charge, and counted out with its settlement, in the transaction
  // that writes them.

  /**
   * Runs `step` in one store transaction that settles the attempt: counts it out of the in-flight
   * set (waking the waiters) with the step's writes, or after the step failed, whatever happened.
   */
  async function settle<T>(a: LoginAttempt, step: (tx: StoreScope) => Promise<T>): Promise<T> {
    if (a.settled)
      throw new AppError(
        'INTERNAL',
        `the login attempt of ${a.username ?? 'a refresh token'} from ${a.address} was settled twice (an attempt settles once)`,
      );
    a.settled = true;
    let counted = true;
    const countOut = () => {
      if (!counted) return;
      counted = false;
      inFlight.remove(a.keys);
    };
    try {
      return await store.transaction(async (tx) => {
        const result = await step(tx);
        countOut();
        return result;
      });
    } finally {
      countOut();
    }
  }

  return {
    async begin(grant, username, address, clock) {
      const ks = keys(username, address);
      for (;;) {
        const now = clock();
        const look = async (tx: StoreScope) => {
          const before: (ThrottleState | undefined)[] = [];
          for (const k of ks) before.push(await tx.loginThrottle.get(k));
          const each = ks.map((k, i) => admission(before[i], now, limit(k), inFlight.count(k), policy));
          const until = Math.max(0, ...each.map((v) => (v.kind === 'blocked' ? v.until : 0)));
          if (until > now) return { kind: 'blocked' as const, until };
          const w = each.findIndex((v) => v.kind === 'wait');
          if (w >= 0) {
            if (inFlight.waitersFrom(address) >= policy.maxWaiting) return { kind: 'full' as const };
            // Waiting from now on, in the transaction: the attempts waited for cannot settle unseen.
            return { kind: 'wait' as const, woken: inFlight.wait(ks[w]!) };
          }
          return { kind: 'free' as const, before, after: each.map((v) => (v as { next: ThrottleState }).next) };
        };
        // A read first, so that the many attempts woken to look again take no write lock just to
        // wait again; then looked at again and charged in one write transaction, as another
        // process may have written in between.
        const first = await store.readTransaction(look);
        let verdict = first;
        if (first.kind === 'free') {
          let added = false;
          try {
            verdict = await store.transaction(async (tx) => {
              const v = await look(tx);
              if (v.kind === 'free') {
                for (const [i, k] of ks.entries()) await tx.loginThrottle.put(k, v.after[i]!);
                inFlight.add(ks);
                added = true;
              }
              return v;
            });
          } catch (err) {
            // Not committed: an attempt counted in flight must be settled, or others would wait for it forever.
            if (added) inFlight.remove(ks);
            throw err;
          }
        }
        if (verdict.kind === 'free') {
          return { grant, username, address, keys: ks, before: verdict.before, after: verdict.after, settled: false };
        }
        if (verdict.kind === 'blocked') throw throttled(grant, username, address, now, secondsUntil(verdict.until, now), 'blocked');
        if (verdict.kind === 'full') throw throttled(grant, username, address, now, WAITING_FULL_RETRY_SECONDS, 'waiting full');
        await verdict.woken;
      }
    },
    async failed(a, now, refused) {
      const after = await settle(a, async (tx) => {
        const states: ThrottleState[] = [];
        for (const k of a.keys) {
          const s = afterSettledFailure(await tx.loginThrottle.get(k), now, limit(k), inFlight.count(k) - 1, policy);
          await tx.loginThrottle.put(k, s);
          states.push(s);
        }
        return states;
      });
      onEvent({ kind: 'failed', grant: a.grant, username: shown(a.username), address: a.address, at: now, reason: refused.message });
      await store.loginThrottle.purgeQuiet(now - policy.windowMs);
      const until = Math.max(...after.map((s) => s.blockedUntil));
      return until > now ? throttled(a.grant, a.username, a.address, now, secondsUntil(until, now), 'blocked') : refused;
    },
    async succeeded(a, now, clearUser = true) {
      await settle(a, async (tx) => {
        for (const [i, k] of a.keys.entries()) {
          const cur = await tx.loginThrottle.get(k);
          await tx.loginThrottle.put(
            k,
            k.scope === 'user' && clearUser ? afterClear(cur, now, inFlight.count(k) - 1) : afterGiveBack(cur, a.before[i], a.after[i]!),
          );
        }
      });
    },
  };
}
