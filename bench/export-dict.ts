// One benchmark run in its own process: `sds export` of every case already in a store into a
// folder, in-process; prints cases, rows, bytes, seconds and peak RSS as one JSON line.
import { shipped } from './shipped.js';

const { openStore } = await shipped<typeof import('../src/store/open-store.js')>('store/open-store.js');
const { resolveHome } = await shipped<typeof import('../src/shared/home.js')>('shared/home.js');
const { exportToFolder } = await shipped<typeof import('../src/core/export/export-folder.js')>('core/export/export-folder.js');

const [home, format, out] = process.argv.slice(2) as [string, string, string];
const store = await openStore(resolveHome(home));
const t0 = performance.now();
const r = await exportToFolder(store, { dictionary: 'CEN2000', format, out }, { force: true });
const seconds = (performance.now() - t0) / 1000;
await store.close();
console.log(
  JSON.stringify({
    cases: r.cases,
    rows: r.files.filter((f) => f.table !== null).reduce((n, f) => n + f.rows, 0),
    bytes: r.files.reduce((n, f) => n + f.bytes, 0),
    seconds,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  }),
);
