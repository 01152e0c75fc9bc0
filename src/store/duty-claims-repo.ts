import type { Database, Statement } from 'better-sqlite3';

/** Who holds one slot of a duty (docs/decisions.md, "Duties across nodes (issue 29)"). */
export interface DutyClaim {
  duty: string;
  slot: string;
  node: string;
  claimedAt: string;
}

/** A duty_claims row as DutyClaim (aliases quoted so both stores return camelCase). */
export const DUTY_CLAIM_COLUMNS = 'duty, slot, node, claimed_at AS "claimedAt"';

/**
 * The claims of shared duties: one row per (duty, slot), inserted only when absent, so of several
 * nodes or processes claiming the same due run or period exactly one gets it. Older slots of the
 * duty go as a newer one is claimed: a slot is claimed at or after its time, and time only moves
 * on, so an older slot is never due again.
 */
export class DutyClaimsRepo {
  private readonly insertStmt: Statement<[string, string, string, string]>;
  private readonly dropOlderStmt: Statement<[string, string]>;

  constructor(private readonly db: Database) {
    this.insertStmt = db.prepare('INSERT INTO duty_claims (duty, slot, node, claimed_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    this.dropOlderStmt = db.prepare('DELETE FROM duty_claims WHERE duty = ? AND slot < ?');
  }

  /**
   * Claims `slot` of `duty` for `node`: true when this call inserted the row, false when a claim
   * of the slot was there. One IMMEDIATE transaction (or the caller's), so two claimers serialise
   * on SQLite's write lock and the second finds the row.
   */
  async claim(duty: string, slot: string, node: string, claimedAt: string): Promise<boolean> {
    return this.db
      .transaction(() => {
        if (this.insertStmt.run(duty, slot, node, claimedAt).changes === 0) return false;
        this.dropOlderStmt.run(duty, slot);
        return true;
      })
      .immediate();
  }

  /** The claims of `duty`, oldest slot first. */
  async claims(duty: string): Promise<DutyClaim[]> {
    return this.db.prepare(`SELECT ${DUTY_CLAIM_COLUMNS} FROM duty_claims WHERE duty = ? ORDER BY slot`).all(duty) as DutyClaim[];
  }
}
