/**
 * The store contract of `store.files` (docs/architecture.md#the-store-contract): every method on
 * both stores with the same answers.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

testOnBothStores('files: save, find, list and remove', async (store) => {
  assert.equal(await store.files.find('a.csv'), undefined);
  assert.deepEqual(await store.files.list(), []);
  assert.equal(await store.files.remove('a.csv'), false);

  const a = await store.files.save({
    name: 'a.csv',
    size: 12,
    sha256: 'aa'.repeat(32),
    contentType: 'text/csv',
    writtenBy: 'ana',
    office: false,
  });
  assert.match(a.createdAt, ISO);
  assert.equal(a.updatedAt, a.createdAt);
  assert.deepEqual(
    { ...a, createdAt: '', updatedAt: '' },
    {
      name: 'a.csv',
      size: 12,
      sha256: 'aa'.repeat(32),
      contentType: 'text/csv',
      createdAt: '',
      updatedAt: '',
      writtenBy: 'ana',
      office: false,
    },
  );
  assert.deepEqual(await store.files.find('a.csv'), a);

  await sleep(5);
  // A replace keeps the creation time and takes everything else; null writer is the CLI.
  const big = 2 ** 40;
  const replaced = await store.files.save({
    name: 'a.csv',
    size: big,
    sha256: 'bb'.repeat(32),
    contentType: 'application/zip',
    writtenBy: null,
    office: true,
  });
  assert.equal(replaced.createdAt, a.createdAt);
  assert.ok(replaced.updatedAt > a.updatedAt);
  assert.deepEqual(
    { ...replaced, updatedAt: '' },
    {
      name: 'a.csv',
      size: big,
      sha256: 'bb'.repeat(32),
      contentType: 'application/zip',
      createdAt: a.createdAt,
      updatedAt: '',
      writtenBy: null,
      office: true,
    },
  );

  // Byte-wise order by name, as SQLite's BINARY collation: upper case before lower, then non-ASCII.
  for (const name of ['b.txt', 'B.txt', 'é.txt', 'a-b.txt', 'sub/z.txt']) {
    await store.files.save({ name, size: 1, sha256: 'cc'.repeat(32), contentType: 'text/plain', writtenBy: 'x', office: true });
  }
  assert.deepEqual(
    (await store.files.list()).map((f) => f.name),
    ['B.txt', 'a-b.txt', 'a.csv', 'b.txt', 'sub/z.txt', 'é.txt'],
  );
  assert.equal(await store.files.find('A.CSV'), undefined, 'names are case-sensitive');

  assert.equal(await store.files.remove('b.txt'), true);
  assert.equal(await store.files.remove('b.txt'), false);
  assert.equal(await store.files.find('b.txt'), undefined);

  // In a transaction: the save is seen inside and undone by the rollback.
  await assert.rejects(
    store.transaction(async (tx) => {
      const saved = await tx.files.save({
        name: 'tx.bin',
        size: 3,
        sha256: 'dd'.repeat(32),
        contentType: 'application/octet-stream',
        writtenBy: 'ana',
        office: false,
      });
      assert.deepEqual(await tx.files.find('tx.bin'), saved);
      assert.equal(await tx.files.remove('a.csv'), true);
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal(await store.files.find('tx.bin'), undefined);
  assert.deepEqual(await store.files.find('a.csv'), replaced);
  assert.deepEqual(
    (await store.files.list()).map((f) => f.name),
    ['B.txt', 'a-b.txt', 'a.csv', 'sub/z.txt', 'é.txt'],
  );
});
