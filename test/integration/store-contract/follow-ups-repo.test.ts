/**
 * The store contract of `store.followUps` (docs/architecture.md#the-store-contract): every method
 * on the SQLite store and on the PostgreSQL store, with the same answers, and the decisions that
 * must hold with several writers at once (docs/decisions.md, "Concurrent writers on the
 * PostgreSQL store"): an event racing the end of a job or another event is never lost nor doubled.
 */
import assert from 'node:assert/strict';
import type { NewJob } from '../../../src/store/jobs-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { dictionary, overlapping } from './race-fixtures.js';

const NOW = '2026-01-02T03:04:05.000Z';
let serial = 0;
const job = (dictionaryName: string, origin = 'webhook'): NewJob => ({
  id: `job-${++serial}`,
  dictionaries: [dictionaryName],
  mode: 'incremental',
  threads: 1,
  overwrite: false,
  origin,
});

testOnBothStores('followUps: request starts a job or flags a follow-up', async (store) => {
  const alpha = await dictionary(store, 'ALPHA_DICT');
  const beta = await dictionary(store, 'BETA_DICT');
  assert.equal(await store.followUps.pending(alpha), 0);
  assert.equal(await store.followUps.pending(9999), 0);

  const first = await store.followUps.request(alpha, job('ALPHA_DICT'), NOW);
  assert.ok('started' in first);
  assert.deepEqual([first.started.status, first.started.dictionaries, first.started.origin], ['pending', ['ALPHA_DICT'], 'webhook']);
  assert.deepEqual(await store.jobs.get(first.started.id), first.started);

  const second = await store.followUps.request(alpha, job('ALPHA_DICT'), NOW);
  assert.deepEqual(second, { queued: first.started, events: 1 });
  const third = await store.transaction(async (tx) => tx.followUps.request(alpha, job('ALPHA_DICT'), '2026-01-02T03:04:06.000Z'));
  assert.deepEqual(third, { queued: first.started, events: 2 });
  assert.equal(await store.followUps.pending(alpha), 2);
  assert.equal(await store.followUps.pending(beta), 0, 'a flag is per dictionary');

  // A job of another dictionary does not make this one busy.
  const other = await store.followUps.request(beta, job('BETA_DICT'), NOW);
  assert.ok('started' in other);

  // No job unfinished any more: a request starts one and clears the stale flag.
  await store.jobs.finish(first.started.id, 'completed');
  const fourth = await store.followUps.request(alpha, job('ALPHA_DICT'), NOW);
  assert.ok('started' in fourth);
  assert.equal(await store.followUps.pending(alpha), 0);
  assert.deepEqual((await store.jobs.unfinished()).map((j) => j.id).sort(), [other.started.id, fourth.started.id].sort());
});

testOnBothStores('followUps: finishAndFollowUp ends the job and starts the flagged follow-ups', async (store) => {
  const alpha = await dictionary(store, 'ALPHA_DICT');
  const beta = await dictionary(store, 'BETA_DICT');
  await dictionary(store, 'GAMMA_DICT');
  const both = await store.jobs.create({
    ...job('ALPHA_DICT', 'cli'),
    dictionaries: ['ALPHA_DICT', 'BETA_DICT', 'GAMMA_DICT', 'GONE_DICT'],
  });
  await store.followUps.request(alpha, job('ALPHA_DICT'), NOW);
  await store.followUps.request(alpha, job('ALPHA_DICT'), NOW);
  await store.followUps.request(beta, job('BETA_DICT'), NOW);
  // BETA has another unfinished job: its flag is cleared without a new job.
  const betaBusy = await store.jobs.create(job('BETA_DICT', 'cli'));

  const asked: string[] = [];
  const out = await store.followUps.finishAndFollowUp(both.id, 'completed', { warnings: 3 }, (name) => {
    asked.push(name);
    return { ...job(name, 'follow-up'), id: `follow-${name}` };
  });
  assert.equal(out.ended, true);
  assert.deepEqual(asked, ['ALPHA_DICT', 'BETA_DICT'], 'only flagged dictionaries that are still stored');
  assert.deepEqual(
    out.started.map((j) => [j.id, j.dictionaries, j.origin, j.status]),
    [['follow-ALPHA_DICT', ['ALPHA_DICT'], 'follow-up', 'pending']],
  );
  const ended = (await store.jobs.get(both.id))!;
  assert.deepEqual([ended.status, ended.warnings], ['completed', 3]);
  assert.equal(await store.followUps.pending(alpha), 0);
  assert.equal(await store.followUps.pending(beta), 0);
  assert.deepEqual((await store.jobs.unfinished()).map((j) => j.id).sort(), [betaBusy.id, 'follow-ALPHA_DICT'].sort());

  // The job has ended already: nothing happens, the flags stay for whoever ended it.
  await store.followUps.request(alpha, job('ALPHA_DICT'), NOW);
  const again = await store.followUps.finishAndFollowUp(both.id, 'failed', {}, () => assert.fail('no follow-up for a job already ended'));
  assert.deepEqual(again, { ended: false, started: [] });
  assert.equal((await store.jobs.get(both.id))!.status, 'completed');
  assert.equal(await store.followUps.pending(alpha), 1);
  assert.deepEqual(await store.followUps.finishAndFollowUp('no-such-job', 'failed', {}, () => assert.fail('none')), {
    ended: false,
    started: [],
  });
});

testOnBothStores('followUps: finishAndFollowUp is all or nothing', async (store) => {
  const alpha = await dictionary(store, 'ALPHA_DICT');
  const running = await store.jobs.create(job('ALPHA_DICT', 'cli'));
  await store.followUps.request(alpha, job('ALPHA_DICT'), NOW);
  await assert.rejects(
    store.followUps.finishAndFollowUp(running.id, 'completed', {}, () => {
      throw new Error('cannot build the follow-up');
    }),
    /cannot build the follow-up/,
  );
  assert.equal((await store.jobs.get(running.id))!.status, 'pending', 'the job did not end');
  assert.equal(await store.followUps.pending(alpha), 1, 'the flag is still set');

  // Inside a transaction that rolls back afterwards, too.
  await assert.rejects(
    store.transaction(async (tx) => {
      const r = await tx.followUps.finishAndFollowUp(running.id, 'completed', {}, (name) => job(name, 'follow-up'));
      assert.equal(r.started.length, 1);
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal((await store.jobs.get(running.id))!.status, 'pending');
  assert.equal(await store.followUps.pending(alpha), 1);
  assert.deepEqual(
    (await store.jobs.unfinished()).map((j) => j.id),
    [running.id],
  );
});

testOnBothStores('followUps: an event racing the end of the job is not lost', async (store, kind) => {
  const alpha = await dictionary(store, 'ALPHA_DICT');
  const running = await store.jobs.create(job('ALPHA_DICT', 'cli'));
  // The job ends (no flag set yet) in a transaction still open when the event comes: the event
  // must wait for it and then start its own job, not flag a follow-up nobody will take.
  const { a, b } = await overlapping(
    store,
    kind,
    (tx) => tx.followUps.finishAndFollowUp(running.id, 'completed', {}, () => assert.fail('no flag was set')),
    () => store.followUps.request(alpha, job('ALPHA_DICT'), NOW),
  );
  assert.deepEqual(a, { ended: true, started: [] });
  assert.ok('started' in b, 'the event saw the job ended and started a job');
  assert.equal(await store.followUps.pending(alpha), 0);
  assert.deepEqual(
    (await store.jobs.unfinished()).map((j) => j.id),
    [b.started.id],
  );
});

testOnBothStores('followUps: an event flagged while the job ends is followed up', async (store, kind) => {
  const alpha = await dictionary(store, 'ALPHA_DICT');
  const running = await store.jobs.create(job('ALPHA_DICT', 'cli'));
  // The event sees the job unfinished and flags it in a transaction still open when the job
  // ends: the end waits, then finds the flag and starts the follow-up.
  const { a, b } = await overlapping(
    store,
    kind,
    (tx) => tx.followUps.request(alpha, job('ALPHA_DICT'), NOW),
    () => store.followUps.finishAndFollowUp(running.id, 'completed', {}, (name) => ({ ...job(name, 'follow-up'), id: 'follow-up-1' })),
  );
  assert.deepEqual(a, { queued: running, events: 1 });
  assert.deepEqual(
    b.started.map((j) => j.id),
    ['follow-up-1'],
  );
  assert.equal(await store.followUps.pending(alpha), 0);
});

testOnBothStores('followUps: two events at once start one job', async (store, kind) => {
  const alpha = await dictionary(store, 'ALPHA_DICT');
  const { a, b } = await overlapping(
    store,
    kind,
    (tx) => tx.followUps.request(alpha, job('ALPHA_DICT'), NOW),
    () => store.followUps.request(alpha, job('ALPHA_DICT'), NOW),
  );
  assert.ok('started' in a);
  assert.deepEqual(b, { queued: a.started, events: 1 });
  assert.equal((await store.jobs.unfinished()).length, 1);

  // Many at once: still one job, every other event counted.
  await store.jobs.finish(a.started.id, 'completed');
  const outs = await Promise.all(Array.from({ length: 6 }, () => store.followUps.request(alpha, job('ALPHA_DICT'), NOW)));
  assert.equal(outs.filter((o) => 'started' in o).length, 1);
  assert.deepEqual(
    outs
      .filter((o) => 'queued' in o)
      .map((o) => ('queued' in o ? o.events : 0))
      .sort(),
    [1, 2, 3, 4, 5],
  );
  assert.equal(await store.followUps.pending(alpha), 5);
});
