/**
 * Failed deliveries over HTTP against the real server: a receiver answering 500 through every
 * retry (the server's injected clock moved past each one, its own dispatcher sending), the
 * failed deliveries listed with their payloads, then redelivered one by one and all at once once
 * the receiver is up: the same webhook-id and body. Administrator only; every reply checked
 * against the served OpenAPI document.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';
import { startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { fixture } from '../../helpers/temp-home.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { popstanCases, SyncDevice } from '../../helpers/sync-client.js';

let s: TestServer;
let doc: OpenApiDoc;
let rx: Receiver;
let up = false;
const SECRET = 'http-redelivery-secret-0123456789';

before(async () => {
  rx = await startReceiver(() => (up ? 200 : 500));
  s = await startTestServer({ config: { webhooks: { pollMs: 20, connectTimeoutMs: 300, responseTimeoutMs: 300, leaseMs: 5000 } } });
  doc = (await (await s.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
});
after(async () => {
  await s.close();
  await rx.close();
});

/** The OpenAPI path of a concrete path. */
function template(path: string): string {
  return path
    .replace(/\?.*$/, '')
    .replace(/^\/api\/webhooks\/[^/]+/, '/api/webhooks/{id}')
    .replace(/\/deliveries\/[^/]+\/redeliver$/, '/deliveries/{delivery_id}/redeliver');
}

/** Calls as `user` (admin by default), checks the status and the OpenAPI document, returns the body. */
async function call(method: string, path: string, status: number, user: UserKey = 'admin'): Promise<any> {
  const r = await s.call(user, path, { method });
  const text = await r.text();
  assert.equal(r.status, status, `${method} ${path} as ${user}: ${text}`);
  const json = JSON.parse(text);
  assert.deepEqual(
    checkReply(doc, method.toLowerCase(), template(path), status, json),
    [],
    `${method} ${path} ${status} matches the OpenAPI document`,
  );
  return json;
}

/** Waits until the server's dispatcher has recorded `n` attempts of the webhook (it records just after the receiver answers). */
async function attemptsRecorded(id: number, n: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const h = await call('GET', `/api/webhooks/${id}/deliveries?limit=1`, 200);
    if (h.total_deliveries >= n) return;
    await delay(10);
  }
  assert.fail(`webhook ${id}: ${n} attempts were never recorded`);
}

test('a receiver down through every retry: failed deliveries listed with payloads, then redelivered with the same webhook-id and body', async () => {
  const created = await s.call('admin', '/api/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'down', url: rx.url, events: ['dictionary_uploaded', 'case_uploaded'], secret: SECRET }),
  });
  assert.equal(created.status, 201);
  const id = ((await created.json()) as { id: number }).id;

  // Three events: a dictionary upload and two cases from a tablet.
  const form = new FormData();
  form.set('label', 'popstan');
  form.set('file', new Blob([readFileSync(fixture('popstan-census.json.dcf'))]), 'census.dcf');
  assert.equal((await s.call('api', '/api/dictionaries', { method: 'POST', body: form })).status, 201);
  await attemptsRecorded(id, 1);
  assert.equal((await new SyncDevice(s, 'tablet-1').put('CEN2000', popstanCases(2, 'tablet-1'))).status, 200);

  // First attempts, then the server clock moved to each retry: +1, +6, +21 minutes.
  await attemptsRecorded(id, 3);
  for (const [wait, total] of [
    [60_000, 6],
    [300_000, 9],
    [900_000, 12],
  ] as const) {
    s.advance(wait);
    await attemptsRecorded(id, total);
  }
  assert.equal(rx.received.length, 12);

  const failed = await call('GET', `/api/webhooks/${id}/deliveries?status=failed`, 200);
  assert.equal(failed.webhook_id, id);
  assert.equal(failed.failed, 3);
  assert.deepEqual(failed.deliveries.map((d: any) => d.payload.event).sort(), ['case_uploaded', 'case_uploaded', 'dictionary_uploaded']);
  for (const d of failed.deliveries) {
    assert.deepEqual(
      [d.status, d.attempts, d.redeliveries, d.last_response_status, d.last_error],
      ['failed', 4, 0, 500, 'the receiver answered HTTP 500'],
    );
    assert.equal(d.next_attempt_at, undefined, 'failed: no attempt is due');
    const sent = rx.received.filter((r) => r.headers['webhook-id'] === d.message_id);
    assert.equal(sent.length, 4);
    assert.deepEqual(sent[0]!.json, d.payload);
  }
  const limited = await call('GET', `/api/webhooks/${id}/deliveries?status=failed&limit=1`, 200);
  assert.deepEqual([limited.failed, limited.deliveries.length], [3, 1]);
  // The history names the delivery of each attempt.
  const history = await call('GET', `/api/webhooks/${id}/deliveries?limit=12`, 200);
  assert.deepEqual([...new Set(history.deliveries.map((a: any) => a.delivery_id))].sort(), failed.deliveries.map((d: any) => d.id).sort());

  // Only administrators: API and Standard accounts get 403 on every redelivery route and on the listing.
  const first = failed.deliveries[0];
  for (const user of ['api', 'standard'] as const) {
    assert.equal((await call('POST', `/api/webhooks/${id}/deliveries/${first.id}/redeliver`, 403, user)).error, 'access_denied');
    assert.equal((await call('POST', `/api/webhooks/${id}/redeliver-failed`, 403, user)).error, 'access_denied');
    assert.equal((await call('GET', `/api/webhooks/${id}/deliveries?status=failed`, 403, user)).error, 'access_denied');
  }
  assert.equal(rx.received.length, 12);

  // Bad ids, unknown webhook, unknown delivery, a bad status filter.
  assert.equal((await call('POST', `/api/webhooks/999/deliveries/${first.id}/redeliver`, 404)).error, 'NOT_FOUND');
  const missing = await call('POST', `/api/webhooks/${id}/deliveries/999999/redeliver`, 404);
  assert.deepEqual([missing.error, missing.message], ['NOT_FOUND', `webhook ${id} has no delivery 999999`]);
  assert.equal((await call('POST', `/api/webhooks/${id}/deliveries/abc/redeliver`, 400)).error, 'USAGE');
  assert.equal((await call('POST', `/api/webhooks/${id}/deliveries/0/redeliver`, 400)).error, 'USAGE');
  assert.equal((await call('POST', `/api/webhooks/999/redeliver-failed`, 404)).error, 'NOT_FOUND');
  assert.equal((await call('GET', `/api/webhooks/${id}/deliveries?status=pending`, 400)).error, 'USAGE');

  // The receiver is up: one delivery is redelivered and sent by the server's dispatcher.
  up = true;
  const queued = await call('POST', `/api/webhooks/${id}/deliveries/${first.id}/redeliver`, 202);
  assert.deepEqual([queued.id, queued.status, queued.message_id, queued.redeliveries], [first.id, 'pending', first.message_id, 1]);
  await rx.waitFor(13);
  const resent = rx.received[12]!;
  assert.equal(resent.headers['webhook-id'], first.message_id);
  assert.deepEqual(resent.body, rx.received.find((r) => r.headers['webhook-id'] === first.message_id)!.body);
  await attemptsRecorded(id, 13);
  const again = await call('POST', `/api/webhooks/${id}/deliveries/${first.id}/redeliver`, 409);
  assert.equal(again.error, 'CONFLICT');
  assert.match(again.message, /was delivered/);
  const latest = (await call('GET', `/api/webhooks/${id}/deliveries?limit=1`, 200)).deliveries[0];
  assert.deepEqual([latest.delivery_id, latest.status, latest.redelivery], [first.id, 'success', 1]);

  // All the others at once.
  const all = await call('POST', `/api/webhooks/${id}/redeliver-failed`, 202);
  assert.deepEqual(all, { webhook_id: id, redelivered: 2, delivery_ids: failed.deliveries.slice(1).map((d: any) => d.id) });
  await rx.waitFor(15);
  await attemptsRecorded(id, 15);
  assert.deepEqual(
    rx.received
      .slice(13)
      .map((r) => r.headers['webhook-id'])
      .sort(),
    failed.deliveries
      .slice(1)
      .map((d: any) => d.message_id)
      .sort(),
  );
  for (const r of rx.received.slice(13))
    assert.deepEqual(r.body, rx.received.find((o) => o.headers['webhook-id'] === r.headers['webhook-id'])!.body);
  assert.equal((await call('GET', `/api/webhooks/${id}/deliveries?status=failed`, 200)).failed, 0);
  assert.deepEqual(await call('POST', `/api/webhooks/${id}/redeliver-failed`, 202), { webhook_id: id, redelivered: 0, delivery_ids: [] });
});
