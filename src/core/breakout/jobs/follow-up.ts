import { randomUUID } from 'node:crypto';
import type { Store } from '../../../store/open-store.js';
import type { JobError, JobResult, JobRow } from '../../../store/jobs-repo.js';
import { processAlive, spawnJobProcess } from './job-process.js';
import { logJobFailure } from '../log.js';
import { jobLogName, storeFinishedLog } from '../../logs/index.js';

/** Origin of the jobs started for case events that arrived while another job ran. */
export const FOLLOW_UP_ORIGIN = 'webhook-follow-up';

/**
 * Ends a job and starts the follow-ups it owes: for each of its dictionaries whose follow-up
 * flag was set by incoming case events while it ran, the flag is cleared and one incremental job
 * is created, in the same store transaction as the end (see FollowUpsRepo), then spawned. A
 * cancelled job starts none: the operator asked to stop; the flag stays and the next event or the
 * next job end of the dictionary takes it.
 */
export async function finishJob(
  store: Store,
  jobId: string,
  status: 'completed' | 'failed' | 'cancelled',
  payload: { result?: JobResult; error?: JobError; warnings?: number },
  opts: { spawn?: boolean; now?: () => Date } = {},
): Promise<{ ended: boolean; started: JobRow[] }> {
  if (status === 'cancelled') return { ended: await store.jobs.finish(jobId, status, payload), started: [] };
  const { ended, started } = await store.followUps.finishAndFollowUp(jobId, status, payload, (name) => ({
    id: randomUUID(),
    dictionaries: [name],
    mode: 'incremental' as const,
    threads: 1,
    overwrite: false,
    origin: FOLLOW_UP_ORIGIN,
  }));
  const at = (opts.now ?? (() => new Date()))().toISOString();
  for (const job of started) {
    const dictionary = job.dictionaries[0]!;
    try {
      await store.breakoutLog.add({
        jobId: job.id,
        dictionary,
        level: 'info',
        message: `${dictionary}: follow-up incremental job ${job.id} created for case events received while job ${jobId} ran`,
        progress: 0,
        createdAt: at,
      });
    } catch {
      // the log entry is a courtesy; the job is what matters
    }
    // A spawn failure leaves the job pending without a process: the reaper fails it, and the
    // next event of the dictionary starts a new one.
    if (opts.spawn !== false) {
      try {
        await spawnJobProcess(store, job.id);
      } catch {
        // see above
      }
    }
  }
  return { ended, started };
}

/** How long a job may stay pending without a process before it is declared dead. */
const PENDING_GRACE_MS = 60_000;

/**
 * Marks failed every unfinished job whose process is gone (killed, crashed, machine restarted),
 * so no job shows `running` forever, and starts the follow-up that incoming case events queued
 * behind it, as any other end of the job would; whatever of its log file is on this machine goes
 * into the store's file store. Called before any job is reported.
 */
export async function reapDeadJobs(store: Store, now = Date.now(), opts: { spawn?: boolean } = {}): Promise<void> {
  for (const job of await store.jobs.unfinished()) {
    const dead = job.pid !== null ? !processAlive(job.pid) : now - Date.parse(job.createdAt) > PENDING_GRACE_MS;
    if (!dead) continue;
    const error = {
      code: 'BRK-002',
      message: job.pid !== null ? `the job process (pid ${job.pid}) ended without finishing the job` : 'the job process never started',
      details: JSON.stringify({ pid: job.pid, last_progress: job.progress }),
    };
    if ((await finishJob(store, job.id, 'failed', { error }, { spawn: opts.spawn, now: () => new Date(now) })).ended) {
      await logJobFailure(store, job, error);
      await storeFinishedLog(store, jobLogName(job.id));
    }
  }
}
