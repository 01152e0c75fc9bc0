/**
 * `sds serve --workers N` (docs/production.md#workers), the real CLI as a subprocess, on the
 * store of the test run (SDS_TEST_STORE): two workers serve concurrent sync uploads and downloads
 * with every acknowledged case stored once; a worker killed with `kill -9` is restarted while the
 * other keeps answering; SIGTERM lets an upload in flight finish, then exit 0; past the restart
 * limit the server stops; bad counts are refused; `--workers 1` is the single process of before.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type OutgoingHttpHeaders } from 'node:http';
import { deflateSync } from 'node:zlib';
import { until } from '../../helpers/breakout-helpers.js';
import { runCli, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { popstanCases, type WireCase } from '../../helpers/sync-client.js';
import { fixture, storeSql, tempHome, withStore, type TempHome } from '../../helpers/temp-home.js';

const DICT = 'CEN2000';
const ROUTE = `/api/dictionaries/${DICT}/cases`;
const PASSWORD = 'workers test password 1';
let home: TempHome;

before(async () => {
  home = await tempHome();
  const up = runCli(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
  assert.equal(up.code, 0, show(up));
  const add = runCli(home.root, ['users', 'add', 'tablet', '--role', 'Standard User', '--password-stdin'], { stdin: PASSWORD + '\n' });
  assert.equal(add.code, 0, show(add));
});
after(async () => home?.cleanup());

/** `SDS_WORKER_RESTART_DELAY_MS=0`: a killed worker comes back at once; the test waits for its log line, not a time. */
const FAST_RESTART = { SDS_WORKER_RESTART_DELAY_MS: '0' };

/**
 * One request on a connection of its own: a pooled keep-alive connection may belong to a worker
 * the test has just killed (a tablet then retries, docs/production.md#workers).
 */
function call(
  url: string,
  method: string,
  headers: OutgoingHttpHeaders = {},
  body?: Buffer,
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(parts).toString(), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function token(url: string): Promise<string> {
  const r = await fetch(`${url}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'password',
      username: 'tablet',
      password: PASSWORD,
      client_id: 'cspro_android',
      client_secret: 'cspro',
    }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  return ((await r.json()) as { access_token: string }).access_token;
}

const syncHeaders = (tok: string, device: string) => ({
  authorization: `Bearer ${tok}`,
  'user-agent': 'CSPro sync client/8.0',
  'x-csw-device': device,
});

async function upload(url: string, tok: string, device: string, cases: WireCase[]): Promise<void> {
  const r = await call(
    `${url}${ROUTE}`,
    'POST',
    { ...syncHeaders(tok, device), 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip' },
    deflateSync(JSON.stringify(cases)),
  );
  assert.equal(r.status, 200, r.text);
}

/** Every case id of the dictionary, downloaded in pages of 7 as a tablet does. */
async function downloadIds(url: string, tok: string): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  let last: string | undefined;
  for (;;) {
    const r = await call(`${url}${ROUTE}`, 'GET', {
      ...syncHeaders(tok, 'reader'),
      'x-csw-case-range-count': '7',
      ...(last ? { 'x-csw-if-revision-exists': last } : {}),
      ...(after ? { 'x-csw-case-range-start-after': after } : {}),
    });
    last = String(r.headers['x-csw-chunk-max-revision']);
    assert.ok(r.status === 200 || r.status === 206, `download: ${r.status}`);
    const page = JSON.parse(r.text) as { id: string }[];
    ids.push(...page.map((c) => c.id));
    if (r.status === 200) return ids;
    after = page.at(-1)!.id;
  }
}

/** The pid and node id of each worker that said it listens, by worker number (the last life of each). */
function workers(s: ServeProcess): Map<number, { pid: number; node: string }> {
  const out = new Map<number, { pid: number; node: string }>();
  for (const m of s.stderr().matchAll(/worker (\d+) \(node ([^:\s]+:(\d+):[0-9a-z]+)\) listening/g))
    out.set(Number(m[1]), { pid: Number(m[3]), node: m[2]! });
  return out;
}

async function storedCount(): Promise<number> {
  return withStore(home, async (store) => Number((await storeSql(store, 'SELECT count(*) AS n FROM cases'))[0]!.n));
}

test('--workers 2: two workers answer; concurrent uploads and downloads store every acknowledged case once', async () => {
  const before = await storedCount();
  const s = await startServe(home.root, {}, 0, ['--workers', '2']);
  try {
    const w = workers(s);
    assert.equal(w.size, 2, s.stderr());
    assert.notEqual(w.get(1)!.pid, w.get(2)!.pid);
    assert.notEqual(w.get(1)!.pid, s.child.pid, 'the primary serves nothing itself');
    assert.match(s.stderr(), /worker 1 \(node [^)]+\) listening; it runs the duties/);
    const ready = await fetch(`${s.url}/readyz`);
    assert.equal(ready.status, 200, await ready.text());
    const tok = await token(s.url);
    const sent: string[] = [];
    const readers: Promise<string[]>[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, d) => {
        for (let chunk = 0; chunk < 2; chunk++) {
          const cases = popstanCases(10, `tablet-${d}`);
          await upload(s.url, tok, `tablet-${d}`, cases);
          sent.push(...cases.map((c) => c.id));
          if (d < 2) readers.push(downloadIds(s.url, tok));
        }
      }),
    );
    await Promise.all(readers);
    const all = await downloadIds(s.url, tok);
    assert.equal(new Set(all).size, all.length, 'no case twice in a download');
    for (const id of sent) assert.ok(all.includes(id), `acknowledged case ${id} is downloaded`);
    assert.equal(await storedCount(), before + sent.length, 'each acknowledged case stored once');
  } finally {
    await s.stop();
  }
  assert.deepEqual(s.exit(), { code: 0, signal: null }, s.stderr());
});

test('--workers 2: a worker killed with kill -9 is restarted, the other answers meanwhile; the duty worker too', async () => {
  const s = await startServe(home.root, FAST_RESTART, 0, ['--workers', '2']);
  try {
    const tok = await token(s.url);
    for (const index of [2, 1]) {
      const old = workers(s).get(index)!;
      process.kill(old.pid, 'SIGKILL');
      // Whichever worker the primary hands each connection to answers: the dead one gets none.
      for (let i = 0; i < 10; i++) assert.equal((await call(`${s.url}/readyz`, 'GET')).status, 200);
      await until(`worker ${index} restarted`, () => workers(s).get(index)!.pid !== old.pid);
      assert.match(s.stderr(), new RegExp(`worker ${index} ended by SIGKILL; restarting it in 0 ms`));
      assert.notEqual(workers(s).get(index)!.node, old.node, 'a restarted worker is a new node');
      const cases = popstanCases(5, `after-kill-${index}`);
      await upload(s.url, tok, `after-kill-${index}`, cases);
      const ids = await downloadIds(s.url, tok);
      for (const c of cases) assert.ok(ids.includes(c.id));
    }
    assert.match(
      s.stderr(),
      /worker 1 \(node [^)]+\) listening; it runs the duties[^\n]*\n[\s\S]*worker 1 ended by SIGKILL[\s\S]*worker 1 \(node [^)]+\) listening; it runs the duties/,
    );
  } finally {
    await s.stop();
  }
  assert.deepEqual(s.exit(), { code: 0, signal: null }, s.stderr());
});

test('--workers 2: SIGTERM lets an upload in flight finish and be stored, then exits 0', async () => {
  const s = await startServe(home.root, {}, 0, ['--workers', '2']);
  const tok = await token(s.url);
  const cases = popstanCases(10, 'slow-tablet');
  const body = Buffer.from(JSON.stringify(cases));
  // Expect: 100-continue: the worker answers 100 once it has the headers, so the request is
  // known to be in flight before the signal.
  const req = request(`${s.url}${ROUTE}`, {
    method: 'POST',
    headers: {
      ...syncHeaders(tok, 'slow-tablet'),
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
      expect: '100-continue',
    },
  });
  const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
  });
  const continued = new Promise<void>((resolve) => req.once('continue', resolve));
  req.flushHeaders();
  await continued;
  req.write(body.subarray(0, 100));
  s.child.kill('SIGTERM');
  await until('the primary asked the workers to stop', () => /asking 2 workers to finish their requests in flight/.test(s.stderr()));
  req.end(body.subarray(100));
  const r = await reply;
  assert.equal(r.status, 200, r.text);
  await s.ended;
  assert.deepEqual(s.exit(), { code: 0, signal: null }, s.stderr());
  const stored = await withStore(home, (store) =>
    storeSql(
      store,
      `SELECT count(*) AS n FROM cases WHERE guid IN (${cases.map(() => '?').join(', ')})`,
      cases.map((c) => c.id),
    ),
  );
  assert.equal(Number(stored[0]!.n), cases.length, 'the upload finished during the drain is stored');
});

test('past workers.restart_limit the server stops with exit 1 instead of restarting in a loop', async () => {
  const s = await startServe(home.root, { SDS_WORKER_RESTART_LIMIT: '0' }, 0, ['--workers', '2']);
  process.kill(workers(s).get(2)!.pid, 'SIGKILL');
  await s.ended;
  assert.deepEqual(s.exit(), { code: 1, signal: null }, s.stderr());
  assert.match(s.stderr(), /worker 2 ended by SIGKILL; 0 restarts within 60000 ms already, stopping \(workers\.restart_limit\)/);
});

test('bad worker counts: --workers is USAGE (exit 2), SDS_WORKERS is CONFIG_INVALID naming the variable', () => {
  for (const n of ['0', '-1', '1.5', 'two', '65']) {
    const r = runCli(home.root, ['serve', '--port', '0', '--workers', n]);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /USAGE: --workers must be a whole number from 1 to 64/, show(r));
    assert.equal(r.stdout, '', 'nothing served');
  }
  const r = runCli(home.root, ['serve', '--port', '0'], { env: { SDS_WORKERS: '0' } });
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /CONFIG_INVALID: SDS_WORKERS must be a whole number from 1 to 64/, show(r));
});

test('--workers 1 is the single process of before: it serves itself, no worker lines', async () => {
  const s = await startServe(home.root, {}, 0, ['--workers', '1']);
  try {
    assert.equal((await fetch(`${s.url}/readyz`)).status, 200);
    const tok = await token(s.url);
    await upload(s.url, tok, 'single', popstanCases(3, 'single'));
    assert.doesNotMatch(s.stderr(), /worker \d/);
  } finally {
    await s.stop();
  }
  assert.deepEqual(s.exit(), { code: 0, signal: null });
});
