/**
 * The store contract of `store.breakoutState` (docs/architecture.md#the-store-contract): every
 * method on the SQLite store and on the PostgreSQL store, with the same answers.
 */
import assert from 'node:assert/strict';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { dictionary } from './race-fixtures.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

testOnBothStores('breakoutState: reset, tables, cursor, loads and clear', async (store) => {
  const a = await dictionary(store, 'ALPHA_DICT');
  const b = await dictionary(store, 'BETA_DICT');
  assert.equal(await store.breakoutState.get(a), undefined);
  assert.equal(await store.breakoutState.get(999), undefined);

  await store.breakoutState.reset(a, 'main', 'hash-1', ['alpha', 'alpha_rec'], 'job-1');
  const fresh = (await store.breakoutState.get(a))!;
  assert.match(fresh.updatedAt, ISO);
  assert.deepEqual(
    { ...fresh, updatedAt: 'x' },
    {
      target: 'main',
      structureHash: 'hash-1',
      tables: ['alpha', 'alpha_rec'],
      cursor: { revision: 0, guid: '' },
      lastJobId: 'job-1',
      loadingJobId: null,
      updatedAt: 'x',
    },
  );
  assert.equal(await store.breakoutState.get(b), undefined, 'one dictionary state leaves the others alone');

  await store.breakoutState.advance(a, { revision: 42, guid: 'g-42' }, 'job-2');
  await store.breakoutState.startLoad(a, 'job-2');
  let s = (await store.breakoutState.get(a))!;
  assert.deepEqual([s.cursor, s.lastJobId, s.loadingJobId], [{ revision: 42, guid: 'g-42' }, 'job-2', 'job-2']);

  await store.breakoutState.setTables(a, ['alpha', 'alpha_rec', 'alpha_labels']);
  s = (await store.breakoutState.get(a))!;
  assert.deepEqual(s.tables, ['alpha', 'alpha_rec', 'alpha_labels']);
  assert.deepEqual(s.cursor, { revision: 42, guid: 'g-42' }, 'new tables of the same structure keep the cursor');

  // A load begun by another job since is left as it is.
  await store.breakoutState.finishLoad(a, 'job-1');
  assert.equal((await store.breakoutState.get(a))!.loadingJobId, 'job-2');
  await store.breakoutState.finishLoad(a, 'job-2');
  assert.equal((await store.breakoutState.get(a))!.loadingJobId, null);

  // A reset of an existing state: the cursor back at the start, no load begun.
  await store.breakoutState.startLoad(a, 'job-3');
  await store.transaction(async (tx) => tx.breakoutState.reset(a, 'other', 'hash-2', ['a2'], 'job-4'));
  assert.deepEqual(
    { ...(await store.breakoutState.get(a))!, updatedAt: 'x' },
    {
      target: 'other',
      structureHash: 'hash-2',
      tables: ['a2'],
      cursor: { revision: 0, guid: '' },
      lastJobId: 'job-4',
      loadingJobId: null,
      updatedAt: 'x',
    },
  );

  // Writes of a missing state change nothing and do not fail.
  await store.breakoutState.advance(b, { revision: 1, guid: 'x' }, 'job-9');
  await store.breakoutState.setTables(b, ['x']);
  await store.breakoutState.startLoad(b, 'job-9');
  assert.equal(await store.breakoutState.get(b), undefined);

  // A rolled-back transaction leaves the state as it was.
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.breakoutState.advance(a, { revision: 7, guid: 'g-7' }, 'job-5');
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.deepEqual((await store.breakoutState.get(a))!.cursor, { revision: 0, guid: '' });

  await store.breakoutState.clear(a);
  await store.breakoutState.clear(a);
  assert.equal(await store.breakoutState.get(a), undefined);
});
