/**
 * The store contract of `store.settings` (docs/architecture.md#the-store-contract): every method on
 * both stores with the same answers, and getOrCreate's first writer winning with two writers at
 * once (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { testOnBothStores } from '../../helpers/store-kinds.js';

testOnBothStores('settings: get, set, getOrCreate and serverDeviceId', async (store) => {
  assert.equal(await store.settings.get('colour'), undefined);
  await store.settings.set('colour', 'blue');
  assert.equal(await store.settings.get('colour'), 'blue');
  await store.settings.set('colour', 'green');
  assert.equal(await store.settings.get('colour'), 'green');
  await store.settings.set('empty', '');
  assert.equal(await store.settings.get('empty'), '');

  let made = 0;
  const make = () => `made-${++made}`;
  assert.equal(await store.settings.getOrCreate('key', make), 'made-1');
  assert.equal(await store.settings.getOrCreate('key', make), 'made-1');
  assert.equal(made, 1, 'make runs only when the value is absent');
  assert.equal(await store.settings.getOrCreate('colour', make), 'green');
  assert.equal(made, 1);

  const id = await store.settings.serverDeviceId();
  assert.match(id, /^[0-9a-f]{32}$/);
  assert.equal(await store.settings.serverDeviceId(), id);
  assert.equal(await store.settings.get('server_device_id'), id);

  // Inside a transaction: seen by the transaction, gone with its rollback.
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.settings.set('colour', 'red');
      assert.equal(await tx.settings.getOrCreate('fresh', () => 'inside'), 'inside');
      assert.equal(await tx.settings.get('colour'), 'red');
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal(await store.settings.get('colour'), 'green');
  assert.equal(await store.settings.get('fresh'), undefined);
  await store.transaction(async (tx) => tx.settings.set('colour', 'red'));
  assert.equal(await store.settings.get('colour'), 'red');
});

testOnBothStores('settings: getOrCreate with two writers at once, the first wins', async (store) => {
  let firstWrote!: () => void;
  const wrote = new Promise<void>((resolve) => (firstWrote = resolve));
  const first = store.transaction(async (tx) => {
    const v = await tx.settings.getOrCreate('shared', () => 'first');
    firstWrote();
    // Still uncommitted while the second writer reads, makes its own value and inserts.
    await sleep(300);
    return v;
  });
  await wrote;
  const second = store.settings.getOrCreate('shared', () => 'second');
  assert.deepEqual(await Promise.all([first, second]), ['first', 'first']);
  assert.equal(await store.settings.get('shared'), 'first');

  // Many at once on a new name: every caller gets the one value stored.
  const values = await Promise.all(Array.from({ length: 8 }, (_, i) => store.settings.getOrCreate('many', () => `v${i}`)));
  const stored = await store.settings.get('many');
  assert.ok(stored !== undefined);
  assert.deepEqual(values, Array(8).fill(stored));
});
