/**
 * The roles routes and the accounts' role route over the real server (docs/supervision.md#roles-and-rights):
 * an Administrator adds a role, gives it rights per dictionary and an account, and removes it; a
 * Developer (users.write, no roles.*) may change accounts' roles but not give a role mightier than
 * its own. Every reply is checked against the served OpenAPI document.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { addUser } from '../../../src/core/auth/users.js';
import { seedEmptyDictionary, startTestServer, USERS, type TestServer } from '../../helpers/http-server.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

let t: TestServer;
let doc: OpenApiDoc;
let dict: string;
before(async () => {
  t = await startTestServer({
    seed: async (store) => {
      dict = await seedEmptyDictionary(store);
      await addUser(store, 'dev', 'Developer', 'developer-pass-1');
    },
  });
  doc = (await (await fetch(`${t.base}/api/openapi.json`)).json()) as OpenApiDoc;
});
after(() => t.close());

let devToken: string | undefined;
/** A call as `admin` (a helper account) or as the Developer `dev`; the reply checked against the document under `route`. */
async function call(who: 'admin' | 'dev', method: string, path: string, route: string, body?: unknown) {
  const init: RequestInit =
    body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  let r: Response;
  if (who === 'admin') r = await t.call('admin', path, init);
  else {
    if (!devToken) {
      const login = await fetch(`${t.base}/api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username: 'dev', password: 'developer-pass-1' }),
      });
      devToken = ((await login.json()) as { access_token: string }).access_token;
    }
    r = await fetch(`${t.base}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${devToken}` },
    });
  }
  const text = await r.text();
  const json = JSON.parse(text) as Record<string, unknown> & Record<string, unknown>[];
  assert.deepEqual(checkReply(doc, method, route, r.status, json), [], `${method} ${path} ${r.status}: ${text}`);
  return { status: r.status, json };
}

test('an Administrator adds a role, sets its rights, gives it to an account and removes it', async () => {
  const added = await call('admin', 'POST', '/api/roles', '/api/roles', { name: 'Supervisor', rights: ['dictionaries.read', 'data.read'] });
  assert.equal(added.status, 201);
  assert.deepEqual([added.json.name, added.json.rights, added.json.account_names], ['Supervisor', ['data.read', 'dictionaries.read'], []]);
  assert.equal((await call('admin', 'POST', '/api/roles', '/api/roles', { name: 'SUPERVISOR' })).json.error, 'CONFLICT');

  const rows = await call('admin', 'PUT', '/api/roles/Supervisor/rights', '/api/roles/{name}/rights', {
    dictionary: dict,
    rights: ['data.read', 'data.write'],
  });
  assert.deepEqual(rows.json.dictionaries, [{ dictionary: dict, rights: ['data.read', 'data.write'] }]);
  const bad = await call('admin', 'PUT', '/api/roles/Supervisor/rights', '/api/roles/{name}/rights', {
    rights: ['data.none', 'data.read'],
  });
  assert.deepEqual([bad.status, bad.json.error], [400, 'RIGHT_UNKNOWN']);
  const builtin = await call('admin', 'PUT', '/api/roles/Developer/rights', '/api/roles/{name}/rights', { rights: ['data.read'] });
  assert.deepEqual([builtin.status, builtin.json.error], [409, 'ROLE_BUILTIN']);

  const given = await call('admin', 'PUT', `/api/users/${USERS.standard.username}/role`, '/api/users/{username}/role', {
    role: 'Supervisor',
  });
  assert.deepEqual([given.json.role, given.json.previous_role, given.json.changed], ['Supervisor', 'Standard User', true]);
  const list = await call('admin', 'GET', '/api/roles', '/api/roles');
  assert.equal(list.json.find((r) => r.name === 'Supervisor')!.accounts, 1);
  const users = await call('admin', 'GET', '/api/users', '/api/users');
  assert.equal(users.json.find((u) => u.username === USERS.standard.username)!.role, 'Supervisor');

  const removed = await call('admin', 'DELETE', '/api/roles/Supervisor', '/api/roles/{name}');
  assert.deepEqual(removed.json, {
    role: 'Supervisor',
    moved_to: 'Standard User',
    accounts: [USERS.standard.username],
    message: `Role Supervisor removed; 1 account moved to Standard User: ${USERS.standard.username}`,
  });
  assert.deepEqual((await call('admin', 'GET', '/api/roles/Supervisor', '/api/roles/{name}')).status, 404);
  assert.deepEqual((await call('admin', 'DELETE', '/api/roles/API', '/api/roles/{name}')).json.error, 'ROLE_BUILTIN');
});

test('a Developer changes roles it could hold itself, never to a mightier role, and cannot touch roles', async () => {
  const up = await call('dev', 'PUT', `/api/users/${USERS.api.username}/role`, '/api/users/{username}/role', { role: 'Standard User' });
  assert.deepEqual([up.status, up.json.role], [200, 'Standard User']);
  const admin = await call('dev', 'PUT', `/api/users/${USERS.api.username}/role`, '/api/users/{username}/role', { role: 'Administrator' });
  assert.deepEqual([admin.status, admin.json.error], [403, 'access_denied']);
  assert.match(String(admin.json.error_description), /holds rights the caller does not/);
  const roles = await call('dev', 'GET', '/api/roles', '/api/roles');
  assert.deepEqual([roles.status, roles.json.error], [403, 'access_denied']);
  const users = await call('admin', 'GET', '/api/users', '/api/users');
  assert.equal(users.json.find((u) => u.username === USERS.api.username)!.role, 'Standard User');
});

test('the CSV import over HTTP gives only roles the caller holds: a Developer makes Standard Users, not Administrators', async () => {
  const post = async (csv: string) => {
    const r = await fetch(`${t.base}/api/users/import`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', authorization: `Bearer ${devToken!}` },
      body: csv,
    });
    return { status: r.status, json: (await r.json()) as { error?: string; added?: number } };
  };
  const refused = await post('boss0001,Big,Boss,Administrator,long-enough-1\nfield001,Ann,Lee,Standard User,long-enough-2\n');
  assert.deepEqual([refused.status, refused.json.error], [403, 'access_denied']);
  assert.equal(await t.store.users.find('field001'), undefined, 'nothing of the file was imported');
  const ok = await post('field001,Ann,Lee,Standard,long-enough-2\n');
  assert.deepEqual([ok.status, ok.json.added], [200, 1]);
  assert.equal((await t.store.users.find('field001'))!.role, 'Standard User');
});
