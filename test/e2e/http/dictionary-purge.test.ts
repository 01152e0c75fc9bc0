import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorBody, OAuthErrorBody } from '../../../src/http/schemas/common.js';
import { DictionaryPurgeReply } from '../../../src/http/schemas/dictionaries.js';
import { seedPopstan, startTestServer, type TestServer } from '../../helpers/http-server.js';

let s: TestServer;
let popstan: string;

before(async () => {
  s = await startTestServer({
    seed: async (store) => {
      popstan = await seedPopstan(store);
    },
  });
});
after(() => s.close());

const del = (role: 'admin' | 'api' | 'standard', query: string) =>
  s.call(role, `/api/dictionaries/${popstan}${query}`, { method: 'DELETE' });

async function error(r: Response, status: number): Promise<{ error: string; message: string }> {
  const text = await r.text();
  assert.equal(r.status, status, text);
  return ErrorBody.parse(JSON.parse(text));
}

test('DELETE /api/dictionaries/{name}?with_cases=true: API 403; 409 DICT_IN_USE without the flag; drop_tables alone 400', async () => {
  const denied = await del('api', '?with_cases=true');
  assert.equal(denied.status, 403);
  assert.equal(OAuthErrorBody.parse(await denied.json()).error, 'access_denied');
  assert.equal((await error(await del('admin', ''), 409)).error, 'DICT_IN_USE');
  assert.equal((await error(await del('admin', '?drop_tables=true'), 400)).error, 'USAGE');
  assert.equal((await error(await del('admin', '?with_cases=yes'), 400)).error, 'USAGE');
  assert.ok(await s.store.dictionaries.find(popstan));
});

test('a running breakout job of the dictionary: 409 BREAKOUT_BUSY naming the job; then, once it ended, Administrator purges with 200 and the counts', async () => {
  await s.store.jobs.create({ id: 'busy-job', dictionaries: [popstan], mode: 'full', threads: 1, overwrite: false, origin: 'test' });
  await s.store.jobs.markRunning('busy-job', process.pid);
  const busy = await error(await del('admin', '?with_cases=true'), 409);
  assert.equal(busy.error, 'BREAKOUT_BUSY');
  assert.match(busy.message, /busy-job/);
  const cases = await s.store.cases.count((await s.store.dictionaries.find(popstan))!.id);
  await s.store.jobs.finish('busy-job', 'completed');

  const r = await del('admin', '?with_cases=true');
  const text = await r.text();
  assert.equal(r.status, 200, text);
  const body = DictionaryPurgeReply.parse(JSON.parse(text));
  assert.equal(body.name, popstan);
  assert.equal(body.removed.cases, cases);
  assert.equal(body.removed.breakout_jobs, 1);
  assert.deepEqual(body.dropped_tables, []);
  assert.equal(await s.store.dictionaries.find(popstan), undefined);
  assert.equal((await error(await del('admin', '?with_cases=true'), 404)).error, 'DICTIONARY_NOT_FOUND');
});
