import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { createLoginGuard, type LoginAttempt, type LoginEvent } from '../../../src/core/auth/login-throttle.js';
import type { LoginThrottlePolicy } from '../../../src/core/auth/login-throttle-policy.js';
import { AppError } from '../../../src/shared/errors.js';
import { tempStore } from '../../helpers/temp-home.js';

// The guard over a real store; the credential checks are played by the test, which settles each
// attempt itself (failed/succeeded), so every interleaving below is exact. Exact to one turn of the
// event loop: that needs a store that answers within one (SQLite, in process), so these open a
// SQLite store whatever the run's store. The same guard on PostgreSQL, with its row locks, is
// tested by the login throttle contract suite and test/e2e/http/login-throttle-concurrent.test.ts.
const P: LoginThrottlePolicy = {
  maxFailuresPerUser: 3,
  maxFailuresPerAddress: 5,
  windowMs: 600_000,
  blockMs: 60_000,
  maxBlockMs: 240_000,
  maxWaiting: 2,
  attemptTimeoutMs: 60_000,
  waitRecheckMs: 250,
};
const A = '10.1.1.1';
const refused = () => new AppError('AUTH-001', 'invalid username and password combination');

async function setup(policy = P) {
  const t = await tempStore('sqlite');
  const events: LoginEvent[] = [];
  let now = 1_000_000;
  const guard = createLoginGuard(t.store, policy, (e) => events.push(e));
  const clock = () => now;
  const user = (name: string) => t.store.loginThrottle.get({ scope: 'user', username: name, address: A });
  const address = () => t.store.loginThrottle.get({ scope: 'address', username: '', address: A });
  /** Starts an attempt and reports, without waiting for it, whether it was let through yet. */
  function start(name: string) {
    const p = guard.begin('password', name, A, clock);
    const s = { p, done: false as boolean, attempt: undefined as LoginAttempt | undefined, error: undefined as unknown };
    p.then(
      (a) => Object.assign(s, { done: true, attempt: a }),
      (e) => Object.assign(s, { done: true, error: e }),
    );
    return s;
  }
  return { ...t, guard, events, clock, advance: (ms: number) => (now += ms), user, address, start };
}

function isThrottled(e: unknown, retryAfter: number): boolean {
  return e instanceof AppError && e.code === 'API-004' && (e.details as { retry_after: number }).retry_after === retryAfter;
}

test('an attempt that would pass the limit waits for those in flight; right passwords give their charges back and let it in', async () => {
  const g = await setup();
  try {
    const first = [g.start('alice'), g.start('alice'), g.start('alice')];
    await tick();
    assert.ok(
      first.every((s) => s.done && s.attempt),
      'three charges fit the limit of 3',
    );
    assert.equal((await g.user('alice'))?.failures, 3);
    assert.equal((await g.user('alice'))?.blockedUntil, 0, 'a charge in flight never blocks');
    const fourth = g.start('alice');
    const fifth = g.start('alice');
    const sixth = g.start('alice');
    await tick();
    assert.equal(fourth.done || fifth.done, false, 'they wait');
    assert.ok(isThrottled(sixth.error, 1), 'past maxWaiting (2): 429 with Retry-After 1, not a block');
    assert.equal(g.events.at(-1)?.reason, '2 logins from this address waiting already');

    await g.guard.succeeded(first[0]!.attempt!, g.clock());
    await tick();
    assert.ok(fourth.attempt, 'the success cleared the counter but for the two still in flight, and the fourth got in');
    assert.equal(fifth.done, false);
    assert.equal((await g.user('alice'))?.failures, 3);
    for (const s of [first[1]!, first[2]!, fourth]) {
      await g.guard.succeeded(s.attempt!, g.clock());
      await tick();
    }
    assert.ok(fifth.attempt);
    await g.guard.succeeded(fifth.attempt!, g.clock());
    assert.equal(await g.user('alice'), undefined, 'every charge given back');
    assert.equal((await g.address())?.failures ?? 0, 0);
    assert.ok(!g.events.some((e) => e.kind === 'failed'));
  } finally {
    await g.cleanup();
  }
});

test('concurrent wrong passwords: no more than the limit are let through to be checked, the last settled one blocks', async () => {
  const g = await setup();
  try {
    const all = Array.from({ length: 5 }, () => g.start('bob'));
    await tick();
    const through = all.filter((s) => s.attempt);
    assert.equal(through.length, 3);
    const answers: AppError[] = [];
    for (const s of through) answers.push(await g.guard.failed(s.attempt!, g.clock(), refused()));
    await tick();
    assert.deepEqual(
      answers.map((e) => e.code),
      ['AUTH-001', 'AUTH-001', 'API-004'],
      'only the third settled failure reaches the limit',
    );
    assert.ok(isThrottled(answers[2], 60));
    assert.ok(
      all.filter((s) => !s.attempt).every((s) => isThrottled(s.error, 60)),
      'the waiting ones meet the block',
    );
    assert.deepEqual(await g.user('bob'), {
      failures: 3,
      windowStart: 1_000_000,
      blockedUntil: 1_060_000,
      strikes: 1,
      lastFailureAt: 1_000_000,
    });
    assert.equal((await g.address())?.failures, 3);
    assert.equal(g.events.filter((e) => e.kind === 'failed').length, 3);

    // The block ends; the window still holds 3 failures: one attempt at a time is checked.
    g.advance(60_000);
    const probe = g.start('bob');
    const next = g.start('bob');
    await tick();
    assert.ok(probe.attempt);
    assert.equal(next.done, false, 'waits while the probe is checked');
    assert.ok(isThrottled(await g.guard.failed(probe.attempt!, g.clock(), refused()), 120), 'a wrong probe blocks twice as long');
    await tick();
    assert.ok(isThrottled(next.error, 120));
  } finally {
    await g.cleanup();
  }
});

test('a right password between wrong ones: the wrong ones in flight keep their charges, and only settled failures count', async () => {
  const g = await setup();
  try {
    const [w1, r, w2] = [g.start('carol'), g.start('carol'), g.start('carol')];
    const w3 = g.start('carol');
    await tick();
    assert.equal(w3.done, false);
    await g.guard.succeeded(r.attempt!, g.clock());
    await tick();
    assert.ok(w3.attempt, 'the success made room');
    assert.equal((await g.user('carol'))?.failures, 3, 'the two wrong ones in flight and the new one');
    for (const s of [w1, w2, w3])
      assert.equal((await g.guard.failed(s.attempt!, g.clock(), refused())).code, s === w3 ? 'API-004' : 'AUTH-001');
    assert.equal((await g.user('carol'))?.strikes, 1);
    // The address counter got the right password's charge back; 3 failures stay on it.
    assert.equal((await g.address())?.failures, 3);
    assert.equal((await g.address())?.blockedUntil, 0);
  } finally {
    await g.cleanup();
  }
});

test('the address counter spans users: attempts of many accounts wait on it, not for a block', async () => {
  const g = await setup();
  try {
    const names = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'];
    const all = names.map((n) => g.start(n));
    await tick();
    assert.equal(all.filter((s) => s.attempt).length, 5, 'the address limit of 5');
    assert.equal(all.filter((s) => !s.done).length, 2, 'two wait (maxWaiting 2)');
    for (const n of ['u8', 'u9']) await assert.rejects(g.start(n).p, (e) => isThrottled(e, 1), 'past maxWaiting on the address counter');
    let settledCount = 0;
    while (settledCount < names.length) {
      const s = all.find((x) => x.attempt && !x.attempt.settled)!;
      await g.guard.succeeded(s.attempt!, g.clock());
      settledCount++;
      await tick();
    }
    assert.ok(all.every((s) => s.attempt?.settled));
    assert.equal(await g.address(), undefined, 'every charge given back exactly');
  } finally {
    await g.cleanup();
  }
});

test('another process: a counter it blocked refuses the attempt; a failure settled after the counter was removed still counts', async () => {
  const g = await setup();
  try {
    const a = await g.guard.begin('password', 'dave', A, g.clock);
    await g.store.loginThrottle.clear({ scope: 'user', username: 'dave', address: A });
    assert.equal((await g.guard.failed(a, g.clock(), refused())).code, 'AUTH-001');
    assert.equal((await g.user('dave'))?.failures, 1);
    await g.store.loginThrottle.put(
      { scope: 'address', username: '', address: A },
      { failures: 5, windowStart: 1_000_000, blockedUntil: 1_030_000, strikes: 1, lastFailureAt: 1_000_000 },
    );
    await assert.rejects(g.guard.begin('password', 'erin', A, g.clock), (e) => isThrottled(e, 30));
    assert.equal(await g.user('erin'), undefined, 'a refused attempt is not charged');
    await assert.rejects(g.guard.succeeded(a, g.clock()), /settles once/);
  } finally {
    await g.cleanup();
  }
});
