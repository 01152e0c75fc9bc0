/**
 * `GET /api/messages` over the real server on loopback (docs/sync.md#messages): messages posted
 * by devices through `POST /api/messages/`, at times set by the server's injected clock, read
 * back newest first with each filter and both kinds of paging; who may read them
 * (messages.read: API and Administrator, not Standard); every reply checked against the served
 * OpenAPI document.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

let t: TestServer;
let doc: OpenApiDoc;
/** Between two messages: well within an access token's hour. */
const STEP = 10 * 60_000;
/** The test server's clock starts at 2025-01-15T09:00:00Z. */
const at = (steps: number) => new Date(Date.UTC(2025, 0, 15, 9) + steps * STEP).toISOString();

interface Item {
  id: number;
  device: string;
  username: string;
  name: string;
  value: unknown;
  sent_at: string;
  received_at: string;
}
interface Page {
  total: number;
  limit: number;
  offset: number;
  data: Item[];
}

async function post(user: UserKey, device: string, body: unknown): Promise<void> {
  const r = await t.call(user, '/api/messages/', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csw-device': device },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  // CSWeb 8.1's reply, which CSPro hands to the logic that sent the message.
  assert.equal(text, 'null');
}

/** GET /api/messages?query as `user`, checked against the document; the status and the body. */
async function read(user: UserKey, query = ''): Promise<{ status: number; body: any }> {
  const r = await t.call(user, `/api/messages${query}`);
  const text = await r.text();
  const body = JSON.parse(text) as unknown;
  assert.deepEqual(checkReply(doc, 'GET', '/api/messages', r.status, body), [], `${query} ${r.status}: ${text}`);
  return { status: r.status, body };
}

before(async () => {
  t = await startTestServer();
  doc = (await (await t.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
  // Five messages, ten minutes apart: two devices, two names, values of several JSON kinds.
  await post('standard', 'tablet-1', { timestamp: '2025-01-15 09:00', name: 'status', value: 'started' });
  t.advance(STEP);
  await post('standard', 'tablet-2', { timestamp: 1736935200, name: 'status', value: { done: 3, of: 10 } });
  t.advance(STEP);
  await post('api', 'tablet-1', { key: 'ping' });
  t.advance(STEP);
  await post('standard', 'tablet-2', { timestamp: '2025-01-15 12:00', name: 'ping', value: [1, 'two', null] });
  t.advance(STEP);
  await post('standard', 'tablet-1', { timestamp: '2025-01-15 13:00', name: 'status', value: null });
});
after(() => t.close());

test('newest first, every field as kept: the device, the account, the value as sent, both times', async () => {
  const { status, body } = await read('api');
  assert.equal(status, 200);
  assert.deepEqual({ ...body, data: undefined }, { total: 5, limit: 100, offset: 0, data: undefined });
  const page = body as Page;
  assert.deepEqual(
    page.data.map((m) => [m.device, m.name, m.received_at]),
    [
      ['tablet-1', 'status', at(4)],
      ['tablet-2', 'ping', at(3)],
      ['tablet-1', 'ping', at(2)],
      ['tablet-2', 'status', at(1)],
      ['tablet-1', 'status', at(0)],
    ],
  );
  const ids = page.data.map((m) => m.id);
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => b - a),
    'ids decrease',
  );
  assert.deepEqual(page.data[3], {
    id: ids[3],
    device: 'tablet-2',
    username: 'interviewer',
    name: 'status',
    value: { done: 3, of: 10 },
    sent_at: '1736935200',
    received_at: at(1),
  });
  assert.deepEqual(
    page.data.map((m) => m.value),
    [null, [1, 'two', null], null, { done: 3, of: 10 }, 'started'],
  );
  assert.equal(page.data[2]!.username, 'integration');
  assert.equal(page.data[2]!.sent_at, '', 'no timestamp sent');
});

test('filters: since (received at or after), device, name, and all at once', async () => {
  const names = async (q: string) => ((await read('admin', q)).body as Page).data.map((m) => `${m.device}/${m.name}`);
  assert.deepEqual(await names(`?since=${encodeURIComponent(at(3))}`), ['tablet-1/status', 'tablet-2/ping']);
  assert.deepEqual(await names('?since=2025-01-15T09:40'), ['tablet-1/status'], 'no zone: UTC');
  assert.deepEqual(await names('?since=2025-01-16'), []);
  assert.deepEqual(await names('?device=tablet-2'), ['tablet-2/ping', 'tablet-2/status']);
  assert.deepEqual(await names('?name=ping'), ['tablet-2/ping', 'tablet-1/ping']);
  assert.deepEqual(await names(`?device=tablet-1&name=status&since=${encodeURIComponent(at(1))}`), ['tablet-1/status']);
  assert.deepEqual(await names('?device=no-such-tablet'), []);
  assert.equal(((await read('admin', '?name=status')).body as Page).total, 3);
});

test('paging: limit and offset, or before (the last id of the previous page)', async () => {
  const all = ((await read('api')).body as Page).data.map((m) => m.id);
  const first = (await read('api', '?limit=2')).body as Page;
  assert.deepEqual([first.total, first.limit, first.offset], [5, 2, 0]);
  assert.deepEqual(
    first.data.map((m) => m.id),
    all.slice(0, 2),
  );
  const second = (await read('api', '?limit=2&offset=2')).body as Page;
  assert.deepEqual(
    second.data.map((m) => m.id),
    all.slice(2, 4),
  );
  const keyset = (await read('api', `?limit=2&before=${first.data[1]!.id}`)).body as Page;
  assert.deepEqual(
    keyset.data.map((m) => m.id),
    all.slice(2, 4),
  );
  assert.equal(keyset.total, 3, 'the messages below the id');
  const past = (await read('api', '?offset=10')).body as Page;
  assert.deepEqual([past.total, past.data.length], [5, 0]);
});

test('bad values: 400 USAGE naming the parameter; the largest page is 1000', async () => {
  for (const [query, says] of [
    ['?limit=1001', /limit must be a whole number from 1 to 1000; got "1001"/],
    ['?limit=0', /limit must be/],
    ['?limit=ten', /limit/],
    ['?offset=-1', /offset/],
    ['?before=0', /before/],
    ['?since=yesterday', /since must be an ISO 8601 time/],
    ['?device=', /device must be a non-empty text/],
  ] as const) {
    const { status, body } = await read('admin', query);
    assert.equal(status, 400, query);
    assert.equal(body.error, 'USAGE', query);
    assert.match(body.message, says, query);
  }
  assert.equal((await read('admin', '?limit=1000')).status, 200);
});

test('messages.read: Administrator and API read; Standard, which sends them, gets 403; no token 401', async () => {
  assert.equal((await read('admin')).status, 200);
  assert.equal((await read('api')).status, 200);
  const standard = await t.call('standard', '/api/messages');
  assert.equal(standard.status, 403);
  const denied = (await standard.json()) as { error: string; error_description: string };
  assert.equal(denied.error, 'access_denied');
  assert.match(denied.error_description, /messages\.read/);
  const anonymous = await t.call(null, '/api/messages');
  assert.equal(anonymous.status, 401);
  await anonymous.arrayBuffer();
});
