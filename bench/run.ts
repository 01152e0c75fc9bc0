// `npm run bench`: import and breakout throughput and peak memory, with the databases' own bulk
// loaders as the reference. BENCH_CASES sets the case count (default 100000; 1000000 on request).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePopstanDat } from './make-popstan-dat.js';
import { mariadbLoaderSeconds, postgresLoaderSeconds } from './native-loaders.js';

// `npm run bench -- store-compare`: the SQLite and PostgreSQL stores side by side, alternated
// (bench/store-compare.ts), instead of the benchmarks below.
// `npm run bench -- workers`: `sds serve --workers 1` against `--workers 2` (bench/workers.ts).
// `npm run bench -- nodes`: 1, 2 and 3 nodes behind nginx on one PostgreSQL store (bench/nodes.ts).
// `npm run bench -- download-compare`: download pages on both stores (bench/download-compare.ts).
const NAMED = ['store-compare', 'workers', 'nodes', 'download-compare'];
if (process.argv[2] !== undefined) {
  if (!NAMED.includes(process.argv[2])) {
    console.error(
      `unknown benchmark ${process.argv[2]}: \`npm run bench\` runs them all, \`npm run bench -- NAME\` one of ${NAMED.join(', ')}`,
    );
    process.exit(2);
  }
  const r = spawnSync(process.execPath, ['--import', 'tsx', new URL(`./${process.argv[2]}.ts`, import.meta.url).pathname], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

const N = Number(process.env.BENCH_CASES ?? 100_000);
const THREADS = process.env.BENCH_THREADS ?? '2';
const dir = mkdtempSync(join(tmpdir(), 'sds-bench-'));
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;
const run = (script: string, ...args: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', new URL(script, import.meta.url).pathname, ...args], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop()!,
  );

try {
  const dat = join(dir, 'popstan.dat');
  await makePopstanDat(fixture('popstan-census.dat'), dat, N);
  const home = join(dir, 'home');
  const imp = run('./import-dat.ts', home, dat, fixture('popstan-census.json.dcf'));
  console.log(
    `import  .dat  ${imp.cases} cases in ${imp.seconds.toFixed(2)} s = ${Math.round(imp.cases / imp.seconds)} cases/s, peak RSS ${imp.peak_rss_mb.toFixed(0)} MB (goal: 20000 cases/s, flat memory)`,
  );
  // The same import into a fresh store where a webhook subscribes to case_uploaded: each case is
  // also copied into the webhook outbox by the capture trigger (docs/webhooks.md).
  const hooked = run('./import-dat.ts', join(dir, 'home-webhook'), dat, fixture('popstan-census.json.dcf'), 'webhook');
  console.log(
    `import  .dat  with a case_uploaded webhook: ${Math.round(hooked.cases / hooked.seconds)} cases/s (${((imp.seconds / hooked.seconds - 1) * 100).toFixed(1)} % against no webhook)`,
  );

  execFileSync('psql', [
    '-h',
    '127.0.0.1',
    '-U',
    'postgres',
    '-q',
    '-c',
    'DROP DATABASE IF EXISTS sds_bench',
    '-c',
    'CREATE DATABASE sds_bench',
  ]);
  execFileSync('mariadb', ['-uroot', '-h127.0.0.1', '-e', 'DROP DATABASE IF EXISTS sds_bench; CREATE DATABASE sds_bench']);
  const targets: [string, string][] = [
    ['sqlite', join(dir, 'target.sqlite')],
    ['postgresql', 'postgresql://postgres@127.0.0.1:5432/sds_bench'],
    ['mysql', 'mysql://root@127.0.0.1:3306/sds_bench'],
  ];
  for (const [type, url] of targets) {
    const r = run('./breakout-target.ts', home, type, url, THREADS);
    let line = `breakout ${type.padEnd(10)} ${r.cases} cases, ${r.rows} rows in ${r.seconds.toFixed(2)} s = ${Math.round(r.cases / r.seconds)} cases/s, ${Math.round(r.rows / r.seconds)} rows/s, peak RSS ${r.peak_rss_mb.toFixed(0)} MB`;
    if (type === 'postgresql') {
      const floor = postgresLoaderSeconds('sds_bench', r.tables, dir);
      line += `; psql \\copy ${floor.toFixed(2)} s, ratio loader/breakout ${(floor / r.seconds).toFixed(2)} (goal ≥ 0.5)`;
    }
    if (type === 'mysql') {
      const floor = mariadbLoaderSeconds('sds_bench', r.tables, dir);
      line += `; LOAD DATA ${floor.toFixed(2)} s, ratio loader/breakout ${(floor / r.seconds).toFixed(2)} (goal ≥ 0.5)`;
    }
    console.log(line);
  }
  // Export of the same home in every format (bench/export-dict.ts; BENCH_EXPORT_FORMATS narrows it).
  for (const format of (process.env.BENCH_EXPORT_FORMATS ?? 'csv,stata,spss,parquet').split(',')) {
    const r = run('./export-dict.ts', home, format, join(dir, `export-${format}`));
    console.log(
      `export  ${format.padEnd(10)} ${r.cases} cases, ${r.rows} rows, ${(r.bytes / 1048576).toFixed(0)} MB in ${r.seconds.toFixed(2)} s = ${Math.round(r.cases / r.seconds)} cases/s, peak RSS ${r.peak_rss_mb.toFixed(0)} MB`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// ---- HTTP: `sds serve` under autocannon load (bench/http.ts builds its own home of BENCH_HTTP_CASES cases) ----
{
  const { spawnSync } = await import('node:child_process');
  const { httpLines } = await import('./http-report.js');
  const r = spawnSync(process.execPath, ['--import', 'tsx', new URL('./http.ts', import.meta.url).pathname], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let result: import('./http-report.js').HttpBenchResult | undefined;
  try {
    result = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
  } catch {
    result = undefined;
  }
  if (!result) {
    console.log(`http    benchmark failed (exit ${r.status ?? r.signal}), no figures`);
    process.exitCode = 1;
  } else {
    for (const line of httpLines(result)) console.log(line);
    if (!result.ok) process.exitCode = 1;
  }
}

// ---- Sync: the data-collection client's upload and download (bench/sync.ts, BENCH_SYNC_CASES) ----
{
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, ['--import', 'tsx', new URL('./sync.ts', import.meta.url).pathname], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = r.stdout.trim().split('\n');
  if (r.status !== 0) {
    console.log(`sync    benchmark failed (exit ${r.status ?? r.signal}), no figures`);
    process.exitCode = 1;
  } else for (const l of lines.slice(0, -1)) console.log(l);
}
