/**
 * A sync download's page is read beside the caller's account (docs/decisions.md, "A download
 * page beside its account"), over the real server on loopback, on the suite's store: the read
 * starts before the account is checked, so what a refused request must not get is checked here.
 * A whole download in pages, a role with `data.none` on the dictionary (403, no case in the
 * reply), a removed account and a forged token (401), malformed download headers and an unknown
 * dictionary (their own errors, the prefetched read dropped without an unhandled rejection, which
 * would fail this file), and the server answering normally after each.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { addRole, setRoleRights } from '../../../src/core/auth/rights/roles.js';
import { addUser, removeUser } from '../../../src/core/auth/users.js';
import { seedPopstan, startTestServer, type TestServer } from '../../helpers/http-server.js';

let t: TestServer;
let popstan = '';
const NOBODY = { username: 'nobody', password: 'nobody-password-1' };
const LEAVER = { username: 'leaver', password: 'leaver-password-1' };

before(async () => {
  t = await startTestServer({
    seed: async (store) => {
      popstan = await seedPopstan(store);
      await addRole(store, 'Elsewhere', 'data.read,dictionaries.read');
      await setRoleRights(store, 'Elsewhere', 'data.none', popstan);
      await addUser(store, NOBODY.username, 'Elsewhere', NOBODY.password);
      await addUser(store, LEAVER.username, 'Standard User', LEAVER.password);
    },
  });
});
after(() => t.close());

async function tokenOf(u: { username: string; password: string }): Promise<string> {
  const r = await fetch(`${t.base}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', ...u }),
  });
  assert.equal(r.status, 200);
  return ((await r.json()) as { access_token: string }).access_token;
}

function page(token: string, dictionary: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.base}/api/dictionaries/${encodeURIComponent(dictionary)}/cases`, {
    headers: { authorization: `Bearer ${token}`, 'x-csw-device': 'tablet-p', 'x-csw-case-range-count': '3', ...headers },
  });
}

/** Every case of a download in pages of 200, as a tablet asks for them. */
async function downloadAll(token: string): Promise<string[]> {
  const ids: string[] = [];
  let headers: Record<string, string> = { 'x-csw-case-range-count': '200' };
  for (;;) {
    const r = await page(token, popstan, headers);
    assert.ok(r.status === 200 || r.status === 206, `status ${r.status}`);
    const cases = (await r.json()) as { id: string }[];
    ids.push(...cases.map((c) => c.id));
    if (r.status === 200) return ids;
    headers = {
      ...headers,
      'x-csw-if-revision-exists': r.headers.get('x-csw-chunk-max-revision')!,
      'x-csw-case-range-start-after': cases.at(-1)!.id,
    };
  }
}

test('a download in pages gets every case once', async () => {
  const ids = await downloadAll((await t.login('standard')).access_token);
  const stored = await t.store.cases.count((await t.store.dictionaries.find(popstan))!.id);
  assert.ok(stored > 400, `${stored} cases: more than two pages`);
  assert.equal(ids.length, stored);
  assert.equal(new Set(ids).size, ids.length);
});

test('a role with data.none on the dictionary gets 403 and no case', async () => {
  const r = await page(await tokenOf(NOBODY), popstan);
  assert.equal(r.status, 403);
  const text = await r.text();
  assert.match(text, /access_denied/);
  assert.doesNotMatch(text, /caseids|level-1/);
});

test('a removed account and a forged token get 401 and no case', async () => {
  const token = await tokenOf(LEAVER);
  assert.equal((await page(token, popstan)).status, 206);
  await removeUser(t.store, LEAVER.username);
  const gone = await page(token, popstan);
  assert.equal(gone.status, 401);
  assert.doesNotMatch(await gone.text(), /caseids|level-1/);
  const [head, body] = token.split('.');
  const forged = await page(`${head}.${body}.${'A'.repeat(43)}`, popstan);
  assert.equal(forged.status, 401);
});

test('malformed download headers and an unknown dictionary get their own errors; the server goes on', async () => {
  const token = (await t.login('api')).access_token;
  const bad = await page(token, popstan, { 'x-csw-case-range-count': 'many' });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { error: string }).error, 'SYNC_HEADER_INVALID');
  const unknown = await page(token, 'NO_SUCH_DICT');
  assert.equal(unknown.status, 404);
  assert.equal(((await unknown.json()) as { error: string }).error, 'DICTIONARY_NOT_FOUND');
  assert.equal((await page(token, popstan)).status, 206);
});
