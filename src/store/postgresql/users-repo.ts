/**
 * The accounts of the API on the PostgreSQL store: the same answers as the SQLite UsersRepo,
 * made safe for several writers at once (docs/decisions.md, "Concurrent
 * writers on the PostgreSQL store").
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../../shared/errors.js';
import { nowIso } from '../clock.js';
import type { RepoContract } from '../store-contract.js';
import {
  NO_PROFILE,
  PROFILE_COLUMNS,
  cswebRecordParams,
  cswebRecordUpsertSql,
  toCswebRecord,
  toUser,
  toUserWithHash,
  type AccountProfile,
  type CswebUserRecord,
  type RawCswebUser,
  type RawUser,
  type Role,
  type UserRow,
  type UsersRepo,
  type AccountWithGrant,
} from '../users-repo.js';
import { grantSql, toGrant } from '../roles-repo.js';
import type { PgRunner } from './pg-runner.js';

/** Accounts of the API and their password hashes, in PostgreSQL. */
export class PgUsersRepo implements RepoContract<UsersRepo> {
  constructor(private readonly db: PgRunner) {}

  async find(username: string): Promise<(UserRow & { passwordHash: string }) | undefined> {
    const r = await this.db.row<RawUser>('SELECT * FROM users WHERE username = $1', [username]);
    return r && toUserWithHash(r);
  }

  /** The account whose `uuid` this is, with its password hash; undefined once it was removed. */
  async findByUuid(uuid: string): Promise<(UserRow & { passwordHash: string }) | undefined> {
    const r = await this.db.row<RawUser>('SELECT * FROM users WHERE uuid = $1', [uuid]);
    return r && toUserWithHash(r);
  }

  /**
   * The account of `uuid` and its role's grant in one statement (every authenticated request
   * runs it): the grant's rows (grantSql) joined laterally, the account's columns on each.
   */
  async findByUuidWithGrant(uuid: string): Promise<AccountWithGrant | undefined> {
    const rows = await this.db.rows<RawUser & { g_kind: number | null; g_dictionary: string | null; g_right_name: string | null }>(
      `SELECT u.*, g.kind AS g_kind, g.dictionary AS g_dictionary, g.right_name AS g_right_name
         FROM users u LEFT JOIN LATERAL (${grantSql('u.role')}) g ON true
        WHERE u.uuid = $1`,
      [uuid],
    );
    if (rows.length === 0) return undefined;
    const grant = rows.flatMap((r) =>
      r.g_kind === null ? [] : [{ kind: r.g_kind, dictionary: r.g_dictionary, right_name: r.g_right_name! }],
    );
    return { user: toUserWithHash(rows[0]!), grant: toGrant(grant) };
  }

  /**
   * One stored bcrypt hash, or undefined when none is left. The first by id, as SQLite's scan
   * without an order finds it.
   */
  async anyBcryptHash(): Promise<string | undefined> {
    const r = await this.db.row<{ password_hash: string }>(
      "SELECT password_hash FROM users WHERE password_hash LIKE '$2%' ORDER BY id LIMIT 1",
    );
    return r?.password_hash;
  }

  /** Every account by name (byte order), with its password hash. */
  async listWithHashes(): Promise<(UserRow & { passwordHash: string })[]> {
    return (await this.db.rows<RawUser>('SELECT * FROM users ORDER BY username')).map(toUserWithHash);
  }

  /**
   * Creates an account with a new random `uuid` (or the one given: an id CSWeb 8.1 gave it,
   * docs/migrating-from-csweb.md#csweb-81). Two requests creating the same name at once
   * both pass their check for it under READ COMMITTED; the unique name decides instead (the
   * second insert waits for the first to commit, then inserts nothing) and the loser gets the
   * CONFLICT a check would have given it, with its transaction still usable (docs/decisions.md,
   * "Concurrent writers on the PostgreSQL store").
   */
  async insert(
    username: string,
    role: Role,
    passwordHash: string,
    profile: AccountProfile = NO_PROFILE,
    uuid: string = randomUUID(),
  ): Promise<UserRow> {
    const now = nowIso();
    const r = await this.db.row<RawUser>(
      `INSERT INTO users (uuid, username, role, password_hash, created_at, updated_at, first_name, last_name, email, phone)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (username) DO NOTHING RETURNING *`,
      [uuid, username, role, passwordHash, now, now, ...PROFILE_COLUMNS.map(([, f]) => profile[f])],
    );
    if (!r) throw new AppError('CONFLICT', `user ${username} already exists`, { user: username });
    return toUser(r);
  }

  /**
   * Changes an account in one statement that reads the row it writes: the row is locked and
   * re-read when another transaction changed it first, so two changes at once (a role and a
   * password) both land and a new role always bumps the token version (docs/decisions.md,
   * "Concurrent writers on the PostgreSQL store").
   */
  async update(username: string, change: { role?: Role; passwordHash?: string; disabled?: boolean }): Promise<void> {
    await this.db.run(
      `UPDATE users SET role = COALESCE($2, role), password_hash = COALESCE($3, password_hash), disabled = COALESCE($4::smallint, disabled),
         token_version = token_version + CASE WHEN COALESCE($2, role) = role THEN 0 ELSE 1 END, updated_at = $5
       WHERE username = $1`,
      [
        username,
        change.role ?? null,
        change.passwordHash ?? null,
        change.disabled === undefined ? null : change.disabled ? 1 : 0,
        nowIso(),
      ],
    );
  }

  /**
   * Sets the fields of `change` in the profile of an account (null clears one, an absent one
   * stays), in one statement; false when there is no such account.
   */
  async setProfile(username: string, change: Partial<AccountProfile>): Promise<boolean> {
    const set = PROFILE_COLUMNS.filter(([, f]) => change[f] !== undefined);
    if (set.length === 0) return (await this.db.row('SELECT 1 FROM users WHERE username = $1', [username])) !== undefined;
    const sql = `UPDATE users SET ${set.map(([c], i) => `${c} = $${i + 1}`).join(', ')}, updated_at = $${set.length + 1}
       WHERE username = $${set.length + 2}`;
    return (await this.db.run(sql, [...set.map(([, f]) => change[f]), nowIso(), username])) > 0;
  }

  /** Disables (bumping the token version) or enables an account; false when there is none. */
  async setDisabled(username: string, disabled: boolean): Promise<boolean> {
    const sql = disabled
      ? 'UPDATE users SET disabled = 1, token_version = token_version + 1, updated_at = $1 WHERE username = $2'
      : 'UPDATE users SET disabled = 0, updated_at = $1 WHERE username = $2';
    return (await this.db.run(sql, [nowIso(), username])) > 0;
  }

  /**
   * Sets the password hash of account `id` to `next` only if it is still `expected`: a
   * compare-and-set that a concurrent writer of the row makes wait and re-check.
   */
  async replaceHash(id: number, expected: string, next: string): Promise<boolean> {
    return (
      (await this.db.run('UPDATE users SET password_hash = $1, updated_at = $2 WHERE id = $3 AND password_hash = $4', [
        next,
        nowIso(),
        id,
        expected,
      ])) > 0
    );
  }

  /**
   * Accounts whose name equals `username` ignoring ASCII case: lower() under COLLATE "C" folds
   * ASCII letters only, as SQLite's NOCASE (docs/decisions.md, "One set of migrations per store
   * database").
   */
  async findIgnoringCase(username: string): Promise<UserRow[]> {
    return (
      await this.db.rows<RawUser>('SELECT * FROM users WHERE lower(username) = lower($1::text COLLATE "C") ORDER BY username', [username])
    ).map(toUser);
  }

  /** What the last CSWeb import recorded of account `userId`, or undefined for an account not imported. */
  async cswebRecord(userId: number): Promise<CswebUserRecord | undefined> {
    const r = await this.db.row<RawCswebUser>('SELECT * FROM csweb_users WHERE user_id = $1', [userId]);
    return r && toCswebRecord(r);
  }

  /** Names of the accounts that came from a CSWeb import, by name. */
  async cswebUsernames(): Promise<string[]> {
    return (
      await this.db.rows<{ username: string }>('SELECT u.username FROM csweb_users c JOIN users u ON u.id = c.user_id ORDER BY u.username')
    ).map((r) => r.username);
  }

  /** Records (or replaces) what a CSWeb import took for account `userId`. */
  async putCswebRecord(userId: number, rec: Omit<CswebUserRecord, 'importedAt' | 'updatedAt'>): Promise<void> {
    await this.db.run(cswebRecordUpsertSql('$1, $2, $3, $4, $5, $6, $7, $8, $9, $10'), cswebRecordParams(userId, rec, nowIso()));
  }

  /** Records a successful login at `at` (ISO 8601). */
  async recordLogin(id: number, at: string): Promise<void> {
    await this.db.run('UPDATE users SET last_login_at = $1 WHERE id = $2', [at, id]);
  }

  /** Removes an account (its refresh tokens and CSWeb record go with it); false when there is none. */
  async remove(username: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM users WHERE username = $1', [username])) > 0;
  }
}
