/**
 * The nginx site of deploy/nginx/ (docs/production.md#the-nginx-site) under Debian's nginx:
 * `nginx -t` accepts it in a main configuration like Debian's, with no warning; then nginx runs it
 * on loopback ports in front of a real `sds serve` with SDS_TRUSTED_PROXIES=127.0.0.1, and sds sees
 * the real client's address (not nginx's, not one the client wrote), plain HTTP is redirected,
 * /metrics is refused outside the allow list, and nginx's request id reaches sds.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempHome } from '../../helpers/temp-home.js';
import { nginxBin, replaceExactly, selfSignedCert, siteForTest, skipWithout, writeNginxConf } from '../../helpers/deploy-files.js';

const noNginx = skipWithout('nginx', 'nginx') || skipWithout('openssl', 'openssl');
/** The client's own loopback address, distinct from 127.0.0.1 (nginx's address towards sds). */
const CLIENT = '127.0.0.2';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on 127.0.0.1:port, or rejects when `child` exits first or after `ms`. */
async function listening(port: number, child: ChildProcess, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => (c.destroy(), resolve(true)));
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} after ${ms} ms`);
    await new Promise((r) => setImmediate(r));
  }
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function send(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; from?: string; ca?: Buffer } = {},
): Promise<Reply> {
  const u = new URL(url);
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      u,
      { method: opts.method ?? 'GET', headers: opts.headers, localAddress: opts.from ?? CLIENT, ca: opts.ca, servername: 'localhost' },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (b: Buffer) => chunks.push(b));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.once('error', reject);
    req.end(opts.body);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'sds-nginx-'));
// nginx's workers run as another user when the master is root: they must reach the temp folders.
chmodSync(dir, 0o755);
after(() => rmSync(dir, { recursive: true, force: true }));

test('nginx -t accepts the site, with no warning', { skip: noNginx }, () => {
  const { cert, key } = selfSignedCert(dir);
  const conf = writeNginxConf(dir, siteForTest({ cert, key, logDir: join(dir, 'logs') }));
  const r = spawnSync(nginxBin(), ['-t', '-c', conf, '-p', dir], { encoding: 'utf8' });
  assert.equal(r.error, undefined, `nginx could not run: ${r.error?.message}`);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /test is successful/);
  assert.doesNotMatch(r.stderr, /\[(warn|emerg|alert|crit)\]/);
});

test("nginx -t accepts the site in Debian's own nginx.conf, beside its default site", { skip: noNginx }, () => {
  const debian = mkdtempSync(join(dir, 'debian-'));
  const { cert, key } = selfSignedCert(debian);
  writeFileSync(join(debian, 'sds'), siteForTest({ cert, key, logDir: debian }));
  // As installed: Debian's main file, the site included from sites-enabled; only the pid moves.
  let main = readFileSync('/etc/nginx/nginx.conf', 'utf8');
  main = main.replace(/^pid .*;$/m, `pid ${debian}/nginx.pid;`);
  main = replaceExactly(main, 'include /etc/nginx/sites-enabled/*;', `include /etc/nginx/sites-enabled/*;\n\tinclude ${debian}/sds;`);
  writeFileSync(join(debian, 'nginx.conf'), main);
  const r = spawnSync(nginxBin(), ['-t', '-c', join(debian, 'nginx.conf')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /\[(warn|emerg|alert|crit)\]/);
});

let sds: ServeProcess | undefined;
let nginx: ChildProcess | undefined;
let home: Awaited<ReturnType<typeof tempHome>> | undefined;
const ports = { http: 0, https: 0 };
let ca: Buffer;
let liveDir: string;

before(async () => {
  if (noNginx) return;
  home = await tempHome();
  sds = await startServe(home.root, { SDS_TRUSTED_PROXIES: '127.0.0.1' });
  ports.http = await freePort();
  ports.https = await freePort();
  liveDir = mkdtempSync(join(dir, 'live-'));
  chmodSync(liveDir, 0o755);
  const { cert, key } = selfSignedCert(liveDir);
  ca = readFileSync(cert);
  const site = siteForTest({
    cert,
    key,
    logDir: join(liveDir, 'logs'),
    httpPort: ports.http,
    httpsPort: ports.https,
    upstreamPort: Number(new URL(sds.url).port),
  });
  const conf = writeNginxConf(liveDir, site);
  nginx = spawn(nginxBin(), ['-c', conf, '-p', liveDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  await listening(ports.https, nginx);
});

after(async () => {
  if (nginx && nginx.exitCode === null) {
    const ended = new Promise((r) => nginx!.once('exit', r));
    nginx.kill('SIGQUIT');
    await ended;
  }
  await sds?.stop();
  await home?.cleanup();
});

test('through nginx, sds sees the client address, not nginx’s nor one the client wrote', { skip: noNginx }, async () => {
  const ok = await send(`https://127.0.0.1:${ports.https}/api/openapi.json`, { ca });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers['content-type']?.split(';')[0], 'application/json');
  const r = await send(`https://127.0.0.1:${ports.https}/api/token`, {
    method: 'POST',
    ca,
    // A client-written header: nginx appends the real address, and sds reads from the right.
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.9' },
    body: 'grant_type=password&username=nobody-here&password=wrong',
  });
  assert.ok(r.status === 400 || r.status === 401, `${r.status} ${r.body}`);
  const audit = sds!
    .stderr()
    .split('\n')
    .filter((l) => l.includes('login-failed') && l.includes('nobody-here'));
  assert.equal(audit.length, 1, sds!.stderr());
  assert.match(audit[0]!, new RegExp(`address=${CLIENT.replaceAll('.', '\\.')}(\\s|$)`));
});

test('plain HTTP is redirected to https', { skip: noNginx }, async () => {
  const r = await send(`http://127.0.0.1:${ports.http}/api/dictionaries?limit=1`);
  assert.equal(r.status, 301);
  assert.equal(r.headers.location, `https://127.0.0.1/api/dictionaries?limit=1`);
});

test('/metrics is refused by nginx outside its allow list', { skip: noNginx }, async () => {
  const outside = await send(`https://127.0.0.1:${ports.https}/metrics`, { ca });
  assert.equal(outside.status, 403);
  const inside = await send(`https://127.0.0.1:${ports.https}/metrics`, { ca, from: '127.0.0.1' });
  assert.notEqual(inside.status, 403, 'the allowed address reaches sds');
});

test(
  'a body over the dictionary upload limit is refused by nginx on the general routes, not on the sync route',
  { skip: noNginx },
  async () => {
    const r = await send(`https://127.0.0.1:${ports.https}/api/dictionaries`, {
      method: 'POST',
      ca,
      headers: { 'content-type': 'application/octet-stream' },
      body: 'x'.repeat(12 * 1024 * 1024),
    });
    assert.equal(r.status, 413);
    assert.match(r.body, /<html>/, 'refused by nginx, before sds');
    // The same body to the sync upload route passes nginx (64 MiB there) and reaches sds, which
    // asks for a token: a JSON error of sds, not nginx's page.
    const sync = await send(`https://127.0.0.1:${ports.https}/api/dictionaries/CEN2000/cases`, {
      method: 'POST',
      ca,
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(12 * 1024 * 1024),
    });
    assert.equal(sync.status, 401, sync.body);
    assert.equal(sync.headers['content-type']?.split(';')[0], 'application/json');
  },
);

test('the X-Request-Id that sds answers is the id nginx logged for the request', { skip: noNginx }, async () => {
  const r = await send(`https://127.0.0.1:${ports.https}/api/openapi.json`, { ca });
  assert.equal(r.status, 200);
  const id = r.headers['x-request-id'];
  assert.match(String(id), /^[0-9a-f]{32}$/);
  // nginx writes the access line after the response has gone out, so the client can read its
  // reply before the line is on disk: wait for it, up to a bound.
  const logFile = join(liveDir, 'logs', 'sds.access.log');
  const deadline = Date.now() + 10_000;
  let log = readFileSync(logFile, 'utf8');
  while (!log.includes(`id=${String(id)}`) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    log = readFileSync(logFile, 'utf8');
  }
  assert.ok(log.includes(`id=${String(id)}`), log);
});
