import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import { IncomingReply, LogReaderReply, RateLimitedError, SchemaApplyReply, SchemaReply } from '../../../src/http/schemas/root-scripts.js';
import { ErrorBody } from '../../../src/http/schemas/common.js';
import { JobList } from '../../../src/http/schemas/breakout.js';
import { fixture } from '../../helpers/temp-home.js';
import { seedPopstan, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

const TOKEN = 'survey-token-fedcba9876543210fedcba9876543210';
let s: TestServer;
let doc: OpenApiDoc;
let pgdb: TestDatabase;
let popstan: string;
let household: string;

before(async () => {
  // The embedded SQLite target for popstan, whatever the environment of the test run says.
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  pgdb = await createPostgresDatabase();
  s = await startTestServer({
    config: { env: { SURVEY_WEBHOOK_TOKEN: TOKEN }, webhookRateLimit: { max: 100_000, windowMs: 60_000 } },
    seed: async (store) => {
      popstan = await seedPopstan(store);
      const hh = fixture('capi-household.dcf');
      household = (await uploadDictionary(store, { source: readFileSync(hh), label: 'household', file: hh })).name;
      await importCases(store, household, [fixture('capi-household.csdb')]);
      await setTarget(store, household, { type: 'postgresql', url: pgdb.config.url });
    },
  });
  doc = (await (await s.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
});

after(async () => {
  await s.close();
  await pgdb.drop();
});

const withToken = (init: RequestInit = {}, token: string | null = TOKEN): RequestInit => {
  const headers = new Headers(init.headers);
  if (token !== null) headers.set('x-webhook-token', token);
  return { ...init, headers };
};
const postJson = (body: unknown, token: string | null = TOKEN): RequestInit =>
  withToken(
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) },
    token,
  );

const event = (body: unknown, token: string | null = TOKEN, base = s.base) => fetch(`${base}/breakout-webhook.php`, postJson(body, token));
const logs = (query = '', token: string | null = TOKEN, base = s.base) =>
  fetch(`${base}/log-reader-webhook.php${query}`, withToken({}, token));
const schemaGet = (query = '', token: string | null = TOKEN, base = s.base) =>
  fetch(`${base}/dictionary-schema-webhook.php${query}`, withToken({}, token));
const schemaPost = (body: unknown, token: string | null = TOKEN, base = s.base) =>
  fetch(`${base}/dictionary-schema-webhook.php`, postJson(body, token));

async function reply<T>(r: Response, method: string, path: string, status: number, parse: (v: unknown) => T): Promise<T> {
  const text = await r.text();
  assert.equal(r.status, status, `${method} ${path}: ${text}`);
  const body: unknown = JSON.parse(text);
  assert.deepEqual(checkReply(doc, method, path, status, body), [], `${method} ${path} ${status} against the OpenAPI document: ${text}`);
  return parse(body);
}

async function error(r: Response, method: string, path: string, status: number, code: string, message?: RegExp) {
  const e = await reply(r, method, path, status, (v) => ErrorBody.loose().parse(v));
  assert.equal(e.error, code, JSON.stringify(e));
  if (message) assert.match(e.message, message);
  return e;
}

const jobsNow = async () =>
  reply(await s.call('api', '/api/breakout/jobs?limit=1000'), 'get', '/api/breakout/jobs', 200, (v) => JobList.parse(v));

test('token: absent or different is 401 WHK-001 on all three scripts', async () => {
  for (const token of [null, '', `${TOKEN}x`, 'wrong']) {
    await error(await event({ event: 'case_uploaded', dictionary: popstan }, token), 'post', '/breakout-webhook.php', 401, 'WHK-001');
    await error(await logs('', token), 'get', '/log-reader-webhook.php', 401, 'WHK-001');
    await error(await schemaGet(`?dictionary=${household}`, token), 'get', '/dictionary-schema-webhook.php', 401, 'WHK-001');
    await error(await schemaPost({ dictionary: household }, token), 'post', '/dictionary-schema-webhook.php', 401, 'WHK-001');
  }
  assert.equal((await s.store.jobs.list({ limit: 10 })).total, 0, 'no job started without the token');
});

test('SURVEY_WEBHOOK_TOKEN unset: 500 server_misconfigured on all three scripts', async () => {
  const bare = await startTestServer({ config: { env: {} } });
  try {
    for (const r of [
      await event({ dictionary: 'X' }, TOKEN, bare.base),
      await logs('', TOKEN, bare.base),
      await schemaGet('?dictionary=X', TOKEN, bare.base),
      await schemaPost({ dictionary: 'X' }, TOKEN, bare.base),
    ]) {
      const body = ErrorBody.parse(await r.json());
      assert.equal(r.status, 500);
      assert.equal(body.error, 'server_misconfigured');
      assert.match(body.message, /SURVEY_WEBHOOK_TOKEN/);
    }
  } finally {
    await bare.close();
  }
});

test('bad requests: a missing dictionary is named (400 WHK-003), bad JSON is API-003, unknown names 404, other verbs 405', async () => {
  await error(await event({ event: 'case_uploaded', case_id: 'x' }), 'post', '/breakout-webhook.php', 400, 'WHK-003', /"dictionary"/);
  await error(await event(''), 'post', '/breakout-webhook.php', 400, 'WHK-003', /"dictionary"/);
  await error(await event('{"dictionary":'), 'post', '/breakout-webhook.php', 400, 'API-003');
  await error(await event([popstan]), 'post', '/breakout-webhook.php', 400, 'WHK-003');
  await error(
    await event({ event: 'case_exploded', dictionary: popstan }),
    'post',
    '/breakout-webhook.php',
    400,
    'WHK-003',
    /case_exploded/,
  );
  await error(await event({ event: 'case_uploaded', dictionary: 42 }), 'post', '/breakout-webhook.php', 400, 'WHK-003', /"dictionary"/);
  await error(await event({ event: 'case_uploaded', dictionary: 'NOPE' }), 'post', '/breakout-webhook.php', 404, 'DICTIONARY_NOT_FOUND');
  await error(await schemaGet(''), 'get', '/dictionary-schema-webhook.php', 400, 'WHK-003', /"dictionary"/);
  await error(await schemaPost({}), 'post', '/dictionary-schema-webhook.php', 400, 'WHK-003', /"dictionary"/);
  await error(await schemaPost('not json'), 'post', '/dictionary-schema-webhook.php', 400, 'API-003');
  await error(await schemaGet('?dictionary=NOPE'), 'get', '/dictionary-schema-webhook.php', 404, 'DICTIONARY_NOT_FOUND');
  await error(await schemaPost({ dictionary: 'NOPE' }), 'post', '/dictionary-schema-webhook.php', 404, 'DICTIONARY_NOT_FOUND');
  await error(await logs('?dictionary=NOPE'), 'get', '/log-reader-webhook.php', 404, 'DICTIONARY_NOT_FOUND');
  for (const [method, path] of [
    ['GET', '/breakout-webhook.php'],
    ['PUT', '/breakout-webhook.php'],
    ['POST', '/log-reader-webhook.php'],
    ['DELETE', '/dictionary-schema-webhook.php'],
  ] as const) {
    const r = await fetch(`${s.base}${path}`, withToken({ method }));
    assert.equal(r.status, 405, `${method} ${path}`);
    assert.equal(ErrorBody.parse(await r.json()).error, 'API-001');
  }
  assert.equal((await s.store.jobs.list({ limit: 10 })).total, 0);
});

test('dictionary_uploaded is accepted and starts nothing', async () => {
  const r = await reply(
    await event({ event: 'dictionary_uploaded', dictionary: popstan, version: '2' }),
    'post',
    '/breakout-webhook.php',
    200,
    (v) => IncomingReply.parse(v),
  );
  assert.equal(r.status, 'accepted');
  assert.equal(r.job_id, null);
  assert.equal((await s.store.jobs.list({ limit: 10 })).total, 0);
});

test('rate limit: 60 requests per sliding 60 s per token and address, then 429 with retry_after and Retry-After', async () => {
  const limited = await startTestServer({ config: { env: { SURVEY_WEBHOOK_TOKEN: TOKEN } } });
  try {
    for (let i = 0; i < 30; i++) assert.equal((await logs('', 'wrong', limited.base)).status, 401);
    for (let i = 0; i < 30; i++) assert.equal((await logs('', TOKEN, limited.base)).status, 200);
    for (let i = 0; i < 30; i++) assert.equal((await logs('', TOKEN, limited.base)).status, 200);
    const r = await logs('', TOKEN, limited.base);
    assert.equal(r.status, 429);
    assert.equal(r.headers.get('retry-after'), '60');
    const body = RateLimitedError.parse(await r.json());
    assert.deepEqual(body, { error: 'rate_limited', message: 'Too many requests. Retry after 60 seconds.', retry_after: 60 });
    assert.equal((await schemaGet('?dictionary=X', TOKEN, limited.base)).status, 429, 'one limit for all the scripts');
    limited.advance(60_000);
    assert.equal((await logs('', TOKEN, limited.base)).status, 200);
  } finally {
    await limited.close();
  }
});

test('500 case_uploaded events fired concurrently give one job plus one follow-up', async () => {
  const dictId = (await s.store.dictionaries.find(popstan))!.id;
  // Hold the write lock of the SQLite target, so the first job cannot finish while the burst
  // arrives: every later event must find it pending or running. The job waits for the lock
  // (busy_timeout) instead of failing after the default 10 s.
  const targetFile = join(s.store.home.root, 'popstan-target.sqlite');
  await setTarget(s.store, popstan, { type: 'sqlite', url: `sqlite://${targetFile}?busy_timeout=600000` });
  const lock = new Database(targetFile);
  lock.pragma('journal_mode = WAL');
  lock.exec('BEGIN IMMEDIATE');
  const statuses: string[] = [];
  try {
    let next = 0;
    const worker = async () => {
      while (next < 500) {
        const i = next++;
        const r = await event({ event: 'case_uploaded', dictionary: popstan, case_id: `case-${i}` });
        const body = IncomingReply.parse(await r.json());
        assert.equal(r.status, 200);
        statuses.push(body.status);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    assert.equal(statuses.length, 500);
    assert.equal(statuses.filter((x) => x === 'scheduled').length, 1, 'exactly one event started a job');
    assert.equal(statuses.filter((x) => x === 'queued').length, 499);
    const during = await jobsNow();
    assert.equal(during.total, 1, JSON.stringify(during));
    assert.ok(
      ['pending', 'running'].includes(during.data[0]!.status),
      `the first job ended during the burst: ${JSON.stringify(during.data[0])}`,
    );
    assert.equal(await s.store.followUps.pending(dictId), 499);
  } finally {
    lock.exec('ROLLBACK');
    lock.close();
  }
  // A hang guard counted in polls (about two minutes), not a speed check.
  let list = await jobsNow();
  for (let polls = 1200; list.total < 2 || list.data.some((j) => j.status === 'pending' || j.status === 'running'); polls--) {
    assert.ok(polls > 0, `jobs did not end: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 100));
    list = await jobsNow();
  }
  assert.equal(list.total, 2, JSON.stringify(list));
  assert.deepEqual(
    list.data.map((j) => j.status),
    ['completed', 'completed'],
    JSON.stringify(list),
  );
  const [followUp, first] = [(await s.store.jobs.get(list.data[0]!.job_id))!, (await s.store.jobs.get(list.data[1]!.job_id))!].sort(
    (a, b) => (a.createdAt < b.createdAt ? 1 : -1),
  );
  assert.equal(first!.origin, 'webhook');
  assert.equal(followUp!.origin, 'webhook-follow-up');
  assert.equal(followUp!.mode, 'incremental');
  assert.equal(await s.store.followUps.pending(dictId), 0, 'the flag is cleared');
  const cases = new Database(targetFile, { readonly: true });
  try {
    assert.equal(
      (cases.prepare('SELECT count(*) AS n FROM popstan_cases').get() as { n: number }).n,
      await s.store.cases.countActive(dictId),
    );
  } finally {
    cases.close();
  }

  // With no job running, the next event starts a job at once.
  const r = await reply(await event({ dictionary: popstan }), 'post', '/breakout-webhook.php', 200, (v) => IncomingReply.parse(v));
  assert.equal(r.status, 'scheduled');
  assert.equal(r.event, 'case_uploaded');
  assert.equal((await jobsNow()).total, 3);
  for (let polls = 1200; ['pending', 'running'].includes((await s.store.jobs.get(r.job_id!))!.status); polls--) {
    assert.ok(polls > 0);
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.ok(!s.logs.some((l) => l.includes(TOKEN)), 'token in the server log');
});

test('log reader: dictionary, level, since and limit filters, newest first', async () => {
  const add = async (level: 'info' | 'warn' | 'error', day: number) => {
    await s.store.jobs.create({
      id: `job-${day}`,
      dictionaries: [household],
      mode: 'incremental',
      threads: 1,
      overwrite: false,
      origin: 'test',
    });
    await s.store.jobs.finish(`job-${day}`, 'cancelled');
    await s.store.breakoutLog.add({
      jobId: `job-${day}`,
      dictionary: household,
      level,
      message: `${level} on day ${day}`,
      progress: day * 10,
      createdAt: `2025-01-0${day}T00:00:00.000Z`,
    });
  };
  await add('info', 1);
  await add('warn', 2);
  await add('error', 3);
  await add('info', 4);
  const read = async (q: string) =>
    (await reply(await logs(q), 'get', '/log-reader-webhook.php', 200, (v) => LogReaderReply.parse(v))).logs;
  const all = await read(`?dictionary=${household}`);
  assert.deepEqual(
    all.map((l) => l.message),
    ['info on day 4', 'error on day 3', 'warn on day 2', 'info on day 1'],
  );
  assert.deepEqual(all[1], {
    timestamp: '2025-01-03T00:00:00.000Z',
    level: 'error',
    dictionary: household,
    message: 'error on day 3',
    progress: '30%',
    job_id: 'job-3',
  });
  assert.deepEqual(
    (await read(`?dictionary=${household}&level=warn`)).map((l) => l.level),
    ['error', 'warn'],
  );
  assert.deepEqual(
    (await read(`?dictionary=${household}&level=error`)).map((l) => l.message),
    ['error on day 3'],
  );
  assert.deepEqual(
    (await read(`?dictionary=${household}&since=2025-01-03T00:00:00Z`)).map((l) => l.message),
    ['info on day 4', 'error on day 3'],
  );
  assert.deepEqual(
    (await read(`?dictionary=${household}&since=2025-01-02&level=info&limit=2`)).map((l) => l.message),
    ['info on day 4', 'error on day 3'],
  );
  assert.deepEqual(
    (await read(`?dictionary=${household}&limit=1`)).map((l) => l.message),
    ['info on day 4'],
  );
  const popstanLogs = await read(`?dictionary=${popstan}&limit=1000`);
  assert.ok(popstanLogs.length > 0 && popstanLogs.every((l) => l.dictionary === popstan));
  assert.ok(
    popstanLogs.some((l) => /follow-up incremental job/.test(l.message)),
    'the follow-up is in the log',
  );
  await error(await logs('?level=debug'), 'get', '/log-reader-webhook.php', 400, 'USAGE', /level/);
  await error(await logs('?since=yesterday'), 'get', '/log-reader-webhook.php', 400, 'USAGE', /since/);
  await error(await logs('?limit=0'), 'get', '/log-reader-webhook.php', 400, 'USAGE', /limit/);
});

async function pgTables(): Promise<string[]> {
  const client = new pg.Client({ connectionString: pgdb.config.url });
  await client.connect();
  try {
    const r = await client.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'household\\_%' ORDER BY 1",
    );
    return r.rows.map((x) => x.name);
  } finally {
    await client.end();
  }
}

async function pgRun(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgdb.config.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

test('dictionary schema: GET describes the planned tables, POST creates them in PostgreSQL without loading cases', async () => {
  const planned = await reply(await schemaGet(`?dictionary=${household}`), 'get', '/dictionary-schema-webhook.php', 200, (v) =>
    SchemaReply.parse(v),
  );
  assert.equal(planned.db_type, 'postgresql');
  assert.equal(planned.target_reachable, true);
  assert.ok(planned.tables.every((t) => t.exists === false));
  const cases = planned.tables.find((t) => t.kind === 'main')!;
  assert.equal(cases.name, 'household_cases');
  assert.deepEqual(cases.primary_key, ['case_id']);
  assert.deepEqual(
    cases.columns.find((c) => c.name === 'case_id'),
    { name: 'case_id', type: 'guid', sql_type: 'UUID', nullable: false },
  );
  assert.ok(planned.tables.some((t) => t.kind === 'jobs' && t.name === 'household_cspro_jobs'));
  assert.deepEqual(await pgTables(), []);

  const applied = await reply(await schemaPost({ dictionary: household }), 'post', '/dictionary-schema-webhook.php', 200, (v) =>
    SchemaApplyReply.parse(v),
  );
  const names = planned.tables.map((t) => t.name).sort();
  assert.deepEqual([...applied.tables_created].sort(), names);
  assert.equal(applied.rebuilt, true);
  assert.ok(applied.tables.every((t) => t.exists === true));
  assert.deepEqual(await pgTables(), names);
  const client = new pg.Client({ connectionString: pgdb.config.url });
  await client.connect();
  assert.equal((await client.query('SELECT count(*)::int AS n FROM household_cases')).rows[0].n, 0, 'no case loaded');
  await client.end();

  const again = await reply(await schemaPost({ dictionary: household }), 'post', '/dictionary-schema-webhook.php', 200, (v) =>
    SchemaApplyReply.parse(v),
  );
  assert.deepEqual(again.tables_created, []);
  assert.equal(again.rebuilt, false);
  assert.match(again.message, /up to date/);

  const record = names.find((n) => n !== 'household_cases' && n !== 'household_cspro_jobs' && n !== 'household_notes')!;
  await pgRun(`DROP TABLE "${record}"`);
  const gone = await reply(await schemaGet(`?dictionary=${household}`), 'get', '/dictionary-schema-webhook.php', 200, (v) =>
    SchemaReply.parse(v),
  );
  assert.equal(gone.tables.find((t) => t.name === record)!.exists, false);
  const fixed = await reply(await schemaPost({ dictionary: household }), 'post', '/dictionary-schema-webhook.php', 200, (v) =>
    SchemaApplyReply.parse(v),
  );
  assert.deepEqual(fixed.tables_created, [record]);
  assert.deepEqual(await pgTables(), names);
});

test('dictionary schema POST while a job of the dictionary is pending: 409 BREAKOUT_BUSY, nothing touched', async () => {
  const job = await s.store.jobs.create({
    id: 'held-job',
    dictionaries: [household],
    mode: 'incremental',
    threads: 1,
    overwrite: false,
    origin: 'test',
  });
  try {
    await error(await schemaPost({ dictionary: household }), 'post', '/dictionary-schema-webhook.php', 409, 'BREAKOUT_BUSY', /held-job/);
  } finally {
    await s.store.jobs.finish(job.id, 'cancelled');
  }
});
