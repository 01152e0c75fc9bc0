/**
 * `sds serve --log-format json` (docs/logs.md#the-server-log): a real server, every stderr line
 * parsed as JSON, the request id of each reply's X-Request-Id found in its log line, an incoming
 * id kept and a bad one replaced, and no token, password or query string in any line. The text
 * format keeps its old line.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { until } from '../../helpers/breakout-helpers.js';
import { runCli, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempHome, writeHomeConfig } from '../../helpers/temp-home.js';

const PASSWORD = 'correct horse battery staple';
const QUERY_SECRET = 'QuerySecret123';
const home = await tempHome();
let s: ServeProcess;

before(async () => {
  const add = runCli(home.root, ['users', 'add', 'ops', '--role', 'API', '--password-stdin'], { stdin: PASSWORD + '\n' });
  assert.equal(add.code, 0, show(add));
  s = await startServe(home.root, {}, 0, ['--log-format', 'json', '--body-timeout', '300']);
});
after(async () => {
  await s?.stop();
  await home.cleanup();
});

interface Line {
  level: string;
  time: string;
  msg: string;
  node?: string;
  request_id?: string;
  method?: string;
  route?: string | null;
  path?: string;
  status?: number;
  duration_ms?: number;
  account?: string | null;
}

const form = (body: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString(),
});

/** A request whose body stops after one byte: the body timeout answers 408 (body-timeout.ts). */
function stalledUpload(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let reply = '';
    socket.on('connect', () =>
      socket.write('POST /api/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 50\r\n\r\na'),
    );
    socket.on('data', (b: Buffer) => (reply += b.toString()));
    socket.on('close', () => resolve(reply));
    socket.on('error', reject);
  });
}

test('JSON lines: one per request, its request id in the reply header, nothing secret', async () => {
  const tokenReply = await fetch(`${s.url}/api/token`, form({ grant_type: 'password', username: 'ops', password: PASSWORD }));
  assert.equal(tokenReply.status, 200);
  const token = ((await tokenReply.json()) as { access_token: string }).access_token;
  const ids: Record<string, string> = { token: tokenReply.headers.get('x-request-id')! };

  const list = await fetch(`${s.url}/api/dictionaries?secret=${QUERY_SECRET}`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(list.status, 200);
  ids.list = list.headers.get('x-request-id')!;

  const kept = await fetch(`${s.url}/no/such/route`, { headers: { 'X-Request-Id': 'nginx-4f2a.9:b_c' } });
  assert.equal(kept.status, 404);
  assert.equal(kept.headers.get('x-request-id'), 'nginx-4f2a.9:b_c', 'a safe incoming id is kept');

  for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '']) {
    const r = await fetch(`${s.url}/api/dictionaries`, { headers: { 'X-Request-Id': bad } });
    assert.equal(r.status, 401);
    const id = r.headers.get('x-request-id')!;
    assert.notEqual(id, bad);
    assert.match(id, /^[0-9a-f-]{36}$/, `an unsafe incoming id (${JSON.stringify(bad)}) is replaced by a new one`);
  }

  const tooBig = await fetch(`${s.url}/api/token`, form({ grant_type: 'password', username: 'ops', password: 'x'.repeat(100_000) }));
  assert.equal(tooBig.status, 413);
  ids.tooBig = tooBig.headers.get('x-request-id')!;

  const wrongMethod = await fetch(`${s.url}/api/token`, { method: 'DELETE' });
  assert.equal(wrongMethod.status, 405);
  ids.wrongMethod = wrongMethod.headers.get('x-request-id')!;

  const timedOut = await stalledUpload(s.url);
  assert.match(timedOut, /^HTTP\/1\.1 408 /);
  ids.timedOut = /\r\nx-request-id: ([^\r]+)\r\n/i.exec(timedOut)?.[1] ?? '';
  assert.match(ids.timedOut, /^[0-9a-f-]{36}$/, 'the 408 of the body timeout carries the id too');

  for (const [what, id] of Object.entries(ids)) assert.ok(id, `${what}: no X-Request-Id`);
  assert.equal(new Set(Object.values(ids)).size, Object.keys(ids).length, 'every request has its own id');

  // The 408 goes out before the stalled request's handler has ended, and its log line comes
  // when it ends: wait for it, so that the lines of the stop are the last ones.
  await until('the log line of the timed-out request', () => s.stderr().includes(ids.timedOut!));
  await s.stop();
  const text = s.stderr();
  const lines = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        assert.fail(`not a JSON line: ${l}`);
      }
    });
  for (const l of lines) {
    assert.ok(['info', 'warn', 'error'].includes(l.level), JSON.stringify(l));
    assert.ok(!Number.isNaN(Date.parse(l.time)) && l.time.endsWith('Z'), JSON.stringify(l));
  }
  assert.match(lines[0]!.msg, /^sds: listening on http:\/\/127\.0\.0\.1:\d+ as node [^ ]+:\d+:[0-9a-z]+$/);
  // Every line names the node (docs/logs.md#the-server-log), the one the startup line names.
  for (const l of lines) assert.equal(l.node, lines[0]!.msg.split(' as node ')[1]);
  assert.deepEqual(
    lines.slice(-2).map((l) => l.msg),
    ['sds: SIGTERM received, finishing requests in flight', 'sds: stopped'],
  );

  const byId = (id: string) => {
    const found = lines.filter((l) => l.request_id === id);
    assert.equal(found.length, 1, `one line for request ${id}`);
    return found[0]!;
  };
  const l = byId(ids.list!);
  assert.deepEqual(
    { method: l.method, route: l.route, path: l.path, status: l.status, account: l.account, msg: l.msg, level: l.level },
    { method: 'GET', route: '/api/dictionaries', path: '/api/dictionaries', status: 200, account: 'ops', msg: 'request', level: 'info' },
  );
  assert.equal(typeof l.duration_ms, 'number');
  assert.deepEqual(Object.keys(l).sort(), [
    'account',
    'duration_ms',
    'level',
    'method',
    'msg',
    'node',
    'path',
    'pid',
    'request_id',
    'route',
    'status',
    'time',
  ]);
  assert.equal(byId(ids.token!).account, null);
  assert.deepEqual([byId('nginx-4f2a.9:b_c').route, byId('nginx-4f2a.9:b_c').status], [null, 404]);
  assert.equal(byId(ids.tooBig!).status, 413);
  assert.equal(byId(ids.wrongMethod!).status, 405);
  assert.equal(byId(ids.timedOut!).status, 408);

  for (const secret of [token, PASSWORD, QUERY_SECRET, 'secret=', 'Bearer', '?'])
    assert.ok(!text.includes(secret), `the log holds ${JSON.stringify(secret.slice(0, 20))}`);
});

test('SDS_LOG_FORMAT=json works as the flag does; a bad value stops the start with CONFIG_INVALID', async () => {
  const bad = runCli(home.root, ['serve', '--port', '0'], { env: { SDS_LOG_FORMAT: 'xml' } });
  assert.equal(bad.code, 2, show(bad));
  assert.match(bad.stderr, /CONFIG_INVALID: SDS_LOG_FORMAT must be one of text, json; got "xml"/);

  const viaEnv = await startServe(home.root, { SDS_LOG_FORMAT: 'json' });
  const r = await fetch(`${viaEnv.url}/api/openapi.json`);
  assert.equal(r.status, 200);
  await viaEnv.stop();
  const line = viaEnv
    .stderr()
    .split('\n')
    .filter((x) => x !== '')
    .map((x) => JSON.parse(x) as Line)
    .find((x) => x.request_id === r.headers.get('x-request-id'));
  assert.equal(line?.route, '/api/openapi.json');
});

test('the text format keeps its line, and its replies carry X-Request-Id too', async () => {
  const plain = await startServe(home.root);
  const r = await fetch(`${plain.url}/api/openapi.json?x=1`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  await plain.stop();
  const lines = plain.stderr().split('\n');
  assert.ok(
    lines.some((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z GET \/api\/openapi\.json 200 \d+ms -$/.test(l)),
    plain.stderr(),
  );
  assert.ok(!lines.some((l) => l.startsWith('{')), 'no JSON line in the text format');
});

test('an unknown config.json key, with the JSON format set in config.json itself, is a warn JSON line; in text a text line', async () => {
  const own = await tempHome();
  try {
    const init = runCli(own.root, ['init']);
    assert.equal(init.code, 0, show(init));
    writeHomeConfig(own, { logs: { format: 'json' }, typo_key: 1 }, 0o600);
    const json = await startServe(own.root);
    await json.stop();
    const lines = json
      .stderr()
      .split('\n')
      .filter((x) => x !== '');
    for (const l of lines) assert.doesNotThrow(() => JSON.parse(l), `not a JSON line: ${l}`);
    const warn = lines.map((x) => JSON.parse(x) as Line).filter((x) => x.msg.includes('typo_key'));
    assert.equal(warn.length, 1, json.stderr());
    assert.equal(warn[0]!.level, 'warn');
    assert.match(warn[0]!.msg, /typo_key in .*config\.json is not a setting and is ignored/);

    writeHomeConfig(own, { typo_key: 1 }, 0o600);
    const text = await startServe(own.root);
    await text.stop();
    assert.match(text.stderr(), /^sds: warning: typo_key in .*config\.json is not a setting and is ignored/m);
  } finally {
    await own.cleanup();
  }
});
