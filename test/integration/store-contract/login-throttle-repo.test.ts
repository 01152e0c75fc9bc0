/**
 * The login throttle repository through the store contract (docs/architecture.md#the-store-contract):
 * every method on the SQLite store and on the PostgreSQL store, with the same answers; and, on
 * PostgreSQL, failed logins counted by two transactions at once lose no failure
 * (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreScope } from '../../../src/store/open-store.js';
import type { ThrottleKey, ThrottleState } from '../../../src/store/login-throttle-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { onPostgresStore, raceTwoTransactions } from '../../helpers/store-races.js';

const T0 = 1_700_000_000_000;
const userKey = (username: string, address = '10.0.0.1'): ThrottleKey => ({ scope: 'user', username, address });
const addressKey = (address = '10.0.0.1'): ThrottleKey => ({ scope: 'address', username: '', address });
const state = (failures: number, at = T0, more: Partial<ThrottleState> = {}): ThrottleState => ({
  failures,
  windowStart: at,
  blockedUntil: 0,
  strikes: 0,
  lastFailureAt: at,
  ...more,
});

testOnBothStores('login throttle: get, put, clear', async (store) => {
  const k = userKey('amy');
  assert.equal(await store.loginThrottle.get(k), undefined);
  await store.loginThrottle.put(k, state(1));
  assert.deepEqual(await store.loginThrottle.get(k), state(1));
  const blocked = state(5, T0 + 10, { blockedUntil: T0 + 60_000, strikes: 2 });
  await store.loginThrottle.put(k, blocked);
  assert.deepEqual(await store.loginThrottle.get(k), blocked, 'put replaces the whole state');

  // The three parts of a key each tell counters apart.
  assert.equal(await store.loginThrottle.get(userKey('Amy')), undefined);
  assert.equal(await store.loginThrottle.get(userKey('amy', '10.0.0.2')), undefined);
  assert.equal(await store.loginThrottle.get({ ...k, scope: 'address' }), undefined);
  await store.loginThrottle.put(addressKey(), state(7));
  assert.deepEqual(await store.loginThrottle.get(addressKey()), state(7));
  assert.deepEqual(await store.loginThrottle.get(k), blocked);

  await store.loginThrottle.put(k, null);
  assert.equal(await store.loginThrottle.get(k), undefined);
  await store.loginThrottle.put(k, null);
  await store.loginThrottle.clear(addressKey());
  assert.equal(await store.loginThrottle.get(addressKey()), undefined);
  await store.loginThrottle.clear(addressKey());
});

testOnBothStores('login throttle: clearUser, failuresByUser and purgeQuiet', async (store) => {
  await store.loginThrottle.put(userKey('zed', 'a1'), state(2, T0 + 100));
  await store.loginThrottle.put(userKey('zed', 'a2'), state(3, T0 + 200));
  await store.loginThrottle.put(userKey('amy', 'a1'), state(4, T0 + 100));
  await store.loginThrottle.put(userKey('Bo', 'a1'), state(1, T0));
  await store.loginThrottle.put(addressKey('a1'), state(9, T0 + 300));

  const failures = async (since: number) => [...(await store.loginThrottle.failuresByUser(since))];
  assert.deepEqual(await failures(T0 - 1), [
    ['Bo', 1],
    ['amy', 4],
    ['zed', 5],
  ]);
  assert.deepEqual(
    await failures(T0),
    [
      ['amy', 4],
      ['zed', 5],
    ],
    'windows that started after `since` only',
  );
  assert.deepEqual(await failures(T0 + 100), [['zed', 3]]);
  assert.deepEqual(await failures(T0 + 200), []);

  assert.equal(await store.loginThrottle.clearUser('zed'), 2);
  assert.equal(await store.loginThrottle.clearUser('zed'), 0);
  assert.equal(await store.loginThrottle.clearUser(''), 0, 'address counters are not a user');
  assert.equal(await store.loginThrottle.get(userKey('zed', 'a1')), undefined);
  assert.deepEqual(await store.loginThrottle.get(userKey('amy', 'a1')), state(4, T0 + 100));
  assert.deepEqual(await store.loginThrottle.get(addressKey('a1')), state(9, T0 + 300));

  // Quiet: no failure and no block at or after `before`.
  await store.loginThrottle.put(userKey('cy', 'a1'), state(1, T0, { blockedUntil: T0 + 1000 }));
  assert.equal(await store.loginThrottle.purgeQuiet(T0), 0, 'the last failure at `before` is not quiet');
  assert.equal(await store.loginThrottle.purgeQuiet(T0 + 100), 1, 'Bo only: amy failed at T0+100 and cy is blocked');
  assert.equal(await store.loginThrottle.get(userKey('Bo', 'a1')), undefined);
  assert.ok(await store.loginThrottle.get(userKey('cy', 'a1')));
  assert.equal(await store.loginThrottle.purgeQuiet(T0 + 1001), 3);
  assert.deepEqual(await failures(0), []);
});

testOnBothStores('login throttle: a counter read and written in a transaction, a read in a read transaction', async (store) => {
  const k = userKey('dee');
  const fail = async (tx: StoreScope) => {
    const s = await tx.loginThrottle.get(k);
    await tx.loginThrottle.put(k, state((s?.failures ?? 0) + 1));
  };
  await store.transaction(fail);
  await store.transaction(fail);
  assert.equal((await store.readTransaction((tx) => tx.loginThrottle.get(k)))!.failures, 2);
  await assert.rejects(
    store.transaction(async (tx) => {
      await fail(tx);
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  assert.equal((await store.loginThrottle.get(k))!.failures, 2);
});

/** Counts one failure of `k` as the throttle does: read, compute, write, in the transaction `tx`. */
async function countFailure(tx: StoreScope, k: ThrottleKey, at: number): Promise<number> {
  const s = await tx.loginThrottle.get(k);
  const failures = (s?.failures ?? 0) + 1;
  await tx.loginThrottle.put(k, state(failures, s?.windowStart ?? at, { lastFailureAt: at }));
  return failures;
}

test('login throttle [postgresql]: two failures of one counter counted at once are both kept', () =>
  onPostgresStore(async (store) => {
    // A counter with no row yet (its first failures: no row to lock) and one with a row.
    for (const [k, before] of [
      [userKey('eve'), 0],
      [addressKey('10.9.9.9'), 3],
    ] as const) {
      if (before > 0) await store.loginThrottle.put(k, state(before));
      const out = await raceTwoTransactions(
        store,
        (tx) => countFailure(tx, k, T0 + 1),
        (tx) => countFailure(tx, k, T0 + 2),
      );
      assert.equal(out.secondWaited, true, 'the second read waited for the first write');
      assert.deepEqual(
        [out.first, out.second],
        [
          { status: 'fulfilled', value: before + 1 },
          { status: 'fulfilled', value: before + 2 },
        ],
      );
      assert.deepEqual(await store.loginThrottle.get(k), state(before + 2, before > 0 ? T0 : T0 + 1, { lastFailureAt: T0 + 2 }));
    }
  }));

test('login throttle [postgresql]: counters of other keys are not held up', () =>
  onPostgresStore(async (store) => {
    const out = await raceTwoTransactions(
      store,
      (tx) => countFailure(tx, userKey('fay'), T0),
      (tx) => countFailure(tx, userKey('fay', '10.0.0.2'), T0),
    );
    assert.equal(out.secondWaited, false);
    assert.deepEqual([out.first.status, out.second.status], ['fulfilled', 'fulfilled']);
  }));

test('login throttle [postgresql]: clearing an account waits for a counter read to be written, then clears it', () =>
  onPostgresStore(async (store) => {
    const k = userKey('gus');
    await store.loginThrottle.put(k, state(4));
    // The first has read the counter (to write it) and not written it yet: a clear now must wait,
    // or the write that follows would bring back the counter it cleared.
    const out = await raceTwoTransactions(
      store,
      (tx) => tx.loginThrottle.get(k),
      (tx) => tx.loginThrottle.clearUser('gus'),
    );
    assert.equal(out.secondWaited, true);
    assert.deepEqual(out.second, { status: 'fulfilled', value: 1 });
    assert.equal(await store.loginThrottle.get(k), undefined);
  }));

test('login throttle [postgresql]: a read transaction looks without waiting for a writer', () =>
  onPostgresStore(async (store) => {
    const k = userKey('hal');
    await store.loginThrottle.put(k, state(1));
    const out = await raceTwoTransactions(
      store,
      (tx) => countFailure(tx, k, T0 + 1),
      (tx) => tx.loginThrottle.get(k),
      { readOnlySecond: true },
    );
    assert.equal(out.secondWaited, false);
    assert.deepEqual(out.second, { status: 'fulfilled', value: state(1) }, 'the state committed before');
    assert.equal((await store.loginThrottle.get(k))!.failures, 2);
  }));

testOnBothStores(
  'a login name with U+0000 is looked up and counted, never an error (PostgreSQL keeps U+FFFD in its place)',
  async (store) => {
    const evil = userKey('eve\u0000"ops"');
    assert.equal(await store.users.find('eve\u0000"ops"'), undefined, 'no account has the name');
    assert.equal(await store.loginThrottle.get(evil), undefined);
    await store.loginThrottle.put(evil, state(1));
    assert.deepEqual(await store.loginThrottle.get(evil), state(1), 'the same name finds its counter again');
    assert.equal(await store.loginThrottle.get(userKey('eve"ops"')), undefined, 'the name without the NUL is another name');
  },
);
