import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { addUser } from '../../../src/core/auth/users.js';
import { startServer, type RunningServer } from '../../../src/http/serve.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import { RateLimitBody } from '../../../src/http/schemas/common.js';
import { postFormFrom, type RawReply } from '../../helpers/request-from.js';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { tempHome, writeHomeConfig } from '../../helpers/temp-home.js';

// Thresholds come from the home's config.json (the server gets no throttle in its config).
const CONFIG = {
  login_throttle: { max_failures_per_user: 3, max_failures_per_address: 6, window_seconds: 600, block_seconds: 60, max_block_seconds: 240 },
  trusted_proxies: ['127.0.0.51'],
};
const API = { username: 'integration', password: 'api-password-12' };
const STD = { username: 'interviewer', password: 'standard-pass-1' };

const home = await tempHome();
// Near the real time, so `sds users list` (which reads the wall clock) sees the same window.
let now = Math.floor(Date.now() / 1000) * 1000;
let store: Store;
let server: RunningServer;
const logs: string[] = [];

async function start(): Promise<void> {
  store = await openStore(home);
  server = await startServer({
    store,
    host: '127.0.0.1',
    port: 0,
    clock: () => now,
    config: { log: (l) => logs.push(l), env: {} },
    graceMs: 1000,
  });
}
async function stop(): Promise<void> {
  await server.close();
  await store.close();
}

before(async () => {
  store = await openStore(home);
  writeHomeConfig(home, CONFIG);
  for (const u of [API, STD]) await addUser(store, u.username, u.username === API.username ? 'API' : 'Standard User', u.password);
  await store.close();
  await start();
});
after(async () => {
  await stop();
  await home.cleanup();
});

const login = (from: string, user: { username: string; password: string }, headers?: Record<string, string>) =>
  postFormFrom(`${server.url}/api/token`, from, { grant_type: 'password', ...user }, headers);
const wrong = (from: string, username: string, headers?: Record<string, string>) =>
  login(from, { username, password: 'not-the-password' }, headers);

function expectThrottled(r: RawReply, retryAfter: number): void {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.equal(r.headers['retry-after'], String(retryAfter));
  const body = RateLimitBody.parse(r.body);
  assert.equal(body.error, 'API-004');
  assert.equal(body.retry_after, retryAfter);
}
function expectDenied(r: RawReply): void {
  assert.equal(r.status, 401, JSON.stringify(r.body));
  assert.equal(r.body.error, 'invalid_grant');
}

test('the 3rd failure for one user from one address is throttled with Retry-After; the right password waits for the block; backoff grows', async () => {
  const A = '127.0.0.11';
  expectDenied(await wrong(A, API.username));
  expectDenied(await wrong(A, API.username));
  expectThrottled(await wrong(A, API.username), 60);
  // The right password is refused while blocked, and the refusal is not counted.
  expectThrottled(await login(A, API), 60);
  now += 30_000;
  expectThrottled(await login(A, API), 30);
  now += 30_000;
  // Block over, but the window still holds 3 failures: the next failure blocks again, twice as long.
  expectThrottled(await wrong(A, API.username), 120);
  now += 119_000;
  expectThrottled(await login(A, API), 1);
  now += 1_000;
  assert.equal((await login(A, API)).status, 200);
  // The success cleared this user's counter (it held 4 failures): a failure is a plain 401 again.
  expectDenied(await wrong(A, API.username));
  // The 6th failure from A reaches the address limit: a success does not clear that counter, or
  // one valid account would let its holder reset it between guesses at others.
  expectThrottled(await wrong(A, API.username), 60);
  // Audit: every failure and every throttled attempt, with user and address, never the password.
  const mine = logs.filter((l) => l.includes(`address=${A}`));
  assert.equal(mine.filter((l) => / auth login-failed grant=password user="integration" /.test(l)).length, 6);
  assert.equal(mine.filter((l) => / auth login-throttled grant=password user="integration" .* retry_after=\d+$/.test(l)).length, 6);
  assert.ok(!logs.some((l) => l.includes('not-the-password') || l.includes(API.password)));
});

test('the address counter spans usernames; another address and another user are not throttled', async () => {
  const A = '127.0.0.21';
  for (const name of ['u1', 'u2', 'u3', 'u4', 'u5']) expectDenied(await wrong(A, name));
  expectThrottled(await wrong(A, 'u6'), 60);
  expectThrottled(await login(A, STD), 60);
  // A different username from another address logs in, or fails without a 429.
  assert.equal((await login('127.0.0.22', STD)).status, 200);
  expectDenied(await wrong('127.0.0.22', API.username));
  // One user blocked from one address is not blocked from another.
  for (let i = 0; i < 2; i++) expectDenied(await wrong('127.0.0.23', STD.username));
  expectThrottled(await wrong('127.0.0.23', STD.username), 60);
  // Changing the case of the name does not buy fresh attempts.
  expectThrottled(await wrong('127.0.0.23', 'INTERVIEWER'), 60);
  assert.equal((await login('127.0.0.24', STD)).status, 200);
  now += 60_000;
});

test('a burst of concurrent guesses is charged before the passwords are checked: only the first 3 are verified', async () => {
  const A = '127.0.0.26';
  const replies = await Promise.all(Array.from({ length: 10 }, () => wrong(A, STD.username)));
  assert.deepEqual(replies.map((r) => r.status).sort(), [401, 401, ...Array(8).fill(429)]);
  const failed = logs.filter((l) => l.includes(`auth login-failed grant=password user="interviewer" address=${A} `));
  assert.equal(failed.length, 3, 'the other 7 were refused before their password was checked');
  now += 60_000;
});

test('failed refresh grants count against the address', async () => {
  const A = '127.0.0.31';
  const refresh = (t: string) => postFormFrom(`${server.url}/api/token`, A, { grant_type: 'refresh_token', refresh_token: t });
  for (let i = 0; i < 5; i++) expectDenied(await refresh(`guess-${i}`));
  expectThrottled(await refresh('guess-5'), 60);
  expectThrottled(await login(A, API), 60);
  assert.ok(
    logs.some((l) => / auth login-failed grant=refresh_token user=- address=127\.0\.0\.31 reason="invalid refresh token"$/.test(l)),
  );
  now += 60_000;
});

test('X-Forwarded-For is believed only from a trusted proxy', async () => {
  const spoof = { 'x-forwarded-for': '203.0.113.7' };
  // From an untrusted peer the header is ignored: the failures count for 127.0.0.41.
  for (let i = 0; i < 2; i++) expectDenied(await wrong('127.0.0.41', STD.username, spoof));
  expectThrottled(await wrong('127.0.0.41', STD.username, { 'x-forwarded-for': '198.51.100.9' }), 60);
  // Through the trusted proxy, the client behind it is the key: 203.0.113.7 is throttled, another client is not.
  for (let i = 0; i < 2; i++) expectDenied(await wrong('127.0.0.51', STD.username, spoof));
  expectThrottled(await wrong('127.0.0.51', STD.username, { 'x-forwarded-for': '10.9.9.9, 203.0.113.7' }), 60);
  assert.equal((await login('127.0.0.51', STD, { 'x-forwarded-for': '203.0.113.8' })).status, 200);
  assert.ok(logs.some((l) => / auth login-throttled grant=password user="interviewer" address=203\.0\.113\.7 /.test(l)));
  now += 60_000;
});

test('counters survive a restart and are visible to `sds users list`', async () => {
  const A = '127.0.0.61';
  const failedLogins = async () =>
    (await sds(home.root, ['users', 'list', '--json'])).json().find((u: { username: string }) => u.username === API.username)
      .failed_logins as number;
  const before = await failedLogins();
  for (let i = 0; i < 2; i++) expectDenied(await wrong(A, API.username));
  expectThrottled(await wrong(A, API.username), 60);
  await stop();
  await start();
  expectThrottled(await login(A, API), 60);
  // Counted over every address in the window; this address added 3.
  assert.equal(await failedLogins(), before + 3);
  now += 60_000;
  assert.equal((await login(A, API)).status, 200);
  assert.equal(await failedLogins(), before, 'the success cleared the counter of this address');
});

test('`sds users disable` (another process) cuts the live access and refresh tokens; enable does not revive them', async () => {
  const A = '127.0.0.71';
  const r = await login(A, API);
  assert.equal(r.status, 200);
  const { access_token, refresh_token } = r.body as { access_token: string; refresh_token: string };
  const read = () => fetch(`${server.url}/api/dictionaries`, { headers: { authorization: `Bearer ${access_token}` } });
  const refresh = () => postFormFrom(`${server.url}/api/token`, A, { grant_type: 'refresh_token', refresh_token });
  assert.equal((await read()).status, 200);

  const dis = await sds(home.root, ['users', 'disable', API.username, '--json']);
  assert.equal(dis.code, 0, show(dis));
  assert.equal(dis.json().disabled, true);
  const refused = await read();
  assert.equal(refused.status, 401);
  assert.equal(((await refused.json()) as { error: string }).error, 'invalid_token');
  const rf = await refresh();
  assert.equal(rf.status, 401);
  assert.equal(rf.body.error, 'invalid_grant');
  const pw = await login(A, API);
  expectDenied(pw);
  assert.match(pw.body.error_description, /disabled/);

  const human = await sds(home.root, ['users', 'list']);
  assert.match(human.stdout, /integration\s+│?\s*API\s+│?\s*disabled/);
  const listed = (await sds(home.root, ['users', 'list', '--json'])).json().find((u: { username: string }) => u.username === API.username);
  assert.equal(listed.disabled, true);
  assert.equal(listed.last_login_at, new Date(now).toISOString());

  const en = await sds(home.root, ['users', 'enable', API.username, '--json']);
  assert.equal(en.code, 0, show(en));
  assert.equal(en.json().disabled, false);
  assert.equal((await read()).status, 401, 'an access token issued before the disable stays dead');
  assert.equal((await refresh()).status, 401, 'so does the refresh token');
  assert.equal((await login(A, API)).status, 200);

  const nf = await sds(home.root, ['users', 'disable', 'nobody', '--json']);
  assert.equal(nf.code, 3, show(nf));
  assert.equal(nf.json().error, 'NOT_FOUND');
});
