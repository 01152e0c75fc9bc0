import type { Database, Statement } from 'better-sqlite3';
import type { JobRow, JobsRepo } from './jobs-repo.js';

type NewJob = Parameters<JobsRepo['create']>[0];

/** What a breakout request of an incoming event did. */
export type RequestOutcome = { started: JobRow } | { queued: JobRow; events: number };

/**
 * Per-dictionary follow-up flags that coalesce bursts of incoming case events into one running
 * job plus at most one follow-up. Every decision reads the unfinished jobs and the flag and writes
 * in one IMMEDIATE transaction, so an event racing the end of a job is either seen by that end
 * (follow-up started) or sees the job ended (starts its own job): never lost, never doubled.
 */
export class FollowUpsRepo {
  private readonly getStmt: Statement;
  private readonly upsertStmt: Statement;
  private readonly deleteStmt: Statement;

  constructor(
    private readonly db: Database,
    private readonly jobs: JobsRepo,
  ) {
    this.getStmt = db.prepare('SELECT events FROM breakout_follow_ups WHERE dictionary_id = ?');
    this.upsertStmt = db.prepare(
      `INSERT INTO breakout_follow_ups (dictionary_id, requested_at) VALUES (?, ?)
       ON CONFLICT (dictionary_id) DO UPDATE SET events = events + 1`,
    );
    this.deleteStmt = db.prepare('DELETE FROM breakout_follow_ups WHERE dictionary_id = ?');
  }

  private busyWith(dictionary: string): JobRow | undefined {
    return this.jobs.unfinished().find((j) => j.dictionaries.includes(dictionary));
  }

  /**
   * Starts `job` (a job of one dictionary) when no job of that dictionary is pending or running,
   * clearing any flag (the new job covers every earlier event); otherwise sets the flag.
   */
  request(dictionaryId: number, job: NewJob, now: string): RequestOutcome {
    return this.db
      .transaction((): RequestOutcome => {
        const busy = this.busyWith(job.dictionaries[0]!);
        if (busy) {
          this.upsertStmt.run(dictionaryId, now);
          return { queued: busy, events: (this.getStmt.get(dictionaryId) as { events: number }).events };
        }
        this.deleteStmt.run(dictionaryId);
        return { started: this.jobs.create(job) };
      })
      .immediate();
  }

  /**
   * Ends a job (JobsRepo.finish) and, in the same transaction, turns the set flags of its
   * dictionaries into new pending jobs (`followUp` builds each). A flag whose dictionary already
   * has another unfinished job is cleared without a job: that job started after the events.
   * `ended` is false when the job had already ended (another process got there first): that
   * process took the flags.
   */
  finishAndFollowUp(
    jobId: string,
    status: Parameters<JobsRepo['finish']>[1],
    payload: Parameters<JobsRepo['finish']>[2],
    flagged: (dictionaries: string[]) => { dictionaryId: number; job: NewJob }[],
  ): { ended: boolean; started: JobRow[] } {
    return this.db
      .transaction((): { ended: boolean; started: JobRow[] } => {
        const job = this.jobs.get(jobId);
        if (!this.jobs.finish(jobId, status, payload) || !job) return { ended: false, started: [] };
        const started: JobRow[] = [];
        for (const f of flagged(job.dictionaries)) {
          if (!this.getStmt.get(f.dictionaryId)) continue;
          this.deleteStmt.run(f.dictionaryId);
          if (!this.busyWith(f.job.dictionaries[0]!)) started.push(this.jobs.create(f.job));
        }
        return { ended: true, started };
      })
      .immediate();
  }

  /** Whether a follow-up is waiting for a dictionary, and for how many events. */
  pending(dictionaryId: number): number {
    return (this.getStmt.get(dictionaryId) as { events: number } | undefined)?.events ?? 0;
  }
}
