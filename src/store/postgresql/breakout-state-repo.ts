/**
 * The incremental cursor of each dictionary's breakout on PostgreSQL
 * (docs/architecture.md#the-store-contract); the SQLite class is the reference. Every method is
 * one statement: a breakout holds its dictionary's job while it moves the cursor.
 */
import { nowIso } from '../clock.js';
import type { RepoContract } from '../store-contract.js';
import {
  RESET_ON_CONFLICT,
  toBreakoutState,
  type BreakoutCursor,
  type BreakoutStateRepo,
  type BreakoutStateRow,
  type RawState,
} from '../breakout-state-repo.js';
import type { PgRunner } from './pg-runner.js';

/** The breakout states of a PostgreSQL store (see BreakoutStateRepo). */
export class PgBreakoutStateRepo implements RepoContract<BreakoutStateRepo> {
  constructor(private readonly db: PgRunner) {}

  /** The state of a dictionary's breakout, if it has one. */
  async get(dictionaryId: number): Promise<BreakoutStateRow | undefined> {
    const r = await this.db.row<RawState>('SELECT * FROM breakout_state WHERE dictionary_id = $1', [dictionaryId]);
    return r && toBreakoutState(r);
  }

  /** Records freshly built tables with the cursor back at the start (and no load begun in them). */
  async reset(dictionaryId: number, target: string, structureHash: string, tables: string[], jobId: string): Promise<void> {
    await this.db.run(
      `INSERT INTO breakout_state (dictionary_id, target, structure_hash, tables, last_revision, last_guid, last_job_id, updated_at)
       VALUES ($1, $2, $3, $4, 0, '', $5, $6)
       ${RESET_ON_CONFLICT}`,
      [dictionaryId, target, structureHash, JSON.stringify(tables), jobId, nowIso()],
    );
  }

  /** Records the tables of an unchanged structure (label tables added), keeping the cursor. */
  async setTables(dictionaryId: number, tables: string[]): Promise<void> {
    await this.db.run('UPDATE breakout_state SET tables = $1, updated_at = $2 WHERE dictionary_id = $3', [
      JSON.stringify(tables),
      nowIso(),
      dictionaryId,
    ]);
  }

  /** Moves the cursor on, as the job `jobId` applied the cases up to it. */
  async advance(dictionaryId: number, cursor: BreakoutCursor, jobId: string): Promise<void> {
    await this.db.run(
      'UPDATE breakout_state SET last_revision = $1, last_guid = $2, last_job_id = $3, updated_at = $4 WHERE dictionary_id = $5',
      [cursor.revision, cursor.guid, jobId, nowIso(), dictionaryId],
    );
  }

  /** Records that `jobId` begins loading cases into the tables. */
  async startLoad(dictionaryId: number, jobId: string): Promise<void> {
    await this.db.run('UPDATE breakout_state SET loading_job_id = $1 WHERE dictionary_id = $2', [jobId, dictionaryId]);
  }

  /** Records that `jobId` has applied every case (a load begun by another job since is left as it is). */
  async finishLoad(dictionaryId: number, jobId: string): Promise<void> {
    await this.db.run('UPDATE breakout_state SET loading_job_id = NULL WHERE dictionary_id = $1 AND loading_job_id = $2', [
      dictionaryId,
      jobId,
    ]);
  }

  /** Forgets a dictionary's breakout state. */
  async clear(dictionaryId: number): Promise<void> {
    await this.db.run('DELETE FROM breakout_state WHERE dictionary_id = $1', [dictionaryId]);
  }
}
