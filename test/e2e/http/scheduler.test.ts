/** The scheduler routes of docs/http-api.md#scheduler-routes (plus Run Now and the run history) over a real loopback server. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { ErrorBody, OAuthErrorBody } from '../../../src/http/schemas/common.js';
import { RunNowStarted, Schedule, ScheduleDeleted, ScheduleList, ScheduleRuns } from '../../../src/http/schemas/scheduler.js';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import { logFileExists, showLogFile } from '../../../src/core/logs/index.js';
import { seedEmptyDictionary, seedPopstan, startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

let s: TestServer;
let doc: OpenApiDoc;
let popstan: string;
let simple: string;

before(async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  s = await startTestServer({
    seed: async (store) => {
      popstan = await seedPopstan(store);
      simple = await seedEmptyDictionary(store);
      await setTarget(store, simple, { type: 'sqlite', file: join(store.home.targets, 'simple.sqlite') });
    },
  });
  doc = (await (await s.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
});
after(() => s.close());

async function text(r: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const p of r) parts.push(Buffer.from(p as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

async function reply<S extends z.ZodType>(r: Response, route: string, status: number, schema: S): Promise<z.output<S>> {
  const text = await r.text();
  assert.equal(r.status, status, `${route}: ${text}`);
  const json: unknown = JSON.parse(text);
  const [method, path] = route.split(' ') as [string, string];
  assert.deepEqual(checkReply(doc, method, path, status, json), [], `${route} ${status} against /api/openapi.json: ${text}`);
  return schema.parse(json);
}

async function apiError(r: Response, route: string, status: number, code: string, message?: RegExp | string) {
  const e = await reply(r, route, status, ErrorBody);
  assert.equal(e.error, code, JSON.stringify(e));
  if (typeof message === 'string') assert.equal(e.message, message);
  else if (message) assert.match(e.message, message);
  return e;
}

const body = (method: string, b: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(b),
});
const list = () => s.call('admin', '/scheduler/schedules');
const add = (b: unknown, user: UserKey = 'admin') => s.call(user, '/scheduler/add', body('POST', b));
const update = (b: unknown) => s.call('admin', '/scheduler/update', body('PUT', b));
const toggle = (b: unknown) => s.call('admin', '/scheduler/toggle', body('PUT', b));

test('every scheduler route refuses accounts that are not Administrator (403) and calls without a token (401)', async () => {
  const routes: [string, string, RequestInit][] = [
    ['GET', '/scheduler/schedules', {}],
    ['POST', '/scheduler/add', body('POST', { dictionary: simple })],
    ['PUT', '/scheduler/update', body('PUT', { id: 1 })],
    ['PUT', '/scheduler/toggle', body('PUT', { id: 1 })],
    ['DELETE', '/scheduler/1', { method: 'DELETE' }],
    ['POST', '/scheduler/1/run-now', { method: 'POST' }],
    ['GET', '/scheduler/1/runs', {}],
  ];
  for (const [method, path, init] of routes) {
    for (const user of ['api', 'standard'] as const) {
      const r = await s.call(user, path, init);
      const e = OAuthErrorBody.parse(await r.json());
      assert.equal(r.status, 403, `${method} ${path} as ${user}`);
      assert.equal(e.error, 'access_denied');
    }
    assert.equal((await s.call(null, path, init)).status, 401, `${method} ${path} without a token`);
  }
  assert.equal((await s.store.schedules.list()).length, 0);
});

test('GET /scheduler/schedules lists the dictionaries with a target that can be scheduled; add checks cron, target and uniqueness', async () => {
  const empty = await reply(await list(), 'GET /scheduler/schedules', 200, ScheduleList);
  assert.deepEqual(empty, {
    timezone: 'UTC',
    schedules: [],
    unscheduled_dictionaries: [{ id: (await s.store.dictionaries.find(simple))!.id, name: simple, label: 'simple' }],
  });

  await apiError(
    await add({ dictionary: simple, cron_expression: '0 25 * * *' }),
    'POST /scheduler/add',
    400,
    'CRON_INVALID',
    'hour: 25 is out of range 0-23',
  );
  await apiError(await add({ dictionary: simple, cron_expression: '@daily' }), 'POST /scheduler/add', 400, 'CRON_INVALID', /aliases/);
  await apiError(await add({ dictionary: simple, cron_expression: '0 0 2 * * *' }), 'POST /scheduler/add', 400, 'CRON_INVALID', /6 fields/);
  await apiError(await add({ dictionary: simple, enabled: 'yes' }), 'POST /scheduler/add', 400, 'USAGE', /enabled/);
  await apiError(await add({ cron_expression: '0 2 * * *' }), 'POST /scheduler/add', 400, 'USAGE', /dictionary/);
  await apiError(
    await s.call('admin', '/scheduler/add', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
    'POST /scheduler/add',
    400,
    'API-003',
  );
  await apiError(await add({ dictionary: 'NOPE' }), 'POST /scheduler/add', 404, 'DICTIONARY_NOT_FOUND');
  await apiError(await add({ dictionary: popstan }), 'POST /scheduler/add', 409, 'TARGET_NOT_CONFIGURED');

  const created = await reply(
    await add({ dictionary: simple, cron_expression: '*/30 * * * *', enabled: true }),
    'POST /scheduler/add',
    201,
    Schedule,
  );
  assert.deepEqual(
    [created.dictionary, created.enabled, created.cron_expression, created.last_run, created.last_exit_code],
    [simple, true, '*/30 * * * *', null, null],
  );
  assert.ok(
    created.next_run && Date.parse(created.next_run) > Date.now() - 60_000 && /:(00|30):00\.000Z$/.test(created.next_run),
    created.next_run ?? '',
  );
  await apiError(await add({ dictionary: simple }), 'POST /scheduler/add', 409, 'SCHEDULE_EXISTS');

  const after = await reply(await list(), 'GET /scheduler/schedules', 200, ScheduleList);
  assert.deepEqual(
    after.schedules.map((x) => x.id),
    [created.id],
  );
  assert.deepEqual(after.unscheduled_dictionaries, []);
  assert.equal((await list()).headers.get('cache-control'), 'no-store');
});

test('PUT /scheduler/update and /scheduler/toggle: next_run computed while enabled, cleared when disabled', async () => {
  const id = (await s.store.schedules.list())[0]!.id;
  const off = await reply(await update({ id, enabled: false }), 'PUT /scheduler/update', 200, Schedule);
  assert.deepEqual([off.enabled, off.next_run, off.cron_expression], [false, null, '*/30 * * * *']);
  await apiError(
    await update({ id, cron_expression: '0 2 * 13 *' }),
    'PUT /scheduler/update',
    400,
    'CRON_INVALID',
    'month: 13 is out of range 1-12',
  );
  await apiError(await update({ id: 9999, enabled: true }), 'PUT /scheduler/update', 404, 'SCHEDULE_NOT_FOUND');
  const changed = await reply(await update({ id, cron_expression: '0 2 * * *' }), 'PUT /scheduler/update', 200, Schedule);
  assert.deepEqual([changed.enabled, changed.next_run, changed.cron_expression], [false, null, '0 2 * * *']);
  const on = await reply(await toggle({ id }), 'PUT /scheduler/toggle', 200, Schedule);
  assert.equal(on.enabled, true);
  assert.match(on.next_run!, /T02:00:00\.000Z$/);
  const again = await reply(await toggle({ id }), 'PUT /scheduler/toggle', 200, Schedule);
  assert.deepEqual([again.enabled, again.next_run], [false, null]);
  await apiError(await toggle({ id: 'x' }), 'PUT /scheduler/toggle', 400, 'USAGE', /id/);
  await apiError(await toggle({ id: 9999 }), 'PUT /scheduler/toggle', 404, 'SCHEDULE_NOT_FOUND');
});

test('POST /scheduler/{id}/run-now answers at once and the run appears in GET /scheduler/{id}/runs with its log file', async () => {
  const id = (await s.store.schedules.list())[0]!.id;
  const started = await reply(
    await s.call('admin', `/scheduler/${id}/run-now`, { method: 'POST' }),
    'POST /scheduler/{id}/run-now',
    202,
    RunNowStarted,
  );
  assert.deepEqual([started.status, started.schedule_id, started.dictionary], ['started', id, simple]);
  let runs: z.infer<typeof ScheduleRuns> | undefined;
  // A hang guard counted in polls, not a speed check.
  for (let polls = 1200; polls > 0; polls--) {
    runs = await reply(await s.call('admin', `/scheduler/${id}/runs`), 'GET /scheduler/{id}/runs', 200, ScheduleRuns);
    if (runs.runs[0] && runs.runs[0].outcome !== 'running') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const run = runs!.runs[0]!;
  assert.deepEqual([run.trigger, run.outcome, run.exit_code], ['run-now', 'succeeded', 0], JSON.stringify(run));
  // From the store's file store on PostgreSQL, the home's logs/breakout/ on SQLite.
  const log = await text((await showLogFile(s.store, run.log_file!)).content);
  assert.match(log, /^Command: .*process-cases-by-dict/m);
  assert.match(log, /^Exit code: 0$/m);
  const sch = (await s.store.schedules.get(id))!;
  assert.deepEqual([sch.lastExitCode, sch.lastLogFile, sch.nextRun], [0, run.log_file, null]);

  await apiError(await s.call('admin', `/scheduler/${id}/runs?limit=0`), 'GET /scheduler/{id}/runs', 400, 'USAGE', /limit/);
  await apiError(await s.call('admin', '/scheduler/9999/runs'), 'GET /scheduler/{id}/runs', 404, 'SCHEDULE_NOT_FOUND');
  await apiError(
    await s.call('admin', '/scheduler/9999/run-now', { method: 'POST' }),
    'POST /scheduler/{id}/run-now',
    404,
    'SCHEDULE_NOT_FOUND',
  );
});

test('two concurrent POST /scheduler/{id}/run-now: one 202, the other 409 BREAKOUT_BUSY, and one run in the history', async () => {
  const id = (await s.store.schedules.list())[0]!.id;
  const before = await s.store.schedules.countRuns(id);
  const both = await Promise.all([0, 1].map(() => s.call('admin', `/scheduler/${id}/run-now`, { method: 'POST' })));
  const statuses = both.map((r) => r.status).sort();
  assert.deepEqual(statuses, [202, 409]);
  const busy = both.find((r) => r.status === 409)!;
  await apiError(busy, 'POST /scheduler/{id}/run-now', 409, 'BREAKOUT_BUSY', new RegExp(`breakout of ${simple} is already running`));
  // The claim is visible at once, before the detached process has started: a third request is refused too.
  await apiError(
    await s.call('admin', `/scheduler/${id}/run-now`, { method: 'POST' }),
    'POST /scheduler/{id}/run-now',
    409,
    'BREAKOUT_BUSY',
  );
  let runs: z.infer<typeof ScheduleRuns> | undefined;
  // A hang guard counted in polls, not a speed check.
  for (let polls = 1200; polls > 0; polls--) {
    runs = await reply(await s.call('admin', `/scheduler/${id}/runs`), 'GET /scheduler/{id}/runs', 200, ScheduleRuns);
    if (runs.runs[0] && runs.runs[0].outcome !== 'running') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(await s.store.schedules.countRuns(id), before + 1, 'the refused requests leave no skipped entry');
  const run = runs!.runs[0]!;
  assert.deepEqual([run.trigger, run.outcome, run.exit_code], ['run-now', 'succeeded', 0], JSON.stringify(run));
  assert.ok(run.log_file, 'the detached process took the claimed run over and wrote its log');
});

test('DELETE /scheduler/{id} deletes the schedule and its history; the log files stay', async () => {
  const id = (await s.store.schedules.list())[0]!.id;
  const logFile = (await s.store.schedules.get(id))!.lastLogFile!;
  const r = await reply(await s.call('admin', `/scheduler/${id}`, { method: 'DELETE' }), 'DELETE /scheduler/{id}', 200, ScheduleDeleted);
  assert.deepEqual([r.id, r.dictionary], [id, simple]);
  assert.equal(await s.store.schedules.get(id), undefined);
  assert.equal(await s.store.schedules.countRuns(id), 0);
  assert.ok(await logFileExists(s.store, logFile));
  await apiError(await s.call('admin', `/scheduler/${id}`, { method: 'DELETE' }), 'DELETE /scheduler/{id}', 404, 'SCHEDULE_NOT_FOUND');
  await apiError(await s.call('admin', '/scheduler/abc', { method: 'DELETE' }), 'DELETE /scheduler/{id}', 400, 'USAGE');
});
