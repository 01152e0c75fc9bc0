import type { Database } from 'better-sqlite3';
import { nowIso } from './clock.js';

export interface BreakoutCursor {
  revision: number;
  guid: string;
}

export interface BreakoutStateRow {
  target: string;
  structureHash: string;
  tables: string[];
  cursor: BreakoutCursor;
  lastJobId: string | null;
  /** The job whose load into the tables has begun and not finished (docs/breakout.md#interrupted-breakouts). */
  loadingJobId: string | null;
  updatedAt: string;
}

/** A breakout_state row as the database returns it (read by both stores). */
export interface RawState {
  target: string;
  structure_hash: string;
  tables: string;
  last_revision: number;
  last_guid: string;
  last_job_id: string | null;
  loading_job_id: string | null;
  updated_at: string;
}

/** A breakout state as the rest of sds sees it. */
export function toBreakoutState(r: RawState): BreakoutStateRow {
  return {
    target: r.target,
    structureHash: r.structure_hash,
    tables: JSON.parse(r.tables) as string[],
    cursor: { revision: r.last_revision, guid: r.last_guid },
    lastJobId: r.last_job_id,
    loadingJobId: r.loading_job_id,
    updatedAt: r.updated_at,
  };
}

/** What `reset` does to a dictionary that has a state already: the cursor back at the start. */
export const RESET_ON_CONFLICT = `ON CONFLICT (dictionary_id) DO UPDATE SET target = excluded.target, structure_hash = excluded.structure_hash,
           tables = excluded.tables, last_revision = 0, last_guid = '', last_job_id = excluded.last_job_id,
           loading_job_id = NULL, updated_at = excluded.updated_at`;

/** The incremental cursor of each dictionary's breakout. */
export class BreakoutStateRepo {
  constructor(private readonly db: Database) {}

  async get(dictionaryId: number): Promise<BreakoutStateRow | undefined> {
    const r = this.db.prepare('SELECT * FROM breakout_state WHERE dictionary_id = ?').get(dictionaryId) as RawState | undefined;
    return r && toBreakoutState(r);
  }

  /** Records freshly built tables with the cursor back at the start (and no load begun in them). */
  async reset(dictionaryId: number, target: string, structureHash: string, tables: string[], jobId: string): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO breakout_state (dictionary_id, target, structure_hash, tables, last_revision, last_guid, last_job_id, updated_at)
         VALUES (?, ?, ?, ?, 0, '', ?, ?)
         ${RESET_ON_CONFLICT}`,
      )
      .run(dictionaryId, target, structureHash, JSON.stringify(tables), jobId, nowIso());
  }

  /** Records the tables of an unchanged structure (label tables added), keeping the cursor. */
  async setTables(dictionaryId: number, tables: string[]): Promise<void> {
    this.db
      .prepare('UPDATE breakout_state SET tables = ?, updated_at = ? WHERE dictionary_id = ?')
      .run(JSON.stringify(tables), nowIso(), dictionaryId);
  }

  async advance(dictionaryId: number, cursor: BreakoutCursor, jobId: string): Promise<void> {
    this.db
      .prepare('UPDATE breakout_state SET last_revision = ?, last_guid = ?, last_job_id = ?, updated_at = ? WHERE dictionary_id = ?')
      .run(cursor.revision, cursor.guid, jobId, nowIso(), dictionaryId);
  }

  /** Records that `jobId` begins loading cases into the tables. */
  async startLoad(dictionaryId: number, jobId: string): Promise<void> {
    this.db.prepare('UPDATE breakout_state SET loading_job_id = ? WHERE dictionary_id = ?').run(jobId, dictionaryId);
  }

  /** Records that `jobId` has applied every case (a load begun by another job since is left as it is). */
  async finishLoad(dictionaryId: number, jobId: string): Promise<void> {
    this.db
      .prepare('UPDATE breakout_state SET loading_job_id = NULL WHERE dictionary_id = ? AND loading_job_id = ?')
      .run(dictionaryId, jobId);
  }

  async clear(dictionaryId: number): Promise<void> {
    this.db.prepare('DELETE FROM breakout_state WHERE dictionary_id = ?').run(dictionaryId);
  }
}
