// One benchmark run in its own process: import N Popstan cases from a .dat file into a fresh
// store and print cases/s and peak RSS as one JSON line.
import { readFileSync } from 'node:fs';
import { shipped } from './shipped.js';

const { importCases } = await shipped<typeof import('../src/core/cases/import/import-cases.js')>('core/cases/import/import-cases.js');
const { uploadDictionary } = await shipped<typeof import('../src/core/dictionaries/dictionaries.js')>('core/dictionaries/dictionaries.js');
const { openStore } = await shipped<typeof import('../src/store/open-store.js')>('store/open-store.js');
const { resolveHome } = await shipped<typeof import('../src/shared/home.js')>('shared/home.js');

const { addWebhook } = await shipped<typeof import('../src/core/webhooks/webhooks.js')>('core/webhooks/webhooks.js');

const [home, datFile, dcf, webhook] = process.argv.slice(2) as [string, string, string, string | undefined];
// A fresh home, made as `sds init` makes one.
const store = await openStore(resolveHome(home), { create: true });
// As `sds cases import` runs it: WAL checkpoints in a worker thread (store/wal-checkpointer.ts).
// BENCH_IMPORT_CHECKPOINTS=writer leaves them to the writer, as before that existed.
if (process.env.BENCH_IMPORT_CHECKPOINTS !== 'writer') store.checkpointInBackground();
await uploadDictionary(store, { source: readFileSync(dcf), label: 'popstan', file: dcf });
// `webhook`: an active webhook subscribed to case_uploaded, so every case is captured in the outbox.
if (webhook === 'webhook') await addWebhook(store, { name: 'bench', url: 'http://127.0.0.1:9/', events: ['case_uploaded'] });
const t0 = performance.now();
// As `sds cases import` runs it: no fsync per batch, one at the end (store.deferSync);
// BENCH_IMPORT_SYNC=each-commit fsyncs every batch's commit instead.
const run = () => importCases(store, 'CEN2000', [datFile]);
const report = process.env.BENCH_IMPORT_SYNC === 'each-commit' ? await run() : await store.deferSync(run);
const seconds = (performance.now() - t0) / 1000;
await store.close();
console.log(
  JSON.stringify({
    cases: report.total.inserted,
    failed: report.total.failed,
    seconds,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  }),
);
