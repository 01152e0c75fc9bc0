import type { ThrottleState } from '../../store/login-throttle-repo.js';
import type { LoginThrottlePolicy } from './login-throttle-policy.js';

// The pure steps of the login throttle: how one counter changes when an attempt is charged,
// settles as a failure, gives its charge back or clears it (docs/http-api.md#login-throttling-and-accounts).

/** Length of the block earned by the `strikes`-th block of a counter: doubling, capped. */
export function blockLength(strikes: number, policy: LoginThrottlePolicy): number {
  return Math.min(policy.blockMs * 2 ** Math.max(0, strikes - 1), policy.maxBlockMs);
}

/** A counter with no failure and no block for a whole window limits nobody and starts afresh. */
function isQuiet(s: ThrottleState, now: number, policy: LoginThrottlePolicy): boolean {
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
function withBlock(s: ThrottleState, settled: number, now: number, maxFailures: number, policy: LoginThrottlePolicy): ThrottleState {
  if (settled < maxFailures || s.blockedUntil > now) return s;
  const strikes = s.strikes + 1;
  return { ...s, strikes, blockedUntil: now + blockLength(strikes, policy) };
}

/**
 * The state of a counter after one more failure at `now` (pure), with no attempt in flight:
 * charged, and blocked when it reaches `maxFailures`. A quiet window forgets everything.
 */
export function afterFailure(
  prev: ThrottleState | undefined,
  now: number,
  maxFailures: number,
  policy: LoginThrottlePolicy,
): ThrottleState {
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
export function afterGiveBack(
  cur: ThrottleState | undefined,
  before: ThrottleState | undefined,
  after: ThrottleState,
): ThrottleState | null {
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

/** Whether a counter is still as an attempt left it (times of last failure aside). */
function same(a: ThrottleState | undefined, b: ThrottleState | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.failures === b.failures &&
    a.windowStart === b.windowStart &&
    a.blockedUntil === b.blockedUntil &&
    a.strikes === b.strikes
  );
}
