import type { Store } from '../../../store/open-store.js';
import { reapDeadJobs } from './follow-up.js';
import type { JobLeaseSettings } from './lease-settings.js';

/**
 * Looks for breakout jobs whose lease is over every `sweepMs` (docs/breakout.md#leases), so a
 * job whose node died is taken over by a live `sds serve` even when nobody asks about jobs. One
 * sweep at a time; a failed sweep is logged and the next one tries again.
 */
export function startJobSweeper(
  store: Store,
  opts: { leases: JobLeaseSettings; log: (line: string, level?: 'warn' | 'error') => void; now?: () => number },
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= reapDeadJobs(store, (opts.now ?? Date.now)(), { leases: opts.leases, log: opts.log })
      .catch((err: unknown) => opts.log(`sds serve: warning: the sweep for breakout jobs whose node died failed: ${String(err)}`, 'warn'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(sweep, opts.leases.sweepMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
