/**
 * Issue 17 items 9, 10 and 14 on the real server: pending deletions are pending work in the status
 * webhook; one definition of "breakout configured" for the status webhook, the incoming webhook and
 * /scheduler/add; HTTP replies never name absolute server paths (a SQLite target in a temp folder).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { clearTarget, setTarget } from '../../../src/core/breakout/targets/targets.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';
import { deleteCase } from '../../../src/core/cases/delete.js';
import { seedEmptyDictionary, seedPopstan, startTestServer, type TestServer } from '../../helpers/http-server.js';

const STATUS_TOKEN = 'status-token-0123456789abcdef0123456789abcdef';
const SURVEY_TOKEN = 'survey-token-fedcba9876543210fedcba9876543210';
let s: TestServer;
let popstan: string;
let simple: string;
let targetFile: string;

before(async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  s = await startTestServer({
    config: { env: { BREAKOUT_WEBHOOK_TOKEN: STATUS_TOKEN, SURVEY_WEBHOOK_TOKEN: SURVEY_TOKEN }, statusConnectTimeoutMs: 2000 },
    seed: async (store) => {
      popstan = await seedPopstan(store);
      targetFile = join(store.home.root, 'popstan-target.sqlite');
      await setTarget(store, popstan, { type: 'sqlite', file: targetFile });
      await runBreakoutNow(store, { dictionary: popstan });
      simple = await seedEmptyDictionary(store); // no target, never broken out
    },
  });
});

after(async () => {
  await s.close();
});

async function status(dictionary: string) {
  const r = await fetch(`${s.base}/breakout-status-webhook.php?dictionary=${encodeURIComponent(dictionary)}`, {
    headers: { authorization: `Bearer ${STATUS_TOKEN}` },
  });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  const body = JSON.parse(text) as { data: Record<string, unknown>[] };
  assert.equal(body.data.length, 1, text);
  return body.data[0]!;
}

const json = (method: string, b: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(b),
});

test('a soft-deleted case still in the target is pending: not up to date, rate below 100; after the breakout all done', async () => {
  const before = await status(popstan);
  const total = before.total_cases as number;
  assert.deepEqual([before.processed_cases, before.cases_pending, before.completion_rate, before.is_up_to_date], [total, 0, 100, true]);

  const dict = (await s.store.dictionaries.find(popstan))!;
  const [victim] = await s.store.cases.page(dict.id, 1, 0);
  await deleteCase(s.store, popstan, victim!.guid);
  const pending = await status(popstan);
  // The target still holds the deleted case's row: processed is one above the active cases.
  assert.equal(pending.total_cases, total - 1);
  assert.equal(pending.processed_cases, total);
  assert.equal(pending.cases_pending, 1);
  assert.equal(pending.is_up_to_date, false);
  assert.equal(pending.completion_rate, Math.round(((total - 1) / total) * 10000) / 100);
  assert.ok((pending.completion_rate as number) < 100);

  const run = await runBreakoutNow(s.store, { dictionary: popstan });
  assert.equal(run.status, 'completed', JSON.stringify(run));
  const done = await status(popstan);
  assert.deepEqual(
    [done.total_cases, done.processed_cases, done.cases_pending, done.completion_rate, done.is_up_to_date],
    [total - 1, total - 1, 0, 100, true],
  );
});

test('one definition of configured: an event for a dictionary without a target runs nothing, and status and /scheduler/add agree', async () => {
  const r = await fetch(`${s.base}/breakout-webhook.php`, {
    ...json('POST', { event: 'case_uploaded', dictionary: simple }),
    headers: { 'content-type': 'application/json', 'x-webhook-token': SURVEY_TOKEN },
  });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  const reply = JSON.parse(text) as { status: string; job_id: string | null; message: string };
  assert.equal(reply.status, 'accepted', text);
  assert.equal(reply.job_id, null);
  assert.match(reply.message, /breakout is not configured/);
  assert.equal(
    await s.store.breakoutState.get((await s.store.dictionaries.find(simple))!.id),
    undefined,
    'nothing was broken out into the embedded default',
  );

  const st = await status(simple);
  assert.deepEqual([st.breakout_configured, st.db_type, st.target_schema], [false, null, null]);
  const add = await s.call('admin', '/scheduler/add', json('POST', { dictionary: simple }));
  assert.equal(add.status, 409, await add.clone().text());
  assert.equal(((await add.json()) as { error: string }).error, 'TARGET_NOT_CONFIGURED');

  // Configured (a target of its own): the status says so and /scheduler/add takes it.
  assert.equal((await status(popstan)).breakout_configured, true);
  const ok = await s.call('admin', '/scheduler/add', json('POST', { dictionary: popstan }));
  assert.equal(ok.status, 201, await ok.text());
});

test('HTTP replies never name absolute server paths: the tables 404 and DICT_IN_USE name the file only', async () => {
  assert.ok(targetFile.startsWith('/'));
  // simple has no tables: the 404 names its (embedded default) target file by name only.
  const nf = await s.call('admin', `/api/breakout/tables/${simple}`);
  const nfText = await nf.text();
  assert.equal(nf.status, 404, nfText);
  assert.doesNotMatch(nfText, new RegExp(s.store.home.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.doesNotMatch(nfText, /"\/|\s\/(tmp|home|srv|var|work)\//, nfText);

  // A dictionary without cases but with tables in a SQLite target: DICT_IN_USE names the file, not its path.
  await setTarget(s.store, simple, { type: 'sqlite', file: targetFile });
  const run = await runBreakoutNow(s.store, { dictionary: simple });
  assert.equal(run.status, 'completed', JSON.stringify(run));
  const del = await s.call('admin', `/api/dictionaries/${simple}`, { method: 'DELETE' });
  const delText = await del.text();
  assert.equal(del.status, 409, delText);
  const body = JSON.parse(delText) as { error: string; message: string };
  assert.equal(body.error, 'DICT_IN_USE');
  assert.ok(!body.message.includes(targetFile), body.message);
  assert.match(body.message, /popstan-target\.sqlite/);
});

test('tables left in a target since cleared do not make a dictionary configured', async () => {
  await clearTarget(s.store, popstan); // its tables stay in the SQLite file; its target is now the embedded default
  const st = await status(popstan);
  assert.deepEqual([st.breakout_configured, st.db_type, st.processed_cases], [false, null, null]);
  const r = await fetch(`${s.base}/breakout-webhook.php`, {
    ...json('POST', { event: 'case_modified', dictionary: popstan }),
    headers: { 'content-type': 'application/json', 'x-webhook-token': SURVEY_TOKEN },
  });
  const reply = (await r.json()) as { status: string; job_id: string | null };
  assert.deepEqual([r.status, reply.status, reply.job_id], [200, 'accepted', null]);
});
