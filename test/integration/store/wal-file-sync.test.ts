/**
 * The WAL's fsync through a descriptor held for the store's life (docs/durability.md#group-commit),
 * on a real SQLite store: the descriptors this process holds are read from /proc, so the test
 * sees what the kernel sees, not a counter of ours.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import { openStore } from '../../../src/store/open-store.js';
import type { SqliteStore } from '../../../src/store/sqlite-store.js';
import { WalFileSync } from '../../../src/store/wal-file-sync.js';
import { sqliteDb, tempDir } from '../../helpers/temp-home.js';

/** How many descriptors of this process name `path`. */
function descriptorsOf(path: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n += 1;
    } catch {
      // A descriptor closed while the folder was read.
    }
  }
  return n;
}

test('the WAL is fsynced through one descriptor held across fsyncs, closed with the store', async () => {
  const home = tempDir();
  const store = (await openStore(home, { create: true })) as SqliteStore;
  const db = sqliteDb(store).name;
  const wal = `${db}-wal`;
  try {
    store.groupCommits();
    // The connection's own descriptor of its WAL.
    const own = descriptorsOf(wal);
    assert.equal(own, 1);
    for (let i = 0; i < 20; i++) await store.transaction((tx) => tx.settings.set('probe', String(i)));
    assert.equal(store.groupFsyncs, 20);
    assert.equal(descriptorsOf(wal), own + 1, 'one more descriptor for all 20 fsyncs');
    assert.equal(await store.settings.get('probe'), '19');
  } finally {
    await store.close();
  }
  assert.equal(descriptorsOf(wal), 0, 'closing the store closes the held descriptor too');
  home.cleanup();
});

test('without a WAL the database file is fsynced, and the WAL is opened once it exists', async () => {
  const home = tempDir();
  const store = (await openStore(home, { create: true })) as SqliteStore;
  const db = sqliteDb(store).name;
  await store.close();
  // The last connection removed the WAL; the file alone is left.
  const sync = new WalFileSync(db);
  try {
    await sync.sync();
    assert.equal(descriptorsOf(db), 0, 'the database file is opened for its fsync alone');
    assert.equal(descriptorsOf(`${db}-wal`), 0);
    const reopened = (await openStore(home)) as SqliteStore;
    try {
      await reopened.settings.set('probe', 'x');
      await sync.sync();
      assert.equal(descriptorsOf(`${db}-wal`), 2, 'the connection and the held descriptor');
    } finally {
      await sync.close();
      await reopened.close();
    }
  } finally {
    home.cleanup();
  }
});

test('close waits for the fsync in flight; an fsync asked after close opens the file for itself', async () => {
  const home = tempDir();
  const store = (await openStore(home, { create: true })) as SqliteStore;
  const db = sqliteDb(store).name;
  const wal = `${db}-wal`;
  const sync = new WalFileSync(db);
  try {
    await store.settings.set('probe', 'x');
    const inFlight = sync.sync();
    const closed = sync.close();
    await inFlight;
    await closed;
    assert.equal(descriptorsOf(wal), 1, 'only the connection holds the WAL now');
    await sync.sync();
    assert.equal(descriptorsOf(wal), 1, 'the late fsync kept no descriptor');
  } finally {
    await store.close();
    home.cleanup();
  }
});

test('an fsync that fails rejects with the error of the file system', async () => {
  const home = tempDir();
  const sync = new WalFileSync(`${home.root}/no-such-folder/sds.db`);
  try {
    await assert.rejects(sync.sync(), { code: 'ENOENT' });
  } finally {
    await sync.close();
    home.cleanup();
  }
});
