import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { ErrorBody, OAuthErrorBody } from '../../../src/http/schemas/common.js';
import {
  BreakoutLogs,
  BreakoutStartReply,
  BreakoutTables,
  BreakoutTablesDeleted,
  JobList,
  JobStatus,
  Metrics,
  NoTablesError,
  TablesExistError,
  TriggerReply,
} from '../../../src/http/schemas/breakout.js';
import { deleteCase } from '../../../src/core/cases/delete.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import { datLines, groupPopstan, withProvince, writeDat } from '../../helpers/breakout-helpers.js';
import { seedEmptyDictionary, seedPopstan, startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

let s: TestServer;
let doc: OpenApiDoc;
let popstan: string;
let simple: string;
/** Cases of the fixture, counted from the raw .dat lines (not by sds). */
const FIXTURE_CASES = groupPopstan(datLines()).length;
/** Cases soft-deleted before the server starts: never broken out, never counted as active. */
const DELETED = 2;
const HMS = /^\d{2,}:\d{2}:\d{2}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

before(async () => {
  // The default target: the embedded SQLite file, whatever the environment of the test run says.
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  s = await startTestServer({
    seed: async (store) => {
      popstan = await seedPopstan(store);
      simple = await seedEmptyDictionary(store);
      const first = groupPopstan(datLines()).slice(0, DELETED);
      for (const c of first) await deleteCase(store, popstan, c.guid);
    },
  });
  doc = (await (await s.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
});
after(() => s.close());

/** Checks status and JSON, the served OpenAPI document's schema for the route, then parses with our schema. */
async function reply<S extends z.ZodType>(r: Response, route: string, status: number, schema: S): Promise<z.output<S>> {
  const text = await r.text();
  assert.equal(r.status, status, `${route}: ${text}`);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/, text);
  const json: unknown = JSON.parse(text);
  const [method, path] = route.split(' ') as [string, string];
  assert.deepEqual(checkReply(doc, method, path, status, json), [], `${route} ${status} against /api/openapi.json: ${text}`);
  return schema.parse(json);
}

async function apiError(r: Response, route: string, status: number, code: string, message?: RegExp): Promise<z.infer<typeof ErrorBody>> {
  const e = await reply(r, route, status, ErrorBody.loose());
  assert.equal(e.error, code, JSON.stringify(e));
  if (message) assert.match(e.message, message);
  return e;
}

const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const start = (user: UserKey, body: unknown) => s.call(user, '/api/breakout/start', post(body));
const trigger = (user: UserKey, body: unknown) => s.call(user, '/api/breakout/trigger', post(body));
const dictId = async (name: string) => (await s.store.dictionaries.find(name))!.id;
const activeCases = async () => await s.store.cases.countActive(await dictId(popstan));

/** Polls the status route until the job ends; returns every reply seen, the last one final. */
async function follow(jobId: string): Promise<z.infer<typeof JobStatus>[]> {
  const seen: z.infer<typeof JobStatus>[] = [];
  // A hang guard counted in polls (about two minutes), not a speed check.
  for (let polls = 2400; ; polls--) {
    const st = await reply(await s.call('api', `/api/breakout/status/${jobId}`), 'GET /api/breakout/status/{job_id}', 200, JobStatus);
    assert.equal(st.job_id, jobId);
    seen.push(st);
    if (st.status !== 'pending' && st.status !== 'running') return seen;
    assert.ok(polls > 0, `job ${jobId} did not end: ${JSON.stringify(st)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function completed(jobId: string) {
  const final = (await follow(jobId)).at(-1)!;
  assert.equal(final.status, 'completed', JSON.stringify(final));
  return final as Extract<z.infer<typeof JobStatus>, { status: 'completed' }>;
}

/** The real target: the embedded SQLite file under the home. */
function target<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(join(s.store.home.targets, 'breakout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
const targetTables = () =>
  target((db) =>
    (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'popstan\\_%' ESCAPE '\\' ORDER BY name`).all() as {
        name: string;
      }[]
    ).map((r) => r.name),
  );
const rowCount = (table: string) => target((db) => (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n);

const metricsNow = async () => reply(await s.call('api', '/api/metrics'), 'GET /api/metrics', 200, Metrics);
const floorPercent = (part: number, whole: number) => `${(Math.floor((part * 1000) / whole) / 10).toFixed(1)}%`;

test('GET /api/metrics before any breakout: active cases counted, nothing started, 0.0% synced', async () => {
  assert.ok(FIXTURE_CASES > 1000);
  assert.equal(await activeCases(), FIXTURE_CASES - DELETED);
  const m = await metricsNow();
  assert.deepEqual(m, {
    total_cases: FIXTURE_CASES - DELETED,
    cases_by_dictionary: { [popstan]: FIXTURE_CASES - DELETED, [simple]: 0 },
    breakout_status: { [popstan]: 'not_started', [simple]: 'not_started' },
    sync_rate: '0.0%',
    sync_rate_by_dictionary: { [popstan]: '0.0%', [simple]: '100.0%' },
    breakout_interrupted: { [popstan]: null, [simple]: null },
  });
});

let firstJob: string;

test('POST /api/breakout/start → 202; status polled to completed, each reply as docs/http-api.md#breakout-routes says', async () => {
  const r = await reply(await start('api', { dictionaries: [popstan] }), 'POST /api/breakout/start', 202, BreakoutStartReply);
  assert.deepEqual(Object.keys(r).sort(), ['dictionaries', 'estimated_time', 'job_id', 'message', 'status', 'threads']);
  assert.equal(r.status, 'started');
  assert.match(r.job_id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(r.dictionaries, [popstan]);
  assert.equal(r.threads, 1);
  assert.ok(r.estimated_time.length > 0);
  assert.match(r.message, new RegExp(popstan));
  firstJob = r.job_id;

  const seen = await follow(r.job_id);
  for (const st of seen.filter((x) => x.status === 'running')) {
    assert.deepEqual(Object.keys(st).sort(), ['job_id', 'progress', 'started_at', 'status', 'threads']);
    assert.equal(st.threads, 1);
    assert.match(st.started_at, ISO);
    assert.deepEqual(Object.keys(st.progress).sort(), [
      'dictionary',
      'elapsed_time',
      'estimated_remaining',
      'percentage',
      'processed',
      'total',
    ]);
    assert.equal(st.progress.dictionary, popstan);
    assert.ok(st.progress.processed <= st.progress.total);
    assert.ok([0, await activeCases()].includes(st.progress.total), JSON.stringify(st));
    assert.ok(Number.isInteger(st.progress.percentage) && st.progress.percentage >= 0 && st.progress.percentage <= 100);
    assert.match(st.progress.elapsed_time, HMS);
    assert.match(st.progress.estimated_remaining, HMS);
  }
  const done = seen.at(-1)!;
  assert.equal(done.status, 'completed', JSON.stringify(done));
  if (done.status !== 'completed') return;
  assert.deepEqual(Object.keys(done).sort(), ['completed_at', 'job_id', 'result', 'status']);
  assert.deepEqual(Object.keys(done.result).sort(), [
    'dictionaries_processed',
    'execution_time',
    'tables_created',
    'total_cases',
    'warnings',
  ]);
  assert.deepEqual(done.result.dictionaries_processed, [popstan]);
  assert.equal(done.result.total_cases, FIXTURE_CASES - DELETED);
  assert.deepEqual([...done.result.tables_created].sort(), targetTables());
  assert.ok(done.result.tables_created.includes('popstan_cases'));
  assert.match(done.result.execution_time, HMS);
  assert.match(done.completed_at, ISO);
  assert.equal(rowCount('popstan_cases'), FIXTURE_CASES - DELETED);
});

test('start again without overwrite: 409 with existing_tables; with overwrite: 202 and a rebuild', async () => {
  const e = await reply(await start('api', { dictionaries: [popstan] }), 'POST /api/breakout/start', 409, TablesExistError);
  assert.equal(e.error, 'TABLES_ALREADY_EXIST');
  assert.deepEqual(Object.keys(e).sort(), ['error', 'existing_tables', 'message']);
  assert.deepEqual([...(e.existing_tables ?? [])].sort(), targetTables());
  const r = await reply(
    await start('api', { dictionaries: [popstan], threads: 2, overwrite: true }),
    'POST /api/breakout/start',
    202,
    BreakoutStartReply,
  );
  assert.equal(r.threads, 2);
  const done = await completed(r.job_id);
  assert.equal(done.result.total_cases, FIXTURE_CASES - DELETED);
  assert.deepEqual([...done.result.tables_created].sort(), targetTables());
  assert.equal(rowCount('popstan_cases'), FIXTURE_CASES - DELETED);
});

test('start with bad input: threads 0, 11, 1.5, "x" or "2" → 400 INVALID_THREADS; unknown dictionary 404; bad bodies 400; no job created', async () => {
  const before = (await s.store.jobs.list({ limit: 1 })).total;
  for (const threads of [0, 11, 1.5, 'x', -1, '2']) {
    await apiError(
      await start('api', { dictionaries: [popstan], threads, overwrite: true }),
      'POST /api/breakout/start',
      400,
      'INVALID_THREADS',
      /1 to 10/,
    );
  }
  await apiError(await start('api', { dictionaries: ['NOPE_DICT'] }), 'POST /api/breakout/start', 404, 'DICTIONARY_NOT_FOUND', /NOPE_DICT/);
  await apiError(
    await start('api', { dictionaries: [popstan.toLowerCase()] }),
    'POST /api/breakout/start',
    404,
    'DICTIONARY_NOT_FOUND',
    /did you mean/,
  );
  await apiError(await start('api', { dictionaries: [] }), 'POST /api/breakout/start', 400, 'USAGE', /dictionaries/);
  await apiError(await start('api', {}), 'POST /api/breakout/start', 400, 'USAGE', /dictionaries/);
  await apiError(await start('api', { dictionaries: [popstan], overwrite: 'yes' }), 'POST /api/breakout/start', 400, 'USAGE', /overwrite/);
  await apiError(
    await s.call('api', '/api/breakout/start', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"dictionaries": [',
    }),
    'POST /api/breakout/start',
    400,
    'API-003',
  );
  assert.equal((await s.store.jobs.list({ limit: 1 })).total, before);
});

test('GET /api/breakout/status/{job_id} of an unknown job: 404 NOT_FOUND', async () => {
  await apiError(
    await s.call('api', '/api/breakout/status/no-such-job'),
    'GET /api/breakout/status/{job_id}',
    404,
    'NOT_FOUND',
    /no-such-job/,
  );
});

test('GET /api/breakout/tables/{dictionary}: main and record tables with the row counts of the real target', async () => {
  const t = await reply(
    await s.call('api', `/api/breakout/tables/${popstan}`),
    'GET /api/breakout/tables/{dictionary}',
    200,
    BreakoutTables,
  );
  assert.deepEqual(Object.keys(t).sort(), ['created_at', 'database', 'dictionary', 'interrupted', 'label', 'tables', 'total_size']);
  assert.equal(t.dictionary, popstan);
  assert.equal(t.label, 'popstan');
  assert.ok(t.database.length > 0);
  assert.match(t.total_size, /^\d+(\.\d)? (B|KB|MB|GB)$/);
  assert.ok(t.created_at === null || ISO.test(t.created_at));
  assert.deepEqual(t.tables.map((x) => x.name).sort(), targetTables());
  for (const x of t.tables) {
    assert.deepEqual(Object.keys(x).sort(), ['name', 'row_count', 'size', 'stale', 'type']);
    assert.equal(x.stale, false, x.name);
    assert.equal(x.type, x.name === 'popstan_cases' ? 'main' : 'record', x.name);
    assert.equal(x.row_count, rowCount(x.name), x.name);
    assert.match(x.size, /^\d+(\.\d)? (B|KB|MB|GB)$/);
  }
  assert.equal(t.tables.filter((x) => x.type === 'main').length, 1);
  assert.ok(
    t.tables.some((x) => x.type === 'record' && x.row_count > FIXTURE_CASES),
    'the person records outnumber the cases',
  );
  await apiError(
    await s.call('api', '/api/breakout/tables/NOPE_DICT'),
    'GET /api/breakout/tables/{dictionary}',
    404,
    'DICTIONARY_NOT_FOUND',
  );
  const none = await reply(
    await s.call('api', `/api/breakout/tables/${simple}`),
    'GET /api/breakout/tables/{dictionary}',
    404,
    NoTablesError,
  );
  assert.equal(none.error, 'NOT_FOUND');
  assert.match(none.suggestion ?? '', /breakout/);
});

test('a start whose target is down answers 202 (spec flow); the job ends failed with DB_CONNECTION_ERROR, DB-001 in its details', async () => {
  await setTarget(s.store, simple, { type: 'postgresql', url: 'postgresql://nobody@127.0.0.1:1/nowhere' });
  const started = await reply(await start('api', { dictionaries: [simple] }), 'POST /api/breakout/start', 202, BreakoutStartReply);
  assert.equal(started.status, 'started');
  const failed = await reply(await s.call('api', '/api/breakout/jobs?status=failed'), 'GET /api/breakout/jobs', 200, JobList);
  assert.equal(failed.total, 1);
  const job = failed.data[0]!;
  assert.deepEqual(job.dictionaries, [simple]);
  const st = await reply(await s.call('api', `/api/breakout/status/${job.job_id}`), 'GET /api/breakout/status/{job_id}', 200, JobStatus);
  assert.equal(st.status, 'failed');
  if (st.status !== 'failed') return;
  assert.deepEqual(Object.keys(st).sort(), ['error', 'failed_at', 'job_id', 'status']);
  assert.deepEqual(Object.keys(st.error).sort(), ['code', 'details', 'message']);
  assert.equal(job.job_id, started.job_id);
  assert.equal(st.error.code, 'DB_CONNECTION_ERROR');
  assert.equal(typeof st.error.details, 'string');
  const details = JSON.parse(st.error.details);
  assert.equal(details.diagnostic, 'DB-001');
  assert.equal(details.target, '127.0.0.1:1/nowhere');
  assert.match(st.failed_at, ISO);
  // A route that reads the target itself names the failure the same way (docs/errors.md, "One code per failure").
  const tables = await apiError(
    await s.call('api', `/api/breakout/tables/${simple}`),
    'GET /api/breakout/tables/{dictionary}',
    502,
    'DB_CONNECTION_ERROR',
  );
  assert.equal(tables.diagnostic, 'DB-001');
  assert.equal(tables.message, st.error.message);
});

test('GET /api/breakout/jobs: newest first, status filter, limit default 50', async () => {
  const all = await reply(await s.call('api', '/api/breakout/jobs'), 'GET /api/breakout/jobs', 200, JobList);
  assert.equal(all.limit, 50);
  // Two completed runs, the start refused with 409 (recorded as cancelled), the failed start.
  assert.equal(all.total, 4);
  assert.equal(all.data.length, 4);
  assert.deepEqual(
    all.data.map((j) => j.status),
    ['failed', 'completed', 'cancelled', 'completed'],
  );
  for (const j of all.data) {
    assert.deepEqual(Object.keys(j).sort(), [
      'cases_processed',
      'completed_at',
      'dictionaries',
      'execution_time',
      'job_id',
      'started_at',
      'status',
    ]);
    assert.match(j.execution_time, HMS);
  }
  assert.equal(all.data.at(-1)!.job_id, firstJob);
  assert.equal(all.data.at(-1)!.cases_processed, FIXTURE_CASES - DELETED);
  const one = await reply(await s.call('api', '/api/breakout/jobs?status=completed&limit=1'), 'GET /api/breakout/jobs', 200, JobList);
  assert.equal(one.total, 2);
  assert.equal(one.limit, 1);
  assert.deepEqual(
    one.data.map((j) => j.job_id),
    [all.data[1]!.job_id],
  );
  const running = await reply(await s.call('api', '/api/breakout/jobs?status=running'), 'GET /api/breakout/jobs', 200, JobList);
  assert.deepEqual(running, { total: 0, limit: 50, data: [] });
  await apiError(await s.call('api', '/api/breakout/jobs?status=done'), 'GET /api/breakout/jobs', 400, 'USAGE', /status/);
  for (const limit of ['0', '1001', 'ten'])
    await apiError(await s.call('api', `/api/breakout/jobs?limit=${limit}`), 'GET /api/breakout/jobs', 400, 'USAGE', /limit/);
});

const NEW_CASES = 3;

test('metrics after a breakout: completed, failed, in_progress; sync rate of the cases changed since', async () => {
  let m = await metricsNow();
  assert.deepEqual(m.breakout_status, { [popstan]: 'completed', [simple]: 'failed' });
  assert.equal(m.sync_rate, '100.0%');
  // New cases (a province no case of the fixture has) are pending until the next run.
  const lines = groupPopstan(datLines())
    .slice(0, NEW_CASES)
    .flatMap((c) => c.lines);
  const file = writeDat(s.store.home.root, 'more.dat', withProvince(lines, 99));
  const r = await importCases(s.store, popstan, [file]);
  assert.equal(r.total.inserted, NEW_CASES);
  const active = FIXTURE_CASES - DELETED + NEW_CASES;
  m = await metricsNow();
  assert.equal(m.total_cases, active);
  assert.deepEqual(m.cases_by_dictionary, { [popstan]: active, [simple]: 0 });
  assert.equal(m.sync_rate, floorPercent(FIXTURE_CASES - DELETED, active));
  assert.notEqual(m.sync_rate, '100.0%');
  // A job waiting for its process: in_progress.
  const pending = await s.store.jobs.create({
    id: 'pending-simple',
    dictionaries: [simple],
    mode: 'incremental',
    threads: 1,
    overwrite: false,
    origin: 'test',
  });
  try {
    assert.equal((await metricsNow()).breakout_status[simple], 'in_progress');
  } finally {
    await s.store.jobs.finish(pending.id, 'cancelled');
  }
  // A cancelled job leaves the state as it was.
  assert.equal((await metricsNow()).breakout_status[simple], 'failed');
});

test('POST /api/breakout/trigger selective: an incremental job applying only the new cases; full rebuilds', async () => {
  const before = rowCount('popstan_cases');
  const r = await reply(await trigger('api', { dictionary: popstan, mode: 'selective' }), 'POST /api/breakout/trigger', 202, TriggerReply);
  assert.deepEqual(Object.keys(r).sort(), ['dictionary', 'job_id', 'started_at', 'status']);
  assert.equal(r.status, 'started');
  assert.equal(r.dictionary, popstan);
  assert.match(r.job_id, /^[0-9a-f-]{36}$/);
  assert.match(r.started_at, ISO);
  const done = await completed(r.job_id);
  // Only the new cases: the full run's cursor ended past the cases deleted before it ran.
  assert.equal(done.result.total_cases, NEW_CASES, JSON.stringify(done.result));
  assert.deepEqual(done.result.tables_created, []);
  assert.equal(rowCount('popstan_cases'), before + NEW_CASES);
  const m = await metricsNow();
  assert.equal(m.sync_rate, '100.0%');
  assert.equal(m.breakout_status[popstan], 'completed');

  // No mode is selective: nothing changed, nothing applied.
  const again = await reply(await trigger('api', { dictionary: popstan }), 'POST /api/breakout/trigger', 202, TriggerReply);
  assert.equal((await completed(again.job_id)).result.total_cases, 0);

  const full = await reply(await trigger('api', { dictionary: popstan, mode: 'full' }), 'POST /api/breakout/trigger', 202, TriggerReply);
  const rebuilt = await completed(full.job_id);
  assert.equal(rebuilt.result.total_cases, FIXTURE_CASES - DELETED + NEW_CASES);
  assert.deepEqual([...rebuilt.result.tables_created].sort(), targetTables());
  assert.equal(rowCount('popstan_cases'), FIXTURE_CASES - DELETED + NEW_CASES);
});

test('trigger and start refusals: unknown mode 400, unknown dictionary 404, bad threads 400, a job already waiting 409', async () => {
  await apiError(await trigger('api', { dictionary: popstan, mode: 'everything' }), 'POST /api/breakout/trigger', 400, 'USAGE', /mode/);
  await apiError(await trigger('api', { mode: 'selective' }), 'POST /api/breakout/trigger', 400, 'USAGE', /dictionary/);
  await apiError(
    await trigger('api', { dictionary: 'NOPE_DICT', mode: 'selective' }),
    'POST /api/breakout/trigger',
    404,
    'DICTIONARY_NOT_FOUND',
  );
  await apiError(await trigger('api', { dictionary: popstan, threads: 11 }), 'POST /api/breakout/trigger', 400, 'INVALID_THREADS');
  await apiError(
    await trigger('api', { dictionary: popstan, threads: '2' }),
    'POST /api/breakout/trigger',
    400,
    'INVALID_THREADS',
    /got "2"/,
  );
  const waiting = await s.store.jobs.create({
    id: 'waiting-popstan',
    dictionaries: [popstan],
    mode: 'incremental',
    threads: 1,
    overwrite: false,
    origin: 'test',
  });
  try {
    await apiError(
      await trigger('api', { dictionary: popstan, mode: 'selective' }),
      'POST /api/breakout/trigger',
      409,
      'BREAKOUT_BUSY',
      /waiting-popstan/,
    );
    const e = await reply(
      await start('api', { dictionaries: [popstan], overwrite: true }),
      'POST /api/breakout/start',
      409,
      TablesExistError,
    );
    assert.equal(e.error, 'BREAKOUT_BUSY');
    assert.deepEqual(Object.keys(e).sort(), ['error', 'message']);
  } finally {
    await s.store.jobs.finish(waiting.id, 'cancelled');
  }
});

test('GET /api/logs/breakout: newest first, typed entries of every job, dictionary filter, limit', async () => {
  const all = await reply(await s.call('api', '/api/logs/breakout?limit=1000'), 'GET /api/logs/breakout', 200, BreakoutLogs);
  assert.ok(all.logs.length > 10, JSON.stringify(all.logs.slice(0, 3)));
  for (const e of all.logs) {
    assert.deepEqual(Object.keys(e).sort(), ['dictionary', 'level', 'message', 'progress', 'timestamp']);
    assert.match(e.timestamp, ISO);
    assert.match(e.progress, /^\d{1,3}%$/);
    assert.ok(Number(e.progress.slice(0, -1)) <= 100);
  }
  const times = all.logs.map((e) => e.timestamp);
  assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
  const mine = all.logs.filter((e) => e.message.includes(firstJob)).reverse();
  assert.equal(mine[0]!.level, 'info');
  assert.match(mine[0]!.message, /full breakout started/);
  assert.equal(mine[0]!.progress, '0%');
  assert.match(mine.at(-1)!.message, new RegExp(`job ${firstJob} completed: ${FIXTURE_CASES - DELETED} cases`));
  assert.equal(mine.at(-1)!.progress, '100%');
  const finished = all.logs.filter((e) => e.dictionary === popstan && /: finished, /.test(e.message));
  assert.equal(finished.length, 5, 'one per completed popstan job');
  assert.ok(finished.every((e) => e.progress === '100%' && e.level === 'info'));
  const progress = all.logs.filter((e) => /\d+ of \d+ cases \(\d+%\)/.test(e.message));
  assert.ok(progress.length >= 2, 'pages of 2,000 cases: progress at about 41% and 82% of each full run');
  for (const e of progress) assert.equal(e.progress, /\((\d+)%\)/.exec(e.message)![1] + '%');
  const failure = all.logs.find((e) => e.dictionary === simple && e.level === 'error');
  assert.ok(failure, 'the failed start is logged');
  assert.match(failure.message, /failed: DB_CONNECTION_ERROR \(DB-001\): cannot connect/);
  assert.ok(all.logs.filter((e) => e.level === 'warn').length <= 101 * 6, 'warnings are capped per job');

  const p = await reply(await s.call('api', `/api/logs/breakout?dictionary=${popstan}`), 'GET /api/logs/breakout', 200, BreakoutLogs);
  assert.ok(p.logs.length > 0 && p.logs.length <= 100);
  assert.ok(p.logs.every((e) => e.dictionary === popstan));
  const two = await reply(await s.call('api', '/api/logs/breakout?limit=2'), 'GET /api/logs/breakout', 200, BreakoutLogs);
  assert.deepEqual(two.logs, all.logs.slice(0, 2));
  const simpleLogs = await reply(
    await s.call('api', `/api/logs/breakout?dictionary=${simple}`),
    'GET /api/logs/breakout',
    200,
    BreakoutLogs,
  );
  assert.deepEqual(
    simpleLogs.logs.map((e) => e.level),
    ['error'],
  );
  await apiError(await s.call('api', '/api/logs/breakout?dictionary=NOPE_DICT'), 'GET /api/logs/breakout', 404, 'DICTIONARY_NOT_FOUND');
  for (const limit of ['0', '1001', '-1', 'x'])
    await apiError(await s.call('api', `/api/logs/breakout?limit=${limit}`), 'GET /api/logs/breakout', 400, 'USAGE', /limit/);
});

test('DELETE /api/breakout/tables/{dictionary}: the tables go; GET then 404 with a suggestion; sync rate 0.0%', async () => {
  const tables = targetTables();
  assert.ok(tables.length > 2);
  const d = await reply(
    await s.call('admin', `/api/breakout/tables/${popstan}`, { method: 'DELETE' }),
    'DELETE /api/breakout/tables/{dictionary}',
    200,
    BreakoutTablesDeleted,
  );
  assert.deepEqual(Object.keys(d).sort(), ['deleted_tables', 'dictionary', 'freed_space', 'message']);
  assert.equal(d.dictionary, popstan);
  assert.deepEqual([...d.deleted_tables].sort(), tables);
  assert.match(d.freed_space, /^\d+(\.\d)? (B|KB|MB|GB)$/);
  assert.match(d.message, /Dropped/);
  assert.deepEqual(targetTables(), []);
  const e = await reply(
    await s.call('api', `/api/breakout/tables/${popstan}`),
    'GET /api/breakout/tables/{dictionary}',
    404,
    NoTablesError,
  );
  assert.deepEqual(Object.keys(e).sort(), ['error', 'message', 'suggestion']);
  assert.equal(e.error, 'NOT_FOUND');
  assert.match(e.suggestion!, /POST \/api\/breakout\/start/);
  // Dropping nothing is not an error.
  const again = await reply(
    await s.call('admin', `/api/breakout/tables/${popstan}`, { method: 'DELETE' }),
    'DELETE /api/breakout/tables/{dictionary}',
    200,
    BreakoutTablesDeleted,
  );
  assert.deepEqual(again.deleted_tables, []);
  assert.equal((await metricsNow()).sync_rate, '0.0%');
});

test('roles: Standard may not start, read or drop breakouts (403); API may not drop (403); no token 401', async () => {
  const denied = async (r: Response, route: string) => {
    const e = await reply(r, route, 403, OAuthErrorBody);
    assert.equal(e.error, 'access_denied');
  };
  await denied(await start('standard', { dictionaries: [popstan] }), 'POST /api/breakout/start');
  await denied(await trigger('standard', { dictionary: popstan }), 'POST /api/breakout/trigger');
  await denied(await s.call('standard', `/api/breakout/status/${firstJob}`), 'GET /api/breakout/status/{job_id}');
  await denied(await s.call('standard', '/api/breakout/jobs'), 'GET /api/breakout/jobs');
  await denied(await s.call('standard', `/api/breakout/tables/${popstan}`), 'GET /api/breakout/tables/{dictionary}');
  await denied(await s.call('standard', '/api/logs/breakout'), 'GET /api/logs/breakout');
  await denied(await s.call('standard', '/api/metrics'), 'GET /api/metrics');
  await denied(await s.call('api', `/api/breakout/tables/${popstan}`, { method: 'DELETE' }), 'DELETE /api/breakout/tables/{dictionary}');
  const calls: [string, string, RequestInit?][] = [
    ['/api/breakout/start', 'POST /api/breakout/start', post({ dictionaries: [popstan] })],
    ['/api/breakout/trigger', 'POST /api/breakout/trigger', post({ dictionary: popstan })],
    [`/api/breakout/status/${firstJob}`, 'GET /api/breakout/status/{job_id}'],
    ['/api/breakout/jobs', 'GET /api/breakout/jobs'],
    [`/api/breakout/tables/${popstan}`, 'GET /api/breakout/tables/{dictionary}'],
    [`/api/breakout/tables/${popstan}`, 'DELETE /api/breakout/tables/{dictionary}', { method: 'DELETE' }],
    ['/api/logs/breakout', 'GET /api/logs/breakout'],
    ['/api/metrics', 'GET /api/metrics'],
  ];
  const jobs = (await s.store.jobs.list({ limit: 1 })).total;
  for (const [path, route, init] of calls) {
    const r = await s.call(null, path, init);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer /, route);
    const e = await reply(r, route, 401, OAuthErrorBody);
    assert.equal(e.error, 'invalid_token');
  }
  assert.equal((await s.store.jobs.list({ limit: 1 })).total, jobs, 'no job started without a permitted token');
});

test('/api/openapi.json documents every breakout route with its security, parameters, body and replies', () => {
  const routes: [string, string, string[]][] = [
    ['/api/breakout/start', 'post', ['202', '400', '404', '409']],
    ['/api/breakout/status/{job_id}', 'get', ['200', '404']],
    ['/api/breakout/jobs', 'get', ['200', '400']],
    ['/api/breakout/tables/{dictionary}', 'get', ['200', '404']],
    ['/api/breakout/tables/{dictionary}', 'delete', ['200', '404']],
    ['/api/breakout/trigger', 'post', ['202', '400', '404', '409']],
    ['/api/logs/breakout', 'get', ['200', '400', '404']],
    ['/api/metrics', 'get', ['200']],
  ];
  type Op = {
    security?: unknown[];
    responses: Record<string, unknown>;
    parameters?: { name: string; in: string }[];
    requestBody?: { content: Record<string, unknown> };
  };
  const paths = doc.paths as unknown as Record<string, Record<string, Op>>;
  for (const [path, method, statuses] of routes) {
    const op = paths[path]?.[method];
    assert.ok(op, `${method} ${path}`);
    assert.deepEqual(op.security, [{ bearerAuth: [] }]);
    for (const code of [...statuses, '401', '403']) assert.ok(op.responses[code], `${method} ${path} documents ${code}`);
    for (const p of path.match(/\{(\w+)\}/g) ?? [])
      assert.ok(
        op.parameters?.some((x) => x.in === 'path' && `{${x.name}}` === p),
        `${method} ${path} parameter ${p}`,
      );
    if (method === 'post') assert.ok(op.requestBody?.content['application/json'], `${method} ${path} JSON body`);
  }
  const query = (path: string) =>
    paths[path]!.get!.parameters!.filter((p) => p.in === 'query')
      .map((p) => p.name)
      .sort();
  assert.deepEqual(query('/api/breakout/jobs'), ['limit', 'status']);
  assert.deepEqual(query('/api/logs/breakout'), ['dictionary', 'limit']);
  const schemas = doc.components.schemas as Record<
    string,
    { properties?: Record<string, { type?: string; minimum?: number; maximum?: number }> }
  >;
  const threads = schemas.BreakoutStartBody!.properties!.threads!;
  assert.deepEqual([threads.type, threads.minimum, threads.maximum], ['integer', 1, 10]);
  for (const id of [
    'BreakoutStartReply',
    'TablesExistError',
    'JobStatus',
    'JobList',
    'BreakoutTables',
    'NoTablesError',
    'BreakoutTablesDeleted',
    'TriggerReply',
    'BreakoutLogs',
    'Metrics',
  ]) {
    assert.ok(schemas[id], `schema ${id}`);
  }
});
