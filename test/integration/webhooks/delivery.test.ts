/**
 * Events and deliveries over a real store and real loopback receivers: what each writer emits,
 * both signature forms checked by independent HMAC computations (and by the Standard Webhooks
 * reference library), retries on an injected clock, and the rules for disabled and deleted
 * webhooks.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { deleteCase } from '../../../src/core/cases/delete.js';
import { listCases } from '../../../src/core/cases/list.js';
import { addWebhook, removeWebhook, updateWebhook } from '../../../src/core/webhooks/webhooks.js';
import { deliverDueWebhooks, webhookDeliveries, webhookSettings } from '../../../src/core/webhooks/delivery.js';
import type { Store } from '../../../src/store/open-store.js';
import { fixture, tempStore } from '../../helpers/temp-home.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';

const DAT_LINES = readFileSync(fixture('popstan-census.dat'), 'utf8')
  .replace(/^\uFEFF/, '')
  .split('\n')
  .filter((l) => l !== '');
const keyOf = (line: string) => line.slice(1, 19);
/** The lines of the first `n` cases of the census file. */
function firstCases(n: number): string[] {
  const keys: string[] = [];
  return DAT_LINES.filter((l) => {
    if (!keys.includes(keyOf(l))) keys.push(keyOf(l));
    return keys.indexOf(keyOf(l)) < n;
  });
}

const SECRET = 'a-shared-secret-of-32-characters';
const settings = webhookSettings({}, { connectTimeoutMs: 2000, responseTimeoutMs: 2000, leaseMs: 10_000, concurrency: 2 });
const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function setup(answer?: Parameters<typeof startReceiver>[0]): Promise<{ store: Store; dir: string; rx: Receiver }> {
  const t = await tempStore();
  const rx = await startReceiver(answer);
  cleanups.push(
    () => t.cleanup(),
    () => rx.close(),
  );
  return { store: t.store, dir: t.home.root, rx };
}

async function uploadPopstan(store: Store): Promise<string> {
  const file = fixture('popstan-census.json.dcf');
  return (await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file })).name;
}

test('import, modification, verification and delete emit their events once, with the changes map; both signatures verify', async () => {
  const { store, dir, rx } = await setup();
  const hook = await addWebhook(store, {
    name: 'all',
    url: rx.url,
    events: ['case_uploaded', 'case_modified', 'case_deleted', 'dictionary_uploaded'],
    secret: SECRET,
  });
  const dict = await uploadPopstan(store);
  const lines = firstCases(3);
  const file = join(dir, 'three.dat');
  writeFileSync(file, lines.join('\r\n') + '\r\n');
  await importCases(store, dict, [file]);
  // Re-importing the same file changes nothing: no event.
  await importCases(store, dict, [file]);
  // Person 2 of the first case gets age 45 instead of 32.
  const changed = [...lines];
  changed[1] = changed[1]!.slice(0, 23) + '45' + changed[1]!.slice(25);
  writeFileSync(file, changed.join('\n'));
  await importCases(store, dict, [file]);
  const first = (await listCases(store, dict, { limit: 10, offset: 0 })).data.find((c) => c.case_label === keyOf(lines[0]!))!;
  await deleteCase(store, dict, first.guid);

  const report = await deliverDueWebhooks(store, { settings });
  assert.equal(report.queued, 6);
  assert.equal(report.succeeded, 6);
  assert.equal(rx.received.length, 6);
  const events = rx.received.map((r) => r.json.event);
  assert.deepEqual(events, ['dictionary_uploaded', 'case_uploaded', 'case_uploaded', 'case_uploaded', 'case_modified', 'case_deleted']);

  const [dictEvent, up1, , , modified, deleted] = rx.received.map((r) => r.json);
  assert.deepEqual(dictEvent.data, { dictionary: 'CEN2000', label: 'popstan', version: dictEvent.data.version, created: true });
  assert.equal(up1.webhook_id, hook.id);
  assert.equal(up1.data.dictionary, 'CEN2000');
  assert.equal(up1.data.case.case_label, keyOf(lines[0]!));
  assert.deepEqual(Object.keys(up1.data.case).sort(), ['case_label', 'deleted', 'guid', 'modified_date', 'verified']);
  assert.equal(up1.data.case_id, up1.data.case.guid);
  assert.deepEqual(modified.data.changes, { 'PERSON[2].P04_AGE': { old: Number(lines[1]!.slice(23, 25)), new: 45 } });
  assert.equal(modified.data.case.guid, first.guid);
  assert.deepEqual(deleted.data, { case_id: first.guid, dictionary: 'CEN2000' });

  // Timestamps of one webhook are distinct, so (webhook_id, timestamp) names one event.
  assert.equal(new Set(rx.received.map((r) => r.json.timestamp)).size, 6);

  for (const r of rx.received) {
    const expectHex = createHmac('sha256', SECRET).update(r.body).digest('hex');
    assert.equal(r.headers['x-service-signature'], `sha256=${expectHex}`);
    const signed = `${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body.toString('utf8')}`;
    assert.equal(r.headers['webhook-signature'], `v1,${createHmac('sha256', Buffer.from(SECRET)).update(signed).digest('base64')}`);
    assert.match(r.headers['webhook-id']!, /^msg_[A-Za-z0-9_-]+$/);
    // The reference library, with a non-whsec secret given in its raw form.
    assert.deepEqual(new Webhook(SECRET, { format: 'raw' }).verify(r.body.toString('utf8'), r.headers), r.json);
  }
  assert.equal(new Set(rx.received.map((r) => r.headers['webhook-id'])).size, 6);

  // Nothing left: a second pass sends nothing.
  const again = await deliverDueWebhooks(store, { settings });
  assert.equal(again.attempted, 0);
});

test('a generated whsec_ secret verifies with the Standard Webhooks library as given', async () => {
  const { store, rx } = await setup();
  const hook = await addWebhook(store, { name: 'dict', url: rx.url, events: ['dictionary_uploaded'] });
  assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  await uploadPopstan(store);
  await deliverDueWebhooks(store, { settings });
  const r = rx.received[0]!;
  assert.equal(new Webhook(hook.secret).verify(r.body, r.headers) !== undefined, true);
  const key = Buffer.from(hook.secret.slice('whsec_'.length), 'base64');
  const signed = `${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body.toString('utf8')}`;
  assert.equal(r.headers['webhook-signature'], `v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
  assert.equal(r.headers['x-service-signature'], `sha256=${createHmac('sha256', hook.secret).update(r.body).digest('hex')}`);
});

test('a receiver answering 500 then 200: two attempts, the retry due exactly 1 minute after the failure', async () => {
  const { store, rx } = await setup((i) => (i === 0 ? 500 : 200));
  const hook = await addWebhook(store, { name: 'd', url: rx.url, events: ['dictionary_uploaded'], secret: SECRET });
  await uploadPopstan(store);
  let now = Date.UTC(2030, 0, 1, 12, 0, 0);
  const clock = () => now;
  const r1 = await deliverDueWebhooks(store, { now: clock, settings });
  assert.deepEqual([r1.attempted, r1.retrying, r1.pending], [1, 1, 1]);
  assert.equal(r1.next_due, '2030-01-01T12:01:00.000Z');
  now += 59_999;
  assert.equal((await deliverDueWebhooks(store, { now: clock, settings })).attempted, 0);
  now += 1;
  const r2 = await deliverDueWebhooks(store, { now: clock, settings });
  assert.deepEqual([r2.attempted, r2.succeeded, r2.pending], [1, 1, 0]);
  assert.equal(rx.received.length, 2);
  assert.equal(rx.received[0]!.headers['webhook-id'], rx.received[1]!.headers['webhook-id']);
  assert.deepEqual(rx.received[0]!.body, rx.received[1]!.body);
  assert.equal(rx.received[0]!.headers['webhook-timestamp'], String(Date.UTC(2030, 0, 1, 12, 0, 0) / 1000));
  assert.equal(rx.received[1]!.headers['webhook-timestamp'], String(Date.UTC(2030, 0, 1, 12, 1, 0) / 1000));

  const h = await webhookDeliveries(store, hook.id);
  assert.deepEqual([h.total_deliveries, h.successful, h.failed], [2, 1, 1]);
  const [ok, failed] = h.deliveries;
  assert.equal(ok!.status, 'success');
  assert.equal(ok!.response_status, 200);
  assert.equal(ok!.attempted_at, '2030-01-01T12:01:00.000Z');
  assert.equal(ok!.retry_count, undefined);
  assert.equal(failed!.status, 'failed');
  assert.equal(failed!.response_status, 500);
  assert.equal(failed!.retry_count, 0);
  assert.equal(failed!.error, 'the receiver answered HTTP 500');
  assert.match(failed!.response_time, /^\d+ms$/);
});

test('a receiver that stays down gets 4 attempts at +0, +1, +6 and +21 minutes, then the delivery is failed (not sent again unless redelivered)', async () => {
  const { store, rx } = await setup(() => 503);
  const hook = await addWebhook(store, { name: 'd', url: rx.url, events: ['dictionary_uploaded'], secret: SECRET });
  await uploadPopstan(store);
  const t0 = Date.UTC(2030, 0, 1, 12, 0, 0);
  let now = t0;
  const clock = () => now;
  const dues: (string | null)[] = [];
  for (;;) {
    const r = await deliverDueWebhooks(store, { now: clock, settings });
    dues.push(r.next_due);
    if (r.next_due === null) break;
    now = Date.parse(r.next_due);
  }
  assert.deepEqual(dues, ['2030-01-01T12:01:00.000Z', '2030-01-01T12:06:00.000Z', '2030-01-01T12:21:00.000Z', null]);
  const h = await webhookDeliveries(store, hook.id);
  assert.deepEqual([h.total_deliveries, h.failed], [4, 4]);
  assert.deepEqual(
    h.deliveries.map((d) => d.retry_count),
    [3, 2, 1, 0],
  );
  // An hour later nothing more is sent: the event is recorded as failed after its last retry.
  now = t0 + 3_600_000;
  assert.equal((await deliverDueWebhooks(store, { now: clock, settings })).attempted, 0);
  assert.equal(rx.received.length, 4);
});

test('an inactive webhook receives nothing; a deleted one loses its pending deliveries; a new one gets only later changes', async () => {
  const { store, dir, rx } = await setup(() => 500);
  const off = await addWebhook(store, { name: 'off', url: rx.url, events: ['case_uploaded'], secret: SECRET, active: false });
  const doomed = await addWebhook(store, { name: 'doomed', url: rx.url, events: ['dictionary_uploaded'], secret: SECRET });
  const dict = await uploadPopstan(store);
  const file = join(dir, 'one.dat');
  writeFileSync(file, firstCases(1).join('\n'));
  await importCases(store, dict, [file]);
  const now = Date.UTC(2030, 0, 1);
  const r1 = await deliverDueWebhooks(store, { now: () => now, settings });
  assert.deepEqual([r1.queued, r1.attempted, r1.pending], [1, 1, 1]);
  await removeWebhook(store, doomed.id);
  const r2 = await deliverDueWebhooks(store, { now: () => now + 3_600_000, settings });
  assert.deepEqual([r2.attempted, r2.pending], [0, 0]);
  assert.equal(rx.received.length, 1);

  // Activated after the import: the earlier case is not sent to it.
  await updateWebhook(store, off.id, { active: true });
  const r3 = await deliverDueWebhooks(store, { now: () => now, settings });
  assert.equal(r3.queued, 0);
  assert.equal((await webhookDeliveries(store, off.id)).total_deliveries, 0);
});

test('a write that rolls back captures nothing', async () => {
  const { store, rx } = await setup();
  await addWebhook(store, { name: 'd', url: rx.url, events: ['dictionary_uploaded'], secret: SECRET });
  const file = fixture('popstan-census.json.dcf');
  await assert.rejects(
    store.transaction(async (tx) => {
      await uploadDictionary(tx, { source: readFileSync(file), label: 'popstan', file });
      throw new Error('abort');
    }),
  );
  assert.equal((await deliverDueWebhooks(store, { settings })).queued, 0);
});
