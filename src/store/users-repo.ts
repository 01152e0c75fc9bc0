import type { Database } from 'better-sqlite3';
import { nowIso } from './clock.js';

export type Role = 'Administrator' | 'API' | 'Standard';

export interface UserRow {
  id: number;
  username: string;
  role: Role;
  disabled: boolean;
  /** Carried by access tokens; bumped when the account is disabled, so older tokens stop working. */
  tokenVersion: number;
  /** Time of the last successful password login, or null. */
  lastLoginAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface RawUser {
  id: number;
  username: string;
  role: Role;
  password_hash: string;
  disabled: number;
  token_version: number;
  last_login_at: string | null;
  created_at: string;
  updated_at: string;
}

function toUser(r: RawUser): UserRow {
  return {
    id: r.id,
    username: r.username,
    role: r.role,
    disabled: r.disabled === 1,
    tokenVersion: r.token_version,
    lastLoginAt: r.last_login_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Accounts of the API and their password hashes. */
export class UsersRepo {
  constructor(private readonly db: Database) {}

  find(username: string): (UserRow & { passwordHash: string }) | undefined {
    const r = this.db.prepare('SELECT * FROM users WHERE username = ?').get(username) as RawUser | undefined;
    return r && { ...toUser(r), passwordHash: r.password_hash };
  }

  list(): UserRow[] {
    return (this.db.prepare('SELECT * FROM users ORDER BY username').all() as RawUser[]).map(toUser);
  }

  insert(username: string, role: Role, passwordHash: string): UserRow {
    const now = nowIso();
    this.db
      .prepare('INSERT INTO users (username, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run(username, role, passwordHash, now, now);
    return toUser(this.db.prepare('SELECT * FROM users WHERE username = ?').get(username) as RawUser);
  }

  update(username: string, change: { role?: Role; passwordHash?: string; disabled?: boolean }): void {
    const u = this.find(username);
    if (!u) return;
    this.db
      .prepare('UPDATE users SET role = ?, password_hash = ?, disabled = ?, updated_at = ? WHERE id = ?')
      .run(change.role ?? u.role, change.passwordHash ?? u.passwordHash, (change.disabled ?? u.disabled) ? 1 : 0, nowIso(), u.id);
  }

  /**
   * Disables or enables an account. Disabling also bumps the token version, so access tokens
   * issued before stay refused after the account is enabled again.
   */
  setDisabled(username: string, disabled: boolean): boolean {
    const sql = disabled
      ? 'UPDATE users SET disabled = 1, token_version = token_version + 1, updated_at = ? WHERE username = ?'
      : 'UPDATE users SET disabled = 0, updated_at = ? WHERE username = ?';
    return this.db.prepare(sql).run(nowIso(), username).changes > 0;
  }

  /** Records a successful login at `at` (ISO 8601). */
  recordLogin(id: number, at: string): void {
    this.db.prepare('UPDATE users SET last_login_at = ? WHERE id = ?').run(at, id);
  }

  remove(username: string): boolean {
    return this.db.prepare('DELETE FROM users WHERE username = ?').run(username).changes > 0;
  }
}
