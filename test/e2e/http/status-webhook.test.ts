import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';
import { StatusError, StatusReply } from '../../../src/http/schemas/root-scripts.js';
import { fixture } from '../../helpers/temp-home.js';
import { seedPopstan, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

const TOKEN = 'status-token-0123456789abcdef0123456789abcdef';
const PATH = '/breakout-status-webhook.php';
let s: TestServer;
let doc: OpenApiDoc;
let pgdb: TestDatabase;
let silent: Server;
const sockets: Socket[] = [];
let sqliteFile: string;
let popstan: string;
let household: string;
let simple: string;
let idb: string;

before(async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  pgdb = await createPostgresDatabase();
  // A target that accepts connections and never answers: only the connect timeout ends the wait.
  silent = createServer((sock) => sockets.push(sock));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const silentPort = (silent.address() as { port: number }).port;
  s = await startTestServer({
    config: { env: { BREAKOUT_WEBHOOK_TOKEN: TOKEN }, statusConnectTimeoutMs: 300 },
    seed: async (store) => {
      popstan = await seedPopstan(store);
      sqliteFile = join(store.home.root, 'popstan-target.sqlite');
      await setTarget(store, popstan, { type: 'sqlite', file: sqliteFile });
      await runBreakoutNow(store, { dictionary: popstan });

      const hh = fixture('capi-household.dcf');
      household = (await uploadDictionary(store, { source: readFileSync(hh), label: 'household', file: hh })).name;
      await importCases(store, household, [fixture('capi-household.csdb')]);
      await setTarget(store, household, { type: 'postgresql', url: pgdb.config.url });
      await runBreakoutNow(store, { dictionary: household });

      const sc = fixture('simple-capi.dcf');
      simple = (await uploadDictionary(store, { source: readFileSync(sc), label: 'simple', file: sc })).name;
      await setTarget(store, simple, { type: 'postgresql', host: '127.0.0.1', port: silentPort, database: 'nowhere', user: 'nobody' });

      const ip = fixture('idb-population.dcf');
      idb = (await uploadDictionary(store, { source: readFileSync(ip), label: 'idb', file: ip })).name;

      const at = '2025-01-15T08:00:00.000Z';
      const sch = await store.schedules.insert(
        {
          dictionaryId: (await store.dictionaries.find(popstan))!.id,
          enabled: true,
          cronExpression: '*/30 * * * *',
          nextRun: '2025-01-15T09:30:00.000Z',
        },
        at,
      );
      await store.schedules.markStarted(
        sch.id,
        { lastRun: '2025-01-15T09:00:00.000Z', nextRun: '2025-01-15T09:30:00.000Z', logFile: null },
        at,
      );
      await store.schedules.markEnded(sch.id, 0, at);
      await store.schedules.insert(
        { dictionaryId: (await store.dictionaries.find(idb))!.id, enabled: false, cronExpression: '0 2 * * *', nextRun: null },
        at,
      );
    },
  });
  doc = (await (await s.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
});

after(async () => {
  await s.close();
  for (const sock of sockets) sock.destroy();
  await new Promise((r) => silent.close(r));
  await pgdb.drop();
});

const bearer = (token = TOKEN): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });
const get = (query = '', init: RequestInit = bearer()) => fetch(`${s.base}${PATH}${query}`, init);

async function ok(r: Response) {
  const text = await r.text();
  assert.equal(r.status, 200, text);
  assert.equal(r.headers.get('x-robots-tag'), 'noindex, nofollow');
  const body: unknown = JSON.parse(text);
  assert.deepEqual(checkReply(doc, 'get', PATH, 200, body), [], text);
  return StatusReply.parse(body);
}

async function failure(r: Response, status: number, code: string) {
  const text = await r.text();
  assert.equal(r.status, status, text);
  const body = StatusError.parse(JSON.parse(text));
  assert.equal(body.error.code, code, text);
  if (r.status !== 405) assert.deepEqual(checkReply(doc, 'get', PATH, status, body), [], text);
  return body;
}

/** Rows of a table of the real SQLite target, counted by SQLite itself. */
function sqliteCount(table: string): number {
  const db = new Database(sqliteFile, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function pgQuery(sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: pgdb.config.url });
  await client.connect();
  try {
    return (await client.query({ text: sql, rowMode: 'array' })).rows[0] as unknown[];
  } finally {
    await client.end();
  }
}

test('every dictionary, ordered by name, with real counts from a SQLite and a PostgreSQL target', async () => {
  const r = await ok(await get());
  assert.deepEqual(r.meta, { total: 4, page: 1, pages: 1, limit: 20 });
  assert.equal(r.success, true);
  assert.equal(r.error, null);
  assert.deepEqual(
    r.data.map((d) => d.dictionary),
    [popstan, household, simple, idb].sort(),
  );
  const by = Object.fromEntries(r.data.map((d) => [d.dictionary, d]));

  const p = by[popstan]!;
  const sqliteCases = sqliteCount('popstan_cases');
  assert.ok(sqliteCases > 1000);
  const db = new Database(sqliteFile, { readonly: true });
  const sqliteLast = (
    db.prepare("SELECT max(completed_time) AS t FROM popstan_cspro_jobs WHERE status = 'completed'").get() as { t: string }
  ).t;
  db.close();
  assert.deepEqual(p, {
    dictionary: popstan,
    label: 'popstan',
    breakout_configured: true,
    target_host: null,
    target_schema: 'popstan-target.sqlite',
    db_type: 'sqlite',
    cron_enabled: true,
    cron_expression: '*/30 * * * *',
    last_run: '2025-01-15 09:00:00',
    next_run: '2025-01-15 09:30:00',
    last_exit_code: 0,
    total_cases: await s.store.cases.countActive((await s.store.dictionaries.find(popstan))!.id),
    processed_cases: sqliteCases,
    cases_pending: 0,
    completion_rate: 100,
    is_up_to_date: true,
    last_processed_time: new Date(sqliteLast).toISOString().slice(0, 19).replace('T', ' '),
    breakout_interrupted: null,
  });

  const h = by[household]!;
  const [pgCases] = await pgQuery('SELECT count(*)::int FROM household_cases');
  const [pgLast] = (await pgQuery("SELECT max(completed_time) FROM household_cspro_jobs WHERE status = 'completed'")) as [Date];
  assert.ok((pgCases as number) > 0);
  assert.equal(h.breakout_configured, true);
  assert.equal(h.db_type, 'postgresql');
  assert.equal(h.target_host, '127.0.0.1:5432');
  assert.equal(h.target_schema, pgdb.name);
  assert.equal(h.processed_cases, pgCases);
  assert.equal(h.last_processed_time, pgLast.toISOString().slice(0, 19).replace('T', ' '));
  assert.equal(h.cron_enabled, false);
  assert.equal(h.cron_expression, null);

  const i = by[idb]!;
  assert.equal(i.breakout_configured, false);
  assert.deepEqual(
    [
      i.target_host,
      i.target_schema,
      i.db_type,
      i.processed_cases,
      i.cases_pending,
      i.completion_rate,
      i.is_up_to_date,
      i.last_processed_time,
    ],
    [null, null, null, null, null, null, null, null],
  );
  assert.equal(i.cron_expression, '0 2 * * *');
  assert.equal(i.cron_enabled, false);
});

test('a target that accepts connections and never answers gives null target fields, and the page still answers', async () => {
  const r = await ok(await get(`?dictionary=${simple}`));
  assert.equal(r.data.length, 1);
  const d = r.data[0]!;
  assert.equal(d.breakout_configured, true);
  assert.equal(d.target_host, `127.0.0.1:${(silent.address() as { port: number }).port}`);
  assert.deepEqual(
    [d.processed_cases, d.cases_pending, d.completion_rate, d.is_up_to_date, d.last_processed_time],
    [null, null, null, null, null],
  );
  assert.ok(sockets.length > 0, 'the status read did try the silent target');
});

test('filters: dictionary, dictionaries, cron_enabled, breakout_configured', async () => {
  const names = async (q: string) => (await ok(await get(q))).data.map((d) => d.dictionary);
  assert.deepEqual(await names(`?dictionary=${popstan}`), [popstan]);
  assert.deepEqual(await names(`?dictionary=${popstan.toLowerCase()}`), [], 'names are case-sensitive');
  assert.deepEqual(await names(`?dictionaries=${idb},${popstan},NOPE`), [idb, popstan].sort());
  assert.deepEqual(await names('?cron_enabled=true'), [popstan]);
  assert.deepEqual(await names('?cron_enabled=false'), [household, simple, idb].sort());
  assert.deepEqual(await names('?breakout_configured=true'), [popstan, household, simple].sort());
  assert.deepEqual(await names('?breakout_configured=0'), [idb]);
  assert.deepEqual(await names('?breakout_configured=1&cron_enabled=1'), [popstan]);
});

test('paging: page and limit, meta counts dictionaries', async () => {
  const all = (await ok(await get())).data.map((d) => d.dictionary);
  const p1 = await ok(await get('?limit=3'));
  assert.deepEqual(p1.meta, { total: 4, page: 1, pages: 2, limit: 3 });
  assert.deepEqual(
    p1.data.map((d) => d.dictionary),
    all.slice(0, 3),
  );
  const p2 = await ok(await get('?limit=3&page=2'));
  assert.deepEqual(p2.meta, { total: 4, page: 2, pages: 2, limit: 3 });
  assert.deepEqual(
    p2.data.map((d) => d.dictionary),
    all.slice(3),
  );
  const p9 = await ok(await get('?limit=3&page=9'));
  assert.deepEqual(p9.data, []);
  assert.equal((await ok(await get('?limit=100'))).meta.limit, 100);
  const none = await ok(await get('?dictionary=NOPE'));
  assert.deepEqual(none.meta, { total: 0, page: 1, pages: 0, limit: 20 });
});

test('bad filter values: 400 invalid_parameter naming the parameter', async () => {
  const cases: [string, RegExp][] = [
    ['?limit=0', /limit/],
    ['?limit=101', /limit/],
    ['?limit=abc', /limit/],
    ['?page=0', /page/],
    ['?page=-1', /page/],
    ['?cron_enabled=yes', /cron_enabled/],
    ['?breakout_configured=maybe', /breakout_configured/],
    ['?dictionaries=', /dictionaries/],
    [`?dictionaries=${Array.from({ length: 101 }, (_, i) => `D${i}`).join(',')}`, /at most 100/],
    [`?dictionary=${popstan}&dictionaries=${idb}`, /not both/],
  ];
  for (const [q, message] of cases) {
    const e = await failure(await get(q), 400, 'invalid_parameter');
    assert.match(e.error.message, message, q);
  }
  const hundred = Array.from({ length: 100 }, (_, i) => `D${i}`).join(',');
  assert.equal((await ok(await get(`?dictionaries=${hundred}`))).meta.total, 0);
});

test('token: absent or malformed is missing_token, a different one is invalid_token (401)', async () => {
  await failure(await get('', {}), 401, 'missing_token');
  await failure(await get('', { headers: { authorization: `Basic ${TOKEN}` } }), 401, 'missing_token');
  await failure(await get('', { headers: { authorization: 'Bearer' } }), 401, 'missing_token');
  await failure(await get('', bearer(`${TOKEN}x`)), 401, 'invalid_token');
  await failure(await get('', bearer(TOKEN.slice(0, -1))), 401, 'invalid_token');
  // An OAuth access token is not the static token.
  const { access_token } = await s.login('admin');
  await failure(await get('', bearer(access_token)), 401, 'invalid_token');
});

test('any verb but GET: 405 method_not_allowed in the envelope', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    const r = await fetch(`${s.base}${PATH}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
    const e = await failure(r, 405, 'method_not_allowed');
    assert.match(e.error.message, /GET/);
    assert.equal(r.headers.get('allow'), 'GET');
  }
  const head = await fetch(`${s.base}${PATH}`, { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(head.status, 405);
});

test('BREAKOUT_WEBHOOK_TOKEN unset: 500 server_misconfigured, whatever the token', async () => {
  const bare = await startTestServer({ config: { env: {} } });
  try {
    for (const init of [bearer(), {}]) {
      const r = await fetch(`${bare.base}${PATH}`, init);
      const body = StatusError.parse(await r.json());
      assert.equal(r.status, 500);
      assert.equal(body.error.code, 'server_misconfigured');
      assert.match(body.error.message, /BREAKOUT_WEBHOOK_TOKEN/);
    }
  } finally {
    await bare.close();
  }
});

test('rate limit: the 61st request in a sliding 60 s is 429 rate_limited with Retry-After; wrong tokens count too', async () => {
  s.advance(61_000); // a fresh window: earlier tests' requests have left it
  const wrong = bearer('not-the-token');
  for (let i = 1; i <= 60; i++) await failure(await get('', wrong), 401, 'invalid_token');
  const limited = await get('', wrong);
  const e = await failure(limited, 429, 'rate_limited');
  assert.equal(limited.headers.get('retry-after'), '60');
  assert.equal(e.error.message, 'Too many requests. Retry after 60 seconds.');

  // The right token from the same address is another key: it still passes.
  await ok(await get('?dictionary=NOPE'));

  s.advance(59_999);
  const still = await get('', wrong);
  await failure(still, 429, 'rate_limited');
  assert.equal(still.headers.get('retry-after'), '1');
  s.advance(1); // the first request is now 60 s old: it has left the window
  await failure(await get('', wrong), 401, 'invalid_token');
});

test('the token never reaches the server log', async () => {
  await get(`?dictionary=${popstan}`);
  assert.ok(s.logs.some((l) => l.includes(PATH)));
  assert.ok(!s.logs.some((l) => l.includes(TOKEN)), 'token in the log');
});
