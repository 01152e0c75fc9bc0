import { randomUUID } from 'node:crypto';
import type { Store } from '../../../store/open-store.js';
import type { JobError, JobResult, JobRow } from '../../../store/jobs-repo.js';
import { processAlive, spawnJobProcess } from './job-process.js';
import { logJobFailure, progressPercent } from '../log.js';
import { jobLogName, storeFinishedLog } from '../../logs/index.js';
import { currentNode, type NodeIdentity } from '../../../shared/node-id.js';
import { claimJob } from './job-lease.js';
import { jobLeaseSettings, type JobLeaseSettings } from './lease-settings.js';

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

/** Options of a reap: who reaps, with which lease settings, and whether a job taken over is spawned here. */
export interface ReapOptions {
  /** Start a process for each job taken over (default true); tests run it in their own process. */
  spawn?: boolean;
  /** The reaping node (default this process's). */
  node?: NodeIdentity;
  leases?: JobLeaseSettings;
  /** Told of each job taken over or failed (a server's log). */
  log?: (line: string) => void;
}

/**
 * Looks after every unfinished job whose node or process is gone (killed, crashed, machine
 * restarted), so no job shows `running` forever. A job held by a lease (docs/breakout.md#leases)
 * is taken over once its lease is over: held by a process of this host that no longer runs (this
 * host's processes are checked by pid, whatever their lease), or, held on another host, expired
 * (another host's pid means nothing here). The taker claims it and hands it to a new job process, which resumes from its
 * cursor; after `maxTakeovers` takeovers it is failed instead (BRK-002). A job without a lease
 * (started before leases, or never handed to a process) is failed when its process is gone, as
 * before. A failed job's follow-up starts as at any other end, and whatever of its log file is
 * on this machine goes into the store's file store. Called before any job is reported, and
 * periodically by every `sds serve`.
 */
export async function reapDeadJobs(store: Store, now = Date.now(), opts: ReapOptions = {}): Promise<void> {
  const node = opts.node ?? currentNode();
  let leases = opts.leases;
  for (const job of await store.jobs.unfinished()) {
    if (job.leaseNode !== null) {
      leases ??= jobLeaseSettings(store.home);
      await takeOverIfOver(store, job, now, { ...opts, node, leases });
      continue;
    }
    const dead = job.pid !== null ? !processAlive(job.pid) : now - Date.parse(job.createdAt) > PENDING_GRACE_MS;
    if (!dead) continue;
    const error = {
      code: 'BRK-002',
      message: job.pid !== null ? `the job process (pid ${job.pid}) ended without finishing the job` : 'the job process never started',
      details: JSON.stringify({ pid: job.pid, last_progress: job.progress }),
    };
    await failDeadJob(store, job, error, now, opts.spawn);
  }
}

async function failDeadJob(store: Store, job: JobRow, error: JobError, now: number, spawn: boolean | undefined): Promise<void> {
  if ((await finishJob(store, job.id, 'failed', { error }, { spawn, now: () => new Date(now) })).ended) {
    await logJobFailure(store, job, error);
    await storeFinishedLog(store, jobLogName(job.id));
  }
}

/**
 * Whether the lease holder is a process of this host (its pid is the job's, the claimer's): then
 * its liveness decides, not the lease, since a process blocked in a synchronous wait (a SQLite
 * target's busy timeout) cannot renew but is not dead.
 */
export function localHolder(job: JobRow, host: string): boolean {
  return job.leaseNode?.startsWith(`${host}:`) === true && job.pid !== null;
}

async function takeOverIfOver(
  store: Store,
  job: JobRow,
  now: number,
  opts: ReapOptions & { node: NodeIdentity; leases: JobLeaseSettings },
): Promise<void> {
  const local = localHolder(job, opts.node.host);
  const gone = local && !processAlive(job.pid!);
  if (local ? !gone : job.leaseExpiresAt! >= new Date(now).toISOString()) return;
  const from = job.leaseNode!;
  const claimed = await claimJob(store, {
    id: job.id,
    node: opts.node.id,
    now: new Date(now),
    leases: opts.leases,
    deadNodes: gone ? [from] : [],
  });
  // Another node took it first, or its holder renewed in time.
  if (!claimed) return;
  // Stopped on purpose (a signal or `breakout cancel` set the flag first: run-job.ts) and gone
  // before it recorded the end: the stop stands, nothing resumes it (docs/breakout.md#leases).
  if (claimed.cancelRequested) {
    opts.log?.(`sds: breakout job ${job.id} cancelled: it was asked to stop and its process ended first`);
    if ((await finishJob(store, job.id, 'cancelled', {}, { spawn: opts.spawn, now: () => new Date(now) })).ended)
      await storeFinishedLog(store, jobLogName(job.id));
    return;
  }
  const why = gone ? `its process (pid ${job.pid}) is gone` : `its lease expired at ${job.leaseExpiresAt}`;
  if (claimed.takeovers > opts.leases.maxTakeovers) {
    const error = {
      code: 'BRK-002',
      message: `the job's node ended without finishing the job ${claimed.takeovers} times (last ${from}: ${why}); it is not taken over again`,
      details: JSON.stringify({ node: from, pid: job.pid, takeovers: claimed.takeovers, last_progress: job.progress }),
    };
    opts.log?.(`sds: breakout job ${job.id} failed: ${error.message}`);
    await failDeadJob(store, claimed, error, now, opts.spawn);
    return;
  }
  const line = `job ${job.id} taken over by node ${opts.node.id} from node ${from} (${why}); it resumes from its saved cursor`;
  opts.log?.(`sds: breakout ${line}`);
  try {
    await store.breakoutLog.add({
      jobId: job.id,
      dictionary: job.progress?.dictionary ?? job.dictionaries[0]!,
      level: 'warn',
      message: line,
      // A percent: a count of cases above 100 broke the store's CHECK and lost the entry.
      progress: progressPercent(job.progress),
      createdAt: new Date(now).toISOString(),
    });
  } catch {
    // the log entry is a courtesy; the job is what matters
  }
  // A spawn that fails leaves the job held by this node: its lease runs out and the next sweep takes it.
  if (opts.spawn !== false) await spawnJobProcess(store, job.id, { handoffFrom: opts.node.id }).catch(() => undefined);
}
