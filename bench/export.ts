// `node --import tsx bench/export.ts` (after `npm run build`): `sds export` time and peak memory
// for BENCH_CASES Popstan cases (default 100000), at two sizes so a memory that grows with the
// cases shows (docs/export.md#memory-and-speed). BENCH_EXPORT_FORMATS: formats to run (csv).
// BENCH_EXPORT_HEAP_MB: run each export under that V8 heap cap (--max-old-space-size), so an
// export whose memory grew with the cases would fail at the larger size instead of finishing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePopstanDat } from './make-popstan-dat.js';

const N = Number(process.env.BENCH_CASES ?? 100_000);
const FORMATS = (process.env.BENCH_EXPORT_FORMATS ?? 'csv').split(',');
const dir = mkdtempSync(join(tmpdir(), 'sds-bench-export-'));
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;
const HEAP = process.env.BENCH_EXPORT_HEAP_MB ? [`--max-old-space-size=${Number(process.env.BENCH_EXPORT_HEAP_MB)}`] : [];
const run = (script: string, ...args: string[]) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [...(script === './export-dict.ts' ? HEAP : []), '--import', 'tsx', new URL(script, import.meta.url).pathname, ...args],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .pop()!,
  );

try {
  for (const n of [Math.max(1000, Math.floor(N / 10)), N]) {
    const dat = join(dir, `popstan-${n}.dat`);
    await makePopstanDat(fixture('popstan-census.dat'), dat, n);
    const home = join(dir, `home-${n}`);
    run('./import-dat.ts', home, dat, fixture('popstan-census.json.dcf'));
    for (const format of FORMATS) {
      const r = run('./export-dict.ts', home, format, join(dir, `out-${n}-${format}`));
      console.log(
        `export ${format.padEnd(8)} ${r.cases} cases, ${r.rows} rows, ${(r.bytes / 1048576).toFixed(0)} MB in ${r.seconds.toFixed(2)} s = ${Math.round(r.cases / r.seconds)} cases/s, peak RSS ${r.peak_rss_mb.toFixed(0)} MB`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
