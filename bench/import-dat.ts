// One benchmark run in its own process: import N Popstan cases from a .dat file into a fresh
// store and print cases/s and peak RSS as one JSON line.
import { readFileSync } from 'node:fs';
import { shipped } from './shipped.js';

const { importCases } = await shipped<typeof import('../src/core/import-cases.js')>('core/import-cases.js');
const { uploadDictionary } = await shipped<typeof import('../src/core/dictionaries.js')>('core/dictionaries.js');
const { openStore } = await shipped<typeof import('../src/store/open-store.js')>('store/open-store.js');
const { resolveHome } = await shipped<typeof import('../src/shared/home.js')>('shared/home.js');

const [home, datFile, dcf] = process.argv.slice(2) as [string, string, string];
const store = openStore(resolveHome(home));
uploadDictionary(store, { source: readFileSync(dcf), label: 'popstan', file: dcf });
const t0 = performance.now();
const report = await importCases(store, 'CEN2000', [datFile]);
const seconds = (performance.now() - t0) / 1000;
store.close();
console.log(JSON.stringify({ cases: report.total.inserted, failed: report.total.failed, seconds, peak_rss_mb: process.resourceUsage().maxRSS / 1024 }));
