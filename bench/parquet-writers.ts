// `npm run build && node --import tsx bench/parquet-writers.ts`: the two candidate Parquet
// writers on the same synthetic table (BENCH_PARQUET_ROWS rows, default 1,000,000, × 20 columns,
// row groups of BENCH_PARQUET_GROUP rows, default 10,000), each in its own process: wall time,
// file size and peak RSS. Not part of `npm test`; the choice is in docs/decisions.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROWS = process.env.BENCH_PARQUET_ROWS ?? '1000000';
const GROUP = process.env.BENCH_PARQUET_GROUP ?? '10000';
const dir = mkdtempSync(join(tmpdir(), 'sds-bench-parquet-'));
try {
  for (const writer of ['hyparquet', 'duckdb']) {
    const line = execFileSync(
      process.execPath,
      ['--import', 'tsx', new URL('./parquet-writer.ts', import.meta.url).pathname, writer, join(dir, `${writer}.parquet`), ROWS, GROUP],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .pop()!;
    const r = JSON.parse(line);
    console.log(
      `parquet ${writer.padEnd(9)} ${r.rows} rows × 20 columns, groups of ${r.rowGroupRows}: ${r.seconds.toFixed(2)} s = ${Math.round(r.rows / r.seconds)} rows/s, ${(r.bytes / 1e6).toFixed(1)} MB, peak RSS ${r.peak_rss_mb.toFixed(0)} MB`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
