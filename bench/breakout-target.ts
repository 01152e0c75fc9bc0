// One benchmark run in its own process: full breakout of the cases already in a store into one
// target, in-process; prints seconds, rows and peak RSS as one JSON line.
import { shipped } from './shipped.js';

const { openStore } = await shipped<typeof import('../src/store/open-store.js')>('store/open-store.js');
const { resolveHome } = await shipped<typeof import('../src/shared/home.js')>('shared/home.js');
const { setTarget } = await shipped<typeof import('../src/core/breakout/targets/targets.js')>('core/breakout/targets/targets.js');
const { runBreakoutNow } = await shipped<typeof import('../src/core/breakout/jobs/jobs.js')>('core/breakout/jobs/jobs.js');
const { breakoutTables } = await shipped<typeof import('../src/core/breakout/tables.js')>('core/breakout/tables.js');

const [home, type, url, threads] = process.argv.slice(2) as [string, string, string, string];
const store = await openStore(resolveHome(home));
await setTarget(store, 'CEN2000', type === 'sqlite' ? { type, file: url } : { type, url });
const t0 = performance.now();
const job = await runBreakoutNow(store, { dictionary: 'CEN2000', overwrite: true, threads: Number(threads) });
const seconds = (performance.now() - t0) / 1000;
if (job.status !== 'completed') throw new Error(JSON.stringify(job));
const tables = await breakoutTables(store, 'CEN2000');
await store.close();
const rows = tables.tables.reduce((n, t) => n + t.row_count, 0);
console.log(
  JSON.stringify({
    cases: job.result.total_cases,
    rows,
    seconds,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    tables: tables.tables.map((t) => t.name),
  }),
);
