/**
 * No control character a client sends reaches the server log raw (docs/logs.md#control-characters):
 * a real `sds serve` in each format gets a path with a line break that would forge a request line,
 * NUL, C1 controls and U+2028 in the path and query, a User-Agent and a device id with controls,
 * and a login whose user name holds a line break, NUL, U+2028 and half a surrogate pair. Its log
 * has exactly one line per request (and one per failed login), valid UTF-8, and no raw control
 * character; the JSON lines still parse to the exact path.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { runCli, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempHome } from '../../helpers/temp-home.js';

const PASSWORD = 'correct horse battery staple';
const home = await tempHome();

before(() => {
  const add = runCli(home.root, ['users', 'add', 'ops', '--role', 'API', '--password-stdin'], { stdin: PASSWORD + '\n' });
  assert.equal(add.code, 0, show(add));
});
after(() => home.cleanup());

/** Every control character of docs/logs.md#control-characters but the line feed that ends a line. */
const RAW_CONTROL =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const FORGED = '/api/x%0aFAKE-LINE%20200%20GET%20/admin';
const FORGED_DECODED = '/api/x\nFAKE-LINE 200 GET /admin';
const EVIL_USER = 'eve\n2026-06-30T12:00:00.000Z auth login-ok user="ops"\u0000\u0085\u2028\ud800';

/** One GET written byte by byte: fetch refuses the header bytes a client can still send (a tab, C1 in latin1). */
function rawGet(url: string, path: string, headerLines: Buffer): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let reply = '';
    socket.on('connect', () =>
      socket.write(
        Buffer.concat([Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n`), headerLines, Buffer.from('\r\n')]),
      ),
    );
    socket.on('data', (b: Buffer) => (reply += b.toString('latin1')));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

/** The same requests against a server; resolves with how many requests it answered. */
async function sendAll(s: ServeProcess): Promise<number> {
  let n = 0;
  const get = async (path: string, init?: RequestInit) => {
    const r = await fetch(`${s.url}${path}`, init);
    await r.arrayBuffer();
    n += 1;
    return r.status;
  };
  assert.equal(await get(FORGED), 404);
  await get('/api/nul%00byte?q=%0aFAKE%00LINE');
  await get('/api/c1%C2%85%C2%9B%7Fand%E2%80%A8ls%E2%80%A9ps%1B[31mesc%09tab');
  await get('/api/openapi.json?next=%0d%0aFAKE-LINE');

  // A failed login with a crafted name: its own auth line plus the request's.
  const login = await fetch(`${s.url}/api/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: EVIL_USER, password: 'wrong' }),
  });
  assert.equal(login.status, 401, await login.text());
  n += 1;

  const token = await fetch(`${s.url}/api/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', username: 'ops', password: PASSWORD }),
  });
  assert.equal(token.status, 200);
  const access = ((await token.json()) as { access_token: string }).access_token;
  n += 1;
  // An account on the line, and a device id with a tab and C1 controls.
  const auth = Buffer.from(`Authorization: Bearer ${access}\r\n`);
  const device = Buffer.concat([Buffer.from('x-csw-device: DEVICE\tid'), Buffer.from([0x85, 0x9b]), Buffer.from('\r\n')]);
  const agent = Buffer.concat([Buffer.from('User-Agent: AGENT\tsync'), Buffer.from([0x85]), Buffer.from(' client/8.1.1\r\n')]);
  assert.ok((await rawGet(s.url, '/api/dictionaries/X%0AFAKE/cases', Buffer.concat([auth, device, agent]))) >= 400);
  n += 1;
  assert.equal(await rawGet(s.url, '/api/openapi.json', agent), 200);
  n += 1;
  return n;
}

/** The log's lines, after checking the whole of it is UTF-8 with no raw control character. */
function linesOf(s: ServeProcess): string[] {
  const text = s.stderr();
  assert.ok(!text.includes('\ufffd'), 'no bytes that are not UTF-8 (half a surrogate pair written raw)');
  assert.ok(text.endsWith('\n'));
  const lines = text.slice(0, -1).split('\n');
  for (const l of lines) assert.ok(!RAW_CONTROL.test(l), `a raw control character in ${JSON.stringify(l)}`);
  return lines;
}

test('text format: one line per request and per failed login; what the client sent is escaped', async () => {
  const s = await startServe(home.root);
  const requests = await sendAll(s);
  await s.stop();
  const lines = linesOf(s);
  const requestLines = lines.filter((l) => /^\d{4}-\d\d-\d\dT\S+Z [A-Z]+ \S+ (\d{3}|aborted) \d+ms \S+$/.test(l));
  const authLines = lines.filter((l) => /^\S+Z auth login-failed /.test(l));
  const others = lines.filter((l) => !requestLines.includes(l) && !authLines.includes(l));
  assert.equal(requestLines.length, requests, s.stderr());
  assert.equal(authLines.length, 1, s.stderr());
  assert.deepEqual(others, [], s.stderr());
  assert.ok(!lines.some((l) => l.startsWith('FAKE')), 'no forged line');

  assert.match(requestLines[0]!, /^\S+Z GET \/api\/x\\nFAKE-LINE\\x20200\\x20GET\\x20\/admin 404 \d+ms -$/);
  assert.match(requestLines[1]!, /^\S+Z GET \/api\/nul\\x00byte 404 \d+ms -$/, 'the query is never logged');
  assert.match(requestLines[2]!, /^\S+Z GET \/api\/c1\\x85\\x9b\\x7fand\\u2028ls\\u2029ps\\x1b\[31mesc\\ttab 404 \d+ms -$/);
  assert.match(requestLines[3]!, /^\S+Z GET \/api\/openapi\.json 200 \d+ms -$/);
  assert.match(requestLines[6]!, /^\S+Z GET \/api\/dictionaries\/X\\nFAKE\/cases \d{3} \d+ms ops$/);
  assert.equal(
    authLines[0]!.replace(/ reason=.*$/, ''),
    `${authLines[0]!.split(' ')[0]} auth login-failed grant=password ` +
      'user="eve\\n2026-06-30T12:00:00.000Z auth login-ok user=\\"ops\\"\\u0000\\x85\\u2028\\ud800" address=127.0.0.1',
  );
  for (const header of ['AGENT', 'DEVICE']) assert.ok(!s.stderr().includes(header), `no header value in the log (${header})`);
});

interface Line {
  msg: string;
  path?: string;
  account?: string | null;
}

test('JSON format: one valid JSON line per request and per failed login, with the exact path and no raw control character', async () => {
  const s = await startServe(home.root, {}, 0, ['--log-format', 'json']);
  const requests = await sendAll(s);
  await s.stop();
  const lines = linesOf(s).map((l) => {
    try {
      return JSON.parse(l) as Line;
    } catch {
      assert.fail(`not a JSON line: ${l}`);
    }
  });
  const requestLines = lines.filter((l) => l.msg === 'request');
  assert.equal(requestLines.length, requests, s.stderr());
  const auth = lines.filter((l) => l.msg.includes(' auth login-failed '));
  assert.equal(auth.length, 1, s.stderr());
  assert.equal(lines.length, requests + 1 + 3, 'and listening, the signal, stopped');

  assert.deepEqual(
    requestLines.map((l) => l.path),
    [
      FORGED_DECODED,
      '/api/nul\u0000byte',
      '/api/c1\u0085\u009b\u007fand\u2028ls\u2029ps\u001b[31mesc\ttab',
      '/api/openapi.json',
      '/api/token',
      '/api/token',
      '/api/dictionaries/X\nFAKE/cases',
      '/api/openapi.json',
    ],
    'JSON keeps the exact path, escaped',
  );
  assert.equal(requestLines[6]!.account, 'ops');
  assert.match(auth[0]!.msg, /user="eve\\n2026-06-30T12:00:00\.000Z auth login-ok user=\\"ops\\"\\u0000\\x85\\u2028\\ud800" /);
  assert.ok(!s.stderr().includes('FAKE-LINE\n') && !s.stderr().includes('\nFAKE'), 'no forged line');
  for (const header of ['AGENT', 'DEVICE']) assert.ok(!s.stderr().includes(header), `no header value in the log (${header})`);
});
