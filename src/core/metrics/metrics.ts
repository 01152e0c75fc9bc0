import type { Store } from '../../store/open-store.js';
import { breakoutInterruption, casesBrokenOut, reapDeadJobs, type BreakoutInterruption } from '../breakout/index.js';

/**
 * Breakout state of a dictionary in the metrics (docs/http-api.md#breakout-routes shows `completed`
 * and `in_progress`; `interrupted`: its tables hold part of the cases, docs/breakout.md#interrupted-breakouts).
 */
type BreakoutState = 'in_progress' | 'completed' | 'failed' | 'interrupted' | 'not_started';

/** Metrics reply of docs/http-api.md#breakout-routes, with our per-dictionary additions. */
export interface MetricsReply {
  total_cases: number;
  cases_by_dictionary: Record<string, number>;
  breakout_status: Record<string, BreakoutState>;
  /** The share of active cases already broken out into the target (not a share of data synced from devices). */
  sync_rate: string;
  /** The same share per dictionary. */
  sync_rate_by_dictionary: Record<string, string>;
  /** Per dictionary, its interrupted breakout, or null. */
  breakout_interrupted: Record<string, BreakoutInterruption | null>;
}

/**
 * `in_progress` while a job of the dictionary is pending or running; `interrupted` while its
 * tables hold part of the cases after a load that stopped (unless a job failed since, or that
 * load itself failed: `failed`); otherwise the outcome of its latest job that ended `completed`
 * or `failed`; `not_started` when there is none. Cancelled jobs (including starts refused with
 * TABLES_ALREADY_EXIST) that stopped no load leave the state as it was.
 */
async function breakoutState(
  store: Store,
  name: string,
  running: Set<string>,
  interruption: BreakoutInterruption | null,
): Promise<BreakoutState> {
  if (running.has(name)) return 'in_progress';
  const completed = await store.jobs.lastFinishedFor(name, 'completed');
  const failed = await store.jobs.lastFinishedFor(name, 'failed');
  if (interruption) {
    const failedSince = failed !== undefined && (failed.finishedAt ?? '') >= (interruption.stopped_at ?? '');
    return failedSince ? 'failed' : 'interrupted';
  }
  if (!completed && !failed) return 'not_started';
  if (!failed) return 'completed';
  if (!completed) return 'failed';
  return (failed.finishedAt ?? '') > (completed.finishedAt ?? '') ? 'failed' : 'completed';
}

/** `97.5%`: one decimal, rounded down so that any pending case keeps it below 100.0%. */
function percent(part: number, whole: number): string {
  if (whole === 0) return '100.0%';
  return `${(Math.floor((part * 1000) / whole) / 10).toFixed(1)}%`;
}

/**
 * Metrics of the integration API (docs/http-api.md#breakout-routes), read from the store only (no target is contacted):
 * active (not deleted) cases in all and per dictionary, the breakout state per dictionary,
 * `sync_rate`, the share of active cases already broken out (100.0% when there are no cases; the
 * spec's name, though it measures the breakout, not the sync of devices), the same share per
 * dictionary, and each dictionary's interrupted breakout.
 */
export async function metrics(store: Store): Promise<MetricsReply> {
  await reapDeadJobs(store);
  const running = new Set((await store.jobs.unfinished()).flatMap((j) => j.dictionaries));
  const reply: MetricsReply = {
    total_cases: 0,
    cases_by_dictionary: {},
    breakout_status: {},
    sync_rate: '',
    sync_rate_by_dictionary: {},
    breakout_interrupted: {},
  };
  let synced = 0;
  for (const dict of await store.dictionaries.list()) {
    const { brokenOut, active } = await casesBrokenOut(store, dict);
    const interruption = running.has(dict.name) ? null : await breakoutInterruption(store, dict);
    reply.total_cases += active;
    reply.cases_by_dictionary[dict.name] = active;
    reply.breakout_status[dict.name] = await breakoutState(store, dict.name, running, interruption);
    reply.sync_rate_by_dictionary[dict.name] = percent(brokenOut, active);
    reply.breakout_interrupted[dict.name] = interruption;
    synced += brokenOut;
  }
  reply.sync_rate = percent(synced, reply.total_cases);
  return reply;
}
