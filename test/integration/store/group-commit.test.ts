/**
 * Group commit on a real SQLite store file (docs/durability.md#group-commit): commits stop
 * fsyncing while they hold the connection, and every write, in a transaction or not, resolves
 * only after an fsync of the WAL that started after it. The flush is injected so the test can hold
 * it; the statements and the file are real.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../../src/store/open-store.js';
import type { SqliteStore } from '../../../src/store/sqlite-store.js';
import { sqliteDb, tempDir } from '../../helpers/temp-home.js';

const NORMAL = 1;
const FULL = 2;

/** A store with group commit whose fsyncs end when the test says so. */
async function heldStore(): Promise<{
  store: SqliteStore;
  syncs: Array<{ resolve: () => void; reject: (e: Error) => void }>;
  cleanup: () => Promise<void>;
}> {
  const home = tempDir();
  const store = (await openStore(home, { create: true })) as SqliteStore;
  const syncs: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  store.groupCommits({ fsync: () => new Promise<void>((resolve, reject) => syncs.push({ resolve, reject })) });
  return {
    store,
    syncs,
    cleanup: async () => {
      for (const s of syncs) s.resolve();
      await store.close();
      home.cleanup();
    },
  };
}

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  return done;
};

test('with group commit the connection stops fsyncing at commit; without it, it does', async () => {
  const home = tempDir();
  const store = (await openStore(home, { create: true })) as SqliteStore;
  try {
    assert.equal(sqliteDb(store).pragma('synchronous', { simple: true }), FULL);
    store.groupCommits();
    assert.equal(sqliteDb(store).pragma('synchronous', { simple: true }), NORMAL);
    // deferSync gives back the store's own mode, not FULL.
    await store.deferSync(async () => undefined);
    assert.equal(sqliteDb(store).pragma('synchronous', { simple: true }), NORMAL);
    // With the real flush, a write resolves and is read back.
    await store.transaction((tx) => tx.settings.set('probe', 'real fsync'));
    assert.equal(await store.settings.get('probe'), 'real fsync');
    assert.equal(store.groupFsyncs, 1);
  } finally {
    await store.close();
    home.cleanup();
  }
});

test('a transaction resolves only after the fsync that follows its commit; reads do not wait', async () => {
  const h = await heldStore();
  try {
    const write = h.store.transaction((tx) => tx.settings.set('a', '1'));
    assert.equal(await settled(write), false, 'answered before its fsync');
    assert.equal(h.syncs.length, 1);
    // Committed, the connection free: other work reads it meanwhile.
    assert.equal(await h.store.settings.get('a'), '1');
    assert.equal(await h.store.readTransaction((tx) => tx.settings.get('a')), '1');
    h.syncs[0]!.resolve();
    await write;
  } finally {
    await h.cleanup();
  }
});

test('concurrent transactions commit during one fsync and share the next', async () => {
  const h = await heldStore();
  try {
    const first = h.store.transaction((tx) => tx.settings.set('k0', 'v'));
    await settled(first);
    const rest = Array.from({ length: 25 }, (_, i) => h.store.transaction((tx) => tx.settings.set(`k${i + 1}`, 'v')));
    for (const p of rest) assert.equal(await settled(p), false);
    // All 26 committed while the first fsync was held.
    const n = sqliteDb(h.store).prepare("SELECT count(*) FROM settings WHERE name LIKE 'k%'").pluck().get();
    assert.equal(n, 26);
    assert.equal(h.syncs.length, 1);
    h.syncs[0]!.resolve();
    await first;
    assert.equal(h.syncs.length, 2, 'one more fsync for the 25 that came during the first');
    h.syncs[1]!.resolve();
    await Promise.all(rest);
    assert.equal(h.store.groupFsyncs, 2);
  } finally {
    await h.cleanup();
  }
});

test('a write outside a transaction waits for its fsync too; a read, a read transaction and a rolled back transaction do not', async () => {
  const h = await heldStore();
  try {
    const write = h.store.settings.set('b', '2');
    assert.equal(await settled(write), false);
    h.syncs[0]!.resolve();
    await write;
    assert.equal(await h.store.settings.get('b'), '2');
    await h.store.readTransaction((tx) => tx.settings.get('b'));
    await assert.rejects(
      h.store.transaction(async (tx) => {
        await tx.settings.set('c', '3');
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.equal(await h.store.settings.get('c'), undefined);
    assert.equal(h.syncs.length, 1, 'nothing else asked for an fsync');
  } finally {
    await h.cleanup();
  }
});

test('durable() waits for an fsync only while a commit is not yet covered', async () => {
  const h = await heldStore();
  try {
    await h.store.durable();
    assert.equal(h.syncs.length, 0);
    const write = h.store.transaction((tx) => tx.settings.set('d', '4'));
    await settled(write);
    const page = h.store.durable();
    assert.equal(await settled(page), false, 'a reply must not send the uncovered commit');
    h.syncs[0]!.resolve();
    await write;
    // The running fsync may predate the commit: durable() waits for the next.
    assert.equal(await settled(page), false);
    h.syncs[1]!.resolve();
    await page;
    await h.store.durable();
    assert.equal(h.syncs.length, 2);
  } finally {
    await h.cleanup();
  }
});

test('a failed fsync fails its writes with IO_ERROR and refuses later ones; what is stored stays readable', async () => {
  const h = await heldStore();
  try {
    const write = h.store.transaction((tx) => tx.settings.set('e', '5'));
    await settled(write);
    h.syncs[0]!.reject(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await assert.rejects(write, (err: { code?: string; message: string }) => err.code === 'IO_ERROR' && /restarted/.test(err.message));
    await assert.rejects(
      h.store.transaction((tx) => tx.settings.set('f', '6')),
      (err: { code?: string }) => err.code === 'IO_ERROR',
    );
    await assert.rejects(h.store.durable(), (err: { code?: string }) => err.code === 'IO_ERROR');
    assert.equal(await h.store.settings.get('e'), '5');
    assert.equal(await h.store.settings.get('f'), undefined, 'refused before it was written');
    assert.equal(h.syncs.length, 1);
  } finally {
    await h.cleanup();
  }
});
