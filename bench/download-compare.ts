// Download pages on the SQLite store and the PostgreSQL store, alternated in one run (issue 28,
// item 6; bench/README.md "Download pages, side by side"): one home of each store gets the same
// SIMPLECAPI cases (60 tablets x 500), then one tablet downloads them all in pages of 100,
// DOWNLOAD_ROUNDS times per store, alternating. `DOWNLOAD_KEEP=1` keeps both homes (to profile a server).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import pg from 'pg';
import { simplecapiCase } from './make-simplecapi-cases.js';
import { downloadAll, serverCpuSeconds, tabletToken, uploadAll, type TabletUploads } from './sync-load.js';
import { startServe } from '../test/helpers/serve-process.js';

const knob = (name: string, def: number) => Number(process.env[name] ?? def);
const ROUNDS = knob('DOWNLOAD_ROUNDS', 5);
const TABLETS = knob('DOWNLOAD_TABLETS', 60);
const PAGE = 100;
const DICT = 'SIMPLECAPI_DICT';
const PASSWORD = 'bench-password-0123456789';
const SOCKET = process.env.BENCH_COMPARE_PG_SOCKET ?? '/var/run/postgresql';
const sds = new URL('../bin/sds', import.meta.url).pathname;
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;
const database = `sds_bench_download_${process.pid}`;
const pgUrl = `postgresql://postgres@localhost/${database}?host=${encodeURIComponent(SOCKET)}`;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ host: SOCKET, user: 'postgres', database: 'postgres' });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'sds-bench-download-'));
const bodies: TabletUploads[] = Array.from({ length: TABLETS }, (_, t) => {
  const device = `bench-tablet-${t}`;
  return { device, bodies: [deflateSync(JSON.stringify(Array.from({ length: 500 }, (_, j) => simplecapiCase(t * 1000 + j, device))))] };
});

type Kind = 'sqlite' | 'postgresql';
const homes: Record<Kind, { home: string; env: NodeJS.ProcessEnv }> = {
  sqlite: { home: join(dir, 'sqlite'), env: { SDS_STORE_URL: '' } },
  postgresql: { home: join(dir, 'postgresql'), env: { SDS_STORE_URL: pgUrl } },
};
await admin(`CREATE DATABASE "${database}"`);
const rates: Record<Kind, number[]> = { sqlite: [], postgresql: [] };
const cpu: Record<Kind, number[]> = { sqlite: [], postgresql: [] };
try {
  for (const kind of ['sqlite', 'postgresql'] as Kind[]) {
    const { home, env } = homes[kind];
    const cli = (args: string[], input?: string) =>
      execFileSync(process.execPath, [sds, '--home', home, '--quiet', ...args], {
        encoding: 'utf8',
        input,
        env: { ...process.env, ...env },
      });
    cli(['init']);
    cli(['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simplecapi']);
    cli(['users', 'add', 'tablet', '--role', 'Standard', '--password-stdin'], `${PASSWORD}\n`);
    const server = await startServe(home, env);
    try {
      await uploadAll(server.url, DICT, await tabletToken(server.url, 'tablet', PASSWORD), bodies);
    } finally {
      await server.stop();
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of (round % 2 ? ['postgresql', 'sqlite'] : ['sqlite', 'postgresql']) as Kind[]) {
      const { home, env } = homes[kind];
      const server = await startServe(home, env);
      try {
        const token = await tabletToken(server.url, 'tablet', PASSWORD);
        await downloadAll(server.url, DICT, token, `warm-${round}`, PAGE);
        const c0 = serverCpuSeconds(server.child.pid)!;
        const down = await downloadAll(server.url, DICT, token, `reader-${round}`, PAGE);
        if (down.cases !== TABLETS * 500) throw new Error(`${kind}: ${down.cases} cases downloaded`);
        rates[kind].push(down.pages / down.seconds);
        cpu[kind].push(((serverCpuSeconds(server.child.pid)! - c0) * 1e6) / down.pages);
      } finally {
        await server.stop();
      }
    }
  }
} finally {
  if (process.env.DOWNLOAD_KEEP) console.log(`kept ${dir} and database ${database}`);
  else rmSync(dir, { recursive: true, force: true });
  if (!process.env.DOWNLOAD_KEEP) await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const f = (v: number[]) => v.map((x) => x.toFixed(0)).join(' / ');
console.log(
  `download pages of ${PAGE} (${TABLETS * 500} cases), ${ROUNDS} alternated rounds, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`  sqlite     pages/s ${f(rates.sqlite)}  median ${median(rates.sqlite).toFixed(0)}; server CPU µs/page ${f(cpu.sqlite)}`);
console.log(
  `  postgresql pages/s ${f(rates.postgresql)}  median ${median(rates.postgresql).toFixed(0)}; server CPU µs/page ${f(cpu.postgresql)}`,
);
console.log(`  ratio ${(median(rates.postgresql) / median(rates.sqlite)).toFixed(2)} (goal >= 0.7)`);
console.log(
  JSON.stringify({
    sqlite: median(rates.sqlite),
    postgresql: median(rates.postgresql),
    ratio: median(rates.postgresql) / median(rates.sqlite),
  }),
);
