/**
 * `sds webhooks deliveries ID --failed` and `sds webhooks redeliver` as an operator runs them
 * after a receiver outage: the receiver refuses connections through every retry (the dispatcher
 * run on an injected clock over the same store), the CLI lists the failed deliveries with their
 * payloads, and once the receiver is up again at the same address it re-sends one, then all, with
 * the same webhook-id and body; the usage errors and exit codes of the new command.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deliverDueWebhooks, webhookSettings } from '../../../src/core/webhooks/delivery.js';
import { openStore } from '../../../src/store/open-store.js';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { closedPortUrl, startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';

const DAT_LINES = readFileSync(fixture('popstan-census.dat'), 'utf8')
  .replace(/^\uFEFF/, '')
  .split('\n')
  .filter((l) => l !== '');
const THREE: string[] = [];
const keys = new Set<string>();
for (const l of DAT_LINES) {
  keys.add(l.slice(1, 19));
  if (keys.size > 3) break;
  THREE.push(l);
}
const SECRET = 'cli-redeliver-secret-0123456789';
const ENV = { SDS_WEBHOOK_CONNECT_TIMEOUT_MS: '1000', SDS_WEBHOOK_RESPONSE_TIMEOUT_MS: '2000' };
const settings = webhookSettings({}, { connectTimeoutMs: 1000, responseTimeoutMs: 2000 });

const home = await tempHome();
const receivers: Receiver[] = [];
after(async () => {
  for (const r of receivers) await r.close();
  await home.cleanup();
});

/** Runs the dispatcher over the store on an injected clock, jumping to each retry, until nothing waits. */
async function failThroughEveryRetry(): Promise<void> {
  const store = await openStore(home);
  try {
    let now = Date.UTC(2030, 0, 1, 12, 0, 0);
    for (;;) {
      const r = await deliverDueWebhooks(store, { now: () => now, settings });
      if (r.next_due === null) return;
      now = Date.parse(r.next_due);
    }
  } finally {
    await store.close();
  }
}

/** The stored bodies of the webhook's deliveries by delivery id: what every failed attempt sent. */
async function storedBodies(webhookId: number): Promise<Map<number, string>> {
  const store = await openStore(home);
  try {
    return new Map((await store.webhookQueue.deliveries(webhookId)).map((d) => [d.id, d.body]));
  } finally {
    await store.close();
  }
}

test('after an outage: deliveries --failed lists them with payloads; redeliver --delivery then --all-failed re-sends them with the same webhook-id and body', async () => {
  const url = await closedPortUrl();
  const add = await sds(home.root, [
    'webhooks',
    'add',
    '--name',
    'down',
    '--url',
    url,
    '--events',
    'case_uploaded',
    '--secret',
    SECRET,
    '--json',
  ]);
  assert.equal(add.code, 0, show(add));
  const id = String(add.json().id);
  assert.equal((await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'])).code, 0);
  const file = join(home.root, 'three.dat');
  writeFileSync(file, THREE.join('\n') + '\n');
  const imp = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json']);
  assert.equal(imp.json().total.inserted, 3, show(imp));

  await failThroughEveryRetry();

  const listed = await sds(home.root, ['webhooks', 'deliveries', id, '--failed', '--json']);
  assert.equal(listed.code, 0, show(listed));
  const failed = listed.json();
  assert.equal(failed.failed, 3);
  const bodies = await storedBodies(Number(id));
  for (const d of failed.deliveries) {
    assert.deepEqual([d.status, d.event, d.attempts], ['failed', 'case_uploaded', 4]);
    assert.match(d.last_error, /ECONNREFUSED/);
    assert.equal(JSON.stringify(d.payload), bodies.get(d.id));
  }
  const text = await sds(home.root, ['webhooks', 'deliveries', id, '--failed']);
  assert.equal(text.code, 0, show(text));
  assert.match(text.stdout, new RegExp(`Webhook ${id}: 3 failed deliveries`));
  assert.match(text.stdout, new RegExp(failed.deliveries[0].message_id));
  assert.match(text.stdout, /sds webhooks redeliver/);
  // Without --failed the history of attempts is unchanged, each naming its delivery.
  const history = (await sds(home.root, ['webhooks', 'deliveries', id, '--json'])).json();
  assert.deepEqual([history.total_deliveries, history.failed], [12, 12]);
  assert.ok(history.deliveries.every((a: any) => bodies.has(a.delivery_id)));

  // Usage errors: exactly one of --delivery and --all-failed.
  for (const args of [[], ['--delivery', String(failed.deliveries[0].id), '--all-failed'], ['--delivery', 'abc']]) {
    const bad = await sds(home.root, ['webhooks', 'redeliver', id, ...args, '--json']);
    assert.equal(bad.code, 2, show(bad));
    assert.equal(bad.json().error, 'USAGE');
  }
  const none = await sds(home.root, ['webhooks', 'redeliver', id, '--delivery', '999999', '--json']);
  assert.equal(none.code, 3, show(none));
  assert.equal(none.json().error, 'NOT_FOUND');

  // Still down: the redelivery is sent, fails, and waits for its first retry (exit 5).
  const first = failed.deliveries[0];
  const stillDown = await sds(home.root, ['webhooks', 'redeliver', id, '--delivery', String(first.id), '--json'], { env: ENV });
  assert.equal(stillDown.code, 5, show(stillDown));
  const sd = stillDown.json();
  assert.deepEqual(
    [sd.redelivered, sd.sent, sd.deliveries[0].status, sd.deliveries[0].attempts, sd.deliveries[0].redeliveries],
    [1, true, 'pending', 5, 1],
  );
  assert.ok(sd.deliveries[0].next_attempt_at, 'a retry is due');
  // Pending again, it cannot be redelivered a second time.
  const conflict = await sds(home.root, ['webhooks', 'redeliver', id, '--delivery', String(first.id), '--json']);
  assert.equal(conflict.code, 4, show(conflict));
  assert.equal(conflict.json().error, 'CONFLICT');
  await failThroughEveryRetry();

  // The receiver is up at the same address.
  const rx = await startReceiver(() => 200, { port: Number(new URL(url).port) });
  receivers.push(rx);
  const one = await sds(home.root, ['webhooks', 'redeliver', id, '--delivery', String(first.id), '--json'], { env: ENV });
  assert.equal(one.code, 0, show(one));
  assert.deepEqual([one.json().deliveries[0].status, one.json().deliveries[0].redeliveries], ['success', 2]);
  assert.equal(rx.received.length, 1);
  assert.equal(rx.received[0]!.headers['webhook-id'], first.message_id);
  assert.equal(rx.received[0]!.body.toString('utf8'), bodies.get(first.id));

  const all = await sds(home.root, ['webhooks', 'redeliver', id, '--all-failed'], { env: ENV });
  assert.equal(all.code, 0, show(all));
  assert.match(all.stdout, new RegExp(`Webhook ${id}: 2 deliveries queued again, 2 delivered`));
  assert.equal(rx.received.length, 3);
  for (const [i, d] of failed.deliveries.slice(1).entries()) {
    const got = rx.received.find((r) => r.headers['webhook-id'] === d.message_id);
    assert.ok(got, `delivery ${d.id} (${i}) re-sent`);
    assert.equal(got.body.toString('utf8'), bodies.get(d.id));
  }
  assert.equal((await sds(home.root, ['webhooks', 'deliveries', id, '--failed', '--json'])).json().failed, 0);
  const nothing = await sds(home.root, ['webhooks', 'redeliver', id, '--all-failed']);
  assert.equal(nothing.code, 0, show(nothing));
  assert.match(nothing.stdout, /no failed deliveries/);
});

test('redeliver --queue-only leaves the sending to the dispatcher; --help shows the examples', async () => {
  const help = await sds(null, ['webhooks', 'redeliver', '--help']);
  assert.equal(help.code, 0, show(help));
  assert.match(help.stdout, /--delivery <n>/);
  assert.match(help.stdout, /--all-failed/);
  assert.match(help.stdout, /\$ sds webhooks redeliver 1 --all-failed/);
  assert.match((await sds(null, ['webhooks', 'deliveries', '--help'])).stdout, /\$ sds webhooks deliveries 1 --failed/);

  const url = await closedPortUrl();
  const add = await sds(home.root, [
    'webhooks',
    'add',
    '--name',
    'queued',
    '--url',
    url,
    '--events',
    'dictionary_uploaded',
    '--secret',
    SECRET,
    '--json',
  ]);
  const id = String(add.json().id);
  assert.equal((await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan2'])).code, 0);
  await failThroughEveryRetry();
  const [d] = (await sds(home.root, ['webhooks', 'deliveries', id, '--failed', '--json'])).json().deliveries;
  const rx = await startReceiver(() => 200, { port: Number(new URL(url).port) });
  receivers.push(rx);
  const q = await sds(home.root, ['webhooks', 'redeliver', id, '--all-failed', '--queue-only', '--json']);
  assert.equal(q.code, 0, show(q));
  assert.deepEqual([q.json().sent, q.json().deliveries[0].status], [false, 'pending']);
  assert.equal(rx.received.length, 0);
  const run = await sds(home.root, ['webhooks', 'deliver', '--json'], { env: ENV });
  assert.equal(run.json().succeeded, 1, show(run));
  assert.equal(rx.received[0]!.headers['webhook-id'], d.message_id);
});
