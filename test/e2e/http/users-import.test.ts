/**
 * `POST /api/users/import` (docs/supervision.md#accounts) over the real server on loopback: a
 * CSV as CSWeb's web page sends it (text/plain, `x-csw-data-header: 1`) or as text/csv with
 * `header=true`, every bad line in `details.errors` and nothing written, `update=true`, the
 * limits, and that an imported account logs in and gets its last login, by password and by refresh.
 * Replies are checked against the served OpenAPI document.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

const PATH = '/api/users/import';
let t: TestServer;
let doc: OpenApiDoc;

before(async () => {
  t = await startTestServer({ config: { limits: { usersImportBytes: 2048, usersImportRows: 4 } } });
  doc = (await (await t.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
});
after(() => t.close());

async function post(
  user: UserKey | null,
  body: string,
  opts: { type?: string; query?: string; headers?: Record<string, string>; path?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const path = opts.path ?? PATH;
  const r = await t.call(user, `${path}${opts.query ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': opts.type ?? 'text/csv', ...opts.headers },
    body,
  });
  const text = await r.text();
  const parsed = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(checkReply(doc, 'POST', path, r.status, parsed), [], `${r.status}: ${text}`);
  return { status: r.status, body: parsed };
}

async function usernames(): Promise<string[]> {
  return (await t.store.users.listWithHashes()).map((u) => u.username);
}

test("CSWeb's form: POST /api/users, text/plain with x-csw-data-header: 1, adds the accounts, which log in and get a last login", async () => {
  const r = await post(
    'admin',
    'username,first name,last name,role name,password,email,phone\nfield001,Amina,Diallo,Standard User,field-pass-001,amina@example.org,+221 1\n',
    { type: 'text/plain; charset=utf-8', headers: { 'x-csw-data-header': '1' }, path: '/api/users' },
  );
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, { added: 1, updated: 0, accounts: [{ line: 2, username: 'field001', role: 'Standard User', action: 'add' }] });
  const u = await t.store.users.find('field001');
  assert.deepEqual(u?.profile, { firstName: 'Amina', lastName: 'Diallo', email: 'amina@example.org', phone: '+221 1' });
  assert.equal(u?.lastLoginAt, null);

  const login = await fetch(`${t.base}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'field001', password: 'field-pass-001' }),
  });
  assert.equal(login.status, 200);
  const tokens = (await login.json()) as { refresh_token: string };
  const first = (await t.store.users.find('field001'))?.lastLoginAt;
  assert.equal(first, new Date(Date.UTC(2025, 0, 15, 9, 0, 0)).toISOString(), 'the password grant is the last login, at the server clock');

  // A tablet that only refreshes is still in use: the refresh grant is a login too.
  t.advance(60_000);
  const refresh = await fetch(`${t.base}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
  });
  assert.equal(refresh.status, 200);
  assert.equal((await t.store.users.find('field001'))?.lastLoginAt, new Date(Date.UTC(2025, 0, 15, 9, 1, 0)).toISOString());
});

test('every bad line is in details.errors with its line; nothing of the file is written', async () => {
  const r = await post('admin', 'field002,Ann,Lee,Standard,long-enough-2\nfield003,Ann,Lee,Boss,short\nx,Ann,Lee,API,long-enough-4\n');
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'USERS_IMPORT_INVALID');
  assert.deepEqual(r.body.details, {
    errors: [
      { line: 2, field: 'role name', message: 'role "Boss" is not one of API, Administrator, Developer, Standard User' },
      { line: 2, field: 'password', message: 'the password must have at least 8 characters' },
      { line: 3, field: 'username', message: 'user name "x" is not valid: 4-64 letters (A-Z, a-z) and digits' },
    ],
  });
  assert.doesNotMatch(String(r.body.message), /--/, 'no CLI flag in an HTTP reply');
  assert.ok(!(await usernames()).includes('field002'));
});

test('an existing account is refused without update=true and updated with it; header=true skips the header row', async () => {
  const file = 'username,first,last,role,password\nfield001,Amina,Diallo-Ba,API,field-pass-new\nfield004,New,One,Standard,long-enough-4\n';
  const refused = await post('admin', file, { query: '?header=true' });
  assert.equal(refused.status, 400);
  assert.deepEqual(
    (refused.body.details as { errors: { line: number; exists?: true }[] }).errors.map((e) => [e.line, e.exists]),
    [[2, true]],
  );
  assert.ok(!(await usernames()).includes('field004'));

  const updated = await post('admin', file, { query: '?header=true&update=true' });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.deepEqual([updated.body.added, updated.body.updated], [1, 1]);
  const u = await t.store.users.find('field001');
  assert.equal(u?.role, 'API');
  assert.deepEqual(u?.profile, { firstName: 'Amina', lastName: 'Diallo-Ba', email: null, phone: null });
});

test('limits and media type: too many rows or bytes is 413, a JSON body is 400 USAGE, a field account is 403', async () => {
  const rows = Array.from({ length: 5 }, (_, i) => `limit00${i},A,B,API,long-enough-${i}`).join('\n');
  const many = await post('admin', rows);
  assert.equal(many.status, 413);
  assert.equal(many.body.error, 'PAYLOAD_TOO_LARGE');
  const big = await post('admin', `limit001,A,B,API,long-enough-1,${'a'.repeat(2100)}`);
  assert.equal(big.status, 413);
  const json = await post('admin', '{"username":"x"}', { type: 'application/json' });
  assert.equal(json.status, 400);
  assert.equal(json.body.error, 'USAGE');
  const query = await post('admin', 'limit001,A,B,API,long-enough-1', { query: '?update=yes' });
  assert.equal(query.status, 400);
  const field = await t.call('standard', PATH, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'a,b' });
  assert.equal(field.status, 403);
  assert.ok(!(await usernames()).some((n) => n.startsWith('limit')));
});
