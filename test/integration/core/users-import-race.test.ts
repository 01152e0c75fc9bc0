/**
 * A CSV of accounts is written in one store transaction (docs/supervision.md#accounts): when an
 * account of the file is created by another import while this one hashes its passwords, the
 * write fails on that line and the accounts written before it in the same transaction are rolled
 * back, on the SQLite and the PostgreSQL store.
 *
 * Both imports validate at once (no account exists yet); the short one hashes 2 passwords and
 * commits first, the long one hashes 12 (four at a time on the thread pool) and reaches the shared
 * name last, after 11 inserts of its own.
 */
import assert from 'node:assert/strict';
import { importUsersCsv } from '../../../src/core/auth/users-import.js';
import { AppError } from '../../../src/shared/errors.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

testOnBothStores('an account created meanwhile fails the whole import, the rows written before it rolled back', async (store) => {
  const long = Array.from({ length: 11 }, (_, i) => `long${String(i).padStart(4, '0')},Long,Import,Standard,long-pass-${i}`);
  const longCsv = [...long, 'shared01,Shared,Name,API,shared-pass-1'].join('\n');
  const shortCsv = ['short001,Short,Import,Standard,short-pass-1', 'shared01,Shared,Name,Standard,shared-pass-2'].join('\n');

  const [first, second] = await Promise.allSettled([importUsersCsv(store, longCsv), importUsersCsv(store, shortCsv)]);
  assert.equal(second.status, 'fulfilled', String((second as PromiseRejectedResult).reason));
  assert.equal(first.status, 'rejected');
  const err = (first as PromiseRejectedResult).reason as AppError;
  assert.ok(err instanceof AppError && err.code === 'CONFLICT', String(err));
  // The import's own check names the line; on PostgreSQL the unique name may decide first (users-repo).
  assert.match(err.message, /shared01/);

  const names = (await store.users.listWithHashes()).map((u) => u.username);
  assert.deepEqual(names, ['shared01', 'short001'], 'none of the eleven accounts written before the conflict is left');
  assert.equal((await store.users.find('shared01'))?.role, 'Standard User', 'the account is the one of the import that committed');
});
