/**
 * Retention of the sync messages (docs/logs.md#retention, docs/sync.md#messages) over a real
 * store, with the times given to the code rather than waited for: messages are received at
 * chosen times through receiveSyncMessage, then pruneLogs and the automatic prune run at NOW.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { autoPruneLogs, logSettingsFrom, pruneLogs, pruneSummary } from '../../../src/core/logs/index.js';
import { listSyncMessages, receiveSyncMessage } from '../../../src/core/sync/index.js';
import type { Store } from '../../../src/store/open-store.js';
import { tempStore } from '../../helpers/temp-home.js';

const NOW = new Date('2026-06-30T12:00:00Z');
const DAY = 86_400_000;
const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY);

/** A message named `name` received `age` days before NOW. */
async function received(store: Store, name: string, age: number): Promise<void> {
  await receiveSyncMessage(store, { timestamp: '2026-06-01 10:00', name, value: age }, 'tablet-1', 'field', daysAgo(age));
}

const names = async (store: Store) => (await listSyncMessages(store, { limit: 1000 })).data.map((m) => m.name);

test('messages older than message_retention_days go, recent ones stay, a dry run deletes nothing', async () => {
  const t = await tempStore();
  try {
    const settings = { ...logSettingsFrom({}, {}), messageRetentionDays: 30 };
    await received(t.store, 'ancient', 400);
    await received(t.store, 'old', 31);
    await received(t.store, 'edge', 29.9);
    await received(t.store, 'recent', 1);

    const dry = await pruneLogs(t.store, { now: NOW, settings, dryRun: true });
    assert.equal(dry.kinds.messages.rows, 2);
    assert.deepEqual(dry.messages, { older_than_days: 30, keep: 100_000, cutoff: daysAgo(30).toISOString() });
    assert.equal((await names(t.store)).length, 4, 'a dry run deletes nothing');

    const r = await pruneLogs(t.store, { now: NOW, settings });
    assert.deepEqual(r.kinds.messages, { rows: 2, files: 0, bytes: 0 });
    assert.equal(r.total.rows, 2);
    assert.deepEqual(await names(t.store), ['recent', 'edge']);
    assert.match(pruneSummary(r), /; messages: 2 rows$/);

    assert.equal((await pruneLogs(t.store, { now: NOW, settings })).kinds.messages.rows, 0, 'nothing left to prune');
  } finally {
    await t.cleanup();
  }
});

test('beyond message_retention_count the oldest go, however recent', async () => {
  const t = await tempStore();
  try {
    const settings = { ...logSettingsFrom({}, {}), messageRetentionCount: 3 };
    for (let i = 1; i <= 5; i++) await received(t.store, `m${i}`, 6 - i); // m5 is the newest
    const r = await pruneLogs(t.store, { now: NOW, settings });
    assert.equal(r.kinds.messages.rows, 2);
    assert.equal(r.messages.keep, 3);
    assert.deepEqual(await names(t.store), ['m5', 'm4', 'm3']);
    // Exactly at the count: nothing more goes.
    assert.equal((await pruneLogs(t.store, { now: NOW, settings })).kinds.messages.rows, 0);
  } finally {
    await t.cleanup();
  }
});

test('--older-than and --keep rule the messages too; the logs rules do not otherwise', async () => {
  const t = await tempStore();
  try {
    const settings = logSettingsFrom({}, {}); // logs 30 days and 1000, messages 90 days and 100000
    await received(t.store, 'sixty', 60);
    await received(t.store, 'ten', 10);
    await received(t.store, 'two', 2);
    await received(t.store, 'one', 1);

    assert.equal((await pruneLogs(t.store, { now: NOW, settings })).kinds.messages.rows, 0, '60 days is within the messages’ 90');
    const aged = await pruneLogs(t.store, { now: NOW, settings, olderThanDays: '7' });
    assert.equal(aged.kinds.messages.rows, 2);
    assert.deepEqual(aged.messages, { older_than_days: 7, keep: 100_000, cutoff: daysAgo(7).toISOString() });
    const counted = await pruneLogs(t.store, { now: NOW, settings, keep: 1 });
    assert.equal(counted.kinds.messages.rows, 1);
    assert.deepEqual(await names(t.store), ['one']);
    assert.equal((await pruneLogs(t.store, { now: NOW, settings, keep: 0 })).kinds.messages.rows, 1, 'keep 0: every message');
    assert.deepEqual(await names(t.store), []);
  } finally {
    await t.cleanup();
  }
});

test('the automatic prune (serve, scheduler-run) prunes messages with the rest, once per interval', async () => {
  const t = await tempStore();
  try {
    const settings = logSettingsFrom({}, {});
    await received(t.store, 'stale', 91);
    await received(t.store, 'fresh', 89);
    assert.equal((await autoPruneLogs(t.store, { now: NOW, settings }))?.kinds.messages.rows, 1);
    await received(t.store, 'stale again', 100);
    assert.equal(await autoPruneLogs(t.store, { now: new Date(NOW.getTime() + 30 * 60_000), settings }), undefined, 'not due yet');
    assert.deepEqual(await names(t.store), ['stale again', 'fresh']);
    assert.equal((await autoPruneLogs(t.store, { now: new Date(NOW.getTime() + 60 * 60_000), settings }))?.kinds.messages.rows, 1);
    assert.deepEqual(await names(t.store), ['fresh']);
  } finally {
    await t.cleanup();
  }
});
