import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import { LOG_KINDS } from './prune-plan.js';
import { pruneLogs, type PruneReport } from './prune-logs.js';
import { logSettings, type LogSettings } from './retention-settings.js';

/** Setting of the store holding the time of the last automatic prune, shared by every process of the home. */
const LAST_AUTO_PRUNE = 'logs_last_auto_prune';

/**
 * Prunes the logs (pruneLogs with the home's settings) unless the home was pruned automatically
 * less than `logs.prune_interval_minutes` ago (0: never). The turn is claimed in the store's
 * settings in one write transaction, so of several processes ticking at once (the server and
 * `scheduler-run`) one prunes and the others do nothing. A clock that went back further than the
 * interval counts as due. Returns the report, or undefined when it was not this process's turn.
 */
export async function autoPruneLogs(store: Store, opts: { now: Date; settings?: LogSettings }): Promise<PruneReport | undefined> {
  const settings = opts.settings ?? logSettings(store.home);
  const intervalMs = settings.pruneIntervalMinutes * 60_000;
  if (intervalMs === 0) return undefined;
  const now = opts.now.getTime();
  const due = async (scope: StoreScope) => {
    const last = Date.parse((await scope.settings.get(LAST_AUTO_PRUNE)) ?? '');
    return Number.isNaN(last) || now - last >= intervalMs || last - now > intervalMs;
  };
  // A read first: most checks find it not due and need no write lock.
  if (!(await due(store))) return undefined;
  const claimed = await store.transaction(async (tx) => {
    if (!(await due(tx))) return false;
    await tx.settings.set(LAST_AUTO_PRUNE, opts.now.toISOString());
    return true;
  });
  return claimed ? pruneLogs(store, { now: opts.now, settings }) : undefined;
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
