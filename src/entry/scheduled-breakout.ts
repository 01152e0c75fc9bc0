/**
 * Background entry point of a scheduled run or a Run Now: `scheduled-breakout --home <root>
 * <dict>` runs the dictionary's incremental breakout in this process, as
 * `sds process-cases-by-dict <dict> --json` does, and prints the final job status (or the error)
 * as JSON on stdout for the scheduler, which captures it into the run log and judges the run
 * by it (docs/scheduler.md, "Exit codes recorded for a run").
 */
import { jobExitCode, runBreakoutNow } from '../core/breakout/index.js';
import { runEntry } from './entry-main.js';
import { SIGNAL_EXIT, stopOnSignals } from './stop-on-signals.js';

await runEntry(
  { name: 'scheduled-breakout', positionals: ['dict'], jsonErrors: true },
  process.argv.slice(2),
  async ({ store, positionals: [dictionary] }) => {
    let jobId: string | undefined;
    // The scheduler's time limit (SIGTERM) or a forwarded Ctrl-C: the job stops after the page it is writing.
    const stop = stopOnSignals((sig) =>
      process.stderr.write(`sds: ${sig}: stopping ${jobId ? `job ${jobId}` : 'the breakout'} after the page it is writing\n`),
    );
    const r = await runBreakoutNow(
      await store(),
      { dictionary: dictionary!, origin: 'process-cases-by-dict' },
      {
        signal: stop.signal,
        onJob: (id) => (jobId = id),
        // A drop nobody asked for is never silent: it goes into the run log.
        onTables: (dict, c) => {
          if (c.dropped.length && c.reason !== 'overwrite')
            process.stderr.write(`${dict}: dropped ${c.dropped.length} table(s) (${c.reason}: ${c.detail}): ${c.dropped.join(', ')}\n`);
        },
      },
    );
    process.stdout.write(JSON.stringify(r, null, 2) + '\n');
    const sig = stop.received();
    process.exitCode = sig ? SIGNAL_EXIT[sig] : jobExitCode(r);
    // Stopped: the job is recorded, so exit now rather than wait out a connect still pending in the driver.
    if (sig) setImmediate(() => process.exit());
  },
);
