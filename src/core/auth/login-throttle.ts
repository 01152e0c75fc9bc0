import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { AppError } from '../../shared/errors.js';
import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { AttemptCounts, LoginAttemptRow, ThrottleKey, ThrottleState } from '../../store/login-throttle-repo.js';
import type { LoginThrottlePolicy } from './login-throttle-policy.js';
import { admission, afterClear, afterGiveBack, afterSettledFailure } from './login-throttle-steps.js';
import { SettleSignals } from './login-throttle-waits.js';
import { currentNode } from '../../shared/node-id.js';

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
  /** Its row among the attempts under way (store/login-throttle-repo). */
  id: string;
  grant: LoginEvent['grant'];
  username: string | null;
  address: string;
  keys: ThrottleKey[];
  before: (ThrottleState | undefined)[];
  after: ThrottleState[];
  /** Set once failed() or succeeded() ran: an attempt settles once. */
  settled: boolean;
}

/** No attempt of another under way (nothing was counted). */
const NOTHING_UNDER_WAY: AttemptCounts = { onAddress: 0, onUser: 0, waiting: 0 };

/** Resolves after `ms`, or at once when `signal` aborts; holds no process open. */
async function defaultRecheck(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal, ref: false }).catch(() => undefined);
}

/** What a login guard takes besides its store and policy (tests inject both). */
export interface LoginGuardOptions {
  /** The node whose attempts these are (default: this process, shared/node-id.ts). */
  node?: string;
  /**
   * Resolves when a waiting attempt should look again for attempts settled on other nodes:
   * after `ms` (policy.waitRecheckMs), or at once when `signal` aborts (it was woken).
   */
  recheck?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface LoginGuard {
  /**
   * Fails with API-004 (429, `retry_after`) when the address, or this user from this address, is
   * blocked; else charges the attempt as a failure before the credential is checked, so that
   * concurrent guesses cannot all slip past the limit while their passwords are being verified.
   * An attempt whose charge would pass a limit while attempts of any node on that counter are
   * still in flight waits for them to settle (they may give their charges back) and looks again:
   * at once when one of this process settles, else after `policy.waitRecheckMs`; past
   * `maxWaiting` attempts from its address waiting already (on every node), it fails with API-004
   * and a 1 s `retry_after` (no block).
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
export function createLoginGuard(
  store: Store,
  policy: LoginThrottlePolicy,
  onEvent: (e: LoginEvent) => void = () => {},
  options: LoginGuardOptions = {},
): LoginGuard {
  const signals = new SettleSignals();
  const node = options.node ?? currentNode().id;
  const recheck = options.recheck ?? defaultRecheck;
  const limit = (k: ThrottleKey) => (k.scope === 'user' ? policy.maxFailuresPerUser : policy.maxFailuresPerAddress);
  const keys = (username: string | null, address: string): ThrottleKey[] => {
    const k: ThrottleKey[] = [{ scope: 'address', username: '', address }];
    if (username !== null) k.push({ scope: 'user', username: userKeyName(username), address });
    return k;
  };
  const shown = (username: string | null) => (username === null ? null : username.slice(0, MAX_NAME));
  const userOf = (ks: ThrottleKey[]) => ks[1]?.username ?? '';

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

  // The counters and the attempts under way (rows of every node, store/login-throttle-repo) are
  // read and changed together inside one store transaction, after the counters' locks (PostgreSQL)
  // or under the write lock (SQLite): an attempt is written in flight with its charge, and deleted
  // with its settlement, in the transaction that writes them (docs/decisions.md, "Login throttle
  // across nodes (issue 29)").

  /**
   * The attempts under way on the counters `ks` but for attempt `self`, read only when a counter
   * may hold charges of others (`states`): the common login, on counters that do not exist or
   * hold its own charge alone, costs no count.
   */
  async function othersOn(
    tx: StoreScope,
    ks: ThrottleKey[],
    states: (ThrottleState | undefined)[],
    self: string,
    now: number,
    own: number,
  ) {
    if (!states.some((s) => s !== undefined && s.failures > own)) return NOTHING_UNDER_WAY;
    return tx.loginThrottle.attempts(ks[0]!.address, userOf(ks), now - policy.attemptTimeoutMs, self);
  }
  const onKey = (c: AttemptCounts, k: ThrottleKey) => (k.scope === 'user' ? c.onUser : c.onAddress);

  /**
   * Runs `step` in one store transaction that settles the attempt and deletes its row; wakes the
   * attempts of this process waiting on its counters, whatever happened. A failed step leaves the
   * charges as they were and the row deleted by itself (else others would wait for it until the
   * attempt timeout).
   */
  async function settle<T>(a: LoginAttempt, step: (tx: StoreScope) => Promise<T>): Promise<T> {
    if (a.settled)
      throw new AppError(
        'INTERNAL',
        `the login attempt of ${a.username ?? 'a refresh token'} from ${a.address} was settled twice (an attempt settles once)`,
      );
    a.settled = true;
    try {
      return await store.transaction(async (tx) => {
        const result = await step(tx);
        await tx.loginThrottle.dropAttempt(a.id);
        return result;
      });
    } catch (err) {
      await store.loginThrottle.dropAttempt(a.id).catch(() => undefined);
      throw err;
    } finally {
      signals.settled(a.keys);
    }
  }

  return {
    async begin(grant, username, address, clock) {
      const ks = keys(username, address);
      const id = randomUUID();
      const row = (waiting: boolean, now: number): LoginAttemptRow => ({ id, node, address, username: userOf(ks), waiting, seenAt: now });
      /** When this attempt's waiting row was last written; undefined while it has none. */
      let markedAt: number | undefined;
      let through = false;
      try {
        for (;;) {
          const now = clock();
          // Listening first: an attempt of this process settling after the look below wakes this one.
          let wake = () => {};
          const woken = new Promise<void>((resolve) => (wake = resolve));
          const stop = signals.listen(ks, wake);
          const look = async (tx: StoreScope) => {
            const before: (ThrottleState | undefined)[] = [];
            for (const k of ks) before.push(await tx.loginThrottle.get(k));
            const others = await othersOn(tx, ks, before, id, now, 0);
            const each = ks.map((k, i) => admission(before[i], now, limit(k), onKey(others, k), policy));
            const until = Math.max(0, ...each.map((v) => (v.kind === 'blocked' ? v.until : 0)));
            if (until > now) return { kind: 'blocked' as const, until };
            if (each.some((v) => v.kind === 'wait')) {
              return markedAt === undefined && others.waiting >= policy.maxWaiting ? { kind: 'full' as const } : { kind: 'wait' as const };
            }
            return { kind: 'free' as const, before, after: each.map((v) => (v as { next: ThrottleState }).next) };
          };
          let verdict;
          try {
            // A read first, so that the attempts woken to look again take no write lock just to
            // wait again; then looked at again and charged (or marked waiting) in one write
            // transaction, as another attempt may have written in between.
            verdict = await store.readTransaction(look);
            const mark = verdict.kind === 'wait' && (markedAt === undefined || now - markedAt >= policy.attemptTimeoutMs / 2);
            if (verdict.kind === 'free' || mark) {
              verdict = await store.transaction(async (tx) => {
                const v = await look(tx);
                if (v.kind === 'free') {
                  for (const [i, k] of ks.entries()) await tx.loginThrottle.put(k, v.after[i]!);
                  await tx.loginThrottle.putAttempt(row(false, now));
                } else if (v.kind === 'wait') await tx.loginThrottle.putAttempt(row(true, now));
                return v;
              });
              if (verdict.kind === 'wait') markedAt = now;
            }
          } catch (err) {
            stop();
            throw err;
          }
          if (verdict.kind === 'free') {
            stop();
            through = true;
            return { id, grant, username, address, keys: ks, before: verdict.before, after: verdict.after, settled: false };
          }
          if (verdict.kind === 'blocked') {
            stop();
            throw throttled(grant, username, address, now, secondsUntil(verdict.until, now), 'blocked');
          }
          if (verdict.kind === 'full') {
            stop();
            throw throttled(grant, username, address, now, WAITING_FULL_RETRY_SECONDS, 'waiting full');
          }
          const timer = new AbortController();
          await Promise.race([woken, recheck(policy.waitRecheckMs, timer.signal)]);
          timer.abort();
          stop();
        }
      } finally {
        // A waiting attempt that leaves refused (or failing) is no longer waiting.
        if (markedAt !== undefined && !through) await store.loginThrottle.dropAttempt(id).catch(() => undefined);
      }
    },
    async failed(a, now, refused) {
      const after = await settle(a, async (tx) => {
        const curs: (ThrottleState | undefined)[] = [];
        for (const k of a.keys) curs.push(await tx.loginThrottle.get(k));
        const others = await othersOn(tx, a.keys, curs, a.id, now, 1);
        const states: ThrottleState[] = [];
        for (const [i, k] of a.keys.entries()) {
          const s = afterSettledFailure(curs[i], now, limit(k), onKey(others, k), policy);
          await tx.loginThrottle.put(k, s);
          states.push(s);
        }
        return states;
      });
      onEvent({ kind: 'failed', grant: a.grant, username: shown(a.username), address: a.address, at: now, reason: refused.message });
      await store.loginThrottle.purgeQuiet(now - policy.windowMs);
      await store.loginThrottle.purgeStaleAttempts(now - policy.attemptTimeoutMs);
      const until = Math.max(...after.map((s) => s.blockedUntil));
      return until > now ? throttled(a.grant, a.username, a.address, now, secondsUntil(until, now), 'blocked') : refused;
    },
    async succeeded(a, now, clearUser = true) {
      await settle(a, async (tx) => {
        const curs: (ThrottleState | undefined)[] = [];
        for (const k of a.keys) curs.push(await tx.loginThrottle.get(k));
        const clearing = a.keys.map((k) => k.scope === 'user' && clearUser);
        const others = clearing.some(Boolean) ? await othersOn(tx, a.keys, curs, a.id, now, 1) : NOTHING_UNDER_WAY;
        for (const [i, k] of a.keys.entries()) {
          await tx.loginThrottle.put(
            k,
            clearing[i] ? afterClear(curs[i], now, onKey(others, k)) : afterGiveBack(curs[i], a.before[i], a.after[i]!),
          );
        }
      });
    },
  };
}
