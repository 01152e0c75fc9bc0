import { join } from 'node:path';
import type { Store } from '../../store/open-store.js';
import { tryLock } from '../../scheduler/lock.js';
import { reapDeadRuns, runSchedule, type RunOutcome } from './run-schedule.js';
import type { SchedulerSettings } from './settings.js';

/** The lock file of scheduler-run, in the home's locks/. */
export const SCHEDULER_LOCK = 'scheduler-run.lock';

/** What one `sds scheduler-run` did. */
export interface SchedulerRunReply {
  /** `held`: another scheduler-run holds the lock, so this one did nothing. */
  lock: 'acquired' | 'held';
  now: string;
  timezone: string;
  due: number;
  runs: RunOutcome[];
  /** Runs that failed or were interrupted; non-zero makes the command exit 1. */
  failed: number;
}

/**
 * One tick of the scheduler (spec 4.9 `service:scheduler-run`, run every minute by cron). Takes
 * the home's exclusive scheduler lock without waiting (a tick finding it held does nothing and
 * says so), closes runs left open by a scheduler that died, then runs the enabled schedules with
 * next_run <= now one after another: one failing does not stop the others. A schedule missed
 * during downtime runs once, not once per missed occurrence.
 */
export async function schedulerRun(store: Store, settings: SchedulerSettings, opts: { log?: (line: string) => void } = {}): Promise<SchedulerRunReply> {
  const log = opts.log ?? (() => {});
  const now = settings.now();
  const base = { now: now.toISOString(), timezone: settings.zone };
  const lock = await tryLock(join(store.home.locks, SCHEDULER_LOCK));
  if (!lock) {
    log('the scheduler is already running in another process; nothing to do');
    return { lock: 'held', ...base, due: 0, runs: [], failed: 0 };
  }
  try {
    reapDeadRuns(store, now);
    const due = store.schedules.due(now.toISOString());
    if (due.length === 0) log('no schedules due');
    const runs: RunOutcome[] = [];
    for (const s of due) {
      log(`${s.dictionary}: due at ${s.nextRun}; starting its breakout`);
      const r = await runSchedule(store, s, 'scheduled', settings);
      log(`${s.dictionary}: ${r.outcome}${r.exit_code !== null ? ` (exit code ${r.exit_code})` : ''}${r.message ? `: ${r.message}` : ''}${r.log_file ? `; log ${r.log_file}` : ''}`);
      runs.push(r);
    }

    // ── Outgoing webhooks ────────────────────────────────────────────────────────────────
    // WEBHOOKS HOOK: the lead wires the webhooks engine's "deliver due outgoing webhooks" core
    // function here after merging, so every scheduler tick (each minute) also delivers due
    // webhooks and their retries. It runs under the same lock, after the breakouts.
    // ─────────────────────────────────────────────────────────────────────────────────────

    const lost = lock.compromised();
    if (lost) log(`warning: the scheduler lock was lost during the run (${lost.message})`);
    return { lock: 'acquired', ...base, due: due.length, runs, failed: runs.filter((r) => r.outcome === 'failed' || r.outcome === 'interrupted').length };
  } finally {
    await lock.release();
  }
}
