/**
 * Breakout follow-up flags on PostgreSQL (docs/architecture.md#the-store-contract); the SQLite
 * class is the reference. Each decision reads the unfinished jobs and the flag and writes in one
 * transaction that first takes the breakout claim lock of the jobs repository, so an event racing
 * the end of a job, another event or a breakout being started is ordered with it as SQLite's one
 * writer orders them (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import type { FollowUpsRepo, RequestOutcome } from '../follow-ups-repo.js';
import type { JobRow, JobsRepo, NewJob } from '../jobs-repo.js';
import type { RepoContract } from '../store-contract.js';
import { lockBreakoutClaims, pgJobStatements } from './jobs-repo.js';
import type { PgRunner } from './pg-runner.js';

/** The unfinished job of `dictionary`, if any. */
async function busyWith(r: PgRunner, dictionary: string): Promise<JobRow | undefined> {
  return (await pgJobStatements.unfinished(r)).find((j) => j.dictionaries.includes(dictionary));
}

async function deleteFlag(r: PgRunner, dictionaryId: number): Promise<void> {
  await r.run('DELETE FROM breakout_follow_ups WHERE dictionary_id = $1', [dictionaryId]);
}

/** The follow-up flags of a PostgreSQL store (see FollowUpsRepo). */
export class PgFollowUpsRepo implements RepoContract<FollowUpsRepo> {
  constructor(private readonly db: PgRunner) {}

  /**
   * Starts `job` (a job of one dictionary) when no job of that dictionary is pending or running,
   * clearing any flag; otherwise sets the flag (counting the events). All under the claim lock.
   */
  async request(dictionaryId: number, job: NewJob, now: string): Promise<RequestOutcome> {
    return this.db.atomic(async (r): Promise<RequestOutcome> => {
      await lockBreakoutClaims(r);
      const busy = await busyWith(r, job.dictionaries[0]!);
      if (busy) {
        const flag = await r.row<{ events: number }>(
          `INSERT INTO breakout_follow_ups (dictionary_id, requested_at) VALUES ($1, $2)
           ON CONFLICT (dictionary_id) DO UPDATE SET events = breakout_follow_ups.events + 1 RETURNING events`,
          [dictionaryId, now],
        );
        return { queued: busy, events: flag!.events };
      }
      await deleteFlag(r, dictionaryId);
      return { started: await pgJobStatements.create(r, job) };
    });
  }

  /**
   * Ends a job and, in the same transaction, turns the set flags of its dictionaries into new
   * pending jobs (see FollowUpsRepo.finishAndFollowUp). The claim lock is taken before the job
   * ends: an event that saw the job unfinished has set its flag before this reads the flags, and
   * one that comes after sees the job ended.
   */
  async finishAndFollowUp(
    jobId: string,
    status: Parameters<JobsRepo['finish']>[1],
    payload: Parameters<JobsRepo['finish']>[2],
    followUp: (dictionary: string) => NewJob,
  ): Promise<{ ended: boolean; started: JobRow[] }> {
    return this.db.atomic(async (r): Promise<{ ended: boolean; started: JobRow[] }> => {
      await lockBreakoutClaims(r);
      const job = await pgJobStatements.get(r, jobId);
      if (!(await pgJobStatements.finish(r, jobId, status, payload)) || !job) return { ended: false, started: [] };
      const started: JobRow[] = [];
      for (const name of job.dictionaries) {
        const flagged = await r.row<{ id: number }>(
          'SELECT d.id FROM dictionaries d JOIN breakout_follow_ups f ON f.dictionary_id = d.id WHERE d.name = $1',
          [name],
        );
        if (!flagged) continue;
        await deleteFlag(r, flagged.id);
        const next = followUp(name);
        if (!(await busyWith(r, next.dictionaries[0]!))) started.push(await pgJobStatements.create(r, next));
      }
      return { ended: true, started };
    });
  }

  /** Whether a follow-up is waiting for a dictionary, and for how many events. */
  async pending(dictionaryId: number): Promise<number> {
    return (
      (await this.db.row<{ events: number }>('SELECT events FROM breakout_follow_ups WHERE dictionary_id = $1', [dictionaryId]))?.events ??
      0
    );
  }
}
