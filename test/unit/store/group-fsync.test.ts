/**
 * The rule of group commit's shared fsync (docs/durability.md#group-commit): a waiter is served
 * only by an fsync that started after it asked, and everyone who asked during one fsync shares
 * the next.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupFsync } from '../../../src/store/group-fsync.js';

/** An fsync that ends when the test says so. */
function heldSyncs(): { sync: () => Promise<void>; pending: Array<{ resolve: () => void; reject: (e: Error) => void }> } {
  const pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  return {
    pending,
    sync: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
  };
}

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
};

test('the first waiter starts an fsync and is served by it', async () => {
  const h = heldSyncs();
  const group = new GroupFsync(h.sync);
  const first = group.after();
  assert.equal(h.pending.length, 1);
  assert.equal(await settled(first), false);
  h.pending[0]!.resolve();
  await first;
  assert.equal(group.started, 1);
});

test('waiters that come during an fsync share the next one, which starts when it ends', async () => {
  const h = heldSyncs();
  const group = new GroupFsync(h.sync);
  const first = group.after();
  const later = Array.from({ length: 20 }, () => group.after());
  assert.equal(h.pending.length, 1, 'no second fsync while one runs');
  h.pending[0]!.resolve();
  await first;
  for (const p of later) assert.equal(await settled(p), false, 'the fsync that was running may predate their writes');
  assert.equal(h.pending.length, 2, 'the next fsync started when the first ended');
  h.pending[1]!.resolve();
  await Promise.all(later);
  assert.equal(group.started, 2);
  // Nothing running: the next waiter starts a third at once.
  const again = group.after();
  assert.equal(h.pending.length, 3);
  h.pending[2]!.resolve();
  await again;
});

test('a failed fsync rejects its waiters; the next round still runs for those who came after', async () => {
  const h = heldSyncs();
  const group = new GroupFsync(h.sync);
  const first = group.after();
  const second = group.after();
  h.pending[0]!.reject(new Error('EIO'));
  await assert.rejects(first, /EIO/);
  assert.equal(h.pending.length, 2);
  h.pending[1]!.resolve();
  await second;
});
