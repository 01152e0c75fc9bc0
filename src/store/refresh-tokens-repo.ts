import type { Database } from 'better-sqlite3';

/** A stored refresh token: its hash, never the token itself. Times are epoch milliseconds. */
export interface RefreshTokenRow {
  id: number;
  tokenHash: string;
  familyId: string;
  userId: number;
  /** Kept beside user_id so the owner is found with the users repo; user_id cascades deletion. */
  username: string;
  clientId: string | null;
  credentialStamp: string;
  /** The account's token version at login: a later one (a disable, a new role) ends the token. */
  tokenVersion: number;
  issuedAt: number;
  expiresAt: number;
  replacedAt: number | null;
  revokedAt: number | null;
}

export type NewRefreshToken = Omit<RefreshTokenRow, 'id' | 'replacedAt' | 'revokedAt'>;

/** A `refresh_tokens` row as both stores return it. */
export interface RawRefreshToken {
  id: number;
  token_hash: string;
  family_id: string;
  user_id: number;
  username: string;
  client_id: string | null;
  credential_stamp: string;
  token_version: number;
  issued_at: number;
  expires_at: number;
  replaced_at: number | null;
  revoked_at: number | null;
}

/** The token a `refresh_tokens` row holds (shared by the PostgreSQL store). */
export function toRefreshToken(r: RawRefreshToken): RefreshTokenRow {
  return {
    id: r.id,
    tokenHash: r.token_hash,
    familyId: r.family_id,
    userId: r.user_id,
    username: r.username,
    clientId: r.client_id,
    credentialStamp: r.credential_stamp,
    tokenVersion: r.token_version,
    issuedAt: r.issued_at,
    expiresAt: r.expires_at,
    replacedAt: r.replaced_at,
    revokedAt: r.revoked_at,
  };
}

/** The insert of a new token with `values` as its VALUES list (in the order of refreshTokenParams). */
export function refreshTokenInsertSql(values: string): string {
  return `INSERT INTO refresh_tokens (token_hash, family_id, user_id, username, client_id, credential_stamp, token_version, issued_at, expires_at)
         VALUES (${values})`;
}

/** The parameters of refreshTokenInsertSql for token `t`. */
export function refreshTokenParams(t: NewRefreshToken): unknown[] {
  return [t.tokenHash, t.familyId, t.userId, t.username, t.clientId, t.credentialStamp, t.tokenVersion, t.issuedAt, t.expiresAt];
}

/** Refresh tokens of the OAuth endpoint, grouped in families (one per password login). */
export class RefreshTokensRepo {
  constructor(private readonly db: Database) {}

  async insert(t: NewRefreshToken): Promise<void> {
    this.insertSync(t);
  }

  private insertSync(t: NewRefreshToken): void {
    this.db.prepare(refreshTokenInsertSql('?, ?, ?, ?, ?, ?, ?, ?, ?')).run(...refreshTokenParams(t));
  }

  async findByHash(tokenHash: string): Promise<RefreshTokenRow | undefined> {
    const r = this.db.prepare('SELECT * FROM refresh_tokens WHERE token_hash = ?').get(tokenHash) as RawRefreshToken | undefined;
    return r && toRefreshToken(r);
  }

  /**
   * Marks `oldId` replaced and stores its successor in one transaction. Returns false when the
   * old token was replaced or revoked meanwhile (two refreshes racing): only one may win.
   */
  async rotate(oldId: number, next: NewRefreshToken, now: number): Promise<boolean> {
    return this.db
      .transaction(() => {
        const changed = this.db
          .prepare('UPDATE refresh_tokens SET replaced_at = ? WHERE id = ? AND replaced_at IS NULL AND revoked_at IS NULL')
          .run(now, oldId).changes;
        if (changed !== 1) return false;
        this.insertSync(next);
        return true;
      })
      .immediate();
  }

  /** Revokes every token of a family; returns how many were still unrevoked. */
  async revokeFamily(familyId: string, now: number): Promise<number> {
    return this.db.prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL').run(now, familyId)
      .changes;
  }

  /** Revokes every unrevoked token of an account; returns how many. */
  async revokeUser(userId: number, now: number): Promise<number> {
    return this.db.prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL').run(now, userId).changes;
  }

  /** Deletes expired rows; a replaced token is kept until it expires, so its reuse is still detected. */
  async purgeExpired(now: number): Promise<number> {
    return this.db.prepare('DELETE FROM refresh_tokens WHERE expires_at <= ?').run(now).changes;
  }
}
