/**
 * No event is lost: a delivery that used its retries stays failed with its payload, can be
 * listed, and is sent again on request with the same webhook-id and body, through the normal
 * dispatcher, with a fresh set of retries. Real store, real loopback receivers (refusing, then
 * up at the same address; answering 500), the injected clock advanced past every retry.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { addWebhook } from '../../../src/core/webhooks/webhooks.js';
import { deliverDueWebhooks, webhookDeliveries, webhookSettings } from '../../../src/core/webhooks/delivery.js';
import {
  failedWebhookDeliveries,
  redeliverFailedWebhookDeliveries,
  redeliverWebhookDelivery,
} from '../../../src/core/webhooks/redelivery.js';
import { AppError } from '../../../src/shared/errors.js';
import type { Store } from '../../../src/store/open-store.js';
import { fixture, tempStore } from '../../helpers/temp-home.js';
import { closedPortUrl, startReceiver } from '../../helpers/webhook-receiver.js';

const SECRET = 'redelivery-secret-0123456789abcdef';
const settings = webhookSettings({}, { connectTimeoutMs: 2000, responseTimeoutMs: 2000, leaseMs: 10_000, concurrency: 2 });
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const DAT_LINES = readFileSync(fixture('popstan-census.dat'), 'utf8')
  .replace(/^\uFEFF/, '')
  .split('\n')
  .filter((l) => l !== '');
/** The lines of the first `n` cases of the census file (a case is consecutive lines with one key). */
function firstCases(n: number): string[] {
  const keys = new Set<string>();
  const out: string[] = [];
  for (const l of DAT_LINES) {
    keys.add(l.slice(1, 19));
    if (keys.size > n) break;
    out.push(l);
  }
  return out;
}

async function newStore(): Promise<{ store: Store; dir: string }> {
  const t = await tempStore();
  cleanups.push(() => t.cleanup());
  return { store: t.store, dir: t.home.root };
}

async function importFirst(store: Store, dir: string, n: number): Promise<void> {
  const file = fixture('popstan-census.json.dcf');
  const dict = (await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file })).name;
  const dat = join(dir, `first-${n}.dat`);
  writeFileSync(dat, firstCases(n).join('\n') + '\n');
  await importCases(store, dict, [dat]);
}

/** Runs the dispatcher on the injected clock, jumping to each next due time, until nothing waits. */
async function runUntilSettled(store: Store, clock: { now: number }): Promise<string[]> {
  const dues: string[] = [];
  for (;;) {
    const r = await deliverDueWebhooks(store, { now: () => clock.now, settings });
    if (r.next_due === null) return dues;
    dues.push(r.next_due);
    clock.now = Date.parse(r.next_due);
  }
}

function appError(code: string, re?: RegExp) {
  return (e: unknown) => e instanceof AppError && e.code === code && (!re || re.test(e.message));
}

test('a receiver refusing connections through every retry: the deliveries stay failed with payload and webhook-id, and are redelivered once it is up', async () => {
  const { store, dir } = await newStore();
  const url = await closedPortUrl();
  const hook = await addWebhook(store, { name: 'down', url, events: ['case_uploaded'], secret: SECRET });
  await importFirst(store, dir, 3);
  const clock = { now: T0 };
  const dues = await runUntilSettled(store, clock);
  // The three deliveries fail together at +0, +1, +6 and +21 minutes.
  assert.deepEqual(dues, ['2030-01-01T12:01:00.000Z', '2030-01-01T12:06:00.000Z', '2030-01-01T12:21:00.000Z']);

  const failed = await failedWebhookDeliveries(store, hook.id, 50);
  assert.equal(failed.failed, 3);
  assert.equal(failed.deliveries.length, 3);
  const stored = await store.webhookQueue.deliveries(hook.id);
  for (const [i, d] of failed.deliveries.entries()) {
    assert.equal(d.status, 'failed');
    assert.equal(d.event, 'case_uploaded');
    assert.equal(d.attempts, 4);
    assert.equal(d.redeliveries, 0);
    assert.equal(d.next_attempt_at, undefined);
    assert.equal(d.last_attempted_at, '2030-01-01T12:21:00.000Z');
    assert.equal(d.last_response_status, null);
    assert.match(d.last_error!, /ECONNREFUSED/);
    // The payload is the stored body, the one every attempt sent.
    assert.equal(d.id, stored[i]!.id);
    assert.equal(d.message_id, stored[i]!.messageId);
    assert.equal(JSON.stringify(d.payload), stored[i]!.body);
    assert.equal((d.payload as any).event, 'case_uploaded');
    assert.equal((d.payload as any).webhook_id, hook.id);
  }
  assert.equal(new Set(failed.deliveries.map((d) => (d.payload as any).data.case_id)).size, 3);
  // The limit bounds the list, oldest first; the count stays whole.
  const one = await failedWebhookDeliveries(store, hook.id, 1);
  assert.deepEqual([one.failed, one.deliveries.map((d) => d.id)], [3, [failed.deliveries[0]!.id]]);

  // A day later they are still there and nothing is sent.
  clock.now = T0 + 86_400_000;
  assert.equal((await deliverDueWebhooks(store, { now: () => clock.now, settings })).attempted, 0);
  assert.equal((await failedWebhookDeliveries(store, hook.id, 50)).failed, 3);

  // The receiver comes up at the same address; one delivery is redelivered.
  const rx = await startReceiver(() => 200, { port: Number(new URL(url).port) });
  cleanups.push(() => rx.close());
  const target = failed.deliveries[1]!;
  const queued = await redeliverWebhookDelivery(store, hook.id, target.id, { now: () => clock.now });
  assert.deepEqual(
    [queued.id, queued.status, queued.redeliveries, queued.attempts, queued.next_attempt_at],
    [target.id, 'pending', 1, 4, new Date(clock.now).toISOString()],
  );
  // Queued again, it is not failed: a second redelivery is refused and the listing drops it.
  await assert.rejects(redeliverWebhookDelivery(store, hook.id, target.id, { now: () => clock.now }), appError('CONFLICT', /still queued/));
  assert.deepEqual(
    (await failedWebhookDeliveries(store, hook.id, 50)).deliveries.map((d) => d.id),
    [failed.deliveries[0]!.id, failed.deliveries[2]!.id],
  );

  const r = await deliverDueWebhooks(store, { now: () => clock.now, settings });
  assert.deepEqual([r.attempted, r.succeeded, r.pending], [1, 1, 0]);
  assert.equal(rx.received.length, 1);
  const got = rx.received[0]!;
  assert.equal(got.headers['webhook-id'], target.message_id);
  assert.equal(got.body.toString('utf8'), stored[1]!.body);
  // Signed for this attempt: the current timestamp, both signatures valid.
  assert.equal(got.headers['webhook-timestamp'], String(clock.now / 1000));
  const signed = `${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body.toString('utf8')}`;
  assert.equal(got.headers['webhook-signature'], `v1,${createHmac('sha256', Buffer.from(SECRET)).update(signed).digest('base64')}`);
  assert.equal(got.headers['x-service-signature'], `sha256=${createHmac('sha256', SECRET).update(got.body).digest('hex')}`);
  await assert.rejects(redeliverWebhookDelivery(store, hook.id, target.id), appError('CONFLICT', /was delivered/));

  // The history tells the rounds apart; the delivery shows what happened.
  const h = await webhookDeliveries(store, hook.id, 1000);
  assert.deepEqual([h.total_deliveries, h.successful, h.failed], [13, 1, 12]);
  const last = h.deliveries[0]!;
  assert.deepEqual([last.delivery_id, last.status, last.redelivery, last.retry_count], [target.id, 'success', 1, undefined]);
  assert.ok(h.deliveries.slice(1).every((a) => a.redelivery === undefined));

  // --all-failed: the other two, in one step; again, nothing is left to redeliver.
  const all = await redeliverFailedWebhookDeliveries(store, hook.id, { now: () => clock.now });
  assert.deepEqual(all, { webhook_id: hook.id, redelivered: 2, delivery_ids: [failed.deliveries[0]!.id, failed.deliveries[2]!.id] });
  await deliverDueWebhooks(store, { now: () => clock.now, settings });
  assert.deepEqual(
    rx.received.slice(1).map((x) => [x.headers['webhook-id'], x.body.toString('utf8')]),
    [0, 2].map((i) => [failed.deliveries[i]!.message_id, stored[i]!.body]),
  );
  assert.equal((await failedWebhookDeliveries(store, hook.id, 50)).failed, 0);
  assert.deepEqual((await redeliverFailedWebhookDeliveries(store, hook.id)).redelivered, 0);
});

test('a redelivery that fails again gets a fresh set of retries, then is failed again with the same webhook-id', async () => {
  const { store, dir } = await newStore();
  let up = false;
  const rx = await startReceiver(() => (up ? 200 : 500));
  cleanups.push(() => rx.close());
  const hook = await addWebhook(store, { name: 'flaky', url: rx.url, events: ['case_uploaded'], secret: SECRET });
  await importFirst(store, dir, 1);
  const clock = { now: T0 };
  await runUntilSettled(store, clock);
  assert.equal(rx.received.length, 4);
  const [d] = (await failedWebhookDeliveries(store, hook.id, 50)).deliveries;
  assert.deepEqual([d!.attempts, d!.last_response_status, d!.last_error], [4, 500, 'the receiver answered HTTP 500']);

  clock.now = T0 + 3_600_000;
  await redeliverWebhookDelivery(store, hook.id, d!.id, { now: () => clock.now });
  const dues = await runUntilSettled(store, clock);
  assert.deepEqual(dues, ['2030-01-01T13:01:00.000Z', '2030-01-01T13:06:00.000Z', '2030-01-01T13:21:00.000Z']);
  assert.equal(rx.received.length, 8);
  assert.equal(new Set(rx.received.map((x) => x.headers['webhook-id'])).size, 1);
  assert.equal(new Set(rx.received.map((x) => x.body.toString('hex'))).size, 1);

  const again = (await failedWebhookDeliveries(store, hook.id, 50)).deliveries;
  assert.deepEqual(
    again.map((x) => [x.id, x.attempts, x.redeliveries, x.last_attempted_at]),
    [[d!.id, 8, 1, '2030-01-01T13:21:00.000Z']],
  );
  const h = await webhookDeliveries(store, hook.id, 1000);
  assert.deepEqual(
    h.deliveries.map((a) => [a.retry_count, a.redelivery ?? 0]),
    [
      [3, 1],
      [2, 1],
      [1, 1],
      [0, 1],
      [3, 0],
      [2, 0],
      [1, 0],
      [0, 0],
    ],
  );

  // Second redelivery, the receiver is up: delivered, the same event still.
  up = true;
  await redeliverWebhookDelivery(store, hook.id, d!.id, { now: () => clock.now });
  await deliverDueWebhooks(store, { now: () => clock.now, settings });
  assert.equal(rx.received.length, 9);
  assert.deepEqual(rx.received[8]!.body, rx.received[0]!.body);
  assert.equal(rx.received[8]!.headers['webhook-id'], d!.message_id);
  assert.equal((await webhookDeliveries(store, hook.id, 1)).deliveries[0]!.redelivery, 2);
});

test('unknown webhook or delivery, a delivery of another webhook, a pending one: NOT_FOUND and CONFLICT', async () => {
  const { store, dir } = await newStore();
  const url = await closedPortUrl();
  const a = await addWebhook(store, { name: 'a', url, events: ['case_uploaded'], secret: SECRET });
  const b = await addWebhook(store, { name: 'b', url, events: ['case_uploaded'], secret: SECRET });
  await importFirst(store, dir, 1);
  const clock = { now: T0 };
  // First attempt fails: pending, waiting for its retry.
  await deliverDueWebhooks(store, { now: () => clock.now, settings });
  const [pa] = await store.webhookQueue.deliveries(a.id);
  await assert.rejects(redeliverWebhookDelivery(store, a.id, pa!.id), appError('CONFLICT', /still queued/));
  await assert.rejects(
    redeliverWebhookDelivery(store, b.id, pa!.id),
    appError('NOT_FOUND', new RegExp(`webhook ${b.id} has no delivery ${pa!.id}`)),
  );
  await assert.rejects(redeliverWebhookDelivery(store, a.id, 999_999), appError('NOT_FOUND'));
  await assert.rejects(redeliverWebhookDelivery(store, 999, pa!.id), appError('NOT_FOUND', /webhook 999 not found/));
  await assert.rejects(failedWebhookDeliveries(store, 999, 50), appError('NOT_FOUND'));
  await assert.rejects(redeliverFailedWebhookDeliveries(store, 999), appError('NOT_FOUND'));
  // Only the failed ones of the named webhook are re-queued.
  await runUntilSettled(store, clock);
  assert.deepEqual(
    [(await failedWebhookDeliveries(store, a.id, 50)).failed, (await failedWebhookDeliveries(store, b.id, 50)).failed],
    [1, 1],
  );
  assert.equal((await redeliverFailedWebhookDeliveries(store, a.id, { now: () => clock.now })).redelivered, 1);
  assert.deepEqual(
    [(await failedWebhookDeliveries(store, a.id, 50)).failed, (await failedWebhookDeliveries(store, b.id, 50)).failed],
    [0, 1],
  );
});
