/**
 * The store contract of `store.webhookQueue` (docs/architecture.md#the-store-contract): every
 * method on the SQLite store and on the PostgreSQL store, with the same answers, and what must
 * hold with several writers at once (docs/decisions.md, "Concurrent writers on the PostgreSQL
 * store"): a writer discards only its own captures, two dispatchers never hold one delivery, two
 * fan-outs never turn one change into two deliveries, two redeliveries queue a delivery once.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store, StoreScope } from '../../../src/store/store-contract.js';
import type { AttemptRecord, NewDelivery } from '../../../src/store/webhook-queue-repo.js';
import { fanOut } from '../../../src/webhooks/fan-out.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { dictionary, heldTransaction, untilSomeoneWaits, within } from './race-fixtures.js';

const T0 = 1_800_000_000_000;
let serial = 0;

const delivery = (webhookId: number, extra: Partial<NewDelivery> = {}): NewDelivery => ({
  webhookId,
  event: 'case_uploaded',
  messageId: `msg-${++serial}`,
  body: `{"n":${serial}}`,
  state: 'pending',
  nextAttemptMs: T0,
  createdAt: '2027-01-15T08:00:00.000Z',
  ...extra,
});

const attempt = (deliveryId: number, webhookId: number, extra: Partial<AttemptRecord> = {}): AttemptRecord => ({
  deliveryId,
  webhookId,
  event: 'case_uploaded',
  status: 'failed',
  responseStatus: 500,
  responseMs: 12,
  error: 'HTTP 500',
  retryCount: 0,
  redelivery: 0,
  attemptedAt: '2027-01-15T08:00:01.000Z',
  ...extra,
});

async function webhook(store: Store, name: string, events = ['case_uploaded'], active = true): Promise<number> {
  return (await store.webhooks.create({ name, url: `https://example.org/${name}`, events, active, secret: `s-${name}` })).id;
}

/** Writes a new case (which the capture triggers put in the outbox while `case_uploaded` has subscribers). */
async function addCase(s: StoreScope, dictionaryId: number, guid: string): Promise<void> {
  const revision = await s.cases.nextRevision(dictionaryId, 'test');
  const c = {
    guid,
    caseKey: `key-${guid}`,
    label: `label ${guid}`,
    data: '{}',
    verified: false,
    deleted: false,
    clock: [],
    partialSave: null,
    notes: [],
  };
  await s.cases.upsert(dictionaryId, c, revision);
}

const outboxGuids = async (store: Store) => (await store.webhookQueue.outbox(1000)).map((r) => r.guid);

testOnBothStores('webhookQueue: deliveries, claims, completion and attempts', async (store) => {
  const w = await webhook(store, 'a');
  const off = await webhook(store, 'off', ['case_uploaded'], false);
  assert.deepEqual(await store.webhookQueue.deliveries(), []);
  assert.equal(await store.webhookQueue.hasDue(T0), false);
  assert.deepEqual(await store.webhookQueue.pending(), { count: 0, nextDueMs: null });
  assert.equal(await store.webhookQueue.claim(T0, T0 + 1000, 'tok', 'node-a'), undefined);

  const late = await store.webhookQueue.addDelivery(delivery(w, { nextAttemptMs: T0 + 500 }));
  const early = await store.webhookQueue.addDelivery(delivery(w, { nextAttemptMs: T0 - 500 }));
  const idle = await store.webhookQueue.addDelivery(delivery(off));
  const sent = await store.transaction(async (tx) => tx.webhookQueue.addDelivery(delivery(w, { state: 'success', nextAttemptMs: null })));
  assert.ok(late < early && early < idle && idle < sent);
  assert.deepEqual(
    (await store.webhookQueue.deliveries(w)).map((d) => [d.id, d.state, d.attempts, d.nextAttemptMs]),
    [
      [late, 'pending', 0, T0 + 500],
      [early, 'pending', 0, T0 - 500],
      [sent, 'success', 0, null],
    ],
  );
  const all = await store.webhookQueue.deliveries();
  assert.deepEqual(
    all.map((d) => d.id),
    [late, early, idle, sent],
  );
  assert.deepEqual(all[2], {
    id: idle,
    webhookId: off,
    event: 'case_uploaded',
    messageId: `msg-${serial - 1}`,
    body: `{"n":${serial - 1}}`,
    state: 'pending',
    attempts: 0,
    nextAttemptMs: T0,
    leaseNode: null,
    leaseUntilMs: null,
  });
  await assert.rejects(store.webhookQueue.addDelivery({ ...delivery(w), messageId: all[0]!.messageId }), 'message ids are unique');
  assert.deepEqual(await store.webhookQueue.pending(), { count: 2, nextDueMs: T0 - 500 }, 'active webhooks only');
  assert.equal(await store.webhookQueue.hasDue(T0 - 501), false);
  assert.equal(await store.webhookQueue.hasDue(T0), true);

  // The oldest due delivery of an active webhook, leased.
  const c1 = (await store.webhookQueue.claim(T0, T0 + 1000, 'tok-1', 'node-a'))!;
  assert.deepEqual(c1, {
    id: early,
    webhookId: w,
    event: 'case_uploaded',
    messageId: all[1]!.messageId,
    body: all[1]!.body,
    attempts: 0,
    redeliveries: 0,
    leaseToken: 'tok-1',
    url: 'https://example.org/a',
    secret: 's-a',
  });
  assert.equal(await store.webhookQueue.hasDue(T0), false, 'leased, and the other is not due yet');
  assert.equal(await store.webhookQueue.claim(T0, T0 + 1000, 'tok-2', 'node-a'), undefined);
  const c2 = (await store.webhookQueue.claim(T0 + 600, T0 + 2000, 'tok-2', 'node-a'))!;
  assert.equal(c2.id, late);
  // A lease that ran out can be claimed again, and the old holder loses it.
  const c3 = (await store.transaction(async (tx) => tx.webhookQueue.claim(T0 + 1500, T0 + 3000, 'tok-3', 'node-b')))!;
  assert.equal(c3.id, early);
  // The queue names the node holding each lease, and until when (migration 0029).
  assert.deepEqual(
    (await store.webhookQueue.deliveries(w)).map((d) => [d.id, d.leaseNode, d.leaseUntilMs]),
    [
      [late, 'node-a', T0 + 2000],
      [early, 'node-b', T0 + 3000],
      [sent, null, null],
    ],
  );

  assert.equal(await store.webhookQueue.complete('tok-1', attempt(early, w), { state: 'pending', nextAttemptMs: T0 + 9000 }), false);
  assert.deepEqual(await store.webhookQueue.attempts(w, 10), [], 'a lost lease writes nothing');
  assert.equal(
    await store.webhookQueue.complete('tok-3', attempt(early, w, { retryCount: 1 }), { state: 'pending', nextAttemptMs: T0 + 9000 }),
    true,
  );
  assert.equal(
    await store.webhookQueue.complete('tok-3', attempt(early, w), { state: 'success', nextAttemptMs: null }),
    false,
    'the lease ends with the completion',
  );
  assert.equal(
    await store.webhookQueue.complete('tok-2', attempt(late, w, { status: 'success', responseStatus: 204, error: null }), {
      state: 'success',
      nextAttemptMs: null,
    }),
    true,
  );
  const states = await store.webhookQueue.deliveries(w);
  assert.deepEqual(
    states.map((d) => [d.id, d.state, d.attempts, d.nextAttemptMs]),
    [
      [late, 'success', 1, null],
      [early, 'pending', 1, T0 + 9000],
      [sent, 'success', 0, null],
    ],
  );
  await store.webhookQueue.addAttempt(attempt(sent, w, { status: 'success', responseStatus: 200, error: null, event: 'test' }));

  const history = await store.webhookQueue.attempts(w, 10);
  assert.deepEqual(
    history.map((a) => [a.deliveryId, a.status, a.responseStatus, a.error, a.event]),
    [
      [sent, 'success', 200, null, 'test'],
      [late, 'success', 204, null, 'case_uploaded'],
      [early, 'failed', 500, 'HTTP 500', 'case_uploaded'],
    ],
    'newest first',
  );
  assert.deepEqual(history[2], {
    id: history[2]!.id,
    deliveryId: early,
    event: 'case_uploaded',
    status: 'failed',
    responseStatus: 500,
    responseMs: 12,
    error: 'HTTP 500',
    retryCount: 1,
    redelivery: 0,
    attemptedAt: '2027-01-15T08:00:01.000Z',
  });
  assert.deepEqual(
    (await store.webhookQueue.attempts(w, 1)).map((a) => a.deliveryId),
    [sent],
  );
  assert.deepEqual(await store.webhookQueue.attempts(off, 10), []);
  assert.deepEqual(await store.webhookQueue.attemptCounts(w), { total: 3, successful: 2, failed: 1 });
  assert.deepEqual(await store.webhookQueue.attemptCounts(off), { total: 0, successful: 0, failed: 0 });

  // Deleting the webhook takes its queue and history with it: a completion then writes nothing.
  const c4 = (await store.webhookQueue.claim(T0 + 9000, T0 + 10_000, 'tok-4', 'node-a'))!;
  assert.equal(c4.id, early);
  await store.webhooks.delete(w);
  assert.equal(await store.webhookQueue.complete('tok-4', attempt(early, w), { state: 'success', nextAttemptMs: null }), false);
  assert.deepEqual(
    (await store.webhookQueue.deliveries()).map((d) => d.id),
    [idle],
  );
});

testOnBothStores('webhookQueue: failed deliveries, views and redelivery', async (store) => {
  const w = await webhook(store, 'a');
  const other = await webhook(store, 'b');
  const f1 = await store.webhookQueue.addDelivery(delivery(w, { state: 'failed', nextAttemptMs: null }));
  const ok = await store.webhookQueue.addDelivery(delivery(w, { state: 'success', nextAttemptMs: null }));
  const f2 = await store.webhookQueue.addDelivery(delivery(w, { state: 'failed', nextAttemptMs: null }));
  const theirs = await store.webhookQueue.addDelivery(delivery(other, { state: 'failed', nextAttemptMs: null }));
  await store.webhookQueue.addAttempt(attempt(f1, w, { attemptedAt: '2027-01-15T08:00:01.000Z', responseStatus: 500 }));
  await store.webhookQueue.addAttempt(attempt(f1, w, { attemptedAt: '2027-01-15T08:00:02.000Z', responseStatus: null, error: 'timeout' }));

  assert.equal(await store.webhookQueue.countFailed(w), 2);
  assert.equal(await store.webhookQueue.countFailed(9999), 0);
  const failed = await store.webhookQueue.failedDeliveries(w, 10);
  assert.deepEqual(
    failed.map((d) => d.id),
    [f1, f2],
  );
  assert.deepEqual(failed[0], {
    id: f1,
    event: 'case_uploaded',
    messageId: failed[0]!.messageId,
    body: failed[0]!.body,
    state: 'failed',
    nextAttemptMs: null,
    redeliveries: 0,
    createdAt: '2027-01-15T08:00:00.000Z',
    totalAttempts: 2,
    lastAttemptedAt: '2027-01-15T08:00:02.000Z',
    lastResponseStatus: null,
    lastError: 'timeout',
  });
  assert.deepEqual(
    [failed[1]!.totalAttempts, failed[1]!.lastAttemptedAt, failed[1]!.lastResponseStatus, failed[1]!.lastError],
    [0, null, null, null],
  );
  assert.deepEqual(
    (await store.webhookQueue.failedDeliveries(w, 1)).map((d) => d.id),
    [f1],
  );
  // Views by id: in id order, repeats kept, other webhooks' and unknown ids left out.
  assert.deepEqual(
    (await store.webhookQueue.deliveryViews(w, [f2, 9999, theirs, ok, f2])).map((d) => [d.id, d.state]),
    [
      [ok, 'success'],
      [f2, 'failed'],
      [f2, 'failed'],
    ],
  );
  assert.deepEqual(await store.webhookQueue.deliveryViews(w, []), []);

  assert.deepEqual(await store.webhookQueue.redeliver(w, 9999, T0), { kind: 'missing' });
  assert.deepEqual(await store.webhookQueue.redeliver(w, theirs, T0), { kind: 'missing' }, 'another webhook’s delivery');
  assert.deepEqual(await store.webhookQueue.redeliver(w, ok, T0), { kind: 'not-failed', state: 'success' });
  assert.deepEqual(await store.webhookQueue.redeliver(w, f1, T0), { kind: 'queued', id: f1 });
  assert.deepEqual(await store.webhookQueue.redeliver(w, f1, T0), { kind: 'not-failed', state: 'pending' });
  const [view] = await store.webhookQueue.deliveryViews(w, [f1]);
  assert.deepEqual([view!.state, view!.nextAttemptMs, view!.redeliveries, view!.totalAttempts], ['pending', T0, 1, 2]);
  const claimed = (await store.webhookQueue.claim(T0, T0 + 1000, 'tok', 'node-a'))!;
  assert.deepEqual([claimed.id, claimed.attempts, claimed.redeliveries], [f1, 0, 1], 'a fresh set of attempts');

  assert.deepEqual(await store.transaction(async (tx) => tx.webhookQueue.redeliverAllFailed(w, T0 + 5)), [f2]);
  assert.deepEqual(await store.webhookQueue.redeliverAllFailed(w, T0 + 5), []);
  assert.equal(await store.webhookQueue.countFailed(w), 0);
  assert.equal(await store.webhookQueue.countFailed(other), 1);
  const f2State = (await store.webhookQueue.deliveries(w)).find((d) => d.id === f2)!;
  assert.deepEqual([f2State.state, f2State.attempts, f2State.nextAttemptMs], ['pending', 0, T0 + 5]);
});

testOnBothStores('webhookQueue: the outbox, and discarding a writer’s own captures', async (store) => {
  assert.equal(await store.webhookQueue.hasOutbox(), false);
  assert.equal(await store.webhookQueue.lastOutboxId(), 0);
  assert.deepEqual(await store.webhookQueue.outbox(10), []);
  const dict = await dictionary(store, 'ALPHA_DICT');
  await addCase(store, dict, 'before-webhook');
  assert.equal(await store.webhookQueue.hasOutbox(), false, 'nothing is captured while nobody subscribes');

  await webhook(store, 'a', ['case_uploaded']);
  const before = Date.now();
  await addCase(store, dict, 'g1');
  await store.transaction(async (tx) => {
    await addCase(tx, dict, 'g2');
    await addCase(tx, dict, 'g3');
  });
  assert.equal(await store.webhookQueue.hasOutbox(), true);
  const rows = await store.webhookQueue.outbox(10);
  assert.deepEqual(
    rows.map((r) => r.guid),
    ['g1', 'g2', 'g3'],
  );
  assert.ok(rows[0]!.createdMs >= before - 1000 && rows[0]!.createdMs <= Date.now() + 1000);
  assert.deepEqual(
    { ...rows[0]!, id: 0, createdMs: 0, modifiedAt: 'x' },
    {
      id: 0,
      topic: 'case',
      createdMs: 0,
      dictionaryId: dict,
      dictionaryName: 'ALPHA_DICT',
      guid: 'g1',
      old: null,
      new: { caseKey: 'key-g1', label: 'label g1', data: '', notes: '[]', verified: false, deleted: false },
      modifiedAt: 'x',
      dictLabel: null,
      dictVersion: null,
      dictCreated: null,
    },
  );
  assert.deepEqual(
    (await store.webhookQueue.outbox(2)).map((r) => r.guid),
    ['g1', 'g2'],
  );
  assert.equal(await store.webhookQueue.lastOutboxId(), rows[2]!.id);

  // A writer that must not raise events discards what it captured after its mark, and only that.
  await store.transaction(async (tx) => {
    const mark = await tx.webhookQueue.lastOutboxId();
    assert.equal(mark, rows[2]!.id);
    await addCase(tx, dict, 'quiet-1');
    // Captured inside a savepoint of the transaction, too.
    await tx.transaction(async (sp) => addCase(sp, dict, 'quiet-2'));
    assert.deepEqual(await outboxGuidsIn(tx), ['g1', 'g2', 'g3', 'quiet-1', 'quiet-2']);
    await tx.webhookQueue.discardCapturesAfter(mark);
    assert.deepEqual(await outboxGuidsIn(tx), ['g1', 'g2', 'g3']);
  });
  assert.deepEqual(await outboxGuids(store), ['g1', 'g2', 'g3']);

  await store.webhookQueue.deleteOutbox([rows[0]!.id, rows[2]!.id, 9999]);
  await store.webhookQueue.deleteOutbox([]);
  assert.deepEqual(await outboxGuids(store), ['g2']);
  assert.equal(await store.webhookQueue.lastOutboxId(), rows[1]!.id);
});

const outboxGuidsIn = async (tx: StoreScope) => (await tx.webhookQueue.outbox(1000)).map((r) => r.guid);

testOnBothStores('webhookQueue: a writer discards only its own captures while others capture', async (store, kind) => {
  const dict = await dictionary(store, 'ALPHA_DICT');
  await webhook(store, 'a', ['case_uploaded', 'dictionary_uploaded']);
  await addCase(store, dict, 'old');
  const captured = async () => (await store.webhookQueue.outbox(1000)).map((r) => r.guid ?? r.dictionaryName);

  // A quiet writer (an import that must not raise events) marks the outbox and writes cases.
  // Meanwhile another writer uploads a dictionary and commits, and a third uploads one and is
  // still in progress when the quiet writer discards: their captures have ids above the mark
  // and stay.
  let marked!: () => void;
  const isMarked = new Promise<void>((resolve) => (marked = resolve));
  let othersDone!: () => void;
  const othersAreDone = new Promise<void>((resolve) => (othersDone = resolve));
  const quiet = store.transaction(async (tx) => {
    const mark = await tx.webhookQueue.lastOutboxId();
    await addCase(tx, dict, 'quiet-1');
    marked();
    if (kind === 'postgresql') await within(othersAreDone, 'the other writers');
    await tx.transaction(async (sp) => addCase(sp, dict, 'quiet-2'));
    await tx.webhookQueue.discardCapturesAfter(mark);
  });
  await isMarked;
  if (kind === 'postgresql') {
    await within(dictionary(store, 'LOUD_DICT'), 'the committed writer');
    const slow = heldTransaction(store, (tx) => dictionary(tx, 'SLOW_DICT'));
    await within(slow.entered, 'the writer in progress');
    othersDone();
    await quiet;
    assert.deepEqual((await captured()).sort(), ['LOUD_DICT', 'old']);
    slow.release();
    await slow.done;
  } else {
    await Promise.all([quiet, dictionary(store, 'LOUD_DICT'), store.transaction(async (tx) => dictionary(tx, 'SLOW_DICT'))]);
  }
  assert.deepEqual((await captured()).sort(), ['LOUD_DICT', 'SLOW_DICT', 'old']);
});

testOnBothStores('webhookQueue: two dispatchers never hold the same delivery', async (store, kind) => {
  const w = await webhook(store, 'a');
  const d1 = await store.webhookQueue.addDelivery(delivery(w));
  const d2 = await store.webhookQueue.addDelivery(delivery(w));

  // The first claim is not committed yet when the second one runs: on PostgreSQL the second
  // skips the locked row (without waiting) and takes the next one.
  let secondDoneFirst = false;
  let firstCommitted = false;
  const first = heldTransaction(store, (tx) => tx.webhookQueue.claim(T0, T0 + 1000, 'tok-1', 'node-a'));
  await first.entered;
  const second = store.webhookQueue.claim(T0, T0 + 1000, 'tok-2', 'node-a').then((c) => {
    secondDoneFirst = !firstCommitted;
    return c;
  });
  if (kind === 'postgresql') await within(second, 'the second claim');
  first.release();
  const a = await first.done;
  firstCommitted = true;
  const b = await second;
  assert.deepEqual([a?.id, a?.leaseToken, b?.id, b?.leaseToken], [d1, 'tok-1', d2, 'tok-2']);
  assert.equal(secondDoneFirst, kind === 'postgresql', 'on PostgreSQL the second claim does not wait for the first');

  // One due delivery, two claims at once: one gets it, the other none.
  const d3 = await store.webhookQueue.addDelivery(delivery(w, { nextAttemptMs: T0 + 10 }));
  const third = heldTransaction(store, (tx) => tx.webhookQueue.claim(T0 + 10, T0 + 1000, 'tok-3', 'node-a'));
  await third.entered;
  const fourth = store.webhookQueue.claim(T0 + 10, T0 + 1000, 'tok-4', 'node-a');
  if (kind === 'postgresql') assert.equal(await within(fourth, 'the second claim'), undefined);
  third.release();
  assert.equal((await third.done)?.id, d3);
  assert.equal(await fourth, undefined);

  // Many dispatchers at once: every due delivery is taken once.
  const more = [];
  for (let i = 0; i < 12; i++) more.push(await store.webhookQueue.addDelivery(delivery(w, { nextAttemptMs: T0 + 20 })));
  const claims = await Promise.all(
    Array.from({ length: 16 }, (_, i) => store.webhookQueue.claim(T0 + 20, T0 + 1000, `many-${i}`, 'node-a')),
  );
  const got = claims.filter((c) => c !== undefined).map((c) => c.id);
  assert.deepEqual(
    [...got].sort((x, y) => x - y),
    more,
  );
});

testOnBothStores('webhookQueue: two fan-outs at once queue each change once', async (store, kind) => {
  const dict = await dictionary(store, 'ALPHA_DICT');
  const w = await webhook(store, 'a', ['case_uploaded']);
  await sleep(5);
  for (const g of ['g1', 'g2', 'g3']) await addCase(store, dict, g);

  // A fan-out that has read the outbox and not committed yet; a second one starts meanwhile.
  const first = heldTransaction(store, async (tx) => {
    const rows = await tx.webhookQueue.outbox(100);
    for (const row of rows) {
      await tx.webhookQueue.addDelivery(delivery(w, { body: row.guid!, nextAttemptMs: T0 }));
    }
    await tx.webhookQueue.deleteOutbox(rows.map((r) => r.id));
    return rows.length;
  });
  await first.entered;
  const second = fanOut(store, T0);
  await untilSomeoneWaits(store, kind);
  first.release();
  assert.equal(await first.done, 3);
  assert.equal(await second, 0, 'the second fan-out found the changes taken');
  assert.deepEqual(
    (await store.webhookQueue.deliveries(w)).map((d) => d.body),
    ['g1', 'g2', 'g3'],
  );

  // Real fan-outs at once, in small batches: every change becomes exactly one delivery.
  for (let i = 0; i < 20; i++) await addCase(store, dict, `m${i}`);
  const counts = await Promise.all([fanOut(store, T0, 3), fanOut(store, T0, 3), fanOut(store, T0, 3)]);
  assert.equal(
    counts.reduce((x, y) => x + y, 0),
    20,
  );
  assert.equal(await store.webhookQueue.hasOutbox(), false);
  const times = (await store.webhookQueue.deliveries(w)).slice(3).map((d) => (JSON.parse(d.body) as { timestamp?: string }).timestamp);
  assert.equal(times.length, 20);
  assert.equal(new Set(times).size, 20, 'every event of the webhook has a time of its own');
});

testOnBothStores('webhookQueue: two operators redelivering at once queue it once', async (store, kind) => {
  const w = await webhook(store, 'a');
  const f = await store.webhookQueue.addDelivery(delivery(w, { state: 'failed', nextAttemptMs: null }));
  const first = heldTransaction(store, (tx) => tx.webhookQueue.redeliver(w, f, T0));
  await first.entered;
  const second = store.webhookQueue.redeliver(w, f, T0 + 1);
  await untilSomeoneWaits(store, kind);
  first.release();
  assert.deepEqual(await first.done, { kind: 'queued', id: f });
  assert.deepEqual(await second, { kind: 'not-failed', state: 'pending' });
  const [view] = await store.webhookQueue.deliveryViews(w, [f]);
  assert.deepEqual([view!.redeliveries, view!.nextAttemptMs], [1, T0]);
});
