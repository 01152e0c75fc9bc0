import type { StoreScope } from '../../store/store-contract.js';
import type { DictionaryRow } from '../../store/dictionaries-repo.js';

/**
 * A breakout of a dictionary whose load stopped before it had applied every case: cancelled
 * (Ctrl-C, SIGTERM, `breakout cancel`, a scheduled run's time limit), failed, or killed
 * (docs/breakout.md#interrupted-breakouts). Every report of the dictionary says so, so that
 * tables holding part of the cases are never taken for done.
 */
export interface BreakoutInterruption {
  /** The job whose load stopped. */
  job_id: string;
  /** How that job ended; null when its record is gone (pruned with the old logs). */
  job_status: 'cancelled' | 'failed' | 'completed' | null;
  /** When it ended (ISO 8601 UTC); null when its record is gone. */
  stopped_at: string | null;
  /** Active cases the target holds: those at or below the saved breakout cursor. */
  processed_cases: number;
  /** Active (not deleted) cases of the dictionary. */
  total_cases: number;
  /** `interrupted at 46,000 of 100,000 cases, resume with an incremental breakout (…)`. */
  message: string;
}

/**
 * Active cases of a dictionary already applied to its target: those at or below the breakout
 * cursor. A case changed (or added) after the last run is above the cursor, so it counts as
 * pending until the next run. No breakout state (never run, or tables dropped) means none.
 */
export async function casesBrokenOut(store: StoreScope, dict: DictionaryRow): Promise<{ brokenOut: number; active: number }> {
  const active = await store.cases.countActive(dict.id);
  const state = await store.breakoutState.get(dict.id);
  if (!state) return { brokenOut: 0, active };
  const pending = await store.cases.countChanged(dict.id, state.cursor, await store.cases.maxRevision(dict.id), true);
  return { brokenOut: Math.max(0, active - pending), active };
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The interrupted breakout of a dictionary, or null: none began, the last load finished, or it
 * is still pending or running (callers reap dead jobs first, so a killed job reads as failed).
 * With `target` (a target's identity), only a load into that target counts. The message names
 * the incremental run that resumes from the saved cursor in the spec's words (the
 * process-cases-by-dict command, the selective trigger); the CLI adds its own command line.
 */
export async function breakoutInterruption(store: StoreScope, dict: DictionaryRow, target?: string): Promise<BreakoutInterruption | null> {
  const state = await store.breakoutState.get(dict.id);
  if (!state?.loadingJobId || (target !== undefined && state.target !== target)) return null;
  const job = await store.jobs.get(state.loadingJobId);
  const status = job?.status ?? null;
  if (status === 'pending' || status === 'running') return null;
  const { brokenOut, active } = await casesBrokenOut(store, dict);
  return {
    job_id: state.loadingJobId,
    job_status: status,
    stopped_at: job?.finishedAt ?? null,
    processed_cases: brokenOut,
    total_cases: active,
    message:
      `interrupted at ${count(brokenOut)} of ${count(active)} cases, resume with an incremental breakout ` +
      `(process-cases-by-dict ${dict.name}, or the trigger in mode selective)`,
  };
}
