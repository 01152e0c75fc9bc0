/**
 * Child process of test/integration/breakout/durable-target.test.ts, run under strace: a full
 * breakout of the store at HOME into its SQLite target, in small pages, saving the cursor every
 * 2 pages. Before each cursor save it writes the cursor to MARKER, so the trace shows where each
 * save falls among the target's WAL writes and fsyncs. Prints the saved cursors as JSON.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { openStore } from '../../src/store/open-store.js';
import { resolveHome } from '../../src/shared/home.js';
import { createJob } from '../../src/core/breakout/jobs/jobs.js';
import { runJob } from '../../src/core/breakout/jobs/run-job.js';

const [home, marker, pageSize, everyPages] = process.argv.slice(2) as [string, string, string, string];
const store = await openStore(resolveHome(home));
const fd = openSync(marker, 'a');
const saved: unknown[] = [];
const advance = store.breakoutState.advance.bind(store.breakoutState);
store.breakoutState.advance = async (dictionaryId, cursor, jobId) => {
  writeSync(fd, `advance ${JSON.stringify(cursor)}\n`);
  saved.push(cursor);
  await advance(dictionaryId, cursor, jobId);
};
const job = await createJob(store, { dictionaries: ['CEN2000'], mode: 'full', threads: 1, overwrite: true, origin: 'cli' });
const final = await runJob(store, job.id, {
  pageSize: Number(pageSize),
  cursorSaving: { everyPages: Number(everyPages), everyMs: 3_600_000 },
});
closeSync(fd);
await store.close();
console.log(JSON.stringify({ status: final.status, saved }));
