import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { nowIso } from './clock.js';
import { grantSql, toGrant, type GrantRow, type RoleGrant } from './roles-repo.js';

/** The name of a role: a row of `roles` (docs/supervision.md#roles-and-rights). */
export type Role = string;

/** Who an account belongs to (docs/supervision.md#accounts); null when unknown. */
export interface AccountProfile {
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
}

export interface UserRow {
  id: number;
  /**
   * The account's id to the outside (access tokens, CSPro's `user.id`): random and never given to
   * another account, unlike the user name (docs/http-api.md#what-ends-a-token).
   */
  uuid: string;
  username: string;
  role: Role;
  disabled: boolean;
  /**
   * Carried by access and refresh tokens; bumped when the account is disabled or its role changes,
   * so the tokens issued before stop working.
   */
  tokenVersion: number;
  /** Time of the last successful login (a password or a refresh grant), or null. */
  lastLoginAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Who the account belongs to (migration 0032). */
  profile: AccountProfile;
}

/** What a CSWeb import recorded of an account it created (docs/migrating-from-csweb.md#users-and-roles). */
export interface CswebUserRecord {
  cswebUsername: string;
  /** The bcrypt hash CSWeb held at the last import (sds may have re-hashed since). */
  passwordHash: string;
  /** The CSWeb role's name. */
  cswebRole: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  importedAt: string;
  updatedAt: string;
}

/** A `csweb_users` row as both stores return it. */
export interface RawCswebUser {
  csweb_username: string;
  password_hash: string;
  csweb_role: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  imported_at: string;
  updated_at: string;
}

/** A `users` row as both stores return it (flags 0/1). */
export interface RawUser {
  id: number;
  uuid: string;
  username: string;
  role: Role;
  password_hash: string;
  disabled: number;
  token_version: number;
  last_login_at: string | null;
  created_at: string;
  updated_at: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
}

/** The account a `users` row holds (shared by the PostgreSQL store). */
export function toUser(r: RawUser): UserRow {
  return {
    id: r.id,
    uuid: r.uuid,
    username: r.username,
    role: r.role,
    disabled: r.disabled === 1,
    tokenVersion: r.token_version,
    lastLoginAt: r.last_login_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    profile: { firstName: r.first_name, lastName: r.last_name, email: r.email, phone: r.phone },
  };
}

/** The profile columns and their fields, in the order the statements of both stores list them. */
export const PROFILE_COLUMNS = [
  ['first_name', 'firstName'],
  ['last_name', 'lastName'],
  ['email', 'email'],
  ['phone', 'phone'],
] as const satisfies readonly (readonly [string, keyof AccountProfile])[];

/** A profile with every field unknown. */
export const NO_PROFILE: Readonly<AccountProfile> = { firstName: null, lastName: null, email: null, phone: null };

/** The account a `users` row holds, with its password hash (to check a login; never shown). */
/** An account with its password hash and its role's grant (`findByUuidWithGrant`). */
export interface AccountWithGrant {
  user: UserRow & { passwordHash: string };
  grant: RoleGrant | undefined;
}

export function toUserWithHash(r: RawUser): UserRow & { passwordHash: string } {
  return { ...toUser(r), passwordHash: r.password_hash };
}

/** What a `csweb_users` row records (shared by the PostgreSQL store). */
export function toCswebRecord(r: RawCswebUser): CswebUserRecord {
  return {
    cswebUsername: r.csweb_username,
    passwordHash: r.password_hash,
    cswebRole: r.csweb_role,
    firstName: r.first_name,
    lastName: r.last_name,
    email: r.email,
    phone: r.phone,
    importedAt: r.imported_at,
    updatedAt: r.updated_at,
  };
}

/**
 * The upsert of `putCswebRecord` with `values` as its VALUES list (`?` or `$n` placeholders, in
 * the order of cswebRecordParams): the same statement on both stores.
 */
export function cswebRecordUpsertSql(values: string): string {
  return `INSERT INTO csweb_users (user_id, csweb_username, password_hash, csweb_role, first_name, last_name, email, phone, imported_at, updated_at)
         VALUES (${values})
         ON CONFLICT (user_id) DO UPDATE SET csweb_username = excluded.csweb_username, password_hash = excluded.password_hash,
           csweb_role = excluded.csweb_role, first_name = excluded.first_name, last_name = excluded.last_name,
           email = excluded.email, phone = excluded.phone, updated_at = excluded.updated_at`;
}

/** The parameters of cswebRecordUpsertSql for account `userId` at `now`. */
export function cswebRecordParams(userId: number, rec: Omit<CswebUserRecord, 'importedAt' | 'updatedAt'>, now: string): unknown[] {
  return [userId, rec.cswebUsername, rec.passwordHash, rec.cswebRole, rec.firstName, rec.lastName, rec.email, rec.phone, now, now];
}

/** Accounts of the API and their password hashes. */
export class UsersRepo {
  // The two reads of every authenticated request: prepared once, not per request.
  private byUuidStmt?: Statement<[string], RawUser>;
  private grantStmt?: Statement<[{ role: string }], GrantRow>;

  constructor(private readonly db: Database) {}

  async find(username: string): Promise<(UserRow & { passwordHash: string }) | undefined> {
    return this.findSync(username);
  }

  private findSync(username: string): (UserRow & { passwordHash: string }) | undefined {
    const r = this.db.prepare('SELECT * FROM users WHERE username = ?').get(username) as RawUser | undefined;
    return r && toUserWithHash(r);
  }

  /** The account whose `uuid` this is, with its password hash; undefined once it was removed. */
  async findByUuid(uuid: string): Promise<(UserRow & { passwordHash: string }) | undefined> {
    const r = (this.byUuidStmt ??= this.db.prepare('SELECT * FROM users WHERE uuid = ?')).get(uuid);
    return r && toUserWithHash(r);
  }

  /**
   * The account of `uuid` and what its role holds (undefined grant: no such role), as every
   * authenticated request needs them: one round trip on PostgreSQL, two in-process reads here.
   */
  async findByUuidWithGrant(uuid: string): Promise<AccountWithGrant | undefined> {
    const user = await this.findByUuid(uuid);
    return user && { user, grant: toGrant((this.grantStmt ??= this.db.prepare(grantSql('@role'))).all({ role: user.role })) };
  }

  /**
   * One stored bcrypt hash (an account imported from CSWeb that has not logged in since), or
   * undefined when none is left: a failed login checks it too, so its time does not tell which
   * accounts still have one (docs/migrating-from-csweb.md#passwords).
   */
  async anyBcryptHash(): Promise<string | undefined> {
    const r = this.db.prepare("SELECT password_hash FROM users WHERE password_hash LIKE '$2%' LIMIT 1").get() as
      { password_hash: string } | undefined;
    return r?.password_hash;
  }

  /** Every account by name, with its password hash (to tell its scheme; never shown). */
  async listWithHashes(): Promise<(UserRow & { passwordHash: string })[]> {
    return (this.db.prepare('SELECT * FROM users ORDER BY username').all() as RawUser[]).map(toUserWithHash);
  }

  /**
   * Creates an account with a new random `uuid` (or the one given: an id CSWeb 8.1 gave it,
   * docs/migrating-from-csweb.md#csweb-81): a name used before never brings back its old id.
   */
  async insert(
    username: string,
    role: Role,
    passwordHash: string,
    profile: AccountProfile = NO_PROFILE,
    uuid: string = randomUUID(),
  ): Promise<UserRow> {
    const now = nowIso();
    this.db
      .prepare(
        `INSERT INTO users (uuid, username, role, password_hash, created_at, updated_at, first_name, last_name, email, phone)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(uuid, username, role, passwordHash, now, now, ...PROFILE_COLUMNS.map(([, f]) => profile[f]));
    return toUser(this.db.prepare('SELECT * FROM users WHERE username = ?').get(username) as RawUser);
  }

  /**
   * Changes an account. A new role also bumps the token version, in the same statement, so no
   * token issued under the old role outlives the change.
   */
  async update(username: string, change: { role?: Role; passwordHash?: string; disabled?: boolean }): Promise<void> {
    const u = this.findSync(username);
    if (!u) return;
    const role = change.role ?? u.role;
    this.db
      .prepare('UPDATE users SET role = ?, password_hash = ?, disabled = ?, token_version = token_version + ?, updated_at = ? WHERE id = ?')
      .run(role, change.passwordHash ?? u.passwordHash, (change.disabled ?? u.disabled) ? 1 : 0, role === u.role ? 0 : 1, nowIso(), u.id);
  }

  /**
   * Sets the fields of `change` in the profile of an account (null clears one, an absent one
   * stays); false when there is no such account. The other fields of the account stay.
   */
  async setProfile(username: string, change: Partial<AccountProfile>): Promise<boolean> {
    const set = PROFILE_COLUMNS.filter(([, f]) => change[f] !== undefined);
    if (set.length === 0) return this.findSync(username) !== undefined;
    const sql = `UPDATE users SET ${set.map(([c]) => `${c} = ?`).join(', ')}, updated_at = ? WHERE username = ?`;
    return this.db.prepare(sql).run(...set.map(([, f]) => change[f]), nowIso(), username).changes > 0;
  }

  /**
   * Disables or enables an account. Disabling also bumps the token version, so access and
   * refresh tokens issued before stay refused after the account is enabled again.
   */
  async setDisabled(username: string, disabled: boolean): Promise<boolean> {
    const sql = disabled
      ? 'UPDATE users SET disabled = 1, token_version = token_version + 1, updated_at = ? WHERE username = ?'
      : 'UPDATE users SET disabled = 0, updated_at = ? WHERE username = ?';
    return this.db.prepare(sql).run(nowIso(), username).changes > 0;
  }

  /**
   * Sets the password hash of account `id` to `next` only if it is still `expected`; false when
   * it was not (changed since it was read, or the account is gone).
   */
  async replaceHash(id: number, expected: string, next: string): Promise<boolean> {
    return (
      this.db
        .prepare('UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?')
        .run(next, nowIso(), id, expected).changes > 0
    );
  }

  /** Accounts whose name equals `username` ignoring ASCII case (names are otherwise matched exactly). */
  async findIgnoringCase(username: string): Promise<UserRow[]> {
    return (this.db.prepare('SELECT * FROM users WHERE username = ? COLLATE NOCASE ORDER BY username').all(username) as RawUser[]).map(
      toUser,
    );
  }

  /** What the last CSWeb import recorded of account `userId`, or undefined for an account not imported. */
  async cswebRecord(userId: number): Promise<CswebUserRecord | undefined> {
    const r = this.db.prepare('SELECT * FROM csweb_users WHERE user_id = ?').get(userId) as RawCswebUser | undefined;
    return r && toCswebRecord(r);
  }

  /** Names of the accounts that came from a CSWeb import, as sds holds them. */
  async cswebUsernames(): Promise<string[]> {
    return (
      this.db.prepare('SELECT u.username FROM csweb_users c JOIN users u ON u.id = c.user_id ORDER BY u.username').all() as {
        username: string;
      }[]
    ).map((r) => r.username);
  }

  /** Records (or replaces) what a CSWeb import took for account `userId`. */
  async putCswebRecord(userId: number, rec: Omit<CswebUserRecord, 'importedAt' | 'updatedAt'>): Promise<void> {
    this.db.prepare(cswebRecordUpsertSql('?, ?, ?, ?, ?, ?, ?, ?, ?, ?')).run(...cswebRecordParams(userId, rec, nowIso()));
  }

  /** Records a successful login at `at` (ISO 8601). */
  async recordLogin(id: number, at: string): Promise<void> {
    this.db.prepare('UPDATE users SET last_login_at = ? WHERE id = ?').run(at, id);
  }

  async remove(username: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM users WHERE username = ?').run(username).changes > 0;
  }
}
