/**
 * The store contract of job leases (docs/breakout.md#leases): a claim, its renewal, a takeover of
 * an expired or dead holder's job, and two claimers at once, on the SQLite store and on the
 * PostgreSQL store. Times are given, never read from a clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobClaim, NewJob } from '../../../src/store/jobs-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { onPostgresStore, raceTwoTransactions } from '../../helpers/store-races.js';

const job = (id: string, dictionaries: string[]): NewJob => ({
  id,
  dictionaries,
  mode: 'full',
  threads: 1,
  overwrite: false,
  origin: 'test',
});
const T0 = '2030-01-01T00:00:00.000Z';
const T1 = '2030-01-01T00:00:30.000Z';
const T2 = '2030-01-01T00:01:00.000Z';
const claim = (c: Partial<JobClaim> & { node: string }): JobClaim => ({ pid: 11, now: T0, leaseUntil: T1, ...c });

testOnBothStores('job leases: a claim holds a job until its lease runs out, then another node takes it over', async (store) => {
  await store.jobs.create(job('j1', ['alpha']));
  assert.equal(await store.jobs.claim(claim({ node: 'b' })), undefined, 'a sweep takes no pending, unclaimed job');
  const a = (await store.jobs.claim(claim({ id: 'j1', node: 'a', pid: 101 })))!;
  assert.equal(a.status, 'running');
  assert.deepEqual([a.leaseNode, a.leaseExpiresAt, a.pid, a.takeovers, a.startedAt, a.heartbeatAt], ['a', T1, 101, 0, T0, T0]);
  assert.deepEqual(await store.jobs.leaseOf('j1'), { node: 'a', status: 'running', cancelRequested: false });
  assert.equal(await store.jobs.leaseOf('nope'), undefined);

  // A live lease is not stolen: neither by id nor by a sweep, until the lease is over.
  assert.equal(await store.jobs.claim(claim({ id: 'j1', node: 'b', now: '2030-01-01T00:00:29.999Z', leaseUntil: T2 })), undefined);
  assert.equal(await store.jobs.claim(claim({ node: 'b', now: T1, leaseUntil: T2 })), undefined, 'the lease holds up to its expiry');
  // Renewed by its node, it holds longer; another node cannot renew it.
  assert.equal(await store.jobs.renewLease('j1', 'a', T2, T1), true);
  assert.equal(await store.jobs.renewLease('j1', 'b', T2, T1), false);
  assert.equal((await store.jobs.get('j1'))!.leaseExpiresAt, T2);
  assert.equal(await store.jobs.claim(claim({ node: 'b', now: '2030-01-01T00:00:59.000Z', leaseUntil: T2 })), undefined);

  // Expired: a sweep of node b takes it over, keeping its start and counting the takeover.
  const b = (await store.jobs.claim(
    claim({ node: 'b', pid: 202, now: '2030-01-01T00:01:00.001Z', leaseUntil: '2030-01-01T00:01:30.000Z' }),
  ))!;
  assert.deepEqual([b.id, b.leaseNode, b.pid, b.takeovers, b.startedAt], ['j1', 'b', 202, 1, T0]);
  assert.equal(await store.jobs.renewLease('j1', 'a', T2, T2), false, 'the old holder learns it lost the job');
  assert.deepEqual(await store.jobs.leaseOf('j1'), { node: 'b', status: 'running', cancelRequested: false });

  // Handed over: the process b spawned claims it at once, and that is no takeover.
  const c = (await store.jobs.claim(claim({ id: 'j1', node: 'c', now: T2, leaseUntil: T2, handoffFrom: 'b' })))!;
  assert.deepEqual([c.leaseNode, c.takeovers], ['c', 1]);
  // A holder known dead (its process gone) loses the job before its lease expires.
  assert.equal(await store.jobs.claim(claim({ id: 'j1', node: 'd', now: T0, deadNodes: ['x'] })), undefined);
  const d = (await store.jobs.claim(claim({ id: 'j1', node: 'd', now: T0, deadNodes: ['c'] })))!;
  assert.deepEqual([d.leaseNode, d.takeovers], ['d', 2]);

  await store.jobs.setDictionariesDone('j1', ['alpha']);
  assert.deepEqual((await store.jobs.get('j1'))!.dictionariesDone, ['alpha']);
  // A finished job is nobody's to claim.
  assert.equal(await store.jobs.finish('j1', 'completed'), true);
  assert.equal(await store.jobs.claim(claim({ id: 'j1', node: 'e', now: '2031-01-01T00:00:00.000Z' })), undefined);
  assert.equal(await store.jobs.renewLease('j1', 'd', T2, T2), false);
});

testOnBothStores(
  'job leases: a reserved pending job is claimed by its handoff, or by anyone once the reservation ran out',
  async (store) => {
    await store.jobs.create(job('j2', ['alpha']));
    assert.equal(await store.jobs.reserve('j2', 'starter', T1), true);
    assert.equal(await store.jobs.reserve('j2', 'other', T1), false, 'reserved once');
    assert.equal(await store.jobs.claim(claim({ id: 'j2', node: 'x' })), undefined, 'held for the process the starter spawns');
    const spawned = (await store.jobs.claim(
      claim({ id: 'j2', node: 'child', handoffFrom: 'starter', leaseUntil: '2030-01-01T00:05:00.000Z' }),
    ))!;
    assert.deepEqual([spawned.status, spawned.leaseNode, spawned.takeovers], ['running', 'child', 0]);

    await store.jobs.create(job('j3', ['beta']));
    assert.equal(await store.jobs.reserve('j3', 'starter', T1), true);
    const swept = (await store.jobs.claim(claim({ node: 'sweeper', now: T2, leaseUntil: '2030-01-01T00:02:00.000Z' })))!;
    assert.deepEqual([swept.id, swept.status, swept.leaseNode, swept.takeovers], ['j3', 'running', 'sweeper', 1]);
  },
);

testOnBothStores('job leases: of many claims of one expired job at once, exactly one wins', async (store) => {
  await store.jobs.create(job('j4', ['alpha']));
  await store.jobs.claim(claim({ id: 'j4', node: 'dead' }));
  const claims = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      store.jobs.claim(claim({ id: i % 2 ? 'j4' : undefined, node: `n${i}`, now: T2, leaseUntil: '2030-01-01T00:02:00.000Z' })),
    ),
  );
  const won = claims.filter((c) => c !== undefined);
  assert.equal(won.length, 1);
  assert.equal((await store.jobs.get('j4'))!.leaseNode, won[0]!.leaseNode);
  assert.equal((await store.jobs.get('j4'))!.takeovers, 1);
});

test('job leases [postgresql]: a claimer skips the job another claims at that moment (SKIP LOCKED)', () =>
  onPostgresStore(async (store) => {
    for (const id of ['k1', 'k2']) {
      await store.jobs.create(job(id, [id]));
      await store.jobs.claim(claim({ id, node: 'dead' }));
    }
    const sweep = (node: string) => claim({ node, now: T2, leaseUntil: '2030-01-01T00:02:00.000Z' });
    // The first claim's transaction stays open with its row locked; the second does not wait for
    // it: it skips that row and takes the other job.
    const race = await raceTwoTransactions(
      store,
      (tx) => tx.jobs.claim(sweep('first')),
      (tx) => tx.jobs.claim(sweep('second')),
    );
    assert.equal(race.secondWaited, false, 'the second claim did not wait for the locked row');
    assert.equal(race.first.status === 'fulfilled' && race.first.value?.id, 'k1');
    assert.equal(race.second.status === 'fulfilled' && race.second.value?.id, 'k2');
    assert.deepEqual([(await store.jobs.get('k1'))!.leaseNode, (await store.jobs.get('k2'))!.leaseNode], ['first', 'second']);
    // One job left to take and it is locked: the second claimer gets none, at once.
    await store.jobs.create(job('k3', ['k3']));
    await store.jobs.claim(claim({ id: 'k3', node: 'dead' }));
    const one = await raceTwoTransactions(
      store,
      (tx) => tx.jobs.claim(sweep('third')),
      (tx) => tx.jobs.claim(sweep('fourth')),
    );
    assert.equal(one.secondWaited, false);
    assert.equal(one.first.status === 'fulfilled' && one.first.value?.id, 'k3');
    assert.deepEqual(one.second, { status: 'fulfilled', value: undefined });
  }));
