import type { Store } from '../../store/open-store.js';
import type { DictionaryRow } from '../../store/dictionaries-repo.js';
import { reapDeadJobs } from '../breakout/index.js';

/** Breakout state of a dictionary in the metrics (docs/http-api.md#breakout-routes shows `completed` and `in_progress`). */
type BreakoutState = 'in_progress' | 'completed' | 'failed' | 'not_started';

/** Metrics reply of docs/http-api.md#breakout-routes. */
export interface MetricsReply {
  total_cases: number;
  cases_by_dictionary: Record<string, number>;
  breakout_status: Record<string, BreakoutState>;
  sync_rate: string;
}

/**
 * `in_progress` while a job of the dictionary is pending or running; otherwise the outcome of its
 * latest job that ended `completed` or `failed`; `not_started` when there is none. Cancelled jobs
 * (including starts refused with TABLES_ALREADY_EXIST) leave the state as it was.
 */
function breakoutState(store: Store, name: string, running: Set<string>): BreakoutState {
  if (running.has(name)) return 'in_progress';
  const completed = store.jobs.lastFinishedFor(name, 'completed');
  const failed = store.jobs.lastFinishedFor(name, 'failed');
  if (!completed && !failed) return 'not_started';
  if (!failed) return 'completed';
  if (!completed) return 'failed';
  return (failed.finishedAt ?? '') > (completed.finishedAt ?? '') ? 'failed' : 'completed';
}

/**
 * Active cases of a dictionary already applied to its target: those at or below the breakout
 * cursor. A case changed (or added) after the last run is above the cursor, so it counts as
 * pending until the next run. No breakout state (never run, or tables dropped) means none.
 */
function brokenOut(store: Store, dict: DictionaryRow, active: number): number {
  const state = store.breakoutState.get(dict.id);
  if (!state) return 0;
  const pending = store.cases.countChanged(dict.id, state.cursor, store.cases.maxRevision(dict.id), true);
  return Math.max(0, active - pending);
}

/** `97.5%`: one decimal, rounded down so that any pending case keeps it below 100.0%. */
function percent(part: number, whole: number): string {
  if (whole === 0) return '100.0%';
  return `${(Math.floor((part * 1000) / whole) / 10).toFixed(1)}%`;
}

/**
 * Metrics of the integration API (docs/http-api.md#breakout-routes), read from the store only (no target is contacted):
 * active (not deleted) cases in all and per dictionary, the breakout state per dictionary, and
 * `sync_rate`, the share of active cases already broken out (100.0% when there are no cases).
 */
export function metrics(store: Store): MetricsReply {
  reapDeadJobs(store);
  const running = new Set(store.jobs.unfinished().flatMap((j) => j.dictionaries));
  const reply: MetricsReply = { total_cases: 0, cases_by_dictionary: {}, breakout_status: {}, sync_rate: '' };
  let synced = 0;
  for (const dict of store.dictionaries.list()) {
    const active = store.cases.countActive(dict.id);
    reply.total_cases += active;
    reply.cases_by_dictionary[dict.name] = active;
    reply.breakout_status[dict.name] = breakoutState(store, dict.name, running);
    synced += brokenOut(store, dict, active);
  }
  reply.sync_rate = percent(synced, reply.total_cases);
  return reply;
}
