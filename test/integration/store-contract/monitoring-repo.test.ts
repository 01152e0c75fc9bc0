/**
 * The store contract of `store.monitoring` (docs/architecture.md#the-store-contract): the
 * counters, the webhook queue depth, the schema version, the store's size and the write probe on
 * both stores.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import type { NewDelivery } from '../../../src/store/webhook-queue-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

testOnBothStores('monitoring: counters, queueDepth, schemaVersion, sizes and probeWrite', async (store, kind) => {
  // A new store holds the two breakout sums at zero.
  assert.deepEqual(await store.monitoring.counters(), [
    { name: 'breakout_cases', label: '', value: 0 },
    { name: 'breakout_seconds', label: '', value: 0 },
  ]);
  assert.deepEqual(await store.monitoring.queueDepth(1000), { due: 0, waiting: 0, failed: 0 });

  const active = await store.webhooks.create({
    name: 'on',
    url: 'http://127.0.0.1:9/on',
    events: ['case.created'],
    active: true,
    secret: 's',
  });
  const paused = await store.webhooks.create({
    name: 'off',
    url: 'http://127.0.0.1:9/off',
    events: ['case.created'],
    active: false,
    secret: 's',
  });
  let n = 0;
  const add = (webhookId: number, state: NewDelivery['state'], nextAttemptMs: number | null) =>
    store.webhookQueue.addDelivery({
      webhookId,
      event: 'case.created',
      messageId: `m${++n}`,
      body: '{}',
      state,
      nextAttemptMs,
      createdAt: '2024-01-01T00:00:00.000Z',
    });
  const first = await add(active.id, 'pending', 500);
  await add(active.id, 'pending', 1000); // due at exactly now
  await add(active.id, 'pending', 1001);
  await add(active.id, 'pending', null);
  await add(active.id, 'failed', null);
  await add(active.id, 'success', null);
  // A paused webhook's deliveries are not counted.
  await add(paused.id, 'pending', 0);
  await add(paused.id, 'failed', null);
  assert.deepEqual(await store.monitoring.queueDepth(1000), { due: 2, waiting: 2, failed: 1 });
  assert.deepEqual(await store.monitoring.queueDepth(0), { due: 0, waiting: 4, failed: 1 });
  assert.deepEqual(await store.monitoring.queueDepth(5000), { due: 3, waiting: 1, failed: 1 });

  // The counters kept by the attempts trigger, by name then label.
  const attempt = (status: 'success' | 'failed') =>
    store.webhookQueue.addAttempt({
      deliveryId: first,
      webhookId: active.id,
      event: 'case.created',
      status,
      responseStatus: status === 'success' ? 200 : 500,
      responseMs: 12,
      error: null,
      retryCount: 0,
      redelivery: 0,
      attemptedAt: '2024-01-01T00:00:01.000Z',
    });
  await attempt('success');
  await attempt('failed');
  await attempt('success');
  assert.deepEqual(await store.monitoring.counters(), [
    { name: 'breakout_cases', label: '', value: 0 },
    { name: 'breakout_seconds', label: '', value: 0 },
    { name: 'webhook_attempts', label: 'failed', value: 1 },
    { name: 'webhook_attempts', label: 'success', value: 2 },
  ]);

  const version = await store.monitoring.schemaVersion();
  assert.equal(version, store.migration.to);
  assert.ok(version >= 25);
  await store.monitoring.probeWrite();
  assert.equal(await store.monitoring.schemaVersion(), version, 'the probe changes nothing');
  await store.monitoring.probeWrite();
  assert.deepEqual(await store.monitoring.queueDepth(1000), { due: 2, waiting: 2, failed: 1 });

  // The store's size: sds.db and its WAL, or the PostgreSQL database (its WAL is the server's).
  const sizes = await store.monitoring.sizes();
  assert.ok(sizes.storeBytes > 0);
  if (kind === 'sqlite') {
    assert.equal(sizes.storeBytes, statSync(store.home.db).size);
    assert.ok(sizes.walBytes > 0, 'writes are in the WAL until a checkpoint');
  } else assert.equal(sizes.walBytes, 0);

  // Inside a transaction, reads see its own writes.
  await store.transaction(async (tx) => {
    await tx.webhookQueue.addDelivery({
      webhookId: active.id,
      event: 'case.created',
      messageId: 'tx',
      body: '{}',
      state: 'failed',
      nextAttemptMs: null,
      createdAt: '2024-01-01T00:00:00.000Z',
    });
    assert.deepEqual(await tx.monitoring.queueDepth(1000), { due: 2, waiting: 2, failed: 2 });
    assert.equal(await tx.monitoring.schemaVersion(), version);
    assert.equal((await tx.monitoring.counters()).length, 4);
  });
});
