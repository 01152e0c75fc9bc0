// Soak: a long run against the real `sds serve` (a child process over a temp home) of everything
// at once: seeded fuzz requests over every route, N tablets uploading cases through the sync
// protocol, M tablets downloading them, and `kill -9` of the server at random moments followed
// by a restart over the same home. At the end: every case whose upload was acknowledged (200) must
// be in the store, PRAGMA integrity_check must say ok, and the fuzz must have found nothing.
// Knobs (flag or environment): see `usage` below and bench/README.md ("Soak").
// Runs the compiled build (bin/sds): `npm run build` first (`npm run soak` does).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deflateSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { simplecapiCase } from './make-simplecapi-cases.js';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { FUZZ_ENV, integrityCheck, seedFuzzHome, tokenOf } from '../test/helpers/fuzz-home.js';
import { Rng, generateRequest, operationsOf, type FuzzRequest, type FuzzWorld } from '../test/helpers/fuzz-requests.js';
import { send } from '../test/helpers/fuzz-wire.js';
import { formatFailures, judge, logged5xx, recordOf, type FuzzFailure } from '../test/helpers/fuzz-judge.js';
import type { OpenApiDoc } from '../test/helpers/openapi-validate.js';

const usage = `npm run soak -- [--seconds N] [--tablets N] [--downloaders N] [--chunk N] [--kill-every S] [--fuzzers N] [--seed N] [--keep]
  --seconds      how long to run (SOAK_SECONDS, default 300)
  --tablets      tablets uploading at once (SOAK_TABLETS, default 8)
  --downloaders  tablets downloading at once (SOAK_DOWNLOADERS, default 2)
  --chunk        cases per upload (SOAK_CHUNK, default 200)
  --kill-every   mean seconds between two kill -9 of the server, 0 for none (SOAK_KILL_EVERY, default 30)
  --fuzzers      fuzz request loops at once (SOAK_FUZZERS, default 4)
  --seed         seed of the fuzz requests and the kill times (SOAK_SEED, default 16016)
  --keep         keep the temp home at the end (its path is printed)`;

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string' },
    tablets: { type: 'string' },
    downloaders: { type: 'string' },
    chunk: { type: 'string' },
    'kill-every': { type: 'string' },
    fuzzers: { type: 'string' },
    seed: { type: 'string' },
    keep: { type: 'boolean' },
    help: { type: 'boolean' },
  },
});
if (flags.help) {
  console.log(usage);
  process.exit(0);
}

function knob(flag: string | undefined, env: string, def: number, min: number): number {
  const raw = flag ?? process.env[env];
  const n = raw === undefined ? def : Number(raw);
  if (!Number.isFinite(n) || n < min) {
    console.error(`soak: ${env.toLowerCase().replace('soak_', '--').replace('_', '-')} must be a number ≥ ${min}, not ${raw}\n${usage}`);
    process.exit(2);
  }
  return n;
}

const SECONDS = knob(flags.seconds, 'SOAK_SECONDS', 300, 1);
const TABLETS = Math.floor(knob(flags.tablets, 'SOAK_TABLETS', 8, 0));
const DOWNLOADERS = Math.floor(knob(flags.downloaders, 'SOAK_DOWNLOADERS', 2, 0));
const CHUNK = Math.floor(knob(flags.chunk, 'SOAK_CHUNK', 200, 1));
const KILL_EVERY = knob(flags['kill-every'], 'SOAK_KILL_EVERY', 30, 0);
const FUZZERS = Math.floor(knob(flags.fuzzers, 'SOAK_FUZZERS', 4, 0));
const SEED = Math.floor(knob(flags.seed, 'SOAK_SEED', 16_016, 0));
const DICT = 'SIMPLECAPI_DICT';

if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) throw new Error('dist/ is missing: run `npm run build` first');

const dir = mkdtempSync(join(tmpdir(), 'sds-soak-'));
let server: ServeProcess | undefined;
process.on('exit', () => {
  if (server && !server.exit()) server.child.kill('SIGKILL');
  if (!flags.keep) rmSync(dir, { recursive: true, force: true });
});

/** A free loopback port, kept across restarts so clients find the server again. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

// ---- the server and its supervisor: restarts after our kill -9, and after any other death (a crash)
let generation = 0;
let killing = false;
let stopping = false;
const crashes: string[] = [];
const kills: number[] = [];
const restartMs: number[] = [];
let base = '';

const servers: ServeProcess[] = [];

async function launch(port: number): Promise<void> {
  server = await startServe(dir, FUZZ_ENV, port);
  servers.push(server);
  base = server.url;
  generation += 1;
  const mine = server;
  void mine.ended.then(async () => {
    if (stopping) return;
    if (!killing) {
      crashes.push(`exit ${JSON.stringify(mine.exit())}; stderr:\n${mine.errors(20)}`);
      // Uploads and downloads are well-formed: the fuzz requests in flight are the suspects.
      // The fuzz requests in flight or just answered are the suspects (the exit event comes a
      // moment after the death); `npm test`'s fuzz test pins a crash on one request.
      for (const r of new Set([...recent, ...inFlight]))
        fuzzFailures.push(recordOf(r, 'crash', `in flight or just answered when the server exited ${JSON.stringify(mine.exit())}`));
      log(`server died by itself (${JSON.stringify(mine.exit())}): restarting`);
      const t0 = performance.now();
      await launch(port);
      restartMs.push(performance.now() - t0);
    }
  });
}

/** Waits until the current server generation answers, or the run is over. */
async function whenUp(deadline: number): Promise<boolean> {
  while (Date.now() < deadline + 30_000) {
    if (server && !server.exit() && !killing) return true;
    await sleep(100);
  }
  return false;
}

// ---- counters
const ackedIds = new Set<string>();
const stats = {
  uploads: 0,
  uploadsAcked: 0,
  uploadErrors: 0,
  uploadStatus: {} as Record<string, number>,
  downloadPasses: 0,
  downloadPages: 0,
  downloadCases: 0,
  downloadErrors: 0,
  downloadStatus: {} as Record<string, number>,
  fuzzRequests: 0,
  fuzzCutByKill: 0,
};
let seen5xx = 0;
const bump = (o: Record<string, number>, k: number | string) => {
  if (Number(k) >= 500) seen5xx += 1;
  o[String(k)] = (o[String(k)] ?? 0) + 1;
};
const fuzzFailures: FuzzFailure[] = [];
const inFlight = new Set<FuzzRequest>();
const recent: FuzzRequest[] = [];

async function tablet(t: number, token: string, deadline: number): Promise<void> {
  const device = `soak-tablet-${t}`;
  let k = 0;
  while (Date.now() < deadline) {
    const cases = Array.from({ length: CHUNK }, (_, j) => simplecapiCase(t * 10_000_000 + k + j, device));
    const body = deflateSync(JSON.stringify(cases));
    // As the client does: a chunk is sent again until it is acknowledged.
    for (;;) {
      if (!(await whenUp(deadline)) || Date.now() >= deadline) return;
      stats.uploads += 1;
      try {
        const r = await fetch(`${base}/api/dictionaries/${DICT}/cases`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'x-csw-device': device,
            'content-type': 'application/json; charset=utf-8',
            'content-encoding': 'gzip',
          },
          body,
        });
        await r.arrayBuffer();
        bump(stats.uploadStatus, r.status);
        if (r.status === 200) {
          stats.uploadsAcked += 1;
          for (const c of cases) ackedIds.add(c.id);
          break;
        }
        await sleep(200);
      } catch {
        stats.uploadErrors += 1;
        await sleep(100);
      }
    }
    k += CHUNK;
  }
}

async function downloader(d: number, token: string, deadline: number): Promise<void> {
  const device = `soak-reader-${d}`;
  while (Date.now() < deadline) {
    if (!(await whenUp(deadline))) return;
    let last: string | undefined;
    let after: string | undefined;
    try {
      for (;;) {
        if (Date.now() >= deadline) return;
        const r = await fetch(`${base}/api/dictionaries/${DICT}/cases`, {
          headers: {
            authorization: `Bearer ${token}`,
            'x-csw-device': device,
            'x-csw-case-range-count': '500',
            ...(last ? { 'x-csw-if-revision-exists': last } : {}),
            ...(after ? { 'x-csw-case-range-start-after': after } : {}),
          },
        });
        bump(stats.downloadStatus, r.status);
        if (r.status !== 200 && r.status !== 206) {
          await r.arrayBuffer();
          break;
        }
        const chunk = (await r.json()) as { id: string }[];
        stats.downloadPages += 1;
        stats.downloadCases += chunk.length;
        last = r.headers.get('x-csw-chunk-max-revision') ?? undefined;
        if (r.status === 200 || chunk.length === 0) break;
        after = chunk.at(-1)!.id;
      }
      stats.downloadPasses += 1;
    } catch {
      stats.downloadErrors += 1;
      await sleep(100);
    }
  }
}

async function fuzzer(f: number, doc: OpenApiDoc, world: FuzzWorld, deadline: number): Promise<void> {
  const rng = new Rng(SEED + 1 + f);
  const ops = operationsOf(doc);
  while (Date.now() < deadline) {
    if (!(await whenUp(deadline))) return;
    const op = rng.pick(ops);
    const req = generateRequest(rng, op, world);
    const gen = generation;
    inFlight.add(req);
    const res = await send(base, req);
    inFlight.delete(req);
    recent.push(req);
    if (recent.length > 5) recent.shift();
    stats.fuzzRequests += 1;
    if ((res.status ?? 0) >= 500) seen5xx += 1;
    // A socket error may be the server dying: its exit event can come a moment after.
    if (res.status === undefined && server) await Promise.race([server.ended, sleep(1000)]);
    // A request cut by our own kill -9 (or by a crash, reported as such) proves nothing more.
    if (gen !== generation || killing || server?.exit()) {
      stats.fuzzCutByKill += 1;
      continue;
    }
    fuzzFailures.push(...judge(doc, req, res));
  }
}

async function killer(rng: Rng, port: number, deadline: number): Promise<void> {
  if (KILL_EVERY <= 0) return;
  for (;;) {
    const wait = KILL_EVERY * 1000 * (0.5 + rng.next());
    if (Date.now() + wait >= deadline - 5000) return;
    await sleep(wait);
    if (!server || server.exit()) continue;
    killing = true;
    await server.kill9();
    kills.push(Date.now());
    const t0 = performance.now();
    await launch(port);
    restartMs.push(performance.now() - t0);
    killing = false;
    log(`kill -9 #${kills.length}; back in ${Math.round(restartMs.at(-1)!)} ms; ${ackedIds.size} cases acknowledged so far`);
  }
}

// ---- the run
const started = Date.now();
log(
  `soak: ${SECONDS} s, ${TABLETS} tablets uploading ${CHUNK} cases per request, ${DOWNLOADERS} downloading, ${FUZZERS} fuzzers, kill -9 every ~${KILL_EVERY} s, seed ${SEED}; home ${dir}`,
);
const seeded = await seedFuzzHome(dir);
const port = await freePort();
await launch(port);
const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as OpenApiDoc;
const tokens = { admin: await tokenOf(base, 'admin'), api: await tokenOf(base, 'api'), standard: await tokenOf(base, 'standard') };
const list = (await (
  await fetch(`${base}/api/dictionaries/${seeded.dictionaries[0]}/cases?limit=20`, { headers: { authorization: `Bearer ${tokens.admin}` } })
).json()) as { data: { guid: string }[] };
// The fuzz keeps off the tablets' dictionary: a fuzzed delete or replace of it would only make the
// acknowledged-cases check meaningless, not find a bug.
const world: FuzzWorld = {
  ...seeded,
  dictionaries: seeded.dictionaries.filter((d) => d !== DICT),
  tokens,
  caseIds: list.data.map((c) => c.guid),
};
const deadline = Date.now() + SECONDS * 1000;
const progress = setInterval(
  () =>
    log(
      `${ackedIds.size} cases acknowledged, ${stats.downloadPages} pages downloaded, ${stats.fuzzRequests} fuzz requests, ${kills.length} kills`,
    ),
  15_000,
);
await Promise.all([
  ...Array.from({ length: TABLETS }, (_, t) => tablet(t, tokens.standard, deadline)),
  ...Array.from({ length: DOWNLOADERS }, (_, d) => downloader(d, tokens.standard, deadline)),
  ...Array.from({ length: FUZZERS }, (_, f) => fuzzer(f, doc, world, deadline)),
  killer(new Rng(SEED), port, deadline),
]);
clearInterval(progress);
stopping = true;
const final = server!;
const exitBefore = final.exit();
await final.stop();

// ---- the checks
const db = new Database(join(dir, 'sds.db'), { readonly: true });
const stored = new Set(
  db.prepare('SELECT guid FROM cases WHERE dictionary_id = (SELECT id FROM dictionaries WHERE name = ?)').pluck().all(DICT) as string[],
);
db.close();
const missing = [...ackedIds].filter((id) => !stored.has(id));
const integrity = await integrityCheck(dir);
// A 5xx that no client saw (its client had gone: an aborted upload) shows only in the request log.
const logged = servers.flatMap((s) => logged5xx(s.stderr()));
const unseen5xx = Math.max(0, logged.length - seen5xx);
const seconds = (Date.now() - started) / 1000;
const summary = {
  seconds: Math.round(seconds),
  seed: SEED,
  tablets: TABLETS,
  downloaders: DOWNLOADERS,
  kills: kills.length,
  unexpected_exits: crashes.length + (exitBefore ? 1 : 0),
  restart_ms_max: restartMs.length ? Math.round(Math.max(...restartMs)) : 0,
  uploads: stats.uploads,
  uploads_acked: stats.uploadsAcked,
  upload_connection_errors: stats.uploadErrors,
  upload_status: stats.uploadStatus,
  cases_acked: ackedIds.size,
  cases_acked_per_s: Math.round(ackedIds.size / SECONDS),
  cases_stored: stored.size,
  cases_missing: missing.length,
  download_passes: stats.downloadPasses,
  download_pages: stats.downloadPages,
  download_cases: stats.downloadCases,
  download_errors: stats.downloadErrors,
  download_status: stats.downloadStatus,
  fuzz_requests: stats.fuzzRequests,
  fuzz_cut_by_kill: stats.fuzzCutByKill,
  fuzz_failures: fuzzFailures.length,
  logged_5xx: logged.length,
  logged_5xx_unseen: unseen5xx,
  integrity_check: integrity,
};
console.log('');
console.log(`soak: ${summary.seconds} s, seed ${SEED}`);
console.log(
  `  server      ${kills.length} kill -9, ${summary.unexpected_exits} unexpected exits, slowest restart ${summary.restart_ms_max} ms`,
);
console.log(
  `  uploads     ${stats.uploadsAcked} of ${stats.uploads} acknowledged (${ackedIds.size} cases, ${summary.cases_acked_per_s}/s), ${stats.uploadErrors} cut by a kill; statuses ${JSON.stringify(stats.uploadStatus)}`,
);
console.log(
  `  stored      ${stored.size} cases in ${DICT}; acknowledged but missing: ${missing.length}${missing.length ? ` (e.g. ${missing.slice(0, 3).join(', ')})` : ''}`,
);
console.log(
  `  downloads   ${stats.downloadPasses} complete passes, ${stats.downloadPages} pages, ${stats.downloadCases} cases, ${stats.downloadErrors} cut by a kill; statuses ${JSON.stringify(stats.downloadStatus)}`,
);
console.log(`  fuzz        ${stats.fuzzRequests} requests (${stats.fuzzCutByKill} cut by a kill), ${fuzzFailures.length} failures`);
console.log(
  `  server log  ${logged.length} replies 5xx, ${unseen5xx} of them seen by no client${unseen5xx ? ` (${[...new Set(logged.map((l) => `${l.method} ${l.path.slice(0, 60)} ${l.status}`))].slice(0, 5).join('; ')})` : ''}`,
);
console.log(`  integrity   ${integrity}`);
for (const c of crashes) console.log(`\nunexpected exit: ${c}`);
if (fuzzFailures.length) console.log(`\n${formatFailures(fuzzFailures, SEED)}`);
if (flags.keep) console.log(`\nhome kept: ${dir}`);
console.log(JSON.stringify(summary));
const ok = missing.length === 0 && integrity === 'ok' && summary.unexpected_exits === 0 && fuzzFailures.length === 0 && unseen5xx === 0;
process.exitCode = ok ? 0 : 1;
