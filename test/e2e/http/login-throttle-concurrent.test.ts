import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { addUser } from '../../../src/core/auth/users.js';
import { startServer, type RunningServer } from '../../../src/http/serve.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import type { ThrottleKey } from '../../../src/store/login-throttle-repo.js';
import { RateLimitBody } from '../../../src/http/schemas/common.js';
import { postFormFrom, type RawReply } from '../../helpers/request-from.js';
import { tempHome, writeHomeConfig } from '../../helpers/temp-home.js';

// Many tablets behind one NAT log in at once: right passwords must all get in, however many,
// while concurrent wrong ones still stop at the limit (docs/http-api.md#login-throttling-and-accounts).
// Limits far below the defaults (3 per user, 6 per address) make the point with fewer requests.
const CONFIG = {
  login_throttle: { max_failures_per_user: 3, max_failures_per_address: 6, window_seconds: 600, block_seconds: 60, max_block_seconds: 240 },
};
const TEAM = Array.from({ length: 60 }, (_, i) => ({
  username: `tablet${String(i + 1).padStart(2, '0')}`,
  password: `field-pass-${i + 1}-x`,
}));
const ONE = TEAM[0]!;

const home = await tempHome();
const now = Date.UTC(2026, 10, 23, 7, 0, 0);
let store: Store;
let server: RunningServer;
const logs: string[] = [];

before(async () => {
  writeHomeConfig(home, CONFIG);
  store = await openStore(home);
  await Promise.all(TEAM.map((u) => addUser(store, u.username, 'Standard User', u.password)));
  server = await startServer({
    store,
    host: '127.0.0.1',
    port: 0,
    clock: () => now,
    config: { log: (l) => logs.push(l), env: {} },
    graceMs: 1000,
  });
});
after(async () => {
  await server.close();
  await store.close();
  await home.cleanup();
});

const login = (url: string, from: string, user: { username: string; password: string }) =>
  postFormFrom(`${url}/api/token`, from, { grant_type: 'password', ...user });
const wrong = (url: string, from: string, username: string) => login(url, from, { username, password: 'not-the-password' });
const counter = (address: string, username = ''): ThrottleKey => ({ scope: username ? 'user' : 'address', username, address });
const auditOf = (address: string, kind: 'failed' | 'throttled') =>
  logs.filter((l) => l.includes(` auth login-${kind} `) && l.includes(` address=${address} `));

function statusesOf(replies: RawReply[]): Record<number, number> {
  const n: Record<number, number> = {};
  for (const r of replies) n[r.status] = (n[r.status] ?? 0) + 1;
  return n;
}
function isThrottled(r: RawReply, retryAfter: number): boolean {
  return r.status === 429 && r.headers['retry-after'] === String(retryAfter) && RateLimitBody.parse(r.body).retry_after === retryAfter;
}

test('30 concurrent right logins of one account from one address all get 200 (limit 3 per user)', async () => {
  const A = '127.0.1.1';
  const replies = await Promise.all(Array.from({ length: 30 }, () => login(server.url, A, ONE)));
  assert.deepEqual(statusesOf(replies), { 200: 30 }, JSON.stringify(replies.find((r) => r.status !== 200)?.body));
  assert.deepEqual(auditOf(A, 'throttled'), []);
  // Every charge was given back: no counter is left, so a mistyped password is a plain 401.
  assert.equal(await store.loginThrottle.get(counter(A, ONE.username)), undefined);
  assert.equal(await store.loginThrottle.get(counter(A)), undefined);
  assert.equal((await wrong(server.url, A, ONE.username)).status, 401);
});

test('60 concurrent right logins of 60 accounts from one address all get 200 (limit 6 per address)', async () => {
  const A = '127.0.1.2';
  const replies = await Promise.all(TEAM.map((u) => login(server.url, A, u)));
  assert.deepEqual(statusesOf(replies), { 200: 60 }, JSON.stringify(replies.find((r) => r.status !== 200)?.body));
  assert.deepEqual(auditOf(A, 'throttled'), []);
  assert.equal(await store.loginThrottle.get(counter(A)), undefined);
});

test('concurrent wrong passwords of 30 names from one address: only 6 are checked, the rest are refused', async () => {
  const A = '127.0.1.3';
  const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => wrong(server.url, A, `guess${i}`)));
  assert.deepEqual(statusesOf(replies), { 401: 5, 429: 25 });
  assert.ok(replies.filter((r) => r.status === 429).every((r) => isThrottled(r, 60)));
  assert.equal(auditOf(A, 'failed').length, 6, 'the 6th failure is checked and answered 429; no more are checked');
  const c = (await store.loginThrottle.get(counter(A)))!;
  assert.equal(c.failures, 6);
  assert.equal(c.blockedUntil, now + 60_000);
  assert.ok(isThrottled(await login(server.url, A, ONE), 60), 'a blocked address refuses the right password too');
});

test('2 wrong and 20 right passwords of one account at once: the right ones get 200, only the wrong ones count', async () => {
  const A = '127.0.1.4';
  const attempts: ('right' | 'wrong')[] = Array.from({ length: 22 }, (_, i) => (i === 2 || i === 12 ? 'wrong' : 'right'));
  const replies = await Promise.all(attempts.map((k) => (k === 'right' ? login(server.url, A, ONE) : wrong(server.url, A, ONE.username))));
  assert.deepEqual(
    replies.map((r, i) => `${attempts[i]} ${r.status}`).filter((x) => x !== 'right 200' && x !== 'wrong 401'),
    [],
  );
  assert.equal(auditOf(A, 'failed').length, 2);
  // The right passwords gave their address charges back; the two failures stay on it.
  assert.equal((await store.loginThrottle.get(counter(A)))?.failures, 2);
  assert.ok(((await store.loginThrottle.get(counter(A, ONE.username)))?.failures ?? 0) <= 2);
});

test('6 wrong passwords among 30 right logins from one address: exactly 6 are checked, then the address is blocked', async () => {
  const A = '127.0.1.5';
  const kinds = TEAM.slice(0, 30).map((u, i) => ({ u, wrong: i % 5 === 2 }));
  const replies = await Promise.all(kinds.map((k) => (k.wrong ? wrong(server.url, A, k.u.username) : login(server.url, A, k.u))));
  assert.equal(auditOf(A, 'failed').length, 6, 'every wrong password is checked, and no more than the limit');
  kinds.forEach((k, i) => {
    const r = replies[i]!;
    // A right password gets in unless it was still waiting when the 6th failure blocked the address.
    if (k.wrong) assert.ok(r.status === 401 || isThrottled(r, 60), `${r.status}`);
    else assert.ok(r.status === 200 || isThrottled(r, 60), `${r.status} ${JSON.stringify(r.body)}`);
  });
  assert.equal(replies.filter((r) => r.status === 401).length + replies.filter((r, i) => kinds[i]!.wrong && r.status === 429).length, 6);
  const c = (await store.loginThrottle.get(counter(A)))!;
  assert.equal(c.failures, 6);
  assert.equal(c.blockedUntil, now + 60_000);
});

test('past max_waiting, an attempt is answered 429 with Retry-After 1 and no block is left behind', async () => {
  const A = '127.0.1.6';
  const throttle = {
    maxFailuresPerUser: 2,
    maxFailuresPerAddress: 20,
    windowMs: 600_000,
    blockMs: 60_000,
    maxBlockMs: 240_000,
    maxWaiting: 1,
    attemptTimeoutMs: 60_000,
    waitRecheckMs: 250,
  };
  const tight = await startServer({
    store,
    host: '127.0.0.1',
    port: 0,
    clock: () => now,
    config: { log: (l) => logs.push(l), env: {}, throttle, trustedProxies: [] },
    graceMs: 1000,
  });
  try {
    const replies = await Promise.all(Array.from({ length: 20 }, () => login(tight.url, A, ONE)));
    for (const r of replies) assert.ok(r.status === 200 || isThrottled(r, 1), `${r.status} ${JSON.stringify(r.body)}`);
    assert.ok(replies.filter((r) => r.status === 200).length >= 3, 'two in flight and one waiting get in at least');
    const throttled = auditOf(A, 'throttled');
    assert.equal(throttled.length, replies.filter((r) => r.status === 429).length);
    for (const line of throttled) assert.match(line, / retry_after=1$/);
    // Nothing is blocked: the clock has not moved and the next login gets in.
    assert.equal(await store.loginThrottle.get(counter(A, ONE.username)), undefined);
    assert.equal((await login(tight.url, A, ONE)).status, 200);
  } finally {
    await tight.close();
  }
});
