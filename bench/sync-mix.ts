// `npm run bench:sync-mix` (issue 31, item 5; bench/README.md "Sync mix"): the sync load of a census
// evening on one `sds serve`, measured in one run. Per round and build, in a fresh home: TABLETS
// tablets upload REQUESTS requests of PER_REQUEST cases alone (each waiting for its reply, as the
// client does); then the same number of new requests while READERS new tablets download the
// dictionary from scratch in pages of 100, over and over; then TABLETS tablets send SMALL_REQUESTS
// requests of 5 cases. Prints per run: uploaded cases/s alone and beside the downloads (and their
// ratio: the goal is ≥ 0.8), download pages/s, p50/p99, small requests/s; then medians per build and
// one JSON line. The load driver runs on the same machine.
//
// SYNC_MIX_BUILDS=/path/a,/path/b alternates builds (checkouts, each built: `npm run build`) round by
// round, for before/after figures; default this checkout. Other knobs: SYNC_MIX_ROUNDS (3),
// SYNC_MIX_TABLETS (60), SYNC_MIX_READERS (10), SYNC_MIX_REQUESTS (10), SYNC_MIX_PER_REQUEST (100),
// SYNC_MIX_SMALL_REQUESTS (20), SYNC_MIX_STORE_URL (a PostgreSQL server, e.g.
// postgresql://postgres@localhost/postgres?host=/var/run/postgresql: each run gets a database of
// its own on it, made before the run and dropped after; default the SQLite store).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { mixedLoad, tabletBodies, type MixedRun } from './mixed-load.js';
import { tabletToken } from './sync-load.js';
import { startServe } from '../test/helpers/serve-process.js';

const knob = (name: string, def: number) => Number(process.env[name] ?? def);
const ROUNDS = knob('SYNC_MIX_ROUNDS', 3);
const TABLETS = knob('SYNC_MIX_TABLETS', 60);
const READERS = knob('SYNC_MIX_READERS', 10);
const REQUESTS = knob('SYNC_MIX_REQUESTS', 10);
const PER_REQUEST = knob('SYNC_MIX_PER_REQUEST', 100);
const SMALL_REQUESTS = knob('SYNC_MIX_SMALL_REQUESTS', 20);
const STORE_URL = process.env.SYNC_MIX_STORE_URL ?? '';
const BUILDS = (process.env.SYNC_MIX_BUILDS ?? new URL('..', import.meta.url).pathname).split(',').map((b) => resolve(b));
const PASSWORD = 'bench-password-0123456789';
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;

interface Figures {
  alone_cases_s: number;
  mixed_cases_s: number;
  ratio: number;
  pages_s: number;
  alone_p99_ms: number;
  mixed_p99_ms: number;
  small_requests_s: number;
  small_p99_ms: number;
}

// The same bodies for every build: the alone phase, the mixed phase and the small requests each
// have case ids of their own, so every phase inserts new cases.
const alone = tabletBodies(TABLETS, 0, REQUESTS, PER_REQUEST);
const mixed = tabletBodies(TABLETS, 20_000, REQUESTS, PER_REQUEST);
const small = tabletBodies(TABLETS, 40_000, SMALL_REQUESTS, 5);
// One request per tablet first, not measured: the server's code warmed up, the tablets known.
const warm = tabletBodies(TABLETS, 60_000, 1, PER_REQUEST);

const rate = (r: MixedRun) => r.cases / r.uploadSeconds;

/** Runs `sql` on the PostgreSQL server of SYNC_MIX_STORE_URL, in the database the URL names. */
async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: STORE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The URL of a fresh database `name` on the server of SYNC_MIX_STORE_URL ('' on SQLite). */
async function freshStore(name: string): Promise<string> {
  if (!STORE_URL) return '';
  await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await onServer(`CREATE DATABASE "${name}"`);
  const url = new URL(STORE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function runOnce(build: string, tag: string, dir: string): Promise<Figures> {
  const home = join(dir, tag);
  const bin = join(build, 'bin', 'sds');
  const db = `sds_bench_sync_mix_${process.pid}_${tag.replace(/\W/g, '_')}`;
  const storeUrl = await freshStore(db);
  const env = { ...process.env, SDS_STORE_URL: storeUrl, NO_COLOR: '1' };
  const cli = (args: string[], input?: string) =>
    execFileSync(process.execPath, [bin, '--home', home, '--quiet', ...args], { encoding: 'utf8', input, env });
  cli(['init']);
  cli(['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simplecapi']);
  cli(['users', 'add', 'tablet', '--role', 'Standard User', '--password-stdin'], `${PASSWORD}\n`);
  const server = await startServe(home, { SDS_STORE_URL: storeUrl }, 0, [], bin);
  try {
    const token = await tabletToken(server.url, 'tablet', PASSWORD);
    await mixedLoad(server.url, token, warm, PER_REQUEST, 0);
    const a = await mixedLoad(server.url, token, alone, PER_REQUEST, 0);
    const m = await mixedLoad(server.url, token, mixed, PER_REQUEST, READERS);
    const s = await mixedLoad(server.url, token, small, 5, 0);
    return {
      alone_cases_s: rate(a),
      mixed_cases_s: rate(m),
      ratio: rate(m) / rate(a),
      pages_s: m.pages / m.seconds,
      alone_p99_ms: a.p99Ms,
      mixed_p99_ms: m.p99Ms,
      small_requests_s: s.uploads / s.uploadSeconds,
      small_p99_ms: s.p99Ms,
    };
  } catch (err) {
    console.error(server.errors());
    throw err;
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
    if (storeUrl) await onServer(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  const h = s.length >> 1;
  return s.length % 2 === 1 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
};
const fmt = (x: number) => (x >= 100 ? String(Math.round(x)) : x.toFixed(2));

const dir = mkdtempSync(join(tmpdir(), 'sds-bench-sync-mix-'));
const runs = new Map<string, Figures[]>(BUILDS.map((b) => [b, []]));
try {
  console.log(
    `sync-mix: ${ROUNDS} rounds on the ${STORE_URL ? 'PostgreSQL' : 'SQLite'} store; ${TABLETS} tablets × ${REQUESTS} uploads of ${PER_REQUEST} cases, ` +
      `alone then beside ${READERS} tablets downloading pages of 100; then ${TABLETS} × ${SMALL_REQUESTS} uploads of 5; load average at start ` +
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
  );
  for (let round = 0; round < ROUNDS; round++) {
    // Alternated: the builds in turn, starting with a different one each round.
    const order = BUILDS.map((_, i) => BUILDS[(i + round) % BUILDS.length]!);
    for (const build of order) {
      const la = loadavg()[0]!;
      const f = await runOnce(build, `r${round}-${BUILDS.indexOf(build)}`, dir);
      runs.get(build)!.push(f);
      console.log(
        `round ${round + 1} ${build} load ${la.toFixed(1)}: alone ${fmt(f.alone_cases_s)} cases/s (p99 ${fmt(f.alone_p99_ms)} ms), ` +
          `with downloads ${fmt(f.mixed_cases_s)} cases/s (p99 ${fmt(f.mixed_p99_ms)} ms, ratio ${f.ratio.toFixed(2)}) and ${fmt(f.pages_s)} pages/s; ` +
          `5 per request: ${fmt(f.small_requests_s)} requests/s (p99 ${fmt(f.small_p99_ms)} ms)`,
      );
    }
  }
  const summary: Record<string, Record<string, number>> = {};
  for (const [build, fs] of runs) {
    const keys = Object.keys(fs[0]!) as (keyof Figures)[];
    summary[build] = Object.fromEntries(keys.map((k) => [k, median(fs.map((f) => f[k]))]));
    const s = summary[build]!;
    console.log(
      `median ${build}: alone ${fmt(s.alone_cases_s!)} cases/s, with downloads ${fmt(s.mixed_cases_s!)} (ratio ${s.ratio!.toFixed(2)}, goal ≥ 0.8), ` +
        `${fmt(s.pages_s!)} pages/s, 5 per request ${fmt(s.small_requests_s!)} requests/s`,
    );
  }
  console.log(JSON.stringify({ bench: 'sync-mix', store: STORE_URL ? 'postgresql' : 'sqlite', summary }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
