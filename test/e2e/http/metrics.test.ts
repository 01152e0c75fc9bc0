// GET /metrics of a real `sds serve` (the compiled CLI as a subprocess) after real work: a sync
// upload and download, a refused login, and a breakout job run by another process (`sds breakout
// start --wait`), whose counts reach the server only through the store. The scrape is checked by
// promtool (Debian's prometheus package) and its values parsed (docs/metrics.md).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { runCli, runCliAsync, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { popstanCases } from '../../helpers/sync-client.js';
import { startTestServer } from '../../helpers/http-server.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { promtool, samples, value } from '../../helpers/prom-text.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const PASSWORD = 'a-long-password-1';
const UPLOADED = 7;

let home: Awaited<ReturnType<typeof tempHome>>;
let serve: ServeProcess;
let dict = '';
let access = '';

const scrape = (token = TOKEN) => fetch(`${serve.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });

before(async () => {
  home = await tempHome();
  const add = runCli(home.root, ['users', 'add', 'ops', '--role', 'Administrator', '--password-stdin'], { stdin: PASSWORD + '\n' });
  assert.equal(add.code, 0, show(add));
  const up = runCli(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan', '--json']);
  assert.equal(up.code, 0, show(up));
  dict = up.json<{ name: string }>().name;
  const target = runCli(home.root, ['target', 'set', dict, '--type', 'sqlite', '--file', join(home.root, 'target.sqlite')]);
  assert.equal(target.code, 0, show(target));
  serve = await startServe(home.root, { SDS_METRICS_TOKEN: TOKEN });
  const login = await fetch(`${serve.url}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'ops', password: PASSWORD }),
  });
  assert.equal(login.status, 200);
  access = ((await login.json()) as { access_token: string }).access_token;
});

after(async () => {
  await serve?.stop();
  await home?.cleanup();
});

test('a scrape after an upload, a download, a refused login and a breakout job passes promtool and counts each', async () => {
  const sent = await fetch(`${serve.url}/api/dictionaries/${dict}/cases`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json', 'x-csw-device': 'tablet-1' },
    body: deflateSync(JSON.stringify(popstanCases(UPLOADED, 'tablet-1'))),
  });
  assert.equal(sent.status, 200, await sent.text());
  const got = await fetch(`${serve.url}/api/dictionaries/${dict}/cases`, {
    headers: { authorization: `Bearer ${access}`, 'x-csw-device': 'tablet-2', 'x-csw-case-range-count': '100' },
  });
  assert.equal(got.status, 200);
  assert.equal(((await got.json()) as unknown[]).length, UPLOADED);
  const refused = await fetch(`${serve.url}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'ops', password: 'not-the-password' }),
  });
  assert.equal(refused.status, 401);
  const job = await runCliAsync(home.root, ['breakout', 'start', dict, '--wait']);
  assert.equal(job.code, 0, show(job));

  const r = await scrape();
  const text = await r.text();
  assert.equal(r.status, 200, text);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const verdict = promtool(text);
  if (verdict) assert.equal(verdict.status, 0, `promtool check metrics:\n${verdict.output}`);

  assert.equal(value(text, 'sds_sync_cases_uploaded_total', { dictionary: dict }), UPLOADED);
  assert.equal(value(text, 'sds_sync_cases_downloaded_total', { dictionary: dict }), UPLOADED);
  assert.equal(value(text, 'sds_login_failures_total', { grant: 'password' }), 1);
  assert.equal(value(text, 'sds_login_throttled_total', { grant: 'password' }), 0);
  // The job ran in another process: the server knows of it only through the store's counters.
  assert.equal(value(text, 'sds_breakout_jobs_total', { outcome: 'completed' }), 1);
  assert.equal(value(text, 'sds_breakout_jobs_total', { outcome: 'failed' }), 0);
  assert.equal(value(text, 'sds_breakout_cases_processed_total'), UPLOADED);
  assert.ok(value(text, 'sds_breakout_job_duration_seconds_total')! > 0);
  // Which node answered the scrape (docs/metrics.md): one series, set to 1.
  assert.match(text, /^sds_node_info\{node="[^"]+:\d+:[0-9a-z]+",host="[^"]+",started_at="[^"]+"\} 1$/m);
  // One process (--workers 1): no worker label and no count of workers (docs/metrics.md#workers).
  assert.ok(!samples(text).some((s) => 'worker' in s.labels), 'a worker label on a single process');
  assert.equal(value(text, 'sds_workers_scraped'), undefined);
  // Routes are labelled by template, never by the raw path.
  const uploads = { method: 'POST', route: '/api/dictionaries/{name}/cases', status: '200' };
  assert.equal(value(text, 'sds_http_requests_total', uploads), 1);
  assert.equal(value(text, 'sds_http_request_duration_seconds_count', uploads), 1);
  assert.equal(value(text, 'sds_http_requests_total', { method: 'POST', route: '/api/token', status: '401' }), 1);
  assert.ok(!samples(text).some((s) => s.labels.route?.includes(dict)), 'a route label holds a raw path');
  assert.ok(value(text, 'sds_store_size_bytes')! > 0);
  assert.notEqual(value(text, 'sds_store_wal_size_bytes'), undefined);
  assert.equal(value(text, 'sds_webhook_queue_deliveries', { state: 'due' }), 0);
  assert.ok(value(text, 'sds_process_resident_memory_bytes')! > 0);
});

test('a path no route takes is labelled `unmatched`, however many there are', async () => {
  for (const p of ['/nope-1', '/nope-2', '/api/nope/3']) assert.equal((await fetch(`${serve.url}${p}`)).status, 404);
  const text = await (await scrape()).text();
  assert.ok(value(text, 'sds_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })! >= 3);
  assert.ok(!samples(text).some((s) => s.labels.route?.startsWith('/nope')));
});

test('a wrong or missing token is 401 with WWW-Authenticate; an OAuth access token is refused too', async () => {
  const tries: Record<string, string>[] = [
    {},
    { authorization: `Bearer ${TOKEN}x` },
    { authorization: `Bearer ${access}` },
    { authorization: TOKEN },
  ];
  for (const headers of tries) {
    const r = await fetch(`${serve.url}/metrics`, { headers });
    assert.equal(r.status, 401, JSON.stringify(headers));
    assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="sds-metrics"');
    assert.equal(((await r.json()) as { error: string }).error, 'METRICS_TOKEN_INVALID');
  }
});

test('without SDS_METRICS_TOKEN /metrics is 404, the same reply as a path that does not exist', async () => {
  const ts = await startTestServer();
  try {
    const metrics = await fetch(`${ts.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const none = await fetch(`${ts.base}/no-such-route`);
    assert.equal(metrics.status, 404);
    assert.deepEqual(await metrics.json(), { error: 'API-002', message: 'no route /metrics' });
    assert.deepEqual(await none.json(), { error: 'API-002', message: 'no route /no-such-route' });
  } finally {
    await ts.close();
  }
});

test('a short SDS_METRICS_TOKEN stops the start with CONFIG_INVALID naming the variable', async () => {
  const r = await runCliAsync(home.root, ['serve', '--port', '0'], { env: { SDS_METRICS_TOKEN: 'short' } });
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /CONFIG_INVALID/);
  assert.match(r.stderr, /SDS_METRICS_TOKEN must be at least 16 characters/);
});

test('every metric docs/metrics.md lists or the example alert rules use is in a scrape, and every one scraped is documented', async () => {
  const text = await (await scrape()).text();
  const scraped = new Set([...text.matchAll(/^# TYPE (sds_\w+) /gm)].map((m) => m[1]!));
  const ours = [...scraped].filter((n) => !/^sds_(process|nodejs)_/.test(n));
  const doc = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8');
  const documented = new Set([...doc.matchAll(/^\| `(sds_\w+)`/gm)].map((m) => m[1]!));
  const rules = readFileSync(new URL('../../../deploy/prometheus/sds-rules.yml', import.meta.url), 'utf8');
  const used = new Set([...rules.matchAll(/\b(sds_\w+)/g)].map((m) => m[1]!));
  assert.ok(documented.size >= 10, `the table of docs/metrics.md was not found (${[...documented].join(', ')})`);
  assert.deepEqual(
    [...documented].filter((n) => !scraped.has(n)),
    [],
    'documented but not served',
  );
  assert.deepEqual(
    ours.filter((n) => !documented.has(n)),
    [],
    'served but not in docs/metrics.md',
  );
  assert.deepEqual(
    [...used].filter((n) => !scraped.has(n)),
    [],
    'used by deploy/prometheus/sds-rules.yml but not served',
  );
});
