import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLoginGuard } from '../../../src/core/auth/login-throttle.js';
import type { LoginThrottlePolicy } from '../../../src/core/auth/login-throttle-policy.js';
import { AppError } from '../../../src/shared/errors.js';
import { openStore } from '../../../src/store/open-store.js';
import { storeSql, tempHome } from '../../helpers/temp-home.js';

// The login guard of two nodes: two guards, each over its own Store object opened on one store
// (the run's: one SQLite home, or one PostgreSQL database). The credential checks are played by
// the test, which settles each attempt itself, and a waiting attempt looks again for the other
// node's settlements only when the test says so (the injected recheck): every step is exact
// (docs/http-api.md#login-throttling-and-accounts; docs/decisions.md "Per-account limits across nodes (issue 29)").
const P: LoginThrottlePolicy = {
  maxFailuresPerUser: 2,
  maxFailuresPerAddress: 10,
  windowMs: 600_000,
  blockMs: 60_000,
  maxBlockMs: 240_000,
  maxWaiting: 1,
  attemptTimeoutMs: 60_000,
  waitRecheckMs: 250,
};
const A = '10.2.2.2';
const refused = () => new AppError('AUTH-001', 'invalid username and password combination');
const isThrottled = (e: unknown, retryAfter: number) =>
  e instanceof AppError && e.code === 'API-004' && (e.details as { retry_after: number }).retry_after === retryAfter;

/** The rechecks a node's waiting attempts ask for: counted, and answered when the test fires them. */
class Rechecks {
  calls = 0;
  private pending: (() => void)[] = [];
  private watchers: (() => void)[] = [];
  readonly fn = (_ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      this.calls++;
      this.pending.push(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
      for (const w of this.watchers.splice(0)) w();
    });
  /** Resolves once `n` rechecks were asked for in all: the n-th wait has begun. */
  async until(n: number): Promise<void> {
    while (this.calls < n) await new Promise<void>((r) => this.watchers.push(r));
  }
  fire(): void {
    for (const r of this.pending.splice(0)) r();
  }
}

async function twoNodes() {
  const home = await tempHome();
  const stores = [await openStore(home), await openStore(home)] as const;
  let now = 1_000_000;
  const clock = () => now;
  const rechecks = [new Rechecks(), new Rechecks()] as const;
  const guards = stores.map((s, i) => createLoginGuard(s, P, () => {}, { node: `node-${i}`, recheck: rechecks[i]!.fn }));
  return {
    stores,
    guards: guards as [ReturnType<typeof createLoginGuard>, ReturnType<typeof createLoginGuard>],
    rechecks,
    clock,
    advance: (ms: number) => (now += ms),
    user: (name: string) => stores[0].loginThrottle.get({ scope: 'user', username: name, address: A }),
    async cleanup() {
      for (const s of stores) await s.close();
      await home.cleanup();
    },
  };
}

test('an attempt on one node waits for the attempts in flight on the other; the waiting limit counts both nodes', async () => {
  const n = await twoNodes();
  const [gA, gB] = n.guards;
  try {
    const a1 = await gA.begin('password', 'alice', A, n.clock);
    const a2 = await gA.begin('password', 'alice', A, n.clock);
    let b3Done = false;
    const b3 = gB.begin('password', 'alice', A, n.clock).finally(() => (b3Done = true));
    await n.rechecks[1].until(1);
    assert.equal(b3Done, false, "node B's attempt would pass the limit of 2 while node A's two are checked: it waits");
    await assert.rejects(
      gA.begin('password', 'alice', A, n.clock),
      (e) => isThrottled(e, 1),
      'max_waiting 1 is taken by the attempt waiting on node B',
    );

    await gA.succeeded(a1, n.clock());
    n.rechecks[1].fire();
    const b = await b3;
    assert.equal((await n.user('alice'))?.failures, 2, 'the right password cleared the counter but for a2, and b3 is charged');
    assert.equal((await gA.failed(a2, n.clock(), refused())).code, 'AUTH-001', 'one settled failure while b3 is still checked: no block');
    assert.ok(isThrottled(await gB.failed(b, n.clock(), refused()), 60), 'the second settled failure blocks, whichever node settles it');
    await assert.rejects(gA.begin('password', 'alice', A, n.clock), (e) => isThrottled(e, 60), 'blocked on node A too');
    assert.deepEqual(await storeSql(n.stores[0], 'SELECT id FROM login_attempts'), [], 'no attempt is left under way');
  } finally {
    await n.cleanup();
  }
});

test('a node that dies while checking: past the attempt timeout its attempts hold nobody, and their charges stay failures', async () => {
  const n = await twoNodes();
  const [gA, gB] = n.guards;
  try {
    await gA.begin('password', 'bob', A, n.clock);
    await gA.begin('password', 'bob', A, n.clock);
    // Node A dies here: its two attempts are never settled.
    let done = false;
    const b = gB.begin('password', 'bob', A, n.clock).finally(() => (done = true));
    await n.rechecks[1].until(1);
    n.advance(P.attemptTimeoutMs - 1);
    n.rechecks[1].fire();
    await n.rechecks[1].until(2);
    assert.equal(done, false, 'still within the attempt timeout: it waits on');
    n.advance(1);
    n.rechecks[1].fire();
    const attempt = await b;
    assert.equal((await n.user('bob'))?.failures, 3);
    assert.ok(isThrottled(await gB.failed(attempt, n.clock(), refused()), 60), "the dead node's charges count as failures");
    assert.deepEqual(await storeSql(n.stores[1], 'SELECT id FROM login_attempts'), [], 'the dead attempts were purged');
  } finally {
    await n.cleanup();
  }
});
