/**
 * The store contract of `store.jobs` (docs/architecture.md#the-store-contract): every method on
 * the SQLite store and on the PostgreSQL store, with the same answers, and the claims that must
 * hold with several writers (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NewJob } from '../../../src/store/jobs-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { onPostgresStore, raceTwoTransactions } from '../../helpers/store-races.js';

const job = (id: string, dictionaries: string[], extra: Partial<NewJob> = {}): NewJob => ({
  id,
  dictionaries,
  mode: 'full',
  threads: 2,
  overwrite: false,
  origin: 'test',
  ...extra,
});

testOnBothStores('jobs: create, get, list and the life of a job', async (store) => {
  assert.equal(await store.jobs.get('nope'), undefined);
  const created = await store.jobs.create(job('job-1', ['alpha'], { mode: 'incremental', threads: 4, overwrite: true, origin: 'cli' }));
  assert.deepEqual(
    { ...created, createdAt: 'x' },
    {
      id: 'job-1',
      dictionaries: ['alpha'],
      mode: 'incremental',
      threads: 4,
      overwrite: true,
      origin: 'cli',
      status: 'pending',
      pid: null,
      progress: null,
      result: null,
      error: null,
      warnings: 0,
      cancelRequested: false,
      createdAt: 'x',
      startedAt: null,
      finishedAt: null,
      heartbeatAt: null,
      leaseNode: null,
      leaseExpiresAt: null,
      takeovers: 0,
      dictionariesDone: [],
    },
  );
  assert.match(created.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual(await store.jobs.get('job-1'), created);
  await assert.rejects(store.jobs.create(job('job-1', ['beta'])));

  await store.jobs.setPid('job-1', 4242);
  assert.equal((await store.jobs.get('job-1'))!.pid, 4242);
  assert.equal(await store.jobs.markRunning('job-1', 5151), true);
  const running = (await store.jobs.get('job-1'))!;
  assert.equal(running.status, 'running');
  assert.equal(running.pid, 5151);
  assert.ok(running.startedAt !== null && running.startedAt === running.heartbeatAt, 'started and beating at the claim');
  assert.equal(await store.jobs.markRunning('job-1', 6161), false, 'only a pending job is claimed');
  assert.equal(await store.jobs.markRunning('nope', 1), false);

  await store.jobs.saveProgress('job-1', { dictionary: 'alpha', processed: 5, total: 10 }, 3);
  const progressed = (await store.jobs.get('job-1'))!;
  assert.deepEqual(progressed.progress, { dictionary: 'alpha', processed: 5, total: 10 });
  assert.equal(progressed.warnings, 3);
  assert.ok(progressed.heartbeatAt! >= running.heartbeatAt!, 'the heartbeat moves on with the progress');

  assert.equal(await store.jobs.isCancelRequested('job-1'), false);
  await store.jobs.requestCancel('job-1');
  assert.equal(await store.jobs.isCancelRequested('job-1'), true);
  assert.equal(await store.jobs.isCancelRequested('nope'), false);

  // warnings omitted: the count saved with the progress stays.
  assert.equal(await store.jobs.finish('job-1', 'failed', { error: { code: 'E', message: 'broke', details: 'd' } }), true);
  const failed = (await store.jobs.get('job-1'))!;
  assert.equal(failed.status, 'failed');
  assert.deepEqual(failed.error, { code: 'E', message: 'broke', details: 'd' });
  assert.equal(failed.result, null);
  assert.equal(failed.warnings, 3);
  assert.ok(failed.finishedAt !== null, 'an end has its time');
  assert.equal(await store.jobs.finish('job-1', 'completed'), false, 'a final job stays as it is');
  assert.deepEqual(await store.jobs.get('job-1'), failed);
  assert.equal(await store.jobs.finish('nope', 'completed'), false);

  // A pending job can be finished too (a cancel before it started), with its result and warnings.
  await store.jobs.create(job('job-2', ['beta']));
  const result = { dictionaries_processed: ['beta'], total_cases: 7, tables_created: ['beta_rec'], warnings: 1 };
  assert.equal(await store.jobs.finish('job-2', 'completed', { result, warnings: 1 }), true);
  const completed = (await store.jobs.get('job-2'))!;
  assert.deepEqual([completed.status, completed.result, completed.warnings, completed.startedAt], ['completed', result, 1, null]);
});

testOnBothStores('jobs: list pages newest first, by status, with the total', async (store) => {
  const ids = ['j-c', 'j-a', 'j-b', 'j-d'];
  for (const id of ids) {
    await store.jobs.create(job(id, [id]));
    await sleep(3);
  }
  await store.jobs.markRunning('j-a', 1);
  await store.jobs.finish('j-b', 'completed');
  assert.deepEqual(await store.jobs.list({ limit: 10 }), {
    total: 4,
    jobs: await Promise.all(['j-d', 'j-b', 'j-a', 'j-c'].map(async (id) => (await store.jobs.get(id))!)),
  });
  const page = await store.jobs.list({ limit: 2 });
  assert.equal(page.total, 4);
  assert.deepEqual(
    page.jobs.map((j) => j.id),
    ['j-d', 'j-b'],
  );
  const pending = await store.jobs.list({ status: 'pending', limit: 1 });
  assert.equal(pending.total, 2);
  assert.deepEqual(
    pending.jobs.map((j) => j.id),
    ['j-d'],
  );
  assert.deepEqual(await store.jobs.list({ status: 'cancelled', limit: 5 }), { total: 0, jobs: [] });
  // SQLite's LIMIT -1: no limit.
  assert.equal((await store.jobs.list({ limit: -1 })).jobs.length, 4);

  // Jobs created in the same millisecond are ordered by id.
  await store.transaction(async (tx) => {
    for (const id of ['same-2', 'same-3', 'same-1']) await tx.jobs.create(job(id, [id]));
  });
  const all = (await store.jobs.list({ limit: 10 })).jobs;
  const byRule = [...all].sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? -1 : 1) : x.createdAt > y.createdAt ? -1 : 1));
  assert.deepEqual(
    all.map((j) => j.id),
    byRule.map((j) => j.id),
  );

  assert.deepEqual((await store.jobs.unfinished()).map((j) => j.id).sort(), ['j-a', 'j-c', 'j-d', 'same-1', 'same-2', 'same-3']);
});

testOnBothStores('jobs: lastFinishedFor finds the newest of a dictionary, also among several', async (store) => {
  assert.equal(await store.jobs.lastFinishedFor('alpha', 'completed'), undefined);
  await store.jobs.create(job('old', ['alpha']));
  await store.jobs.finish('old', 'completed');
  await sleep(3);
  await store.jobs.create(job('both', ['beta', 'alpha']));
  await store.jobs.finish('both', 'completed');
  await sleep(3);
  await store.jobs.create(job('bad', ['alpha']));
  await store.jobs.finish('bad', 'failed');
  await store.jobs.create(job('pending', ['alpha']));
  // A name that is a substring of another, or of the JSON text, is not a match.
  await store.jobs.create(job('alphabet', ['alphabet']));
  await store.jobs.finish('alphabet', 'completed');

  assert.equal((await store.jobs.lastFinishedFor('alpha', 'completed'))?.id, 'both');
  assert.equal((await store.jobs.lastFinishedFor('beta', 'completed'))?.id, 'both');
  assert.equal((await store.jobs.lastFinishedFor('alpha', 'failed'))?.id, 'bad');
  assert.equal((await store.jobs.lastFinishedFor('alpha', 'pending'))?.id, 'pending');
  assert.equal(await store.jobs.lastFinishedFor('alph', 'completed'), undefined);
  assert.equal(await store.jobs.lastFinishedFor('"alpha"', 'completed'), undefined);
  assert.deepEqual(await store.jobs.lastFinishedFor('alpha', 'completed'), await store.jobs.get('both'));
});

testOnBothStores('jobs: createExclusive refuses a dictionary with unfinished work', async (store) => {
  const first = await store.jobs.createExclusive(job('one', ['alpha', 'beta']));
  assert.ok('job' in first, 'the first job is created');
  assert.equal(first.job.status, 'pending');
  const busy = await store.jobs.createExclusive(job('two', ['gamma', 'beta']));
  assert.ok('busy' in busy, 'an overlapping job is refused');
  assert.deepEqual(busy.busy, first.job);
  assert.equal(await store.jobs.get('two'), undefined);
  assert.ok('job' in (await store.jobs.createExclusive(job('three', ['gamma']))), 'another dictionary is free');

  // A running job blocks too; a final one does not.
  await store.jobs.markRunning('one', 1);
  assert.equal(((await store.jobs.createExclusive(job('four', ['alpha']))) as { busy: { id: string } }).busy.id, 'one');
  await store.jobs.finish('one', 'completed');
  const after = await store.transaction(async (tx) => tx.jobs.createExclusive(job('five', ['alpha'])));
  assert.ok('job' in after, 'a finished job does not block');
  assert.equal(after.job.id, 'five');
});

testOnBothStores('jobs: writes through a transaction commit or roll back with it', async (store) => {
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.jobs.create(job('gone', ['alpha']));
      assert.equal((await tx.jobs.get('gone'))?.status, 'pending');
      assert.equal(await tx.jobs.markRunning('gone', 1), true);
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal(await store.jobs.get('gone'), undefined);
  // A savepoint rolled back alone.
  await store.transaction(async (tx) => {
    await tx.jobs.create(job('kept', ['alpha']));
    await assert.rejects(
      tx.transaction(async (sp) => {
        await sp.jobs.requestCancel('kept');
        throw new Error('inner');
      }),
      /inner/,
    );
    assert.equal(await tx.jobs.isCancelRequested('kept'), false);
  });
  assert.equal((await store.jobs.get('kept'))?.status, 'pending');
});

testOnBothStores('jobs: of many createExclusive at once for one dictionary, exactly one wins', async (store) => {
  const racers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? store.jobs.createExclusive(job(`racer-${i}`, ['gamma']))
        : store.transaction(async (tx) => tx.jobs.createExclusive(job(`racer-${i}`, ['gamma']))),
    ),
  );
  assert.equal(racers.filter((r) => 'job' in r).length, 1);
  assert.equal((await store.jobs.unfinished()).length, 1);
});

testOnBothStores('jobs: of many claims of one pending job at once, exactly one wins', async (store) => {
  await store.jobs.create(job('many', ['beta']));
  const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => store.jobs.markRunning('many', 1000 + i)));
  assert.equal(claims.filter(Boolean).length, 1);
  assert.equal((await store.jobs.get('many'))!.pid, 1000 + claims.indexOf(true));
});

// Two transactions open at once on two connections (docs/decisions.md, "Concurrent writers on
// the PostgreSQL store"): the second must wait for the first and then see what it wrote.

test('jobs [postgresql]: of two createExclusive at once for one dictionary, exactly one wins', () =>
  onPostgresStore(async (store) => {
    const race = await raceTwoTransactions(
      store,
      (tx) => tx.jobs.createExclusive(job('first', ['alpha'])),
      (tx) => tx.jobs.createExclusive(job('second', ['beta', 'alpha'])),
    );
    assert.equal(race.secondWaited, true, 'the second claim waited for the first');
    assert.equal(race.first.status === 'fulfilled' && 'job' in race.first.value && race.first.value.job.id, 'first');
    assert.equal(race.second.status === 'fulfilled' && 'busy' in race.second.value && race.second.value.busy.id, 'first');
    assert.deepEqual(
      (await store.jobs.unfinished()).map((j) => j.id),
      ['first'],
    );
  }));

test('jobs [postgresql]: of two claims of one pending job at once, exactly one wins', () =>
  onPostgresStore(async (store) => {
    await store.jobs.create(job('claimed', ['alpha']));
    const claims = await raceTwoTransactions(
      store,
      (tx) => tx.jobs.markRunning('claimed', 101),
      (tx) => tx.jobs.markRunning('claimed', 202),
    );
    assert.equal(claims.secondWaited, true, 'the second claim waited for the first');
    assert.deepEqual(
      [claims.first, claims.second],
      [
        { status: 'fulfilled', value: true },
        { status: 'fulfilled', value: false },
      ],
    );
    assert.equal((await store.jobs.get('claimed'))!.pid, 101);

    // Two ends at once (the job's process and a cancel): one records its end.
    const ends = await raceTwoTransactions(
      store,
      (tx) => tx.jobs.finish('claimed', 'completed', { warnings: 2 }),
      (tx) => tx.jobs.finish('claimed', 'cancelled'),
    );
    assert.equal(ends.secondWaited, true, 'the second end waited for the first');
    assert.deepEqual(
      [ends.first, ends.second],
      [
        { status: 'fulfilled', value: true },
        { status: 'fulfilled', value: false },
      ],
    );
    const final = (await store.jobs.get('claimed'))!;
    assert.deepEqual([final.status, final.warnings], ['completed', 2]);
  }));
