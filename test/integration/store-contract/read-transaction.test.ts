/**
 * `store.readTransaction` on both stores (docs/architecture.md#the-store-contract): its reads see
 * one snapshot, and a write inside it is refused alike on SQLite (query_only) and on PostgreSQL
 * (READ ONLY) with STORE_WRITE_IN_READ_TRANSACTION, the store left writable afterwards.
 */
import assert from 'node:assert/strict';
import { AppError } from '../../../src/shared/errors.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const refused = (err: unknown) => err instanceof AppError && err.code === 'STORE_WRITE_IN_READ_TRANSACTION';

testOnBothStores('a write inside readTransaction is refused, and nothing of it is kept', async (store) => {
  await store.settings.set('kept', 'before');
  await assert.rejects(
    store.readTransaction(async (tx) => {
      assert.equal(await tx.settings.get('kept'), 'before');
      await tx.settings.set('kept', 'changed');
    }),
    refused,
  );
  assert.equal(await store.settings.get('kept'), 'before');
  // The store writes again once the read transaction is over.
  await store.settings.set('kept', 'after');
  await store.transaction(async (tx) => tx.settings.set('other', 'x'));
  assert.equal(await store.settings.get('kept'), 'after');
  assert.equal(await store.settings.get('other'), 'x');
});

testOnBothStores('a savepoint inside readTransaction reads, and its write is refused as well', async (store) => {
  await store.settings.set('a', '1');
  const seen = await store.readTransaction(async (tx) => tx.transaction(async (inner) => inner.settings.get('a')));
  assert.equal(seen, '1');
  await assert.rejects(
    store.readTransaction(async (tx) => tx.transaction(async (inner) => inner.settings.set('a', '2'))),
    refused,
  );
  assert.equal(await store.settings.get('a'), '1');
});
