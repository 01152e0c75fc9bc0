import { join } from 'node:path';
import type { Store } from '../../store/open-store.js';
import type { HomePaths } from '../../shared/home.js';
import { tryLock, type HeldLock } from '../../scheduler/lock.js';
import { reapDeadRuns, runSchedule, type RunOutcome } from './run-schedule.js';
import type { SchedulerSettings } from './settings.js';
import { deliverDueWebhooks, webhookSettings, type DeliverReport } from '../webhooks/index.js';
import { toAppError } from '../../shared/errors.js';
import { autoPruneLogs, pruneSummary, type PruneReport } from '../logs/index.js';

/** The lock file of scheduler-run, in the home's locks/. */
const SCHEDULER_LOCK = 'scheduler-run.lock';

/**
 * Takes the scheduler's lock of `home` without waiting, as `sds scheduler-run` does: null while a
 * scheduler run holds it. Whoever holds it keeps every tick from starting breakouts
 * (`sds store copy` holds it while it copies).
 */
export function holdSchedulerLock(home: HomePaths): Promise<HeldLock | null> {
  return tryLock(join(home.locks, SCHEDULER_LOCK));
}

/** What one `sds scheduler-run` did. */
export interface SchedulerRunReply {
  /** `held`: another scheduler-run holds the lock, so this one started no breakout (webhooks were still delivered). */
  lock: 'acquired' | 'held';
  now: string;
  timezone: string;
  due: number;
  runs: RunOutcome[];
  /** Runs that failed or were interrupted; non-zero makes the command exit 1. */
  failed: number;
  /**
   * The outgoing webhook pass of this tick (null when it could not run; the error is logged). A
   * receiver that fails is retried later and does not make the tick fail.
   */
  webhooks: DeliverReport | null;
  /**
   * The automatic log prune of this tick (docs/logs.md#when-logs-are-pruned): null when it was
   * not due (another process pruned within the interval) or failed (the error is logged).
   */
  logs_pruned: PruneReport | null;
}

/**
 * One tick of the scheduler (`sds scheduler-run`, run every minute by cron; docs/scheduler.md#a-tick-sds-scheduler-run). Takes
 * the home's exclusive scheduler lock without waiting (a tick finding it held does nothing and
 * says so), closes runs left open by a scheduler that died, then runs the enabled schedules with
 * next_run <= now one after another: one failing does not stop the others. A schedule missed
 * during downtime runs once, not once per missed occurrence.
 *
 * Every tick first delivers the outgoing webhooks that are due, outside the lock: deliveries are
 * claimed with leases, so ticks may overlap safely, and a breakout that holds the lock for an
 * hour must not hold up an hour of events.
 */
export async function schedulerRun(
  store: Store,
  settings: SchedulerSettings,
  opts: { log?: (line: string) => void; logsNow?: () => Date } = {},
): Promise<SchedulerRunReply> {
  const log = opts.log ?? (() => {});
  const now = settings.now();
  const webhooks = await deliverWebhooks(store, log);
  const base = {
    now: now.toISOString(),
    timezone: settings.zone,
    logs_pruned: await pruneLogsIfDue(store, opts.logsNow?.() ?? new Date(), log),
  };
  const lock = await tryLock(join(store.home.locks, SCHEDULER_LOCK));
  if (!lock) {
    log('the scheduler is already running in another process; no breakouts started');
    return { lock: 'held', ...base, due: 0, runs: [], failed: 0, webhooks };
  }
  try {
    await reapDeadRuns(store, now);
    const due = await store.schedules.due(now.toISOString());
    if (due.length === 0) log('no schedules due');
    const runs: RunOutcome[] = [];
    for (const s of due) {
      log(`${s.dictionary}: due at ${s.nextRun}; starting its breakout`);
      const r = await runSchedule(store, s, 'scheduled', settings);
      log(
        `${s.dictionary}: ${r.outcome}${r.exit_code !== null ? ` (exit code ${r.exit_code})` : ''}${r.message ? `: ${r.message}` : ''}${r.log_file ? `; log ${r.log_file}` : ''}`,
      );
      runs.push(r);
    }

    const lost = lock.compromised();
    if (lost) log(`warning: the scheduler lock was lost during the run (${lost.message})`);
    return {
      lock: 'acquired',
      ...base,
      due: due.length,
      runs,
      webhooks,
      failed: runs.filter((r) => r.outcome === 'failed' || r.outcome === 'interrupted').length,
    };
  } finally {
    await lock.release();
  }
}

/** The automatic log prune of a tick; like webhooks, its failure never fails the tick. */
async function pruneLogsIfDue(store: Store, now: Date, log: (line: string) => void): Promise<PruneReport | null> {
  try {
    // The real clock, as for webhooks: SDS_NOW only makes schedules due.
    const r = (await autoPruneLogs(store, { now })) ?? null;
    if (r) log(`logs pruned: ${pruneSummary(r)}`);
    return r;
  } catch (err) {
    const e = toAppError(err);
    log(`logs: not pruned this tick: ${e.code}: ${e.message}`);
    return null;
  }
}

async function deliverWebhooks(store: Store, log: (line: string) => void): Promise<DeliverReport | null> {
  try {
    // The real clock, not the scheduler's (SDS_NOW is a testing aid for due schedules only).
    const r = await deliverDueWebhooks(store, { settings: webhookSettings() });
    if (r.attempted > 0 || r.queued > 0)
      log(
        `webhooks: ${r.queued} queued, ${r.attempted} sent (${r.succeeded} ok, ${r.retrying} to retry, ${r.gave_up} failed, kept for redelivery)`,
      );
    return r;
  } catch (err) {
    const e = toAppError(err);
    log(`webhooks: not delivered this tick: ${e.code}: ${e.message}`);
    return null;
  }
}
