/**
 * What ends a token (docs/http-api.md#what-ends-a-token), with a real `sds serve` and the real CLI
 * writing the same home: removing an account, disabling it and changing its role each end every
 * access and refresh token it had, and a new account of a removed one's name never inherits them
 * (issue 27: a removed Standard account's token used to work again, as Administrator, once an
 * account of the same name was added).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { Agent, fetch } from 'undici';
import { runCli, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempHome } from '../../helpers/temp-home.js';

const PASSWORD = 'alice-password-1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const home = await tempHome();
let s: ServeProcess;
// One connection per request: a CLI command between two requests takes about as long as the
// server keeps an idle connection (5 s), so a pooled one could be closed just as it is reused.
const dispatcher = new Agent({ pipelining: 0 });
const post = (path: string, headers: Record<string, string>, body: string) =>
  fetch(`${s.url}${path}`, { method: 'POST', headers, body, dispatcher });

before(async () => {
  s = await startServe(home.root);
});
after(async () => {
  await s?.stop();
  await dispatcher.close();
  await home.cleanup();
});

/** Runs `sds --home HOME … --json` and returns its JSON reply; fails the test on a non-zero exit. */
function sds<T = Record<string, unknown>>(...args: string[]): T {
  const r = runCli(home.root, [...args, '--json'], { stdin: PASSWORD + '\n' });
  assert.equal(r.code, 0, `sds ${args.join(' ')}: ${show(r)}`);
  return r.json<T>();
}

interface Tokens {
  access_token: string;
  refresh_token: string;
}

async function login(username: string): Promise<Tokens> {
  const r = await post(
    '/api/token',
    { 'content-type': 'application/x-www-form-urlencoded' },
    new URLSearchParams({ grant_type: 'password', username, password: PASSWORD }).toString(),
  );
  const body = (await r.json()) as Tokens;
  assert.equal(r.status, 200, JSON.stringify(body));
  return body;
}

/** The status of `GET /api/webhooks` (Administrator only) with access token `t`. */
async function webhooks(t: Tokens): Promise<number> {
  const r = await fetch(`${s.url}/api/webhooks`, { headers: { authorization: `Bearer ${t.access_token}` }, dispatcher });
  await r.arrayBuffer();
  return r.status;
}

/** Presents the refresh token of `t`; returns the status, the OAuth error and the new tokens, if any. */
async function refresh(t: Tokens): Promise<{ status: number; error?: string; description?: string; tokens?: Tokens }> {
  const r = await post(
    '/api/token',
    { 'content-type': 'application/x-www-form-urlencoded' },
    new URLSearchParams({ grant_type: 'refresh_token', refresh_token: t.refresh_token }).toString(),
  );
  const body = (await r.json()) as Tokens & { error?: string; error_description?: string };
  return r.status === 200 ? { status: 200, tokens: body } : { status: r.status, error: body.error, description: body.error_description };
}

/** Asserts that the refresh token of `t` is refused with 401 `invalid_grant`, saying `why`. */
async function refreshRefused(t: Tokens, why: RegExp, what: string): Promise<void> {
  const r = await refresh(t);
  assert.equal(r.status, 401, `${what}: ${JSON.stringify(r)}`);
  assert.equal(r.error, 'invalid_grant', what);
  assert.match(r.description ?? '', why, what);
}

const idOf = (username: string): string =>
  sds<{ id: string; username: string }[]>('users', 'list').find((u) => u.username === username)!.id;

test("a removed account's access token stays dead when an account of the same name is added, even as Administrator", async () => {
  const first = sds<{ id: string }>('users', 'add', 'alice', '--role', 'Standard User', '--password-stdin');
  assert.match(first.id, UUID);
  const t = await login('alice');
  assert.equal(decodeJwt(t.access_token).sub, first.id, "the token names the account's UUID");
  assert.equal(await webhooks(t), 403, 'Standard may not list webhooks');

  sds('users', 'remove', 'alice');
  assert.equal(await webhooks(t), 401, 'removed: the token is refused');

  const second = sds<{ id: string }>('users', 'add', 'alice', '--role', 'Administrator', '--password-stdin');
  assert.match(second.id, UUID);
  assert.notEqual(second.id, first.id, 'the new account of the same name gets another id');
  assert.equal(await webhooks(t), 401, "the old token is not the new account's: it stays refused");
  await refreshRefused(t, /invalid refresh token/, "the removed account's refresh token (deleted with it)");

  // The new account itself works, with its own role.
  const fresh = await login('alice');
  assert.equal(decodeJwt(fresh.access_token).sub, second.id);
  assert.equal(await webhooks(fresh), 200);
  sds('users', 'remove', 'alice');
});

test("a removed account's refresh token, first presented once an account of the same name is back, gives nothing", async () => {
  const first = sds<{ id: string }>('users', 'add', 'ralph', '--role', 'Standard User', '--password-stdin');
  const t = await login('ralph');
  sds('users', 'remove', 'ralph');
  const second = sds<{ id: string }>('users', 'add', 'ralph', '--role', 'Administrator', '--password-stdin');
  assert.notEqual(second.id, first.id);
  await refreshRefused(t, /invalid refresh token/, 'refresh after remove and add');
  assert.equal(await webhooks(t), 401);
});

test('disabling an account ends its access and refresh tokens, and enabling it again does not bring them back', async () => {
  sds('users', 'add', 'bob', '--role', 'Standard User', '--password-stdin');
  const t = await login('bob');
  const spare = await login('bob');
  assert.equal(await webhooks(t), 403);

  sds('users', 'disable', 'bob');
  assert.equal(await webhooks(t), 401);
  await refreshRefused(t, /revoked/, 'refresh while disabled');

  sds('users', 'enable', 'bob');
  assert.equal(await webhooks(t), 401, 'a token from before the disable stays dead');
  await refreshRefused(spare, /revoked/, 'a refresh token from before the disable, presented after the enable');
  assert.equal(await webhooks(await login('bob')), 403, 'a new login works again');
});

test('changing the role ends every token of the account: no token of the old role gets the new one', async () => {
  const added = sds<{ id: string }>('users', 'add', 'carol', '--role', 'Standard User', '--password-stdin');
  const t = await login('carol');
  const spare = await login('carol');
  assert.equal(await webhooks(t), 403);

  const same = sds<{ changed: boolean; role: string }>('users', 'set-role', 'carol', '--role', 'Standard User');
  assert.deepEqual([same.changed, same.role], [false, 'Standard User']);
  assert.equal(await webhooks(t), 403, 'the same role again changes nothing: the token still works');
  const renewed = await refresh(t);
  assert.equal(renewed.status, 200, JSON.stringify(renewed));

  const set = sds<{ id: string; changed: boolean; role: string; previous_role: string }>(
    'users',
    'set-role',
    'carol',
    '--role',
    'Administrator',
  );
  assert.deepEqual([set.id, set.changed, set.previous_role, set.role], [added.id, true, 'Standard User', 'Administrator']);
  assert.equal(await webhooks(t), 401, 'the Standard token does not become an Administrator token');
  assert.equal(await webhooks(renewed.tokens!), 401, 'nor does the one the refresh gave');
  await refreshRefused(renewed.tokens!, /revoked/, 'the rotated refresh token');
  await refreshRefused(spare, /revoked/, "another login's refresh token");

  const fresh = await login('carol');
  assert.equal(decodeJwt(fresh.access_token).sub, added.id, 'the account keeps its id');
  assert.equal(await webhooks(fresh), 200, 'a new login has the new role');

  // And back down: the Administrator's tokens end too.
  sds('users', 'set-role', 'carol', '--role', 'Standard User');
  assert.equal(await webhooks(fresh), 401);
  await refreshRefused(fresh, /revoked/, 'refresh after the role went down');
});

test('set-role: an unknown account is exit 3, an unknown role exit 2 naming the roles; nothing changes', () => {
  const unknown = runCli(home.root, ['users', 'set-role', 'nobody', '--role', 'API', '--json']);
  assert.equal(unknown.code, 3, show(unknown));
  assert.equal(unknown.json<{ error: string }>().error, 'NOT_FOUND');

  sds('users', 'add', 'dave', '--role', 'API', '--password-stdin');
  const bad = runCli(home.root, ['users', 'set-role', 'dave', '--role', 'administrator', '--json']);
  assert.equal(bad.code, 2, show(bad));
  assert.match(
    bad.json<{ message: string }>().message,
    /role must be one of API, Administrator, Developer, Standard User; got "administrator"/,
  );
  assert.equal(sds<{ username: string; role: string }[]>('users', 'list').find((u) => u.username === 'dave')!.role, 'API');
});

test('a CSPro 8.1 password grant names the account by its UUID as user.id, as sds users list shows it', async () => {
  sds('users', 'add', 'field01', '--role', 'Standard User', '--password-stdin');
  const r = await post(
    '/api/token',
    { 'content-type': 'application/json', 'user-agent': 'CSPro sync client/8.1.1 (64-bit)' },
    JSON.stringify({ grant_type: 'password', username: 'field01', password: PASSWORD, client_id: 'cspro_android', client_secret: 'cspro' }),
  );
  assert.equal(r.status, 200);
  const body = (await r.json()) as { credentials: Tokens; user: { id: string; roleName: string } };
  assert.deepEqual(body.user, { id: idOf('field01'), roleName: 'Standard User' });
  assert.equal(decodeJwt(body.credentials.access_token).sub, body.user.id);

  const plain = runCli(home.root, ['users', 'list', '--plain']);
  assert.equal(plain.code, 0, show(plain));
  const [header, ...rows] = plain.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const col = header!.indexOf('id');
  assert.ok(col >= 0, plain.stdout);
  assert.equal(rows.find((row) => row[0] === 'field01')![col], body.user.id);
});
