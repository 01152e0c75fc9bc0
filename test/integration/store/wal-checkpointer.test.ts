/**
 * The SQLite store's WAL checkpointer (docs/architecture.md): a worker thread copies the WAL back
 * into sds.db. It belongs to the SQLite file, so these tests open a SQLite store whatever the
 * run's store (SDS_TEST_STORE); the last one checks that a PostgreSQL store starts none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { openStore, type Store } from '../../../src/store/open-store.js';
import { sqliteDb, tempHome } from '../../helpers/temp-home.js';

const HOUR = 3_600_000;

/** Writes `rows` rows of 3 KB (about one page each with SQLite's 4 KB pages) in transactions of 100. */
function fill(store: Store, rows: number): void {
  const db = sqliteDb(store);
  db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
  const body = 'x'.repeat(3000);
  for (let done = 0; done < rows; done += 100)
    db.transaction(() => {
      for (let k = 0; k < Math.min(100, rows - done); k++) insert.run(body);
    })();
}

const dbBytes = (store: Store) => statSync(store.home.db).size;

test('checkpoints move to the worker: the writer leaves the WAL to it, and a checkpoint copies every frame back', async () => {
  const home = await tempHome('sqlite');
  const store = await openStore(home);
  try {
    // The timer never fires during this test: only checkpointNow checkpoints.
    const checkpointer = store.checkpointInBackground({ intervalMs: HOUR })!;
    assert.ok(checkpointer.running);
    assert.equal(store.checkpointInBackground(), checkpointer, 'idempotent');
    const before = dbBytes(store);
    fill(store, 2000);
    // With SQLite's default the writer would have checkpointed at 1,000 pages; the backstop is 8,192.
    assert.ok(dbBytes(store) < before + 1_000_000, `the database file grew to ${dbBytes(store)} bytes: the writer checkpointed`);
    const result = await checkpointer.checkpointNow();
    assert.equal(result.busy, 0);
    assert.ok(result.log > 1500, `${result.log} frames in the WAL`);
    assert.equal(result.checkpointed, result.log, 'every frame copied back');
    assert.ok(dbBytes(store) > before + 5_000_000, 'the pages are in the database file');
    // Another connection sees everything, from the database file.
    const reader = new Database(home.db, { readonly: true });
    assert.equal((reader.prepare('SELECT count(*) AS n FROM filler').get() as { n: number }).n, 2000);
    reader.close();
  } finally {
    await store.close();
    await home.cleanup();
  }
});

test('without the worker the writer checkpoints by itself at SQLite’s default', async () => {
  const home = await tempHome('sqlite');
  const store = await openStore(home);
  try {
    const before = dbBytes(store);
    fill(store, 2000);
    assert.ok(dbBytes(store) > before + 2_000_000, 'the writer copied pages back itself');
  } finally {
    await store.close();
    await home.cleanup();
  }
});

test('the worker checkpoints on its timer', async () => {
  const home = await tempHome('sqlite');
  const store = await openStore(home);
  try {
    store.checkpointInBackground({ intervalMs: 5 });
    const before = dbBytes(store);
    fill(store, 1500);
    // Polls counted, not timed: a slow machine only waits longer.
    let polls = 0;
    while (dbBytes(store) < before + 5_000_000 && polls < 1000) {
      await delay(10);
      polls += 1;
    }
    assert.ok(dbBytes(store) >= before + 5_000_000, `the timer's checkpoints never copied the pages back (${polls} polls)`);
  } finally {
    await store.close();
    await home.cleanup();
  }
});

test('once the store is closed the worker has closed its connection too: the WAL is gone', async () => {
  const home = await tempHome('sqlite');
  try {
    const store = await openStore(home);
    const checkpointer = store.checkpointInBackground({ intervalMs: 5 })!;
    // The worker is running: it has answered a checkpoint of a write.
    await store.settings.set('probe', 'x');
    await checkpointer.checkpointNow();
    await store.close();
    // SQLite removes the WAL when the last connection closes: it is gone at once only if close()
    // waited for the worker's connection, so that the home may be moved or removed right away.
    assert.equal(existsSync(`${home.db}-wal`), false);
  } finally {
    await home.cleanup();
  }
});

test('closing the store stops the worker; a read-only store starts none', async () => {
  const home = await tempHome('sqlite');
  const store = await openStore(home);
  const checkpointer = store.checkpointInBackground({ intervalMs: HOUR })!;
  await store.close();
  assert.equal(checkpointer.running, false);
  await assert.rejects(checkpointer.checkpointNow(), /stopped/);
  const readonly = await openStore(home, { readonly: true });
  try {
    assert.equal(readonly.checkpointInBackground(), undefined);
  } finally {
    await readonly.close();
    await home.cleanup();
  }
});

test('a PostgreSQL store checkpoints on its own: it starts no worker', async () => {
  const home = await tempHome('postgresql');
  const store = await openStore(home);
  try {
    assert.equal(store.checkpointInBackground({ intervalMs: HOUR }), undefined);
  } finally {
    await store.close();
    await home.cleanup();
  }
});
