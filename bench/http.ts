// HTTP benchmark in its own process: requests/s and p99 latency of `sds serve` on loopback, with
// autocannon as the load generator, for
//   - POST /api/token (password grant; dominated by the argon2id password check, by design),
//   - GET /api/dictionaries/CEN2000/cases?limit=100 (first page),
//   - the same at a deep offset (90% of the cases), which shows what skipping rows costs.
// Builds its own home with BENCH_HTTP_CASES Popstan cases (default 100000) through the real CLI
// (bin/sds, so `npm run build` first), prints one human line per run, then one JSON line last.
// BENCH_HTTP_SECONDS (default 10) and BENCH_HTTP_CONNECTIONS (default 10) set the load.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { makePopstanDat } from './make-popstan-dat.js';
import { httpLines, type HttpBenchResult, type HttpRun } from './http-report.js';

const N = Number(process.env.BENCH_HTTP_CASES ?? 100_000);
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 10);
const WARMUP_SECONDS = 2;
const DICT = 'CEN2000';
const USER = 'bench';
const PASSWORD = 'bench-password-0123456789';
const LIMIT = 100;
const DEEP_OFFSET = Math.max(0, Math.floor(N * 0.9));

const sds = new URL('../bin/sds', import.meta.url).pathname;
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;
if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) throw new Error('dist/ is missing: run `npm run build` first');

const dir = mkdtempSync(join(tmpdir(), 'sds-bench-http-'));
const home = join(dir, 'home');
const serverLog = join(dir, 'serve.log');
let server: ChildProcess | undefined;

// Last resort for paths that skip `finally` (an uncaught error in a callback, process.exit).
process.on('exit', () => {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));

const cli = (args: string[], input?: string) =>
  execFileSync(process.execPath, [sds, '--home', home, '--quiet', ...args], {
    encoding: 'utf8',
    input,
    stdio: ['pipe', 'pipe', 'inherit'],
  });

/** Starts `sds serve` on a port the kernel picks and resolves with its URL once it answers. */
async function startServe(): Promise<string> {
  const log = openSync(serverLog, 'w');
  server = spawn(process.execPath, [sds, '--home', home, 'serve', '--host', '127.0.0.1', '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', log],
  });
  closeSync(log);
  const proc = server;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('sds serve printed no URL within 30 s')), 30_000);
    proc.once('exit', (code, sig) => reject(new Error(`sds serve exited early (${sig ?? code}): ${tail(serverLog)}`)));
    createInterface({ input: proc.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve((JSON.parse(line) as { url: string }).url);
      } catch {
        reject(new Error(`unexpected first line from sds serve: ${line}`));
      }
    });
  });
  proc.stdout!.resume(); // keep draining: a full pipe would stall the server
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${url}/api/openapi.json`);
      await res.arrayBuffer();
      if (res.ok) return url;
    } catch (err) {
      if (i >= 100) throw err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopServe(): Promise<void> {
  const proc = server;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Peak resident memory of the server so far (Linux only). */
function serverPeakRssMb(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server!.pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

interface Target {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * A run of `amount` requests: autocannon returns only once every one of them is answered (the first
 * error or 120 s timeout ends it), so no backlog is left in the server to be billed to the next run, as a run by duration
 * would leave behind on an endpoint slower than its duration.
 */
const fire = (t: Target, url: string, amount: number) =>
  autocannon({
    url: url + t.path,
    method: t.method,
    headers: t.headers,
    body: t.body,
    connections: CONNECTIONS,
    amount,
    timeout: 120,
    bailout: 1,
  });

const perSecond = (r: autocannon.Result) => r.requests.total / Math.max(r.duration, 0.001);

/**
 * One request per connection to gauge the speed, a warm-up of about WARMUP_SECONDS, then the
 * measured run of about SECONDS, each sized from the rate of the one before (a measured run far
 * shorter than SECONDS is done again). Errors, timeouts and non-2xx replies make the run not ok.
 */
async function load(url: string, t: Target): Promise<HttpRun> {
  const probe = await fire(t, url, CONNECTIONS);
  const warm = await fire(t, url, Math.max(CONNECTIONS, Math.round(perSecond(probe) * WARMUP_SECONDS)));
  let r = await fire(t, url, Math.max(CONNECTIONS, Math.round(perSecond(warm) * SECONDS)));
  // A warm-up slower than the steady state sizes the run too short: size it again from itself.
  for (let i = 0; i < 3 && r.duration < SECONDS * 0.7 && r.errors === 0 && r.non2xx === 0; i++) {
    r = await fire(t, url, Math.max(CONNECTIONS, Math.round(perSecond(r) * SECONDS)));
  }
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = Number(s.count);
  return {
    name: t.name,
    method: t.method,
    path: t.path,
    connections: CONNECTIONS,
    seconds: r.duration,
    requests: r.requests.total,
    rps: perSecond(r),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    status_codes: statusCodes,
    ok: r.non2xx === 0 && r.errors === 0 && r.timeouts === 0 && r.requests.total > 0,
  };
}

/** One request by hand before the load, so a wrong setup fails loudly instead of measuring 4xx speed. */
async function expectPage(url: string, path: string, token: string, offset: number): Promise<void> {
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { total?: number; data?: unknown[] };
  const want = Math.min(LIMIT, N - offset);
  if (res.status !== 200 || body.total !== N || body.data?.length !== want) {
    throw new Error(`GET ${path}: ${res.status}, total ${body.total}, ${body.data?.length} rows (expected 200, total ${N}, ${want} rows)`);
  }
}

try {
  const dat = join(dir, 'popstan.dat');
  await makePopstanDat(fixture('popstan-census.dat'), dat, N);
  cli(['init']);
  cli(['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
  cli(['cases', 'import', DICT, dat]);
  rmSync(dat);
  cli(['users', 'add', USER, '--role', 'API', '--password-stdin'], PASSWORD + '\n');

  const url = await startServe();
  const form = new URLSearchParams({ grant_type: 'password', username: USER, password: PASSWORD }).toString();
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
  const tokenRes = await fetch(`${url}/api/token`, { method: 'POST', headers: formHeaders, body: form });
  const token = ((await tokenRes.json()) as { access_token?: string }).access_token;
  if (tokenRes.status !== 200 || !token) throw new Error(`POST /api/token: ${tokenRes.status}, no access token`);
  const bearer = { authorization: `Bearer ${token}` };
  const firstPage = `/api/dictionaries/${DICT}/cases?limit=${LIMIT}`;
  const deepPage = `/api/dictionaries/${DICT}/cases?limit=${LIMIT}&offset=${DEEP_OFFSET}`;
  await expectPage(url, firstPage, token, 0);
  await expectPage(url, deepPage, token, DEEP_OFFSET);

  const targets: Target[] = [
    { name: 'token', method: 'POST', path: '/api/token', headers: formHeaders, body: form },
    { name: 'cases offset=0', method: 'GET', path: firstPage, headers: bearer },
    { name: `cases offset=${DEEP_OFFSET}`, method: 'GET', path: deepPage, headers: bearer },
  ];
  const runs: HttpRun[] = [];
  for (const t of targets) {
    const run = await load(url, t);
    runs.push(run);
    if (!run.ok) console.error(`sds serve log (last lines):\n${tail(serverLog)}`);
  }
  const result: HttpBenchResult = { cases: N, server_peak_rss_mb: serverPeakRssMb(), runs, ok: runs.every((r) => r.ok) };
  for (const line of httpLines(result)) console.log(line);
  console.log(JSON.stringify(result));
  if (!result.ok) process.exitCode = 1;
} finally {
  await stopServe();
  rmSync(dir, { recursive: true, force: true });
}
