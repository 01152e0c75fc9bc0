import type { Database, Statement } from 'better-sqlite3';
import { jobStatements, type JobRow, type JobsRepo, type NewJob } from './jobs-repo.js';

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
  private readonly dictionaryIdStmt: Statement<[string], { id: number }>;

  constructor(private readonly db: Database) {
    this.getStmt = db.prepare('SELECT events FROM breakout_follow_ups WHERE dictionary_id = ?');
    this.upsertStmt = db.prepare(
      `INSERT INTO breakout_follow_ups (dictionary_id, requested_at) VALUES (?, ?)
       ON CONFLICT (dictionary_id) DO UPDATE SET events = events + 1`,
    );
    this.deleteStmt = db.prepare('DELETE FROM breakout_follow_ups WHERE dictionary_id = ?');
    this.dictionaryIdStmt = db.prepare('SELECT id FROM dictionaries WHERE name = ?');
  }

  private busyWith(dictionary: string): JobRow | undefined {
    return jobStatements.unfinished(this.db).find((j) => j.dictionaries.includes(dictionary));
  }

  /**
   * Starts `job` (a job of one dictionary) when no job of that dictionary is pending or running,
   * clearing any flag (the new job covers every earlier event); otherwise sets the flag.
   */
  async request(dictionaryId: number, job: NewJob, now: string): Promise<RequestOutcome> {
    return this.db
      .transaction((): RequestOutcome => {
        const busy = this.busyWith(job.dictionaries[0]!);
        if (busy) {
          this.upsertStmt.run(dictionaryId, now);
          return { queued: busy, events: (this.getStmt.get(dictionaryId) as { events: number }).events };
        }
        this.deleteStmt.run(dictionaryId);
        return { started: jobStatements.create(this.db, job) };
      })
      .immediate();
  }

  /**
   * Ends a job (JobsRepo.finish) and, in the same transaction, turns the set flags of its
   * dictionaries (those still in the store) into new pending jobs: `followUp` builds each from
   * the dictionary's name (pure: it runs inside the transaction). A flag whose dictionary already
   * has another unfinished job is cleared without a job: that job started after the events.
   * `ended` is false when the job had already ended (another process got there first): that
   * process took the flags.
   */
  async finishAndFollowUp(
    jobId: string,
    status: Parameters<JobsRepo['finish']>[1],
    payload: Parameters<JobsRepo['finish']>[2],
    followUp: (dictionary: string) => NewJob,
  ): Promise<{ ended: boolean; started: JobRow[] }> {
    return this.db
      .transaction((): { ended: boolean; started: JobRow[] } => {
        const job = jobStatements.get(this.db, jobId);
        if (!jobStatements.finish(this.db, jobId, status, payload) || !job) return { ended: false, started: [] };
        const started: JobRow[] = [];
        for (const name of job.dictionaries) {
          const dictionaryId = this.dictionaryIdStmt.get(name)?.id;
          if (dictionaryId === undefined || !this.getStmt.get(dictionaryId)) continue;
          this.deleteStmt.run(dictionaryId);
          const next = followUp(name);
          if (!this.busyWith(next.dictionaries[0]!)) started.push(jobStatements.create(this.db, next));
        }
        return { ended: true, started };
      })
      .immediate();
  }

  /** Whether a follow-up is waiting for a dictionary, and for how many events. */
  async pending(dictionaryId: number): Promise<number> {
    return (this.getStmt.get(dictionaryId) as { events: number } | undefined)?.events ?? 0;
  }
}
