/**
 * Background entry point of a Run Now started over HTTP: `run-now --home <root> --claimed-run
 * <id> <dict>` takes over the run the server claimed and runs it as `sds schedule run-now` would,
 * with the home's scheduler settings (docs/scheduler.md, "Run Now"). Its outcome is the run's
 * history entry; its own output goes nowhere.
 */
import { runNow, schedulerSettings } from '../core/scheduler/index.js';
import { AppError, EXIT } from '../shared/errors.js';
import { runEntry } from './entry-main.js';
import { SIGNAL_EXIT, stopOnSignals } from './stop-on-signals.js';

await runEntry(
  { name: 'run-now', positionals: ['dict'], options: ['claimed-run'] },
  process.argv.slice(2),
  async ({ home, store, positionals: [dictionary], values }) => {
    const claimedRunId = Number(values['claimed-run']);
    if (values['claimed-run'] === undefined || !Number.isInteger(claimedRunId)) {
      throw new AppError('USAGE', `--claimed-run must be a run id; got "${values['claimed-run']}"`, { field: 'claimed-run' });
    }
    const stop = stopOnSignals();
    const r = await runNow(await store(), { dictionary: dictionary! }, schedulerSettings(home), { claimedRunId, stop: stop.signal });
    const sig = stop.received();
    process.exitCode = sig ? SIGNAL_EXIT[sig] : r.outcome === 'failed' || r.outcome === 'interrupted' ? EXIT.failed : EXIT.ok;
  },
);
