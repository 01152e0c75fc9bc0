/**
 * GET /metrics of `sds serve --workers 2` (docs/metrics.md#workers), the real CLI as a
 * subprocess: whichever worker takes a scrape, it counts the requests of both (the sum rises by
 * exactly the requests made, spread over both workers); counters never go down from one scrape to
 * the next; the process metrics come once per worker, labelled `worker`, and the figures read from
 * the store once; promtool accepts every scrape. A worker that cannot answer (stopped with
 * SIGSTOP) is left out after workers.metrics_timeout_ms, and the scrape says so.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { promtool, samples, value, type Sample } from '../../helpers/prom-text.js';
import { tempHome, type TempHome } from '../../helpers/temp-home.js';

const TOKEN = 'metrics-workers-token-0123456789';
const TIMEOUT_MS = 400;
const READYZ = { route: '/readyz' };
let home: TempHome;
let serve: ServeProcess;

before(async () => {
  home = await tempHome();
  serve = await startServe(home.root, { SDS_METRICS_TOKEN: TOKEN, SDS_WORKER_METRICS_TIMEOUT_MS: String(TIMEOUT_MS) }, 0, [
    '--workers',
    '2',
  ]);
});
after(async () => {
  await serve?.stop();
  await home?.cleanup();
});

/** One GET on a connection of its own, so that the kernel hands each to either worker. */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${serve.url}${path}`, { headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function scrape(): Promise<string> {
  const r = await get('/metrics', { authorization: `Bearer ${TOKEN}` });
  assert.equal(r.status, 200, r.text);
  const verdict = promtool(r.text);
  if (verdict) assert.equal(verdict.status, 0, `promtool check metrics:\n${verdict.output}`);
  return r.text;
}

/** Requests answered on /readyz, summed over status (and worker, were they labelled). */
const readyzTotal = (text: string): number =>
  samples(text)
    .filter((s) => s.name === 'sds_http_requests_total' && s.labels.route === READYZ.route)
    .reduce((n, s) => n + s.value, 0);

/** The samples of counters and histograms, the series that must never go down. */
function monotonic(text: string): Map<string, number> {
  const kinds = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  const family = (s: Sample) => kinds.get(s.name) ?? kinds.get(s.name.replace(/_(bucket|sum|count)$/, ''));
  const out = new Map<string, number>();
  for (const s of samples(text)) {
    const kind = family(s);
    if (kind === 'counter' || kind === 'histogram') out.set(`${s.name}${JSON.stringify(s.labels)}`, s.value);
  }
  return out;
}

/** Pids of the workers, from their `listening` lines. */
function workerPids(): Map<number, number> {
  const out = new Map<number, number>();
  for (const m of serve.stderr().matchAll(/worker (\d+) \(node [^:\s]+:(\d+):[0-9a-z]+\) listening/g)) out.set(Number(m[1]), Number(m[2]));
  return out;
}

test('every scrape counts the requests of both workers, whichever answers, and counters only go up', async () => {
  let made = readyzTotal(await scrape());
  assert.equal(made, 0, 'no /readyz request yet');
  const nodes = new Set<string>();
  let previous: Map<string, number> | undefined;
  for (let round = 0; round < 6; round++) {
    // Requests in concurrent batches on new connections: while one worker is busy the other
    // accepts, so both answer some. Until both have, then a batch more per round.
    for (let batch = 0; batch < 40 && (batch === 0 || nodes.size < 2); batch++) {
      const replies = await Promise.all(Array.from({ length: 8 }, () => get('/readyz')));
      for (const r of replies) nodes.add((JSON.parse(r.text) as { node: string }).node);
      made += replies.length;
    }
    const text = await scrape();
    assert.equal(readyzTotal(text), made, `round ${round}: the scrape counts every /readyz request made`);
    assert.equal(value(text, 'sds_workers'), 2);
    assert.equal(value(text, 'sds_workers_scraped'), 2);
    const now = monotonic(text);
    for (const [series, before] of previous ?? []) {
      const after = now.get(series);
      assert.ok(after !== undefined && after >= before, `round ${round}: ${series} went from ${before} to ${after}`);
    }
    previous = now;
  }
  assert.equal(nodes.size, 2, `both workers answered /readyz: ${[...nodes].join(', ')}`);

  const text = await scrape();
  const info = samples(text).filter((s) => s.name === 'sds_node_info');
  assert.deepEqual(info.map((s) => s.labels.worker).sort(), ['1', '2'], 'sds_node_info once per worker');
  assert.deepEqual(new Set(info.map((s) => s.labels.node)), nodes, 'the node ids of the workers that answered');
  for (const name of ['sds_process_start_time_seconds', 'sds_process_resident_memory_bytes', 'sds_sync_upload_memory_budget_bytes']) {
    const per = samples(text).filter((s) => s.name === name);
    assert.deepEqual(per.map((s) => s.labels.worker).sort(), ['1', '2'], `${name} once per worker`);
  }
  // Read from the store: once, not once per worker and not summed.
  const sizes = samples(text).filter((s) => s.name === 'sds_store_size_bytes');
  assert.equal(sizes.length, 1);
  assert.equal(sizes[0]!.labels.worker, undefined);
  assert.ok(sizes[0]!.value > 0);
  assert.equal(value(text, 'sds_login_failures_total', { grant: 'password' }), 0, 'counters at 0 in both stay 0');

  // The metrics only a group serves are documented (the single-process test checks the others).
  const doc = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8');
  for (const name of ['sds_workers', 'sds_workers_scraped']) assert.match(doc, new RegExp('`' + name + '`'));
});

test('a worker that does not answer is left out after workers.metrics_timeout_ms, and the scrape says so', async () => {
  const pids = workerPids();
  const stopped = pids.get(2);
  assert.ok(stopped, `worker 2's pid in the log:\n${serve.stderr()}`);
  process.kill(stopped, 'SIGSTOP');
  try {
    const started = Date.now();
    // Worker 2 accepts nothing while stopped: worker 1 takes the scrape and waits for it in vain.
    const text = await scrape();
    const took = Date.now() - started;
    assert.ok(took >= TIMEOUT_MS, `answered after ${took} ms, before the timeout`);
    assert.ok(took < TIMEOUT_MS + 5000, `answered after ${took} ms`);
    assert.equal(value(text, 'sds_workers'), 2);
    assert.equal(value(text, 'sds_workers_scraped'), 1);
    const info = samples(text).filter((s) => s.name === 'sds_node_info');
    assert.deepEqual(
      info.map((s) => s.labels.worker),
      ['1'],
      'only the worker that answered',
    );
  } finally {
    process.kill(stopped, 'SIGCONT');
  }
  // Back: the next scrapes cover both again (its late answer to the last one is dropped).
  const text = await scrape();
  assert.equal(value(text, 'sds_workers_scraped'), 2);
  assert.equal(serve.exit(), null, 'the server still runs');
});
