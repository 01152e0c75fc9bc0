import type { Store } from '../../../store/open-store.js';
import { AppError } from '../../../shared/errors.js';
import { requireDictionary } from '../../dictionaries/index.js';
import { spawnJobProcess } from './job-process.js';
import { createJob, parseThreads } from './jobs.js';

/** Modes of `POST /api/breakout/trigger`: `selective` is the spec's (incremental); `full` rebuilds. */
export const TRIGGER_MODES = ['selective', 'full'] as const;

/** Trigger reply of docs/http-api.md#breakout-routes. */
export interface TriggerReply {
  status: 'started';
  job_id: string;
  dictionary: string;
  started_at: string;
}

/**
 * Starts a background breakout of one dictionary for an integration system (docs/http-api.md#breakout-routes, trigger).
 * `selective` (the default) is the incremental run of `sds process-cases-by-dict`: tables are
 * created when absent, then only the cases changed since the last run are applied. `full` drops
 * and rebuilds the tables and loads every case (start with overwrite). Refused with BREAKOUT_BUSY
 * while a job of the same dictionary is pending or running, as every start is.
 */
export async function triggerBreakout(
  store: Store,
  input: { dictionary: string; mode?: unknown; threads?: unknown; origin?: string },
  opts: { spawn?: boolean } = {},
): Promise<TriggerReply> {
  const dict = await requireDictionary(store, input.dictionary);
  const mode = input.mode === undefined ? 'selective' : input.mode;
  if (!(TRIGGER_MODES as readonly unknown[]).includes(mode)) {
    throw new AppError('USAGE', `mode must be one of ${TRIGGER_MODES.join(', ')}; got ${JSON.stringify(mode)}`, { field: 'mode' });
  }
  const threads = input.threads === undefined ? 1 : parseThreads(input.threads);
  const full = mode === 'full';
  const job = await createJob(store, {
    dictionaries: [dict.name],
    mode: full ? 'full' : 'incremental',
    threads,
    overwrite: full,
    origin: input.origin ?? 'api-trigger',
  });
  if (opts.spawn !== false) await spawnJobProcess(store, job.id);
  return { status: 'started', job_id: job.id, dictionary: dict.name, started_at: job.createdAt };
}
