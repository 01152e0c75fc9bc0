/**
 * The claims of shared duties on PostgreSQL: the SQLite DutyClaimsRepo (../duty-claims-repo.ts)
 * translated (docs/decisions.md, "Duties across nodes (issue 29)").
 */
import { DUTY_CLAIM_COLUMNS, type DutyClaim, type DutyClaimsRepo } from '../duty-claims-repo.js';
import type { RepoContract } from '../store-contract.js';
import type { PgRunner } from './pg-runner.js';

/** The claims of shared duties of a PostgreSQL store (see DutyClaimsRepo). */
export class PgDutyClaimsRepo implements RepoContract<DutyClaimsRepo> {
  constructor(private readonly db: PgRunner) {}

  /**
   * Claims `slot` of `duty` for `node`: true when this call inserted the row. Of two transactions
   * inserting the same key the second waits on the primary key until the first ends, then inserts
   * nothing (ON CONFLICT DO NOTHING): one claimer wins, however they interleave.
   */
  async claim(duty: string, slot: string, node: string, claimedAt: string): Promise<boolean> {
    return this.db.atomic(async (r) => {
      const inserted = await r.run(
        'INSERT INTO duty_claims (duty, slot, node, claimed_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [duty, slot, node, claimedAt],
      );
      if (inserted === 0) return false;
      await r.run('DELETE FROM duty_claims WHERE duty = $1 AND slot < $2', [duty, slot]);
      return true;
    });
  }

  /** The claims of `duty`, oldest slot first. */
  async claims(duty: string): Promise<DutyClaim[]> {
    return this.db.rows<DutyClaim & Record<string, unknown>>(
      `SELECT ${DUTY_CLAIM_COLUMNS} FROM duty_claims WHERE duty = $1 ORDER BY slot`,
      [duty],
    );
  }
}
