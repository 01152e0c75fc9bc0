/**
 * The store contract of `store.breakoutLog` (docs/architecture.md#the-store-contract): every
 * method on the SQLite store and on the PostgreSQL store, with the same answers.
 */
import assert from 'node:assert/strict';
import type { BreakoutLogEntry, NewBreakoutLogEntry } from '../../../src/store/breakout-log-repo.js';
import type { Store } from '../../../src/store/store-contract.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

/** Writes the entries in order (two jobs, two dictionaries, three levels); returns them as stored. */
async function seed(store: Store): Promise<BreakoutLogEntry[]> {
  for (const id of ['job-a', 'job-b']) {
    await store.jobs.create({ id, dictionaries: ['ALPHA', 'BETA'], mode: 'full', threads: 1, overwrite: false, origin: 'test' });
  }
  const entries: NewBreakoutLogEntry[] = [
    { jobId: 'job-a', dictionary: 'ALPHA', level: 'info', message: 'started', progress: 0, createdAt: '2025-01-01T00:00:00.000Z' },
    { jobId: 'job-a', dictionary: 'BETA', level: 'warn', message: 'odd value "x"', progress: 10, createdAt: '2025-01-01T00:01:00.000Z' },
    {
      jobId: 'job-a',
      dictionary: 'ALPHA',
      level: 'error',
      message: 'failed: ünïcode',
      progress: 50,
      createdAt: '2025-01-01T00:02:00.000Z',
    },
    { jobId: 'job-b', dictionary: 'alpha', level: 'info', message: 'other case', progress: 100, createdAt: '2025-01-01T00:03:00.000Z' },
    { jobId: 'job-b', dictionary: 'ALPHA', level: 'warn', message: 'late', progress: 100, createdAt: '2025-01-01T00:04:00.000Z' },
  ];
  await store.transaction(async (tx) => {
    for (const e of entries) await tx.breakoutLog.add(e);
  });
  const stored = (await store.breakoutLog.newest({ limit: 100 })).reverse();
  assert.deepEqual(
    stored.map(({ id: _id, ...e }) => e),
    entries,
  );
  return stored;
}

testOnBothStores('breakoutLog: add and read the newest, of all or of a dictionary', async (store) => {
  assert.deepEqual(await store.breakoutLog.newest({ limit: 10 }), []);
  const e = await seed(store);
  assert.deepEqual(
    e.map((x) => x.id),
    [...e.map((x) => x.id)].sort((a, b) => a - b),
    'ids in the order written',
  );
  assert.deepEqual(await store.breakoutLog.newest({ limit: 2 }), [e[4], e[3]]);
  assert.deepEqual(await store.breakoutLog.newest({ dictionary: 'ALPHA', limit: 10 }), [e[4], e[2], e[0]], 'the name compared exactly');
  assert.deepEqual(await store.breakoutLog.newest({ dictionary: 'ALPHA', limit: 1 }), [e[4]]);
  assert.deepEqual(await store.breakoutLog.newest({ dictionary: 'GAMMA', limit: 10 }), []);
  assert.equal((await store.breakoutLog.newest({ limit: -1 })).length, 5, "SQLite's LIMIT -1: all");

  // An entry of an unknown job is refused (foreign key).
  await assert.rejects(
    store.breakoutLog.add({
      jobId: 'nope',
      dictionary: 'ALPHA',
      level: 'info',
      message: 'x',
      progress: 0,
      createdAt: '2025-01-01T00:00:00.000Z',
    }),
  );
  assert.equal((await store.breakoutLog.newest({ limit: 10 })).length, 5);
});

testOnBothStores('breakoutLog: search by dictionary, levels and time', async (store) => {
  const e = await seed(store);
  assert.deepEqual(await store.breakoutLog.search({ limit: 10 }), [...e].reverse());
  assert.deepEqual(await store.breakoutLog.search({ levels: ['warn', 'error'], limit: 10 }), [e[4], e[2], e[1]]);
  assert.deepEqual(await store.breakoutLog.search({ levels: [], limit: 10 }), [], 'no level: no entry');
  assert.deepEqual(
    await store.breakoutLog.search({ since: '2025-01-01T00:02:00.000Z', limit: 10 }),
    [e[4], e[3], e[2]],
    'since is inclusive',
  );
  assert.deepEqual(
    await store.breakoutLog.search({ dictionary: 'ALPHA', levels: ['info', 'warn'], since: '2025-01-01T00:00:00.000Z', limit: 10 }),
    [e[4], e[0]],
  );
  assert.deepEqual(await store.breakoutLog.search({ dictionary: 'ALPHA', levels: ['error', 'warn'], limit: 1 }), [e[4]]);
  assert.deepEqual(await store.breakoutLog.search({ since: '2026-01-01T00:00:00.000Z', limit: 10 }), []);
});

testOnBothStores('breakoutLog: prune keeps the newest entries', async (store) => {
  assert.equal(await store.breakoutLog.prune(3), 0, 'nothing to prune in an empty log');
  const e = await seed(store);
  assert.equal(await store.breakoutLog.prune(10), 0);
  assert.equal(await store.breakoutLog.prune(5), 0);
  assert.equal(await store.breakoutLog.prune(3), 2);
  assert.deepEqual(await store.breakoutLog.newest({ limit: 10 }), [e[4], e[3], e[2]]);
  // Inside a transaction, rolled back with it.
  await assert.rejects(
    store.transaction(async (tx) => {
      assert.equal(await tx.breakoutLog.prune(0), 3);
      assert.deepEqual(await tx.breakoutLog.newest({ limit: 10 }), []);
      throw new Error('undo');
    }),
    /undo/,
  );
  assert.equal((await store.breakoutLog.newest({ limit: 10 })).length, 3);
  assert.equal(await store.breakoutLog.prune(1), 2);
  assert.deepEqual(await store.breakoutLog.newest({ limit: 10 }), [e[4]]);
  assert.equal(await store.breakoutLog.prune(0), 1);
  assert.deepEqual(await store.breakoutLog.newest({ limit: 10 }), []);
});
