/**
 * Refresh tokens on the PostgreSQL store: the same answers as the SQLite RefreshTokensRepo
 * (docs/architecture.md#the-store-contract).
 */
import {
  refreshTokenInsertSql,
  refreshTokenParams,
  toRefreshToken,
  type NewRefreshToken,
  type RawRefreshToken,
  type RefreshTokenRow,
  type RefreshTokensRepo,
} from '../refresh-tokens-repo.js';
import type { RepoContract } from '../store-contract.js';
import type { PgRunner } from './pg-runner.js';

const INSERT_SQL = refreshTokenInsertSql('$1, $2, $3, $4, $5, $6, $7, $8, $9');

/** Refresh tokens of the OAuth endpoint, grouped in families, in PostgreSQL. */
export class PgRefreshTokensRepo implements RepoContract<RefreshTokensRepo> {
  constructor(private readonly db: PgRunner) {}

  async insert(t: NewRefreshToken): Promise<void> {
    await this.db.run(INSERT_SQL, refreshTokenParams(t));
  }

  async findByHash(tokenHash: string): Promise<RefreshTokenRow | undefined> {
    const r = await this.db.row<RawRefreshToken>('SELECT * FROM refresh_tokens WHERE token_hash = $1', [tokenHash]);
    return r && toRefreshToken(r);
  }

  /**
   * Marks `oldId` replaced and stores its successor, all or nothing. Returns false when the old
   * token was replaced or revoked meanwhile. Two refreshes of one token at once: the conditional
   * UPDATE locks the row, the second waits for the first to commit, re-checks `replaced_at IS
   * NULL` on the row as committed and changes nothing, so exactly one wins (docs/decisions.md,
   * "Concurrent writers on the PostgreSQL store").
   */
  async rotate(oldId: number, next: NewRefreshToken, now: number): Promise<boolean> {
    return this.db.atomic(async (r) => {
      const changed = await r.run(
        'UPDATE refresh_tokens SET replaced_at = $1 WHERE id = $2 AND replaced_at IS NULL AND revoked_at IS NULL',
        [now, oldId],
      );
      if (changed !== 1) return false;
      await r.run(INSERT_SQL, refreshTokenParams(next));
      return true;
    });
  }

  /** Revokes every token of a family; returns how many were still unrevoked. */
  async revokeFamily(familyId: string, now: number): Promise<number> {
    return this.db.run('UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL', [now, familyId]);
  }

  /** Revokes every unrevoked token of an account; returns how many. */
  async revokeUser(userId: number, now: number): Promise<number> {
    return this.db.run('UPDATE refresh_tokens SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL', [now, userId]);
  }

  /** Deletes expired rows; a replaced token is kept until it expires, so its reuse is still detected. */
  async purgeExpired(now: number): Promise<number> {
    return this.db.run('DELETE FROM refresh_tokens WHERE expires_at <= $1', [now]);
  }
}
