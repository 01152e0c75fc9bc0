/**
 * The audit trail over the real server on loopback (docs/supervision.md#audit-trail): logins by
 * password, failed and successful, and a dictionary deleted by an Administrator are recorded with
 * the account and the client address; a failed delete is a failure with its code; `GET
 * /api/audit` filters and pages, needs `audit.read` (Administrator only), and every reply is
 * checked against the served OpenAPI document; the chain the server wrote verifies.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyAudit } from '../../../src/core/audit/index.js';
import { seedEmptyDictionary, startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

let t: TestServer;
let doc: OpenApiDoc;
let dict: string;

async function read(user: UserKey, query = ''): Promise<{ status: number; body: any }> {
  const r = await t.call(user, `/api/audit${query}`);
  const text = await r.text();
  const body = JSON.parse(text) as unknown;
  assert.deepEqual(checkReply(doc, 'GET', '/api/audit', r.status, body), [], `${query} ${r.status}: ${text}`);
  return { status: r.status, body };
}

before(async () => {
  t = await startTestServer({ seed: async (store) => void (dict = await seedEmptyDictionary(store)) });
  doc = (await (await t.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
});
after(() => t.close());

test('logins, a delete and a failed delete are recorded; GET /api/audit filters and pages', async () => {
  const wrong = await fetch(`${t.base}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'admin', password: 'not the password' }),
  });
  assert.equal(wrong.status, 401);
  const del = await t.call('admin', `/api/dictionaries/${dict}`, { method: 'DELETE' });
  assert.equal(del.status, 200, await del.text());
  const again = await t.call('admin', `/api/dictionaries/${dict}`, { method: 'DELETE' });
  assert.equal(again.status, 404);

  const all = await read('admin', '?limit=20');
  assert.equal(all.status, 200);
  const rows = (all.body.data as any[]).map((r) => [r.actor, r.action, r.target, r.outcome]);
  assert.deepEqual(rows, [
    ['admin', 'dictionaries.delete', `dictionary:${dict}`, 'failure'],
    ['admin', 'dictionaries.delete', `dictionary:${dict}`, 'success'],
    ['admin', 'login', 'user:admin', 'success'],
    ['admin', 'login', 'user:admin', 'failure'],
  ]);
  for (const r of all.body.data as any[]) {
    assert.equal(r.channel, 'http');
    assert.equal(r.origin, '127.0.0.1');
  }
  const [failedDelete, , , failedLogin] = all.body.data as any[];
  assert.equal(failedDelete.details.error, 'DICTIONARY_NOT_FOUND');
  assert.equal(failedDelete.details.method, 'DELETE');
  assert.equal(failedLogin.details.error, 'AUTH-001');
  assert.doesNotMatch(JSON.stringify(all.body), /not the password|admin-password-1/, 'no password in the trail');
  assert.equal(all.body.next_before, null);

  const logins = await read('admin', '?action=login&outcome=failure');
  assert.deepEqual(
    (logins.body.data as any[]).map((r) => r.seq),
    [failedLogin.seq],
  );
  const page = await read('admin', '?limit=1');
  assert.equal(page.body.data.length, 1);
  const next = await read('admin', `?limit=1&before=${page.body.next_before as number}`);
  assert.equal(next.body.data[0].seq, page.body.data[0].seq - 1);
  const prefix = await read('admin', '?action=dictionaries.*');
  assert.equal(prefix.body.data.length, 2);

  const bad = await read('admin', '?since=soon');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, 'USAGE');

  const v = await verifyAudit(t.store);
  assert.ok(v.records >= 4);
});

test('GET /api/audit needs audit.read: Administrator only', async () => {
  for (const user of ['api', 'standard'] as const) {
    const r = await read(user);
    assert.equal(r.status, 403, user);
  }
  const anonymous = await t.call(null, '/api/audit');
  assert.equal(anonymous.status, 401);
});

test('an account import and area names over HTTP are recorded, with the accounts and the dictionary', async () => {
  const imported = await t.call('admin', '/api/users/import', {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body: 'fatou001,Fatou,Ba,Standard User,change-me-0003\n',
  });
  assert.equal(imported.status, 200, await imported.clone().text());
  const areas = await t.call('admin', `/api/dictionaries/${dict}/area-names`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: '01,North\n',
  });
  const r = await read('admin', '?action=users.import');
  assert.equal(r.status, 200);
  const [rec] = r.body.data;
  assert.deepEqual([rec.action, rec.outcome, rec.channel], ['users.import', 'success', 'http']);
  const a = await read('admin', '?action=dictionaries.area-names');
  assert.deepEqual(
    a.body.data.map((x: any) => [x.target, x.outcome]),
    [[`dictionary:${dict}`, areas.status === 200 ? 'success' : 'failure']],
  );
  assert.doesNotMatch(JSON.stringify(r.body), /change-me/);
});
