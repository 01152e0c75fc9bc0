// Broken, cut, aborted, stalled and slow requests sent to a real `sds serve` (the compiled CLI
// as a subprocess, so a crash is a dead process, not a dead test runner); after each one the
// server must still answer. docs/http-api.md, "Limits and timeouts", says what each gets.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync, deflateSync } from 'node:zlib';
import { SDS_BIN, runCli, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

const built = fileURLToPath(new URL('../../../dist/cli/commands/serve.js', import.meta.url));

/** Short slow-client limits, set by flag (headers, body) and by environment (request). */
const HEADERS_TIMEOUT_MS = 600;
const BODY_TIMEOUT_MS = 600;
const REQUEST_TIMEOUT_MS = 4000;
const PASSWORD = 'a-long-password-1';

let home: Awaited<ReturnType<typeof tempHome>>;
let child: ChildProcessWithoutNullStreams;
let stderr = '';
let base = '';
let port = 0;
let token = '';
let dict = '';

before(async () => {
  assert.ok(existsSync(built), 'dist/ has no serve command: run `npm run build` first');
  home = await tempHome();
  const add = runCli(home.root, ['users', 'add', 'ops', '--role', 'API', '--password-stdin'], { stdin: PASSWORD + '\n' });
  assert.equal(add.code, 0, show(add));
  const up = runCli(home.root, ['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simple', '--json']);
  assert.equal(up.code, 0, show(up));
  dict = up.json<{ name: string }>().name;
  child = spawn(
    process.execPath,
    [
      SDS_BIN,
      '--home',
      home.root,
      'serve',
      '--port',
      '0',
      '--max-upload-mb',
      '1',
      '--headers-timeout',
      String(HEADERS_TIMEOUT_MS),
      '--body-timeout',
      String(BODY_TIMEOUT_MS),
    ],
    { env: { ...process.env, NO_COLOR: '1', SDS_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } },
  );
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  base = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`no URL printed; stderr:\n${stderr}`)), 20_000);
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        port = Number(m[2]);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited early with ${code}; stderr:\n${stderr}`)));
  });
  token = await login();
});

after(async () => {
  if (child && child.exitCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, `sds serve did not stop cleanly; stderr:\n${stderr}`);
  }
  await home?.cleanup();
});

async function login(): Promise<string> {
  const r = await fetch(`${base}/api/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', username: 'ops', password: PASSWORD }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  return ((await r.json()) as { access_token: string }).access_token;
}

/** The server process is still there and answers both an anonymous read and a login. */
async function assertAlive(after: string): Promise<void> {
  assert.equal(child.exitCode, null, `sds serve died after ${after}; stderr:\n${stderr}`);
  const r = await fetch(`${base}/api/openapi.json`);
  assert.equal(r.status, 200, `after ${after}`);
  await r.arrayBuffer();
  await login();
  // Nothing but request lines on stderr: no stack, no internal error, no adapter complaint.
  const odd = stderr.split('\n').filter((l) => l !== '' && !/^\d{4}-\d\d-\d\dT\S+Z (GET|POST|PUT) \S+ (\d{3}|aborted) \d+ms \S+$/.test(l));
  assert.deepEqual(odd, [], `after ${after}`);
}

async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`${what} did not happen within ${ms} ms; stderr:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface RawReply {
  /** Status of the reply, or null when the server sent none. */
  status: number | null;
  body: string;
  ms: number;
}

/**
 * Sends `parts` on a raw socket, `gapMs` apart. With `abortAfterMs` the client then closes the
 * socket (a client leaving mid-upload); otherwise it waits (at most `waitMs`) for the server to
 * answer and close the connection.
 */
function rawRequest(parts: (string | Buffer)[], opts: { gapMs?: number; abortAfterMs?: number; waitMs?: number } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server neither answered nor closed within ${opts.waitMs ?? 5000} ms`));
    }, opts.waitMs ?? 5000);
    socket.on('connect', async () => {
      for (const [i, p] of parts.entries()) {
        if (i > 0 && opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
        if (socket.destroyed) return;
        socket.write(p);
      }
      if (opts.abortAfterMs !== undefined) setTimeout(() => socket.destroy(), opts.abortAfterMs);
    });
    socket.on('data', (b: Buffer) => chunks.push(b));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(giveUp);
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, body: text.slice(text.indexOf('\r\n\r\n') + 4), ms: Date.now() - started });
    });
  });
}

function head(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries({ Host: `127.0.0.1:${port}`, Authorization: `Bearer ${token}`, ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

const MULTIPART = 'multipart/form-data; boundary=B';
const filePart = (name: string, content: string) =>
  `--B\r\nContent-Disposition: form-data; name="${name}"; filename="x.dcf"\r\n\r\n${content}`;
const dcf = readFileSync(fixture('simple-capi.dcf'), 'utf8');
const wholeForm = `--B\r\nContent-Disposition: form-data; name="label"\r\n\r\nsimple2\r\n${filePart('file', dcf)}\r\n--B--\r\n`;

async function postMultipart(body: string): Promise<{ status: number; error: string; message: string }> {
  const r = await fetch(`${base}/api/dictionaries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': MULTIPART },
    body,
  });
  const j = (await r.json()) as { error: string; message: string };
  return { status: r.status, ...j };
}

const BROKEN_FORMS: [string, string, RegExp][] = [
  ["a file part with no closing boundary (the issue's reproducer)", filePart('file', 'abc'), /closing boundary "--B--"/],
  ['a body ending in CRLF after the file', filePart('file', 'abc') + '\r\n', /closing boundary/],
  [
    'a whole .dcf without the closing boundary',
    `--B\r\nContent-Disposition: form-data; name="label"\r\n\r\nsimple2\r\n${filePart('file', dcf)}\r\n`,
    /closing boundary/,
  ],
  ['the file part under another field name, not closed', filePart('other', 'abc'), /closing boundary/],
  ['a body cut inside the part headers', '--B\r\nContent-Disposition: form-da', /closing boundary/],
  ['a body cut inside the file', wholeForm.slice(0, wholeForm.indexOf('[Record]') + 20), /closing boundary/],
  ['malformed part headers', '--B\r\nthis is no header line\r\n\r\nabc\r\n--B--\r\n', /malformed headers/],
];

for (const [what, body, message] of BROKEN_FORMS) {
  test(`POST /api/dictionaries, ${what}: 400 MULTIPART_INVALID saying why; the server goes on`, async () => {
    const r = await postMultipart(body);
    assert.equal(r.status, 400, JSON.stringify(r));
    assert.equal(r.error, 'MULTIPART_INVALID');
    assert.match(r.message, message);
    await assertAlive(what);
  });
}

test('the same form, closed, is stored (the broken ones above stored nothing)', async () => {
  const list = async () =>
    ((await (await fetch(`${base}/api/dictionaries`, { headers: { authorization: `Bearer ${token}` } })).json()) as unknown[]).length;
  assert.equal(await list(), 1, 'only the dictionary of the setup');
  const ok = await postMultipart(wholeForm);
  assert.equal(ok.status, 200, JSON.stringify(ok)); // same name as the setup's: replaced
  await assertAlive('a good upload');
});

test('a file over the upload limit (1 MB here), sent chunked so that only busboy sees its size: 413, closed or not; the server goes on', async () => {
  const big = 'x'.repeat(1.5 * 1024 * 1024);
  const cases: [string, string, number, string][] = [
    ['closed', `${filePart('file', big)}\r\n--B--\r\n`, 413, 'PAYLOAD_TOO_LARGE'],
    ['never closed', filePart('file', big), 413, 'PAYLOAD_TOO_LARGE'],
    // Skipped (not the "file" part), read to its end and dropped: the form then lacks its file.
    ['under another field name, closed', `${filePart('other', big)}\r\n--B--\r\n`, 400, 'USAGE'],
    [
      'under another field name, then a second file part',
      `${filePart('other', big)}\r\n${filePart('file', 'abc')}\r\n--B--\r\n`,
      400,
      'USAGE',
    ],
  ];
  for (const [what, body, status, code] of cases) {
    const bytes = Buffer.from(body);
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < bytes.length; i += 64 * 1024) c.enqueue(bytes.subarray(i, i + 64 * 1024));
        c.close();
      },
    });
    const r = await fetch(`${base}/api/dictionaries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': MULTIPART },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const j = (await r.json()) as { error: string };
    assert.equal(r.status, status, `${what}: ${JSON.stringify(j)}`);
    assert.equal(j.error, code, what);
    await assertAlive(`a file over the limit, ${what}`);
  }
});

test('a multipart upload cut by the client closing the socket: no reply, logged as aborted (not 500, not an internal error)', async () => {
  const r = await rawRequest(
    [head('POST', '/api/dictionaries', { 'Content-Type': MULTIPART, 'Content-Length': 100_000 }), filePart('file', dcf.slice(0, 300))],
    { abortAfterMs: 100 },
  );
  assert.equal(r.status, null, r.body);
  await until('the abort log line', () => / POST \/api\/dictionaries aborted \d+ms ops\n/.test(stderr));
  await assertAlive('an aborted multipart upload');
});

test('other bodies cut by the client (token form, raw .dcf, media file, sync upload): each logged as aborted', async () => {
  const cut: [string, string, Record<string, string | number>, string][] = [
    ['POST', '/api/token', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'grant_type=password&user'],
    ['PUT', `/api/dictionaries/${dict}`, { 'Content-Type': 'text/plain' }, dcf.slice(0, 200)],
    ['PUT', '/api/files/cut.txt/content', {}, 'abc'],
    ['POST', `/api/dictionaries/${dict}/cases`, { 'Content-Type': 'application/json' }, '[{"id": "1'],
  ];
  for (const [method, path, headers, partial] of cut) {
    const r = await rawRequest([head(method, path, { ...headers, 'Content-Length': 10_000 }), partial], { abortAfterMs: 100 });
    assert.equal(r.status, null, `${method} ${path}: ${r.body}`);
    const line = new RegExp(` ${method} ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} aborted \\d+ms`);
    await until(`the abort log line of ${method} ${path}`, () => line.test(stderr));
    await assertAlive(`an aborted ${method} ${path}`);
  }
});

test(`a stalled sync upload (1 MiB announced, a few bytes sent): 408 REQUEST_TIMEOUT after the body timeout (${BODY_TIMEOUT_MS} ms), connection closed`, async () => {
  const r = await rawRequest(
    [head('POST', `/api/dictionaries/${dict}/cases`, { 'Content-Type': 'application/json', 'Content-Length': 1024 * 1024 }), '[{"id":'],
    {
      waitMs: 5000,
    },
  );
  assert.equal(r.status, 408, r.body);
  assert.equal(JSON.parse(r.body).error, 'REQUEST_TIMEOUT');
  assert.match(JSON.parse(r.body).message, new RegExp(`no byte of the request body arrived for ${BODY_TIMEOUT_MS} ms`));
  assert.ok(r.ms >= BODY_TIMEOUT_MS && r.ms < BODY_TIMEOUT_MS + 3000, `dropped after ${r.ms} ms`);
  await until('the 408 log line', () => new RegExp(` POST /api/dictionaries/${dict}/cases 408 \\d+ms ops\\n`).test(stderr));
  await assertAlive('a stalled sync upload');
});

test('a stalled multipart upload: 408 REQUEST_TIMEOUT too', async () => {
  const r = await rawRequest(
    [head('POST', '/api/dictionaries', { 'Content-Type': MULTIPART, 'Content-Length': 50_000 }), filePart('file', 'abc')],
    { waitMs: 5000 },
  );
  assert.equal(r.status, 408, r.body);
  assert.equal(JSON.parse(r.body).error, 'REQUEST_TIMEOUT');
  await assertAlive('a stalled multipart upload');
});

test('a body trickling in slower than the request timeout allows, though never idle: 408 naming the request timeout', async () => {
  // One byte every 200 ms: never idle for the body timeout, but not complete after REQUEST_TIMEOUT_MS.
  const parts = [head('PUT', '/api/files/slow.txt/content', { 'Content-Length': 1000 }), ...Array.from({ length: 40 }, () => 'x')];
  const r = await rawRequest(parts, { gapMs: 200, waitMs: REQUEST_TIMEOUT_MS + 3000 });
  assert.equal(r.status, 408, r.body);
  assert.match(JSON.parse(r.body).message, new RegExp(`not complete ${REQUEST_TIMEOUT_MS} ms after its headers`));
  assert.ok(r.ms >= REQUEST_TIMEOUT_MS && r.ms < REQUEST_TIMEOUT_MS + 3000, `dropped after ${r.ms} ms`);
  await assertAlive('a trickling body');
});

test('a slow but steady body (a chunk every 200 ms, under the body timeout) is served', async () => {
  const form = `grant_type=password&username=ops&password=${PASSWORD}`;
  const chunks = form.match(/.{1,8}/g)!;
  const r = await rawRequest(
    [
      head('POST', '/api/token', {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': form.length,
        Connection: 'close',
      }),
      ...chunks,
    ],
    {
      gapMs: 200,
    },
  );
  assert.equal(r.status, 200, r.body);
  assert.ok(r.ms > BODY_TIMEOUT_MS * 2, `the body took ${r.ms} ms in all, longer than the body timeout`);
  assert.ok(JSON.parse(r.body).access_token);
});

test(`slow headers: 408 and closed after the headers timeout (${HEADERS_TIMEOUT_MS} ms)`, async () => {
  const r = await rawRequest(['POST /api/dictionaries HTTP/1.1\r\n', 'Host: x\r\n'], { gapMs: 100, waitMs: 5000 });
  assert.equal(r.status, 408, r.body);
  assert.ok(r.ms >= HEADERS_TIMEOUT_MS && r.ms < HEADERS_TIMEOUT_MS + 3000, `closed after ${r.ms} ms`);
  await assertAlive('slow headers');
});

test('broken gzip and zlib sync bodies: 400 naming the corrupt body; nothing stored; the server goes on', async () => {
  const json = Buffer.from(
    JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: String(i), caseids: String(i).padStart(5, '0'), data: ['x'.repeat(80)] }))),
  );
  const gz = gzipSync(json);
  const z = deflateSync(json);
  const bodies: [string, Buffer][] = [
    ['a gzip header then garbage', Buffer.concat([gz.subarray(0, 10), Buffer.from('this is not deflate data at all, not at all')])],
    ['a zlib header then garbage', Buffer.concat([Buffer.from([0x78, 0x9c]), Buffer.from('this is not deflate data at all, not at all')])],
    ['gzip cut in the middle', gz.subarray(0, Math.floor(gz.length / 2))],
    ['zlib cut in the middle', z.subarray(0, Math.floor(z.length / 2))],
    ['gzip with a damaged checksum', Buffer.concat([gz.subarray(0, gz.length - 8), Buffer.from([0, 0, 0, 0]), gz.subarray(gz.length - 4)])],
  ];
  for (const [what, body] of bodies) {
    const r = await fetch(`${base}/api/dictionaries/${dict}/cases`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    const j = (await r.json()) as { error: string; message: string };
    assert.equal(r.status, 400, `${what}: ${JSON.stringify(j)}`);
    assert.match(j.error, /^[A-Z_]+$/, what);
    assert.match(j.message, /compressed body is corrupt|not a JSON array/, what);
    await assertAlive(what);
  }
  const list = await fetch(`${base}/api/dictionaries/${dict}/cases`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(((await list.json()) as { total: number }).total, 0, 'no case of a broken body was stored');
});

test('a gzip sync upload cut by the client closing the socket: logged as aborted', async () => {
  const gz = gzipSync(Buffer.from(JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: String(i) })))));
  const r = await rawRequest(
    [
      head('POST', `/api/dictionaries/${dict}/cases`, { 'Content-Type': 'application/json', 'Content-Length': gz.length }),
      gz.subarray(0, Math.floor(gz.length / 2)),
    ],
    { abortAfterMs: 100 },
  );
  assert.equal(r.status, null, r.body);
  await until('the abort log line', () => new RegExp(` POST /api/dictionaries/${dict}/cases aborted \\d+ms ops\\n`).test(stderr));
  await assertAlive('an aborted gzip sync upload');
});
