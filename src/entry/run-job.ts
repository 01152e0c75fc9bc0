/**
 * Background entry point of a breakout job: `run-job --home <root> <job> [--handoff <node>]`
 * runs a pending job, or one handed over by the node that claimed it, in this process. Core
 * starts it detached, with stdout and stderr in the job's log file (docs/decisions.md,
 * "Process model"). When the job ends, the finished log goes into the
 * store's file store (docs/logs.md#job-and-run-log-files).
 */
import { runJob } from '../core/breakout/index.js';
import { jobLogName, storeFinishedLog } from '../core/logs/index.js';
import { EXIT } from '../shared/errors.js';
import { escapeLogText } from '../shared/log-escape.js';
import { runEntry } from './entry-main.js';
import { stopOnSignals } from './stop-on-signals.js';

/** How often the job process reads its cancel flag while it runs (besides between pages). */
const CANCEL_POLL_MS = 250;

await runEntry({ name: 'run-job', positionals: ['job'], options: ['handoff'] }, process.argv.slice(2), async (ctx) => {
  const store = await ctx.store();
  const jobId = ctx.positionals[0]!;
  // `breakout cancel` (or an interrupted --wait) sets the job's cancel flag: read between pages,
  // and polled here too so a connect to a target that never answers is abandoned as well.
  const stop = new AbortController();
  stopOnSignals().signal.addEventListener('abort', () => stop.abort(), { once: true });
  const poll = setInterval(() => {
    void (async () => {
      if (await store.jobs.isCancelRequested(jobId)) stop.abort();
    })();
  }, CANCEL_POLL_MS);
  let final;
  try {
    // A warning names a case id and a value a device uploaded: one line each whatever they hold (docs/logs.md#control-characters).
    final = await runJob(store, jobId, {
      signal: stop.signal,
      // The node that spawned this process holds the job for it until it claims it (docs/breakout.md#leases).
      handoffFrom: ctx.values.handoff,
      log: (l) => process.stderr.write(`${new Date().toISOString()} ${escapeLogText(l)}\n`),
    });
  } finally {
    clearInterval(poll);
  }
  // Whatever the end, once the job has ended (not while another process still runs it): a log
  // that could not be stored stays here, with the reason in it.
  if (final.status !== 'pending' && final.status !== 'running') {
    const failed = await storeFinishedLog(store, jobLogName(jobId));
    if (failed) process.stderr.write(`${new Date().toISOString()} ${escapeLogText(failed)}\n`);
  }
  process.exitCode = final.status === 'completed' ? EXIT.ok : EXIT.failed;
  // Stopped: the job is recorded, so do not wait out a connect still pending in the driver.
  if (stop.signal.aborted) setImmediate(() => process.exit());
});
