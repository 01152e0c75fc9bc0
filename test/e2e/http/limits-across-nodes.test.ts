import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { addUser } from '../../../src/core/auth/users.js';
import { startServer, type RunningServer } from '../../../src/http/serve.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import { RateLimitBody } from '../../../src/http/schemas/common.js';
import { postFormFrom, type RawReply } from '../../helpers/request-from.js';
import { tempHome, type TempHome } from '../../helpers/temp-home.js';

// Issue 29, item 3: two nodes, each a server over its own Store object opened on the same store
// (one SQLite home, or one PostgreSQL database), count the login throttle, the rate limit of the
// root scripts and the turns of file writers as one node does
// (docs/http-api.md#login-throttling-and-accounts, docs/decisions.md "Per-account limits across nodes (issue 29)").
const THROTTLE = {
  maxFailuresPerUser: 3,
  maxFailuresPerAddress: 6,
  windowMs: 600_000,
  blockMs: 60_000,
  maxBlockMs: 240_000,
  maxWaiting: 5,
  attemptTimeoutMs: 60_000,
  waitRecheckMs: 250,
};
const TOKEN = 'status-token-0123456789abcdef0123456789abcdef';
const ALICE = { username: 'alice', password: 'alice-pass-1234' };
const WRITERS = [
  { username: 'writer1', password: 'writer1-pass-1234' },
  { username: 'writer2', password: 'writer2-pass-1234' },
];

let home: TempHome;
let stores: Store[] = [];
let nodes: RunningServer[] = [];
let now = Date.UTC(2026, 10, 28, 8, 0, 0);
const logs: string[] = [];

before(async () => {
  home = await tempHome();
  stores = [await openStore(home), await openStore(home)];
  for (const u of [ALICE, ...WRITERS]) await addUser(stores[0]!, u.username, 'Administrator', u.password);
  for (let i = 1; i <= 7; i++) await addUser(stores[0]!, `user${i}`, 'Standard User', `user${i}-pass-1234`);
  nodes = await Promise.all(
    stores.map((store) =>
      startServer({
        store,
        host: '127.0.0.1',
        port: 0,
        clock: () => now,
        config: {
          log: (l) => logs.push(l),
          env: { BREAKOUT_WEBHOOK_TOKEN: TOKEN },
          throttle: THROTTLE,
          trustedProxies: [],
          webhookRateLimit: { max: 3, windowMs: 60_000 },
        },
        graceMs: 1000,
      }),
    ),
  );
});
after(async () => {
  for (const n of nodes) await n.close();
  for (const s of stores) await s.close();
  await home.cleanup();
});

const node = (i: number) => nodes[i % 2]!.url;
const login = (url: string, from: string, user: { username: string; password: string }) =>
  postFormFrom(`${url}/api/token`, from, { grant_type: 'password', ...user });
const wrong = (url: string, from: string, username: string) => login(url, from, { username, password: 'not-the-password' });
function isThrottled(r: RawReply, retryAfter: number): boolean {
  return r.status === 429 && r.headers['retry-after'] === String(retryAfter) && RateLimitBody.parse(r.body).retry_after === retryAfter;
}

test('wrong passwords of one account spread over two nodes are throttled as if one node took them all', async () => {
  const A = '127.0.2.1';
  assert.equal((await wrong(node(0), A, ALICE.username)).status, 401);
  assert.equal((await wrong(node(1), A, ALICE.username)).status, 401);
  assert.ok(isThrottled(await wrong(node(0), A, ALICE.username), 60), 'the third failure, on either node, blocks');
  assert.ok(isThrottled(await login(node(1), A, ALICE), 60), 'the other node refuses the right password too');
  assert.ok(isThrottled(await login(node(0), A, ALICE), 60));
  now += 60_000;
  assert.equal((await login(node(1), A, ALICE)).status, 200, 'the block ended on both nodes alike');
});

test('wrong passwords of many accounts from one address spread over two nodes stop at the address limit', async () => {
  const A = '127.0.2.2';
  const replies: RawReply[] = [];
  for (let i = 0; i < 6; i++) replies.push(await wrong(node(i), A, `user${i + 1}`));
  assert.deepEqual(
    replies.map((r) => r.status),
    [401, 401, 401, 401, 401, 429],
  );
  assert.ok(isThrottled(await login(node(1), A, { username: 'user7', password: 'user7-pass-1234' }), 60));
});

test('concurrent wrong passwords of one account on both nodes: no more than the limit are checked', async () => {
  const A = '127.0.2.3';
  const before = logs.filter((l) => l.includes(' auth login-failed ') && l.includes(` address=${A} `)).length;
  const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => wrong(node(i), A, 'user1')));
  const failed = logs.filter((l) => l.includes(' auth login-failed ') && l.includes(` address=${A} `)).length - before;
  assert.equal(failed, 3, 'three failures checked over both nodes, as on one');
  assert.equal(replies.filter((r) => r.status === 401).length, 2);
  // The others met the block (60 s), or found the 5 places of the waiting line of the address
  // taken, on either node (1 s, no block).
  assert.ok(
    replies.filter((r) => r.status !== 401).every((r) => isThrottled(r, 60) || isThrottled(r, 1)),
    JSON.stringify(replies.map((r) => [r.status, r.body])),
  );
  assert.equal((await stores[1]!.loginThrottle.get({ scope: 'user', username: 'user1', address: A }))?.failures, 3);
});

test('the rate limit of the root scripts counts the requests of both nodes together', async () => {
  now += 61_000;
  const get = (i: number) =>
    fetch(`${node(i)}/breakout-status-webhook.php`, { headers: { authorization: `Bearer ${TOKEN}x` } }).then(async (r) => ({
      status: r.status,
      retryAfter: r.headers.get('retry-after'),
      body: await r.text(),
    }));
  const replies = [await get(0), await get(1), await get(0), await get(1), await get(0)];
  assert.deepEqual(
    replies.map((r) => r.status),
    [401, 401, 401, 429, 429],
    JSON.stringify(replies.map((r) => r.body)),
  );
  assert.equal(replies[3]!.retryAfter, '60');
  now += 60_000;
  assert.equal((await get(1)).status, 401, 'the window moved on for both nodes');
});

test('two writers of one file name on two nodes take turns: the file and its metadata are one version', async () => {
  const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
  const versions = [randomBytes(40 * 1024), randomBytes(90 * 1024 + 3)];
  const tokens = await Promise.all(
    WRITERS.map(async (u, i) => ((await login(node(i), '127.0.2.4', u)).body as { access_token: string }).access_token),
  );
  const PATH = '/api/files/nodes/race.bin/content';
  const put = async (i: number, body: Buffer) => {
    const r = await fetch(`${node(i)}${PATH}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${tokens[i]}`, 'content-md5': md5(body) },
      body,
    });
    assert.equal(r.status, 200, await r.text());
  };
  const writer = async (i: number) => {
    for (let k = 0; k < 15; k++) await put(i, versions[(i + k) % 2]!);
  };
  await Promise.all([writer(0), writer(1)]);
  for (const i of [0, 1]) {
    const r = await fetch(`${node(i)}${PATH}`, { headers: { authorization: `Bearer ${tokens[i]}` } });
    const body = Buffer.from(await r.arrayBuffer());
    assert.equal(r.status, 200);
    assert.ok(
      versions.some((v) => v.equals(body)),
      'one version whole',
    );
    assert.equal(r.headers.get('content-md5'), md5(body), `node ${i}: the metadata describes the bytes in place`);
    assert.equal(r.headers.get('content-length'), String(body.length));
  }
});
