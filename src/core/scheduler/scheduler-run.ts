import type { Store } from '../../store/open-store.js';
import { reapDeadRuns, runSchedule, type RunOutcome } from './run-schedule.js';
import { claimDueRun } from './claim-due-run.js';
import type { SchedulerSettings } from './settings.js';
import { deliverDueWebhooks, webhookSettings, type DeliverReport } from '../webhooks/index.js';
import { toAppError } from '../../shared/errors.js';
import { currentNode } from '../../shared/node-id.js';
import { autoPruneLogs, pruneSummary, type PruneReport } from '../logs/index.js';

/** A due run of a schedule that another tick (of this node or another) took. */
export interface ClaimedElsewhere {
  schedule_id: number;
  dictionary: string;
  /** The due time (next_run) the other tick claimed. */
  due_at: string;
  /** The node id of the tick that claimed it (src/shared/node-id.ts), null when it is not known. */
  node: string | null;
}

/** What one `sds scheduler-run` did. */
export interface SchedulerRunReply {
  /** This tick's node id (host:pid:start). */
  node: string;
  now: string;
  timezone: string;
  /** Schedules this tick found due (those it ran and those another tick claimed). */
  due: number;
  runs: RunOutcome[];
  /** Due runs another tick claimed first: that tick runs them (docs/scheduler.md#a-tick-sds-scheduler-run). */
  claimed_elsewhere: ClaimedElsewhere[];
  /** Runs that failed or were interrupted; non-zero makes the command exit 1. */
  failed: number;
  /**
   * The outgoing webhook pass of this tick (null when it could not run; the error is logged). A
   * receiver that fails is retried later and does not make the tick fail.
   */
  webhooks: DeliverReport | null;
  /**
   * The automatic log prune of this tick (docs/logs.md#when-logs-are-pruned): null when it was
   * not due (another process pruned in this period) or failed (the error is logged).
   */
  logs_pruned: PruneReport | null;
}

/**
 * One tick of the scheduler (`sds scheduler-run`, run every minute by cron on any number of
 * nodes; docs/scheduler.md#a-tick-sds-scheduler-run). Delivers the due webhooks and prunes the
 * logs when their period is due (both claimed, so ticks may overlap), closes runs left open by a
 * scheduler that died, then for each enabled schedule with next_run <= now claims that due run:
 * one row per (schedule, due time) in the store decides which tick runs it, so a due run happens
 * once across nodes and processes, and the winner moves next_run on in the same transaction. The
 * won runs go one after another: one failing does not stop the others. A schedule missed during
 * downtime runs once, not once per missed occurrence. No file lock: ticks never wait for each
 * other.
 */
export async function schedulerRun(
  store: Store,
  settings: SchedulerSettings,
  opts: { log?: (line: string) => void; logsNow?: () => Date } = {},
): Promise<SchedulerRunReply> {
  const log = opts.log ?? (() => {});
  const now = settings.now();
  const webhooks = await deliverWebhooks(store, log);
  const logsPruned = await pruneLogsIfDue(store, opts.logsNow?.() ?? new Date(), log);
  await reapDeadRuns(store, now, settings);
  const due = await store.schedules.due(now.toISOString());
  if (due.length === 0) log('no schedules due');
  const runs: RunOutcome[] = [];
  const elsewhere: ClaimedElsewhere[] = [];
  for (const s of due) {
    const turn = await claimDueRun(store, s, settings);
    if (!turn.mine) {
      log(`${s.dictionary}: due at ${s.nextRun}; run by another scheduler tick (${turn.node ?? 'node unknown'})`);
      elsewhere.push({ schedule_id: s.id, dictionary: s.dictionary, due_at: s.nextRun!, node: turn.node });
      continue;
    }
    log(`${s.dictionary}: due at ${s.nextRun}; starting its breakout`);
    const r = await runSchedule(store, s, 'scheduled', settings);
    log(
      `${s.dictionary}: ${r.outcome}${r.exit_code !== null ? ` (exit code ${r.exit_code})` : ''}${r.message ? `: ${r.message}` : ''}${r.log_file ? `; log ${r.log_file}` : ''}`,
    );
    runs.push(r);
  }
  return {
    node: currentNode().id,
    now: now.toISOString(),
    timezone: settings.zone,
    due: due.length,
    runs,
    claimed_elsewhere: elsewhere,
    failed: runs.filter((r) => r.outcome === 'failed' || r.outcome === 'interrupted').length,
    webhooks,
    logs_pruned: logsPruned,
  };
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
