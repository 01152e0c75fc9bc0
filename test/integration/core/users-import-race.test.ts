/**
 * A CSV of accounts is written in one store transaction (docs/supervision.md#accounts): when an
 * account of the file is created by another import while this one hashes its passwords, the
 * write fails on that line and the accounts written before it in the same transaction are rolled
 * back, on the SQLite and the PostgreSQL store.
 *
 * The order is set, not left to which import hashes first: the long import reads the accounts
 * (none yet) and then waits, by a wrapper of that read, until the short one has committed; it then
 * hashes its 12 passwords and reaches the shared name last, after 11 inserts of its own.
 */
import assert from 'node:assert/strict';
import { importUsersCsv } from '../../../src/core/auth/users-import.js';
import { AppError } from '../../../src/shared/errors.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

testOnBothStores('an account created meanwhile fails the whole import, the rows written before it rolled back', async (store) => {
  const long = Array.from({ length: 11 }, (_, i) => `long${String(i).padStart(4, '0')},Long,Import,Standard,long-pass-${i}`);
  const longCsv = [...long, 'shared01,Shared,Name,API,shared-pass-1'].join('\n');
  const shortCsv = ['short001,Short,Import,Standard,short-pass-1', 'shared01,Shared,Name,Standard,shared-pass-2'].join('\n');

  // The long import's first read of the accounts is the first call: it waits for the short import.
  let shortDone!: () => void;
  const shortCommitted = new Promise<void>((resolve) => (shortDone = resolve));
  const listWithHashes = store.users.listWithHashes.bind(store.users);
  let calls = 0;
  store.users.listWithHashes = async () => {
    const call = ++calls;
    const accounts = await listWithHashes();
    if (call === 1) await shortCommitted;
    return accounts;
  };
  const longImport = importUsersCsv(store, longCsv);
  const shortImport = importUsersCsv(store, shortCsv).finally(shortDone);
  const [first, second] = await Promise.allSettled([longImport, shortImport]);
  assert.equal(calls, 2);
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
