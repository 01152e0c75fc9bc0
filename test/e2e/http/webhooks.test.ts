/**
 * The outgoing webhook routes of docs/webhooks.md#managing-webhooks against the real server, with loopback receivers: CRUD
 * and every error code, the test operation (200 and each 502), the delivery history, and the
 * events of an HTTP dictionary upload sent by the dispatcher inside the server. Every reply is
 * checked against the served OpenAPI document.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { fixture } from '../../helpers/temp-home.js';
import { closedPortUrl, startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { popstanCases, SyncDevice } from '../../helpers/sync-client.js';
import { until } from '../../helpers/breakout-helpers.js';

let s: TestServer;
let doc: OpenApiDoc;
let ok: Receiver;
let failing: Receiver;
let holding: Receiver;
const SECRET = 'http-test-secret-0123456789';

before(async () => {
  ok = await startReceiver(() => 204);
  failing = await startReceiver(() => 500);
  holding = await startReceiver(() => 'hold');
  s = await startTestServer({
    config: { webhooks: { pollMs: 20, testTimeoutMs: 400, connectTimeoutMs: 300, responseTimeoutMs: 300, leaseMs: 5000 } },
  });
  doc = (await (await s.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
});
after(async () => {
  await s.close();
  await Promise.all([ok.close(), failing.close(), holding.close()]);
});

/** Calls as admin, checks the status and the OpenAPI document, returns the body. */
async function call(
  method: string,
  path: string,
  status: number,
  body?: unknown,
  opts: { raw?: string; user?: 'admin' | 'api' | null } = {},
): Promise<any> {
  const init: RequestInit = { method };
  if (body !== undefined || opts.raw !== undefined) {
    init.body = opts.raw ?? JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  const r = await s.call(opts.user === undefined ? 'admin' : opts.user, path, init);
  const text = await r.text();
  assert.equal(r.status, status, `${method} ${path}: ${text}`);
  const json = JSON.parse(text);
  const template = path.replace(/\?.*$/, '').replace(/\/api\/webhooks\/[^/]+/, '/api/webhooks/{id}');
  // 405 answers a method the document rightly does not list.
  if (status !== 405)
    assert.deepEqual(
      checkReply(doc, method.toLowerCase(), template, status, json),
      [],
      `${method} ${path} ${status} matches the OpenAPI document`,
    );
  return json;
}

test('create, list, update, delete: the shapes of docs/webhooks.md#managing-webhooks, a generated secret when none is given', async () => {
  const created = await call('POST', '/api/webhooks', 201, {
    name: 'crm',
    url: ok.url,
    events: ['case_uploaded', 'case_uploaded', 'case_deleted'],
  });
  assert.deepEqual(Object.keys(created).sort(), ['active', 'created_at', 'events', 'id', 'name', 'secret', 'url']);
  assert.deepEqual(created.events, ['case_uploaded', 'case_deleted']);
  assert.equal(created.active, true);
  assert.match(created.secret, /^whsec_/);
  const given = await call('POST', '/api/webhooks', 201, {
    name: 'bi',
    url: ok.url,
    events: ['dictionary_uploaded'],
    secret: SECRET,
    active: false,
  });
  assert.equal(given.secret, SECRET);
  assert.equal(given.active, false);

  const list = await call('GET', '/api/webhooks', 200);
  assert.deepEqual(
    list.map((w: any) => [w.id, w.secret]),
    [
      [created.id, created.secret],
      [given.id, SECRET],
    ],
  );

  const upd = await call('PUT', `/api/webhooks/${given.id}`, 200, { active: true });
  assert.deepEqual(Object.keys(upd).sort(), ['active', 'events', 'id', 'name', 'updated_at', 'url']);
  assert.equal(upd.active, true);
  assert.equal(upd.name, 'bi');
  const renamed = await call('PUT', `/api/webhooks/${given.id}`, 200, { name: 'bi2', events: ['case_modified'] });
  assert.deepEqual([renamed.name, renamed.events, renamed.active], ['bi2', ['case_modified'], true]);

  assert.deepEqual(await call('DELETE', `/api/webhooks/${created.id}`, 200), { message: `Webhook ${created.id} deleted`, id: created.id });
  await call('DELETE', `/api/webhooks/${given.id}`, 200);
  assert.deepEqual(await call('GET', '/api/webhooks', 200), []);
});

test('every error code of the webhook routes', async () => {
  const err = async (
    method: string,
    path: string,
    status: number,
    code: string,
    body?: unknown,
    opts?: { raw?: string; user?: 'admin' | 'api' | null },
  ) => {
    const r = await call(method, path, status, body, opts);
    assert.equal(r.error, code, JSON.stringify(r));
    return r;
  };
  const good = { name: 'x', url: ok.url, events: ['case_uploaded'] };
  await err('GET', '/api/webhooks', 401, 'invalid_token', undefined, { user: null });
  await err('GET', '/api/webhooks', 403, 'access_denied', undefined, { user: 'api' });
  await err('POST', '/api/webhooks', 403, 'access_denied', good, { user: 'api' });
  await err('POST', '/api/webhooks', 400, 'API-003', undefined, { raw: '{"name":' });
  await err('POST', '/api/webhooks', 400, 'USAGE', { ...good, events: 'case_uploaded' });
  await err('POST', '/api/webhooks', 400, 'USAGE', { ...good, colour: 'red' });
  await err('POST', '/api/webhooks', 400, 'USAGE', { url: ok.url, events: ['case_uploaded'] });
  const badUrl = await err('POST', '/api/webhooks', 400, 'WEBHOOK_INVALID', { ...good, url: 'ftp://example.org/x' });
  assert.match(badUrl.message, /^url: only http and https/);
  await err('POST', '/api/webhooks', 400, 'WEBHOOK_INVALID', { ...good, url: 'not a url' });
  const badEvent = await err('POST', '/api/webhooks', 400, 'WEBHOOK_INVALID', { ...good, events: ['case_uploaded', 'case_exploded'] });
  assert.match(badEvent.message, /unknown event kind "case_exploded"/);
  await err('POST', '/api/webhooks', 400, 'WEBHOOK_INVALID', { ...good, events: [] });
  await err('POST', '/api/webhooks', 400, 'WEBHOOK_INVALID', { ...good, events: ['webhook_test'] });
  await err('POST', '/api/webhooks', 400, 'WEBHOOK_INVALID', { ...good, secret: 'short' });
  await err('POST', '/api/webhooks', 400, 'WEBHOOK_INVALID', { ...good, secret: 'whsec_not*base64' });
  await err('POST', '/api/webhooks', 400, 'WEBHOOK_INVALID', { ...good, name: '  ' });

  await err('PUT', '/api/webhooks/999', 404, 'NOT_FOUND', { active: false });
  await err('DELETE', '/api/webhooks/999', 404, 'NOT_FOUND');
  await err('POST', '/api/webhooks/999/test', 404, 'NOT_FOUND');
  await err('GET', '/api/webhooks/999/deliveries', 404, 'NOT_FOUND');
  await err('DELETE', '/api/webhooks/abc', 400, 'USAGE');
  await err('PUT', '/api/webhooks/0', 400, 'USAGE', { active: false });
  const w = await call('POST', '/api/webhooks', 201, good);
  await err('PUT', `/api/webhooks/${w.id}`, 400, 'USAGE', {});
  await err('PUT', `/api/webhooks/${w.id}`, 400, 'USAGE', { active: 'no' });
  await err('PUT', `/api/webhooks/${w.id}`, 400, 'WEBHOOK_INVALID', { url: 'mailto:a@b.c' });
  await err('GET', `/api/webhooks/${w.id}/deliveries?limit=0`, 400, 'USAGE');
  await err('GET', `/api/webhooks/${w.id}/deliveries?limit=abc`, 400, 'USAGE');
  await err('PATCH', `/api/webhooks/${w.id}`, 405, 'API-001');
  await call('DELETE', `/api/webhooks/${w.id}`, 200);
});

test('test operation: 200 on a 2xx, 502 with WEBHOOK_UNREACHABLE, WEBHOOK_REJECTED and WHK-002; every attempt in the history', async () => {
  const w = await call('POST', '/api/webhooks', 201, { name: 't', url: ok.url, events: ['case_uploaded'], secret: SECRET, active: false });
  const before = ok.received.length;
  const r = await call('POST', `/api/webhooks/${w.id}/test`, 200);
  assert.equal(r.status, 'success');
  assert.equal(r.webhook_id, w.id);
  assert.equal(r.response_status, 204);
  assert.equal(r.test_payload_sent.event, 'webhook_test');
  const got = ok.received[before]!;
  assert.deepEqual(got.json, {
    event: 'webhook_test',
    timestamp: r.test_payload_sent.timestamp,
    webhook_id: w.id,
    data: r.test_payload_sent.data,
  });
  assert.equal(got.headers['x-service-signature'], `sha256=${createHmac('sha256', SECRET).update(got.body).digest('hex')}`);

  await call('PUT', `/api/webhooks/${w.id}`, 200, { url: await closedPortUrl() });
  const down = await call('POST', `/api/webhooks/${w.id}/test`, 502);
  assert.deepEqual([down.status, down.webhook_id, down.error], ['failed', w.id, 'WEBHOOK_UNREACHABLE']);
  assert.match(down.details, /ECONNREFUSED/);

  await call('PUT', `/api/webhooks/${w.id}`, 200, { url: failing.url });
  const rejected = await call('POST', `/api/webhooks/${w.id}/test`, 502);
  assert.deepEqual([rejected.error, rejected.response_status], ['WEBHOOK_REJECTED', 500]);

  await call('PUT', `/api/webhooks/${w.id}`, 200, { url: holding.url });
  const slow = await call('POST', `/api/webhooks/${w.id}/test`, 502);
  assert.equal(slow.error, 'WHK-002');
  assert.equal(holding.received.length, 1);

  const h = await call('GET', `/api/webhooks/${w.id}/deliveries?limit=3`, 200);
  assert.deepEqual([h.webhook_id, h.total_deliveries, h.successful, h.failed], [w.id, 4, 1, 3]);
  // A record without an HTTP answer carries response_status null: the field is always there.
  for (const d of h.deliveries) assert.ok('response_status' in d, JSON.stringify(d));
  assert.deepEqual(
    h.deliveries.map((d: any) => [d.event, d.status, d.response_status]),
    [
      ['webhook_test', 'failed', null],
      ['webhook_test', 'failed', 500],
      ['webhook_test', 'failed', null],
    ],
  );
  assert.equal(h.deliveries[0].retry_count, 0);
  await call('DELETE', `/api/webhooks/${w.id}`, 200);
});

test('an HTTP dictionary upload is delivered by the dispatcher of the server, signed', async () => {
  const w = await call('POST', '/api/webhooks', 201, { name: 'd', url: ok.url, events: ['dictionary_uploaded'], secret: SECRET });
  const before = ok.received.length;
  const form = new FormData();
  form.set('label', 'popstan');
  form.set('file', new Blob([readFileSync(fixture('popstan-census.json.dcf'))]), 'census.dcf');
  const up = await s.call('api', '/api/dictionaries', { method: 'POST', body: form });
  assert.equal(up.status, 201, await up.text());
  await ok.waitFor(before + 1);
  const got = ok.received[before]!;
  assert.equal(got.json.event, 'dictionary_uploaded');
  assert.equal(got.json.webhook_id, w.id);
  assert.deepEqual(got.json.data, { dictionary: 'CEN2000', label: 'popstan', version: got.json.data.version, created: true });
  assert.equal(got.headers['x-service-signature'], `sha256=${createHmac('sha256', SECRET).update(got.body).digest('hex')}`);
  // The receiver has the request before the server has recorded its answer: the record follows.
  const h = await until('the delivery recorded as successful', async () => {
    const r = await call('GET', `/api/webhooks/${w.id}/deliveries`, 200);
    return r.successful > 0 ? r : undefined;
  });
  assert.deepEqual([h.total_deliveries, h.successful], [1, 1]);
});

test('cases uploaded by the sync route give case_uploaded, then case_modified with the changes map, sent by the dispatcher', async () => {
  // CEN2000 was uploaded by the test above; the tablet's upload writes through the same case path as import.
  const w = await call('POST', '/api/webhooks', 201, {
    name: 'sync',
    url: ok.url,
    events: ['case_uploaded', 'case_modified'],
    secret: SECRET,
  });
  const tablet = new SyncDevice(s, 'tablet-7');
  const [first, second] = popstanCases(2, 'tablet-7');
  const before = ok.received.length;
  assert.equal((await tablet.put('CEN2000', [first, second])).status, 200);
  await ok.waitFor(before + 2);
  const uploaded = ok.received.slice(before).map((r) => r.json);
  assert.deepEqual(
    uploaded.map((e) => [e.event, e.webhook_id, e.data.case_id]).sort(),
    [
      ['case_uploaded', w.id, first!.id],
      ['case_uploaded', w.id, second!.id],
    ].sort(),
  );

  // The same tablet edits the second case (a newer clock): one case_modified naming what changed.
  const line = second!.data![0]!;
  const last = line.at(-1) === '0' ? '1' : '0';
  const edited = {
    ...second!,
    data: [line.slice(0, -1) + last, ...second!.data!.slice(1)],
    clock: [{ deviceId: 'tablet-7', revision: 2 }],
  };
  assert.equal((await tablet.put('CEN2000', [edited])).status, 200);
  await ok.waitFor(before + 3);
  const modified = ok.received[before + 2]!;
  assert.equal(modified.json.event, 'case_modified');
  assert.equal(modified.json.data.case_id, second!.id);
  const changes = Object.entries(modified.json.data.changes as Record<string, { old: unknown; new: unknown }>);
  assert.equal(changes.length, 1, JSON.stringify(modified.json.data.changes));
  const [path, change] = changes[0]!;
  assert.match(path, /^[A-Z][A-Z0-9_]*(\[\d+\])?\.[A-Z][A-Z0-9_]*(\[\d+\])?$/);
  assert.notDeepEqual(change.old, change.new);
  assert.equal(modified.headers['x-service-signature'], `sha256=${createHmac('sha256', SECRET).update(modified.body).digest('hex')}`);
});
