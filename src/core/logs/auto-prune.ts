import type { Store } from '../../store/open-store.js';
import { claimPeriod } from '../duties/index.js';
import { LOG_KINDS } from './prune-plan.js';
import { pruneLogs, type PruneReport } from './prune-logs.js';
import { logSettings, type LogSettings } from './retention-settings.js';

/** The shared duty of automatic pruning (docs/decisions.md, "Duties across nodes (issue 29)"). */
const LOG_PRUNE_DUTY = 'log-prune';

/**
 * Prunes the logs (pruneLogs with the home's settings) once per period of
 * `logs.prune_interval_minutes` (0: never), periods counted from the Unix epoch. The period is
 * claimed by one row of the store (duty `log-prune`, slot the period's start), so of every node
 * and process ticking in the same period (servers, `scheduler-run`) one prunes and the others do
 * nothing. Returns the report, or undefined when it was not this process's turn.
 */
export async function autoPruneLogs(store: Store, opts: { now: Date; settings?: LogSettings }): Promise<PruneReport | undefined> {
  const settings = opts.settings ?? logSettings(store.home);
  const intervalMs = settings.pruneIntervalMinutes * 60_000;
  if (intervalMs === 0) return undefined;
  const turn = await claimPeriod(store, LOG_PRUNE_DUTY, intervalMs, opts.now);
  return turn.mine ? pruneLogs(store, { now: opts.now, settings }) : undefined;
}

/** One line saying what a prune removed, by kind, e.g. `jobs: 3 rows, 3 files (12345 bytes)`; messages have rows only. */
export function pruneSummary(r: PruneReport): string {
  const parts = LOG_KINDS.map((k) => {
    const c = r.kinds[k];
    return k === 'messages' ? `${k}: ${c.rows} rows` : `${k}: ${c.rows} rows, ${c.files} files (${c.bytes} bytes)`;
  });
  return parts.join('; ');
}

/** A running automatic pruner (startLogPruner). */
export interface LogPruner {
  /** Stops checking, and waits for the check in progress to finish. */
  stop(): Promise<void>;
}

/**
 * Runs autoPruneLogs every `checkEveryMs` (default a minute) for a long-running process
 * (`sds serve`). The timer is unref'd, so it never keeps the process alive; a failure is
 * logged and the next check tries again. `log` gets a line for each prune that removed anything.
 */
export function startLogPruner(
  store: Store,
  opts: { log: (line: string, level?: 'info' | 'warn' | 'error') => void; now?: () => Date; checkEveryMs?: number; settings?: LogSettings },
): LogPruner {
  const now = opts.now ?? (() => new Date());
  const settings = opts.settings ?? logSettings(store.home);
  let check: Promise<void> | undefined;
  const timer = setInterval(() => {
    // One check at a time: a tick while the last one still runs is skipped.
    if (check) return;
    check = (async () => {
      try {
        const r = await autoPruneLogs(store, { now: now(), settings });
        if (r && r.total.rows + r.total.files > 0) opts.log(`logs pruned: ${pruneSummary(r)}`);
      } catch (err) {
        opts.log(`logs not pruned: ${(err as Error).message}`, 'warn');
      }
    })().finally(() => {
      check = undefined;
    });
  }, opts.checkEveryMs ?? 60_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await check;
    },
  };
}
