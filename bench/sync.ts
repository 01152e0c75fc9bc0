// Sync benchmark in its own process: the data-collection client's protocol against `sds serve`
// on loopback. Uploads BENCH_SYNC_CASES cases (default 100000) as one device does, in
// zlib-compressed chunks of BENCH_SYNC_CHUNK (default 500, as CSWeb's reference figure was
// measured) cases per POST (compression done beforehand: the client's work is not timed), then
// downloads them all back in pages of 100 with the revision headers and the guid cursor.
// BENCH_SYNC_DICT picks the cases: `simplecapi` (default: the reference generator's shape, about
// 600 bytes each) or `popstan` (the Popstan census fixture's cases, about 3 times larger).
// Prints human lines, then one JSON line last. Runs the compiled build (bin/sds): `npm run build` first.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { deflateSync } from 'node:zlib';
import { parseDictionary } from '../src/cspro/dictionary/parse-dictionary.js';
import { textToCase } from '../src/cspro/case/text-to-case.js';
import { simplecapiCase } from './make-simplecapi-cases.js';
import { syncFloorSeconds } from './sync-floor.js';
import { downloadAll, peakRssMb, serverCpuSeconds, tabletToken, uploadAll } from './sync-load.js';

const N = Number(process.env.BENCH_SYNC_CASES ?? 100_000);
const CHUNK = Number(process.env.BENCH_SYNC_CHUNK ?? 500);
const PAGE = 100;
const SOURCE = process.env.BENCH_SYNC_DICT ?? 'simplecapi';
if (SOURCE !== 'simplecapi' && SOURCE !== 'popstan') throw new Error(`BENCH_SYNC_DICT must be simplecapi or popstan, not ${SOURCE}`);
const DICT = SOURCE === 'popstan' ? 'CEN2000' : 'SIMPLECAPI_DICT';
const sds = new URL('../bin/sds', import.meta.url).pathname;
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;
if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) throw new Error('dist/ is missing: run `npm run build` first');

const dir = mkdtempSync(join(tmpdir(), 'sds-bench-sync-'));
const home = join(dir, 'home');
let server: ChildProcess | undefined;
process.on('exit', () => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], input?: string) =>
  execFileSync(process.execPath, [sds, '--home', home, '--quiet', ...args], { encoding: 'utf8', input });

/** The cases' `level-1` texts, one per Popstan case of the fixture. */
function templates(): { caseids: string; level: string }[] {
  const dict = parseDictionary(readFileSync(fixture('popstan-census.json.dcf')));
  const lines = readFileSync(fixture('popstan-census.dat'), 'utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter(Boolean);
  const groups: string[][] = [];
  let key = '';
  for (const l of lines) {
    if (l.slice(1, 19) !== key) groups.push([]);
    key = l.slice(1, 19);
    groups.at(-1)!.push(l);
  }
  return groups.map((g) => ({ caseids: g[0]!.slice(1, 19), level: JSON.stringify(textToCase(dict, g).level1) }));
}

try {
  cli(['init']);
  const dcf = fixture(SOURCE === 'popstan' ? 'popstan-census.json.dcf' : 'simple-capi.dcf');
  cli(['dict', 'upload', dcf, '--label', SOURCE]);
  cli(['users', 'add', 'tablet', '--role', 'Standard', '--password-stdin'], 'bench-password-0123456789\n');
  server = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_SYNC_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_SYNC_PROFILE] : []),
      sds,
      '--home',
      home,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--json',
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    server!.once('exit', (code) => reject(new Error(`sds serve exited (${code})`)));
    createInterface({ input: server!.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
  });
  server.stdout!.resume();
  const token = await tabletToken(url, 'tablet', 'bench-password-0123456789');

  const tpl = SOURCE === 'popstan' ? templates() : [];
  const bodies: Buffer[] = [];
  let rawBytes = 0;
  for (let i = 0; i < N; i += CHUNK) {
    const cases = [];
    for (let k = i; k < Math.min(N, i + CHUNK); k++) {
      if (SOURCE === 'simplecapi') {
        cases.push(simplecapiCase(k, 'bench-tablet'));
        continue;
      }
      const t = tpl[k % tpl.length]!;
      cases.push({ id: randomUUID(), caseids: t.caseids, clock: [{ deviceId: 'bench-tablet', revision: 1 }], 'level-1': t.level });
    }
    const json = JSON.stringify(cases);
    rawBytes += Buffer.byteLength(json);
    bodies.push(deflateSync(json));
  }

  const cpu0 = serverCpuSeconds(server.pid);
  const { seconds: upSeconds } = await uploadAll(url, DICT, token, [{ device: 'bench-tablet', bodies }]);
  const cpu1 = serverCpuSeconds(server.pid);
  // CPU the server spent on the upload (user + system): steadier than wall time on a busy machine.
  const upCpuUsPerCase = cpu0 !== undefined && cpu1 !== undefined ? ((cpu1 - cpu0) * 1e6) / N : undefined;

  const { pages, cases: received, seconds: downSeconds } = await downloadAll(url, DICT, token, 'bench-tablet', PAGE);
  const cpu2 = serverCpuSeconds(server.pid);
  // CPU the server spent per download page: what building a page costs, whatever else runs.
  const downCpuUsPerPage = cpu1 !== undefined && cpu2 !== undefined ? ((cpu2 - cpu1) * 1e6) / pages : undefined;
  // The server's peak resident memory (Linux), read before it stops.
  const serverPeakMb = peakRssMb(server.pid);
  if (received !== N) throw new Error(`downloaded ${received} cases, uploaded ${N}`);
  // The same bodies stored at the floor (bench/sync-floor.ts), after the server's runs so the
  // two never share the machine.
  const floorSeconds = await syncFloorSeconds(bodies, dcf, DICT, dir);
  const result = {
    dictionary: DICT,
    bytes_per_case: Math.round(rawBytes / N),
    cases: N,
    chunk: CHUNK,
    upload_seconds: upSeconds,
    upload_cases_per_s: N / upSeconds,
    upload_server_cpu_us_per_case: upCpuUsPerCase,
    floor_cases_per_s: N / floorSeconds,
    floor_ratio: floorSeconds / upSeconds,
    download_pages: pages,
    download_seconds: downSeconds,
    download_pages_per_s: pages / downSeconds,
    download_cases_per_s: N / downSeconds,
    download_server_cpu_us_per_page: downCpuUsPerPage,
    server_peak_rss_mb: serverPeakMb,
  };
  console.log(
    `sync    upload   ${N} ${DICT} cases (${result.bytes_per_case} bytes each) in chunks of ${CHUNK}: ${upSeconds.toFixed(2)} s = ${Math.round(result.upload_cases_per_s)} cases/s (CSWeb ≈ 4000; goal ≥ 40000)`,
  );
  if (upCpuUsPerCase !== undefined) console.log(`sync    upload   server CPU ${upCpuUsPerCase.toFixed(1)} µs per case`);
  console.log(
    `sync    upload   floor (inflate, parse, insert; no HTTP, checks or merge): ${Math.round(result.floor_cases_per_s)} cases/s, ratio floor/upload time ${result.floor_ratio.toFixed(2)}`,
  );
  console.log(
    `sync    download ${pages} pages of ${PAGE}: ${downSeconds.toFixed(2)} s = ${Math.round(result.download_pages_per_s)} pages/s, ${Math.round(result.download_cases_per_s)} cases/s`,
  );
  if (downCpuUsPerPage !== undefined) console.log(`sync    download server CPU ${Math.round(downCpuUsPerPage)} µs per page`);
  if (serverPeakMb !== undefined) console.log(`sync    server peak RSS ${serverPeakMb.toFixed(0)} MB`);
  console.log(JSON.stringify(result));
} finally {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
}
