/**
 * Roles and their rights on the PostgreSQL store: the same answers as the SQLite RolesRepo
 * (../roles-repo.ts). Writes of one role's rights run in the caller's transaction; the role's row
 * is locked first so that two changes of the same role's rights at once apply one after the other
 * (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import { nowIso } from '../clock.js';
import type { RepoContract } from '../store-contract.js';
import {
  grantSql,
  groupByDictionary,
  toGrant,
  toRole,
  type RawRole,
  type RoleGrant,
  type RoleRightRows,
  type RoleRow,
  type RolesRepo,
} from '../roles-repo.js';
import type { PgRunner } from './pg-runner.js';

/** Roles, their default rights and their per-dictionary rights, in PostgreSQL. */
export class PgRolesRepo implements RepoContract<RolesRepo> {
  constructor(private readonly db: PgRunner) {}

  async list(): Promise<RoleRow[]> {
    return (await this.db.rows<RawRole>('SELECT * FROM roles ORDER BY name')).map(toRole);
  }

  async find(name: string): Promise<RoleRow | undefined> {
    const r = await this.db.row<RawRole>('SELECT * FROM roles WHERE name = $1', [name]);
    return r && toRole(r);
  }

  async findIgnoringCase(name: string): Promise<RoleRow[]> {
    // ASCII case only, as SQLite's NOCASE.
    return (
      await this.db.rows<RawRole>(
        `SELECT * FROM roles WHERE translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
           = translate($1, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ORDER BY name`,
        [name],
      )
    ).map(toRole);
  }

  async insert(name: string): Promise<RoleRow> {
    const now = nowIso();
    return toRole(
      (await this.db.row<RawRole>('INSERT INTO roles (name, builtin, created_at, updated_at) VALUES ($1, 0, $2, $3) RETURNING *', [
        name,
        now,
        now,
      ]))!,
    );
  }

  async remove(name: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM roles WHERE name = $1 AND builtin = 0', [name])) > 0;
  }

  async rights(name: string): Promise<RoleRightRows> {
    const defaults = (
      await this.db.rows<{ right_name: string }>('SELECT right_name FROM role_rights WHERE role = $1 ORDER BY right_name', [name])
    ).map((r) => r.right_name);
    const rows = await this.db.rows<{ dictionary: string; right_name: string }>(
      'SELECT dictionary, right_name FROM role_dictionary_rights WHERE role = $1 ORDER BY dictionary, right_name',
      [name],
    );
    return { defaults, dictionaries: groupByDictionary(rows) };
  }

  async grant(name: string): Promise<RoleGrant | undefined> {
    return toGrant(await this.db.rows<{ kind: number; dictionary: string | null; right_name: string }>(grantSql('$1'), [name]));
  }

  async setDefaults(name: string, rights: readonly string[]): Promise<void> {
    await this.lockAndTouch(name);
    await this.db.run('DELETE FROM role_rights WHERE role = $1', [name]);
    for (const r of rights) await this.db.run('INSERT INTO role_rights (role, right_name) VALUES ($1, $2)', [name, r]);
  }

  async setDictionaryRights(name: string, dictionary: string, rights: readonly string[]): Promise<void> {
    await this.lockAndTouch(name);
    await this.db.run('DELETE FROM role_dictionary_rights WHERE role = $1 AND dictionary = $2', [name, dictionary]);
    for (const r of rights) {
      await this.db.run('INSERT INTO role_dictionary_rights (role, dictionary, right_name) VALUES ($1, $2, $3)', [name, dictionary, r]);
    }
  }

  async holders(name: string): Promise<string[]> {
    return (await this.db.rows<{ username: string }>('SELECT username FROM users WHERE role = $1 ORDER BY username', [name])).map(
      (r) => r.username,
    );
  }

  async moveHolders(from: string, to: string): Promise<number> {
    return this.db.run('UPDATE users SET role = $1, token_version = token_version + 1, updated_at = $2 WHERE role = $3', [
      to,
      nowIso(),
      from,
    ]);
  }

  /** Locks the role's row (the UPDATE does) while its rights are replaced. */
  private async lockAndTouch(name: string): Promise<void> {
    await this.db.run('UPDATE roles SET updated_at = $1 WHERE name = $2', [nowIso(), name]);
  }
}
