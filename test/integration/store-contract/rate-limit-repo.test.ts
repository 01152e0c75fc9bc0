/**
 * The store contract of `store.rateLimit` (docs/architecture.md#the-store-contract): the sliding
 * window on both stores with the same answers, and the count staying right with requests at once
 * (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import assert from 'node:assert/strict';
import { testOnBothStores } from '../../helpers/store-kinds.js';

testOnBothStores('rateLimit: hit counts a sliding window per key', async (store) => {
  const hit = (key: string, now: number) => store.rateLimit.hit(key, now, 3, 1000);
  assert.deepEqual(await hit('a', 10_000), { allowed: true, remaining: 2 });
  assert.deepEqual(await hit('a', 10_100), { allowed: true, remaining: 1 });
  assert.deepEqual(await hit('b', 10_150), { allowed: true, remaining: 2 }, 'keys count apart');
  assert.deepEqual(await hit('a', 10_200), { allowed: true, remaining: 0 });
  // Full: refused until the oldest leaves the window (10_000 + 1000), and a refusal is not recorded.
  assert.deepEqual(await hit('a', 10_300), { allowed: false, retryAfterMs: 700 });
  assert.deepEqual(await hit('a', 10_999), { allowed: false, retryAfterMs: 1 });
  // The window is (now - 1000, now]: at 11_000 the hit of 10_000 is out.
  assert.deepEqual(await hit('a', 11_000), { allowed: true, remaining: 0 });
  assert.deepEqual(await hit('a', 11_050), { allowed: false, retryAfterMs: 50 });
  // A clock that went back: the later hits still count (no upper bound), retry at least 1 ms.
  assert.deepEqual(await hit('a', 10_500), { allowed: false, retryAfterMs: 600 });
  assert.deepEqual(await store.rateLimit.hit('a', 11_050, 5, 1000), { allowed: true, remaining: 1 });
  // Long after: every old hit of every key is pruned.
  assert.deepEqual(await hit('b', 50_000), { allowed: true, remaining: 2 });
  assert.deepEqual(await hit('a', 50_000), { allowed: true, remaining: 2 });
  // max 0 refuses everything; retry is measured from now when nothing is recorded.
  assert.deepEqual(await store.rateLimit.hit('c', 60_000, 0, 1000), { allowed: false, retryAfterMs: 1000 });

  // Inside a transaction: counted there, gone with the rollback.
  await assert.rejects(
    store.transaction(async (tx) => {
      assert.deepEqual(await tx.rateLimit.hit('d', 70_000, 1, 1000), { allowed: true, remaining: 0 });
      assert.deepEqual(await tx.rateLimit.hit('d', 70_001, 1, 1000), { allowed: false, retryAfterMs: 999 });
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.deepEqual(await store.rateLimit.hit('d', 70_002, 1, 1000), { allowed: true, remaining: 0 });
});

testOnBothStores('rateLimit: a hit waits for one of the same key in flight and counts it', async (store, kind) => {
  let firstHit!: () => void;
  const hit = new Promise<void>((resolve) => (firstHit = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let firstEnded = false;
  const first = store
    .transaction(async (tx) => {
      const d = await tx.rateLimit.hit('k', 1000, 1, 60_000);
      firstHit();
      await released;
      return d;
    })
    .finally(() => (firstEnded = true));
  await hit;
  const other = store.rateLimit.hit('other', 1001, 1, 60_000);
  const second = store.rateLimit.hit('k', 1002, 1, 60_000);
  // On PostgreSQL another key is not held up: it is answered while the first is still open
  // (SQLite has one writer, so there it waits its turn).
  if (kind === 'postgresql') {
    assert.deepEqual(await other, { allowed: true, remaining: 0 });
    assert.equal(firstEnded, false, 'another key waits for nothing');
  }
  release();
  assert.deepEqual(await other, { allowed: true, remaining: 0 });
  assert.deepEqual(await Promise.all([first, second]), [
    { allowed: true, remaining: 0 },
    { allowed: false, retryAfterMs: 59_998 },
  ]);
});

testOnBothStores('rateLimit: many requests at once admit exactly max', async (store) => {
  const decisions = await Promise.all(Array.from({ length: 24 }, (_, i) => store.rateLimit.hit(`k${i % 2}`, 5000 + i, 5, 60_000)));
  for (const key of [0, 1]) {
    const mine = decisions.filter((_, i) => i % 2 === key);
    assert.equal(mine.filter((d) => d.allowed).length, 5, `key k${key}`);
    assert.deepEqual(mine.flatMap((d) => (d.allowed ? [d.remaining] : [])).sort(), [0, 1, 2, 3, 4]);
  }
});
