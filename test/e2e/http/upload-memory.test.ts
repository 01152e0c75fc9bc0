// The memory budget of sync uploads in flight (docs/limits.md#memory-of-uploads-in-flight), on a
// real server with a budget of exactly one upload at the request limit: an upload that would take
// it past the budget is 503 SERVER_BUSY with Retry-After and nothing of it stored, and is stored
// when sent again; an upload refused, stored or cut by its client gives back what it held. What the
// budget holds is read from GET /metrics (sds_sync_upload_memory_bytes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { UPLOAD_MEMORY_FACTOR } from '../../../src/core/home/limits.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';
import { runCli, show } from '../../helpers/run-cli.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { popstanCases } from '../../helpers/sync-client.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

const DICT = 'CEN2000';
const ROUTE = `/api/dictionaries/${DICT}/cases`;
const METRICS_TOKEN = 'upload-memory-metrics-token';
const REQUEST_BYTES = 1024 * 1024;
const BUDGET = UPLOAD_MEMORY_FACTOR * REQUEST_BYTES;

async function server(): Promise<TestServer> {
  return startTestServer({
    config: { limits: { requestBytes: REQUEST_BYTES, uploadMemoryBytes: BUDGET }, metricsToken: METRICS_TOKEN },
    seed: async (store) => {
      const file = fixture('popstan-census.json.dcf');
      await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file });
    },
  });
}

/** The bytes of the budget held now, as GET /metrics tells. */
async function held(ts: TestServer): Promise<number> {
  const text = await (await fetch(`${ts.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const m = /^sds_sync_upload_memory_bytes (\d+)$/m.exec(text);
  assert.ok(m, 'the scrape has sds_sync_upload_memory_bytes');
  assert.match(text, new RegExp(`^sds_sync_upload_memory_budget_bytes ${BUDGET}$`, 'm'));
  return Number(m[1]);
}

/** Asks until the budget holds `bytes`: the server reads what was sent, or notices a client gone, in its own time. */
async function heldBecomes(ts: TestServer, bytes: number): Promise<void> {
  let last = -1;
  for (let i = 0; i < 5000; i++) {
    last = await held(ts);
    if (last === bytes) return;
  }
  assert.fail(`the budget holds ${last} bytes, not ${bytes}`);
}

/** One uploaded case of about `bytes` bytes of JSON (its notes), with its body. */
function bigCase(bytes: number): { id: string; body: Buffer } {
  const [c] = popstanCases(1, 'tablet-a');
  const note = {
    field: { name: 'P03_SEX', levelKey: '', recordOccurrence: 1, itemOccurrence: 1, subitemOccurrence: 0 },
    operatorId: 'op1',
    modifiedTime: '2024-03-01T10:00:00Z',
  };
  const count = Math.ceil(bytes / 60_000);
  const notes = Array.from({ length: count }, () => ({ ...note, content: 'n'.repeat(Math.floor(bytes / count) - 200) }));
  const id = randomUUID();
  const body = Buffer.from(JSON.stringify([{ ...c!, id, notes }]));
  assert.ok(body.length <= REQUEST_BYTES);
  return { id, body };
}

/** An upload whose body is sent in parts: the request stays open until `end`. */
function openUpload(
  ts: TestServer,
  token: string,
): { req: ClientRequest; reply: Promise<{ status: number; res: IncomingMessage; text: string }> } {
  const req = request(`${ts.base}${ROUTE}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'CSPro sync client/8.0',
      'x-csw-device': 'tablet-a',
    },
  });
  const reply = new Promise<{ status: number; res: IncomingMessage; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, res, text: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
  });
  return { req, reply };
}

/**
 * POSTs `body` as tablet B. A pooled connection that the server closed for idling (its keep-alive
 * timeout) while this busy process had not yet dropped it fails before any byte reaches the
 * server ("other side closed"): that one is sent again on a new connection, as a client does.
 * Anything else, and any answer, is the test's to judge.
 */
async function post(ts: TestServer, body: Buffer): Promise<Response> {
  const send = () =>
    ts.call('standard', ROUTE, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'CSPro sync client/8.0', 'x-csw-device': 'tablet-b' },
      body,
    });
  try {
    return await send();
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code !== 'UND_ERR_SOCKET' || cause.message !== 'other side closed') throw err;
    return send();
  }
}

async function stored(ts: TestServer, id: string): Promise<boolean> {
  const r = await ts.call('standard', `${ROUTE}/${id}`, { headers: { 'user-agent': 'CSPro sync client/8.0' } });
  await r.arrayBuffer();
  assert.ok(r.status === 200 || r.status === 404, `GET case ${id}: ${r.status}`);
  return r.status === 200;
}

test('an upload past the budget is 503 SERVER_BUSY with Retry-After, nothing of it stored; sent again once memory is free, it is stored', async (t) => {
  const ts = await server();
  t.after(() => ts.close());
  const doc = (await (await fetch(`${ts.base}/api/openapi.json`)).json()) as OpenApiDoc;
  const token = (await ts.login('standard')).access_token;
  assert.equal(await held(ts), 0);

  // A holds 800 KB of its body (4 MB of the 5 MiB budget) and waits.
  const a = bigCase(900_000);
  const first = a.body.subarray(0, 800_000);
  const upload = openUpload(ts, token);
  upload.req.write(first);
  await heldBecomes(ts, UPLOAD_MEMORY_FACTOR * first.length);

  // B needs 1.5 MB more than the budget has left.
  const b = bigCase(300_000);
  const refused = await post(ts, b.body);
  const text = await refused.text();
  assert.equal(refused.status, 503, text);
  assert.equal(refused.headers.get('retry-after'), '5');
  const body = JSON.parse(text) as { error: string; code?: string; message: string; retry_after: number };
  assert.equal(body.error, 'SERVER_BUSY');
  assert.equal(body.code, 'SERVER_BUSY', 'a CSPro client reads {code, message}');
  assert.equal(body.retry_after, 5);
  assert.equal(
    body.message,
    `the sync uploads in flight hold all the memory this server allows them (limits.upload_memory_bytes, ${BUDGET} bytes); nothing of this upload was stored: send it again in 5 s`,
  );
  assert.deepEqual(checkReply(doc, 'POST', '/api/dictionaries/{name}/cases', 503, body), []);
  assert.equal(await stored(ts, b.id), false, 'nothing of the refused upload was stored');
  // What B held until its refusal is back; A's share is not.
  assert.equal(await held(ts), UPLOAD_MEMORY_FACTOR * first.length);

  // A completes and is stored; it holds nothing once answered.
  upload.req.end(a.body.subarray(first.length));
  const done = await upload.reply;
  assert.equal(done.status, 200, done.text);
  assert.equal(await held(ts), 0);
  assert.equal(await stored(ts, a.id), true);

  // B, sent again, is stored.
  const again = await post(ts, b.body);
  assert.equal(again.status, 200, await again.text());
  assert.equal(await stored(ts, b.id), true);
  assert.equal(await held(ts), 0);
});

test('an upload whose client leaves mid-body gives back what it held: then one upload can take the whole budget', async (t) => {
  const ts = await server();
  t.after(() => ts.close());
  const token = (await ts.login('standard')).access_token;
  const c = bigCase(900_000);
  const upload = openUpload(ts, token);
  upload.reply.catch(() => undefined);
  upload.req.write(c.body.subarray(0, 800_000));
  await heldBecomes(ts, UPLOAD_MEMORY_FACTOR * 800_000);
  upload.req.destroy();
  await heldBecomes(ts, 0);
  assert.equal(await stored(ts, c.id), false);

  // The largest upload the request limit allows needs the whole budget.
  const whole = bigCase(REQUEST_BYTES - 2_000);
  assert.ok(UPLOAD_MEMORY_FACTOR * whole.body.length > BUDGET - UPLOAD_MEMORY_FACTOR * 800_000, 'it would not fit beside a leaked share');
  const r = await post(ts, whole.body);
  assert.equal(r.status, 200, await r.text());
  assert.equal(await stored(ts, whole.id), true);
  assert.equal(await held(ts), 0);
});

test('sds serve refuses to start with a budget that cannot hold one upload at the request limit', async () => {
  const home = await tempHome();
  try {
    const r = runCli(home.root, ['serve', '--port', '0'], {
      env: { SDS_LIMIT_REQUEST_BYTES: String(REQUEST_BYTES), SDS_LIMIT_UPLOAD_MEMORY_BYTES: String(BUDGET - 1) },
    });
    assert.equal(r.code, 2, show(r));
    assert.match(
      r.stderr,
      new RegExp(
        `limits\\.upload_memory_bytes \\(${BUDGET - 1}\\) must hold one upload at limits\\.request_bytes \\(${REQUEST_BYTES}\\) held ${UPLOAD_MEMORY_FACTOR} times over, at least ${BUDGET}`,
      ),
    );
    const config = runCli(home.root, ['config', '--json'], { env: { SDS_LIMIT_UPLOAD_MEMORY_BYTES: String(2 * BUDGET) } });
    assert.equal(config.code, 0, show(config));
    assert.match(config.stdout, /upload_memory_bytes/);
    assert.match(config.stdout, new RegExp(String(2 * BUDGET)));
  } finally {
    await home.cleanup();
  }
});
