/**
 * Breakout targets on the PostgreSQL store: the same answers as the SQLite TargetsRepo
 * (docs/architecture.md#the-store-contract). Each method is one statement; `set` is an upsert, atomic on its own.
 */
import type { RepoContract } from '../store-contract.js';
import { targetParams, targetUpsertSql, toTarget, type RawTarget, type TargetRow, type TargetsRepo } from '../targets-repo.js';
import { nowIso } from '../clock.js';
import type { PgRunner } from './pg-runner.js';

const UPSERT_SQL = targetUpsertSql('$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16');

/** Breakout targets, one per dictionary, in PostgreSQL. */
export class PgTargetsRepo implements RepoContract<TargetsRepo> {
  constructor(private readonly db: PgRunner) {}

  async get(dictionaryId: number): Promise<TargetRow | undefined> {
    const r = await this.db.row<RawTarget>('SELECT * FROM targets WHERE dictionary_id = $1', [dictionaryId]);
    return r && toTarget(r);
  }

  async set(dictionaryId: number, t: Omit<TargetRow, 'createdAt' | 'updatedAt'>): Promise<void> {
    await this.db.run(UPSERT_SQL, targetParams(dictionaryId, t, nowIso()));
  }

  async clear(dictionaryId: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM targets WHERE dictionary_id = $1', [dictionaryId])) > 0;
  }
}
