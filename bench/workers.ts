// `sds serve --workers 1` against `--workers 2` under the mixed sync load, alternated in one run,
// on the SQLite store and on the PostgreSQL store (local socket) (issue 29, items 1 and 6):
// `npm run bench -- workers`. Each run: a fresh home (and database), the real `sds serve`
// (compiled build), TABLETS tablets uploading REQUESTS requests of PER_REQUEST cases each (each
// waiting for its reply before the next, as the client does) while READERS tablets download the
// dictionary in pages of 100 over and over until the uploads end. The load driver runs on the same
// machine. Prints per run and per store the medians of: uploaded cases/s, upload requests/s, download
// pages/s, upload p99, and the server's CPU ms per request (all its processes, from /proc), then
// the ratio workers 2 / workers 1, then one JSON line. Knobs: BENCH_WORKERS_ROUNDS (3),
// BENCH_WORKERS_TABLETS (30), BENCH_WORKERS_READERS (5), BENCH_WORKERS_REQUESTS (20),
// BENCH_WORKERS_PER_REQUEST (50), BENCH_WORKERS_STORES (sqlite,postgresql),
// BENCH_WORKERS_PG_SOCKET (/var/run/postgresql).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { mixedLoad, postgresCpuSeconds, tabletBodies } from './mixed-load.js';
import { serverCpuSeconds, tabletToken, uploadAll } from './sync-load.js';
import { startServe } from '../test/helpers/serve-process.js';

const knob = (name: string, def: number) => Number(process.env[name] ?? def);
const ROUNDS = knob('BENCH_WORKERS_ROUNDS', 3);
const TABLETS = knob('BENCH_WORKERS_TABLETS', 30);
const READERS = knob('BENCH_WORKERS_READERS', 5);
const REQUESTS = knob('BENCH_WORKERS_REQUESTS', 20);
const PER_REQUEST = knob('BENCH_WORKERS_PER_REQUEST', 50);
const SOCKET = process.env.BENCH_WORKERS_PG_SOCKET ?? '/var/run/postgresql';
const STORES = (process.env.BENCH_WORKERS_STORES ?? 'sqlite,postgresql').split(',') as Kind[];
const PAGE = 100;
const DICT = 'SIMPLECAPI_DICT';
const PASSWORD = 'bench-password-0123456789';
const SEED_CASES = 5000;

type Kind = 'sqlite' | 'postgresql';
const sds = new URL('../bin/sds', import.meta.url).pathname;
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;
const pgUrl = (database: string) => `postgresql://postgres@localhost/${database}?host=${encodeURIComponent(SOCKET)}`;

interface Figures {
  cases_s: number;
  requests_s: number;
  pages_s: number;
  p99_ms: number;
  cpu_ms_per_request: number;
  /** PostgreSQL's own processes, per request (0 on SQLite, whose work is the server's). */
  pg_cpu_ms_per_request: number;
  cpu_percent: number;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl('postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// The same bodies in every run: each run is a fresh store.
const seed = tabletBodies(TABLETS, 0, 1, Math.ceil(SEED_CASES / TABLETS));
const load = tabletBodies(TABLETS, 50_000, REQUESTS, PER_REQUEST);

async function runOnce(kind: Kind, workers: number, tag: string, dir: string): Promise<Figures> {
  const home = join(dir, tag);
  const db = `sds_bench_workers_${process.pid}_${tag.replace(/-/g, '_')}`;
  let url: string | undefined;
  if (kind === 'postgresql') {
    await admin(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    await admin(`CREATE DATABASE "${db}"`);
    url = pgUrl(db);
  }
  const env = { ...process.env, SDS_STORE_URL: url ?? '', NO_COLOR: '1' };
  const cli = (args: string[], input?: string) =>
    execFileSync(process.execPath, [sds, '--home', home, '--quiet', ...args], { encoding: 'utf8', input, env });
  cli(['init']);
  cli(['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simplecapi']);
  cli(['users', 'add', 'tablet', '--role', 'Standard', '--password-stdin'], `${PASSWORD}\n`);
  const server = await startServe(home, { SDS_STORE_URL: url ?? '' }, 0, ['--workers', String(workers)]);
  try {
    const token = await tabletToken(server.url, 'tablet', PASSWORD);
    await uploadAll(server.url, DICT, token, seed);
    // Every process of the server: the primary and the workers it named in its log.
    const pids = () => [server.child.pid!, ...[...server.stderr().matchAll(/\(node [^:]+:(\d+):/g)].map((m) => Number(m[1]))];
    const cpu = () => pids().reduce((s, p) => s + (serverCpuSeconds(p) ?? 0), 0);
    const cpu0 = cpu();
    const pg0 = postgresCpuSeconds();
    const run = await mixedLoad(server.url, token, load, PER_REQUEST, READERS);
    const cpuSeconds = cpu() - cpu0;
    const pgSeconds = kind === 'postgresql' ? postgresCpuSeconds() - pg0 : 0;
    const requests = run.uploads + run.pages;
    return {
      cases_s: run.cases / run.uploadSeconds,
      requests_s: run.uploads / run.uploadSeconds,
      pages_s: run.pages / run.seconds,
      p99_ms: run.p99Ms,
      cpu_ms_per_request: (cpuSeconds * 1000) / requests,
      pg_cpu_ms_per_request: (pgSeconds * 1000) / requests,
      cpu_percent: (cpuSeconds / run.seconds) * 100,
    };
  } catch (err) {
    console.error(server.errors());
    throw err;
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
    if (url) await admin(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fmt = (x: number) => (x >= 100 ? String(Math.round(x)) : x.toFixed(2));

const dir = mkdtempSync(join(tmpdir(), 'sds-bench-workers-'));
const runs: Record<string, Figures[]> = {};
const loads: number[] = [];
try {
  console.log(
    `workers: ${ROUNDS} rounds; ${TABLETS} tablets × ${REQUESTS} uploads of ${PER_REQUEST} cases, ${READERS} tablets downloading pages of ${PAGE} meanwhile; load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of STORES) {
      // Alternated: 1, 2 then 2, 1 so that neither always runs first.
      for (const workers of round % 2 === 0 ? [1, 2] : [2, 1]) {
        const la = loadavg()[0]!;
        loads.push(la);
        const f = await runOnce(kind, workers, `${kind}-${workers}-${round}`, dir);
        (runs[`${kind} ${workers}`] ??= []).push(f);
        console.log(
          `round ${round + 1} ${kind.padEnd(10)} --workers ${workers} load ${la.toFixed(1).padStart(4)}: ${fmt(f.cases_s)} cases/s, ${fmt(f.requests_s)} uploads/s, ` +
            `${fmt(f.pages_s)} pages/s, p99 ${fmt(f.p99_ms)} ms, ${fmt(f.cpu_ms_per_request)} CPU ms/request (+ ${fmt(f.pg_cpu_ms_per_request)} PostgreSQL), ${fmt(f.cpu_percent)} % CPU`,
        );
      }
    }
  }
  const medians: Record<string, Record<keyof Figures, number>> = {};
  console.log(
    `\n${'store / workers'.padEnd(22)} ${'cases/s'.padStart(8)} ${'uploads/s'.padStart(10)} ${'pages/s'.padStart(8)} ${'p99 ms'.padStart(7)} ${'CPU ms/req'.padStart(11)} ${'PG ms/req'.padStart(10)} ${'CPU %'.padStart(6)}`,
  );
  for (const [key, fs] of Object.entries(runs)) {
    const m = Object.fromEntries((Object.keys(fs[0]!) as (keyof Figures)[]).map((k) => [k, median(fs.map((f) => f[k]))])) as Record<
      keyof Figures,
      number
    >;
    medians[key] = m;
    console.log(
      `${key.padEnd(22)} ${fmt(m.cases_s).padStart(8)} ${fmt(m.requests_s).padStart(10)} ${fmt(m.pages_s).padStart(8)} ${fmt(m.p99_ms).padStart(7)} ${fmt(m.cpu_ms_per_request).padStart(11)} ${fmt(m.pg_cpu_ms_per_request).padStart(10)} ${fmt(m.cpu_percent).padStart(6)}`,
    );
  }
  for (const kind of STORES) {
    const one = medians[`${kind} 1`]!;
    const two = medians[`${kind} 2`]!;
    const r = two.requests_s / one.requests_s;
    console.log(
      `${kind}: --workers 2 / --workers 1 uploads ${r.toFixed(2)}× (goal ≥ 1.5: ${r >= 1.5 ? 'met' : 'NOT met'}), pages ${(two.pages_s / one.pages_s).toFixed(2)}×`,
    );
  }
  console.log(`load average over the runs: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (the machine is shared)`);
  console.log(
    JSON.stringify({
      rounds: ROUNDS,
      tablets: TABLETS,
      readers: READERS,
      requests: REQUESTS,
      per_request: PER_REQUEST,
      loads,
      runs,
      medians,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
