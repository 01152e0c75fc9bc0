// Breakout against the databases' own loaders, in alternated rounds (issue 31, item 4): per round
// and per build, a `.dat` of BENCH_CASES (100000) Popstan cases imported into a fresh home
// (bench/import-dat.ts), then broken out with BENCH_THREADS (2) threads into a fresh `sds_bench`
// on PostgreSQL and on MariaDB (bench/breakout-target.ts), and the rows written loaded again by
// `psql \copy` and `LOAD DATA LOCAL INFILE` (bench/native-loaders.ts). E = loader time / breakout
// time. BENCH_BUILDS=/path/a,/path/b alternates checkouts (each built: `npm run build`) round by
// round for before/after figures; default this checkout. BENCH_ROUNDS (3). One JSON line per run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makePopstanDat } from './make-popstan-dat.js';
import { mariadbLoaderSeconds, postgresLoaderSeconds } from './native-loaders.js';

const N = Number(process.env.BENCH_CASES ?? 100_000);
const THREADS = process.env.BENCH_THREADS ?? '2';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BUILDS = (process.env.BENCH_BUILDS ?? new URL('..', import.meta.url).pathname).split(',').map((b) => resolve(b));
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'sds-bench-rounds-'));

/** Runs one script of `build`'s bench/ in its own process; its last line is its JSON result. */
const run = (build: string, script: string, ...args: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', join(build, 'bench', script), ...args], { encoding: 'utf8', cwd: build })
      .trim()
      .split('\n')
      .pop()!,
  );

/** The load average over the last minute (Linux). */
const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

const freshDatabases = () => {
  execFileSync(
    'psql',
    ['-h', '127.0.0.1', '-U', 'postgres', '-q', '-c', 'DROP DATABASE IF EXISTS sds_bench', '-c', 'CREATE DATABASE sds_bench'],
    {
      stdio: 'ignore',
    },
  );
  execFileSync('mariadb', ['-uroot', '-h127.0.0.1', '-e', 'DROP DATABASE IF EXISTS sds_bench; CREATE DATABASE sds_bench']);
};

try {
  const dat = join(dir, 'popstan.dat');
  await makePopstanDat(fixture('popstan-census.dat'), dat, N);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [b, build] of BUILDS.entries()) {
      const home = join(dir, `home-${round}-${b}`);
      const imp = run(build, 'import-dat.ts', home, dat, fixture('popstan-census.json.dcf'));
      const result: Record<string, unknown> = { round, build, load: load(), import_cases_s: Math.round(imp.cases / imp.seconds) };
      freshDatabases();
      for (const [type, url, loader] of [
        ['postgresql', 'postgresql://postgres@127.0.0.1:5432/sds_bench', postgresLoaderSeconds],
        ['mysql', 'mysql://root@127.0.0.1:3306/sds_bench', mariadbLoaderSeconds],
      ] as const) {
        const r = run(build, 'breakout-target.ts', home, type, url, THREADS);
        const floor = loader('sds_bench', r.tables, dir);
        result[type] = {
          cases_s: Math.round(r.cases / r.seconds),
          e: Number((floor / r.seconds).toFixed(3)),
          peak_rss_mb: Math.round(r.peak_rss_mb),
        };
      }
      rmSync(home, { recursive: true, force: true });
      console.log(JSON.stringify(result));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
