// The SQLite store and the PostgreSQL store side by side, alternated in one run (issue 28, item
// 6): `npm run bench -- store-compare`. Each round runs both stores, each in a fresh home (and, for
// PostgreSQL, a fresh database reached over the local socket), the order swapped from one round
// to the next (SQLite, PostgreSQL, PostgreSQL, SQLite, …) so that neither always runs first.
// In each run, against the real `sds serve` (compiled build):
//   - sync upload: TABLETS tablets at once, each sending its requests one after the other, first
//     at 500 cases per request, then at 5 (SIMPLECAPI_DICT cases, bench/make-simplecapi-cases.ts);
//   - sync download: one tablet downloads every case back in pages of 100;
// then, in another fresh home of the same store: `.dat` import of IMPORT_CASES Popstan cases
// (bench/import-dat.ts) and one breakout of them into a fresh SQLite target file
// (bench/breakout-target.ts), each in its own process.
// Prints each run, then per measure the median of each store and the ratio PostgreSQL/SQLite,
// then one JSON line. Knobs: BENCH_COMPARE_ROUNDS (3), BENCH_COMPARE_TABLETS (60),
// BENCH_COMPARE_BIG_REQUESTS and BENCH_COMPARE_SMALL_REQUESTS (requests per tablet: 2 of 500
// cases, 10 of 5), BENCH_COMPARE_IMPORT_CASES (20000), BENCH_COMPARE_PG_SOCKET
// (/var/run/postgresql), BENCH_COMPARE_ONLY (sqlite or postgresql: one store only, for profiling).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import pg from 'pg';
import { makePopstanDat } from './make-popstan-dat.js';
import { simplecapiCase } from './make-simplecapi-cases.js';
import { downloadAll, peakRssMb, percentile, tabletToken, uploadAll, type TabletUploads } from './sync-load.js';
import { startServe } from '../test/helpers/serve-process.js';

const knob = (name: string, def: number) => Number(process.env[name] ?? def);
const ROUNDS = knob('BENCH_COMPARE_ROUNDS', 3);
const TABLETS = knob('BENCH_COMPARE_TABLETS', 60);
const BIG_REQUESTS = knob('BENCH_COMPARE_BIG_REQUESTS', 2);
const SMALL_REQUESTS = knob('BENCH_COMPARE_SMALL_REQUESTS', 10);
const IMPORT_CASES = knob('BENCH_COMPARE_IMPORT_CASES', 20_000);
const SOCKET = process.env.BENCH_COMPARE_PG_SOCKET ?? '/var/run/postgresql';
const PAGE = 100;
const THREADS = '2';
const DICT = 'SIMPLECAPI_DICT';
const PASSWORD = 'bench-password-0123456789';

type Kind = 'sqlite' | 'postgresql';
const KINDS: Kind[] = process.env.BENCH_COMPARE_ONLY ? [process.env.BENCH_COMPARE_ONLY as Kind] : ['sqlite', 'postgresql'];
if (KINDS.some((k) => k !== 'sqlite' && k !== 'postgresql')) throw new Error('BENCH_COMPARE_ONLY must be sqlite or postgresql');

const sds = new URL('../bin/sds', import.meta.url).pathname;
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;
const pgUrl = (database: string) => `postgresql://postgres@localhost/${database}?host=${encodeURIComponent(SOCKET)}`;

/** One run's figures. */
interface Figures {
  up500_cases_s: number;
  up500_requests_s: number;
  up500_p50_ms: number;
  up500_p99_ms: number;
  up5_cases_s: number;
  up5_requests_s: number;
  up5_p50_ms: number;
  up5_p99_ms: number;
  download_pages_s: number;
  import_cases_s: number;
  breakout_cases_s: number;
  server_peak_rss_mb: number;
}

const MEASURES: [keyof Figures, string, 'higher' | 'lower', string][] = [
  ['up500_cases_s', 'upload 500/request, cases/s', 'higher', '≥ 0.7'],
  ['up500_requests_s', 'upload 500/request, requests/s', 'higher', '≥ 0.7'],
  ['up500_p50_ms', 'upload 500/request, p50 ms', 'lower', ''],
  ['up500_p99_ms', 'upload 500/request, p99 ms', 'lower', ''],
  ['up5_cases_s', 'upload 5/request, cases/s', 'higher', '≥ 0.7'],
  ['up5_requests_s', 'upload 5/request, requests/s', 'higher', '≥ 0.7'],
  ['up5_p50_ms', 'upload 5/request, p50 ms', 'lower', ''],
  ['up5_p99_ms', 'upload 5/request, p99 ms', 'lower', ''],
  ['download_pages_s', `download pages of ${PAGE}, pages/s`, 'higher', '≥ 0.7'],
  ['import_cases_s', '.dat import, cases/s', 'higher', ''],
  ['breakout_cases_s', 'breakout (SQLite target), cases/s', 'higher', ''],
  ['server_peak_rss_mb', 'sds serve peak RSS, MB', 'lower', ''],
];

const dir = mkdtempSync(join(tmpdir(), 'sds-bench-compare-'));
const databases = new Set<string>();

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl('postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new database for a PostgreSQL home; its URL over the local socket. */
async function freshDatabase(name: string): Promise<string> {
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${name}"`);
  databases.add(name);
  return pgUrl(name);
}

async function dropDatabase(name: string): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  databases.delete(name);
}

/** synchronous_commit, fsync and autovacuum as a connection to the store's database sees them. */
async function durabilitySettings(url: string): Promise<{ synchronous_commit: string; fsync: string; autovacuum: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const sc = (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;
    const fsync = (await client.query<{ fsync: string }>('SHOW fsync')).rows[0]!.fsync;
    // Not a durability setting, but it decides whether the planner has statistics of a new store.
    const autovacuum = (await client.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!.autovacuum;
    return { synchronous_commit: sc, fsync, autovacuum };
  } finally {
    await client.end();
  }
}

/** The environment that points a home at its store: the PostgreSQL URL, or the home's SQLite file. */
const storeEnv = (url: string | undefined): NodeJS.ProcessEnv => ({ ...process.env, SDS_STORE_URL: url ?? '', NO_COLOR: '1' });

/** The request bodies of every tablet, made once (the same cases for both stores, compressed beforehand). */
function tabletBodies(perRequest: number, requests: number, base: number): TabletUploads[] {
  return Array.from({ length: TABLETS }, (_, t) => {
    const device = `bench-tablet-${t}`;
    const bodies = Array.from({ length: requests }, (_, q) => {
      const first = base + t * 100_000 + q * perRequest;
      return deflateSync(JSON.stringify(Array.from({ length: perRequest }, (_, j) => simplecapiCase(first + j, device))));
    });
    return { device, bodies };
  });
}

const big = tabletBodies(500, BIG_REQUESTS, 0);
const small = tabletBodies(5, SMALL_REQUESTS, 50_000);
const bigCases = TABLETS * BIG_REQUESTS * 500;
const smallCases = TABLETS * SMALL_REQUESTS * 5;

const dat = join(dir, 'popstan.dat');
await makePopstanDat(fixture('popstan-census.dat'), dat, IMPORT_CASES);

const jsonLast = (out: string) => JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
const runScript = (script: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
  jsonLast(
    execFileSync(process.execPath, ['--import', 'tsx', new URL(script, import.meta.url).pathname, ...args], {
      encoding: 'utf8',
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );

/** One run of every measure on a fresh home of `kind`. */
async function runOnce(kind: Kind, round: number): Promise<Figures> {
  const tag = `sds_bench_compare_${process.pid}_${round}`;
  // ---- sync: uploads then a download, against `sds serve`
  const syncHome = join(dir, `${kind}-${round}-sync`);
  const syncUrl = kind === 'postgresql' ? await freshDatabase(`${tag}_sync`) : undefined;
  if (syncUrl) {
    const d = await durabilitySettings(syncUrl);
    if (d.synchronous_commit !== 'on' || d.fsync !== 'on') {
      throw new Error(`PostgreSQL runs with synchronous_commit=${d.synchronous_commit}, fsync=${d.fsync}: the comparison needs both on`);
    }
  }
  const env = storeEnv(syncUrl);
  const cli = (args: string[], input?: string) =>
    execFileSync(process.execPath, [sds, '--home', syncHome, '--quiet', ...args], { encoding: 'utf8', input, env });
  cli(['init']);
  cli(['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simplecapi']);
  cli(['users', 'add', 'tablet', '--role', 'Standard', '--password-stdin'], `${PASSWORD}\n`);
  const server = await startServe(syncHome, { SDS_STORE_URL: syncUrl ?? '' });
  let up500: Awaited<ReturnType<typeof uploadAll>>;
  let up5: Awaited<ReturnType<typeof uploadAll>>;
  let down: Awaited<ReturnType<typeof downloadAll>>;
  let rss: number | undefined;
  try {
    const token = await tabletToken(server.url, 'tablet', PASSWORD);
    up500 = await uploadAll(server.url, DICT, token, big);
    up5 = await uploadAll(server.url, DICT, token, small);
    down = await downloadAll(server.url, DICT, token, 'bench-reader', PAGE);
    rss = peakRssMb(server.child.pid);
  } catch (err) {
    console.error(server.errors());
    throw err;
  } finally {
    await server.stop();
  }
  if (down.cases !== bigCases + smallCases) throw new Error(`${kind}: downloaded ${down.cases} cases, uploaded ${bigCases + smallCases}`);
  rmSync(syncHome, { recursive: true, force: true });
  if (syncUrl) await dropDatabase(`${tag}_sync`);

  // ---- import and breakout, each in its own process, in another fresh home
  const importHome = join(dir, `${kind}-${round}-import`);
  const importUrl = kind === 'postgresql' ? await freshDatabase(`${tag}_import`) : undefined;
  const imp = runScript('./import-dat.ts', storeEnv(importUrl), importHome, dat, fixture('popstan-census.json.dcf'));
  if (imp.cases !== IMPORT_CASES) throw new Error(`${kind}: imported ${imp.cases} cases of ${IMPORT_CASES}`);
  const target = join(dir, `${kind}-${round}-target.sqlite`);
  const brk = runScript('./breakout-target.ts', storeEnv(importUrl), importHome, 'sqlite', target, THREADS);
  rmSync(importHome, { recursive: true, force: true });
  rmSync(target, { force: true });
  if (importUrl) await dropDatabase(`${tag}_import`);

  const requests = (n: number) => TABLETS * n;
  return {
    up500_cases_s: bigCases / up500.seconds,
    up500_requests_s: requests(BIG_REQUESTS) / up500.seconds,
    up500_p50_ms: percentile(up500.latenciesMs, 50),
    up500_p99_ms: percentile(up500.latenciesMs, 99),
    up5_cases_s: smallCases / up5.seconds,
    up5_requests_s: requests(SMALL_REQUESTS) / up5.seconds,
    up5_p50_ms: percentile(up5.latenciesMs, 50),
    up5_p99_ms: percentile(up5.latenciesMs, 99),
    download_pages_s: down.pages / down.seconds,
    import_cases_s: imp.cases! / imp.seconds!,
    breakout_cases_s: brk.cases! / brk.seconds!,
    server_peak_rss_mb: rss ?? Number.NaN,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
const fmt = (x: number) => (Number.isNaN(x) ? '—' : x >= 100 ? String(Math.round(x)) : x.toFixed(1));

const results: Record<Kind, Figures[]> = { sqlite: [], postgresql: [] };
const loads: number[] = [];
try {
  const settings = KINDS.includes('postgresql') ? await durabilitySettings(pgUrl('postgres')) : undefined;
  const version = KINDS.includes('postgresql')
    ? execFileSync('psql', ['-h', SOCKET, '-U', 'postgres', '-Atc', 'SHOW server_version'], { encoding: 'utf8' }).trim()
    : '';
  console.log(
    `store-compare: ${ROUNDS} rounds; ${TABLETS} tablets × ${BIG_REQUESTS} requests of 500 cases (${bigCases}), × ${SMALL_REQUESTS} of 5 (${smallCases}); download in pages of ${PAGE}; import and breakout of ${IMPORT_CASES} Popstan cases`,
  );
  if (settings)
    console.log(
      `PostgreSQL ${version} over ${SOCKET}: synchronous_commit=${settings.synchronous_commit}, fsync=${settings.fsync}, autovacuum=${settings.autovacuum}`,
    );
  console.log(
    `load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? KINDS : [...KINDS].reverse();
    for (const kind of order) {
      const load = loadavg()[0]!;
      loads.push(load);
      const t0 = performance.now();
      const f = await runOnce(kind, round);
      results[kind].push(f);
      console.log(
        `round ${round + 1} ${kind.padEnd(10)} load ${load.toFixed(1).padStart(4)}: up500 ${fmt(f.up500_cases_s)} c/s ${fmt(f.up500_requests_s)} r/s p50 ${fmt(f.up500_p50_ms)} p99 ${fmt(f.up500_p99_ms)} ms; ` +
          `up5 ${fmt(f.up5_cases_s)} c/s ${fmt(f.up5_requests_s)} r/s p50 ${fmt(f.up5_p50_ms)} p99 ${fmt(f.up5_p99_ms)} ms; down ${fmt(f.download_pages_s)} p/s; ` +
          `import ${fmt(f.import_cases_s)} c/s; breakout ${fmt(f.breakout_cases_s)} c/s (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      );
    }
  }
  const summary: Record<string, { sqlite: number; postgresql: number; ratio: number }> = {};
  console.log(`\n${'measure'.padEnd(40)} ${'SQLite'.padStart(9)} ${'PostgreSQL'.padStart(11)} ${'PG/SQLite'.padStart(10)}  goal`);
  for (const [key, label, better, goal] of MEASURES) {
    const s = median(results.sqlite.map((f) => f[key]));
    const p = median(results.postgresql.map((f) => f[key]));
    // For latencies and memory, the ratio is inverted so that above 1 always means PostgreSQL is better.
    const ratio = better === 'higher' ? p / s : s / p;
    summary[key] = { sqlite: s, postgresql: p, ratio };
    const verdict = goal === '' || Number.isNaN(ratio) ? '' : ratio >= 0.7 ? `${goal} met` : `${goal} NOT met`;
    console.log(
      `${label.padEnd(40)} ${fmt(s).padStart(9)} ${fmt(p).padStart(11)} ${(Number.isNaN(ratio) ? '—' : ratio.toFixed(2)).padStart(10)}${better === 'lower' ? '*' : ' '} ${verdict}`,
    );
  }
  console.log('* latency and memory: SQLite/PostgreSQL, so that above 1 means PostgreSQL does better');
  console.log(`load average over the runs: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
  console.log(JSON.stringify({ rounds: ROUNDS, tablets: TABLETS, loads, runs: results, medians: summary }));
} finally {
  for (const name of [...databases]) await dropDatabase(name).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
