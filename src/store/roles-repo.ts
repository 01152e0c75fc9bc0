import type { Database } from 'better-sqlite3';
import { nowIso } from './clock.js';

/** A role as the store holds it; its rights are read apart (docs/supervision.md#roles-and-rights). */
export interface RoleRow {
  name: string;
  /** One of the four roles sds ships, whose default rights are fixed in the code. */
  builtin: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The stored rights of one role: its defaults (custom roles only) and its per-dictionary rows. */
export interface RoleRightRows {
  defaults: string[];
  /** One entry per dictionary with rows, by dictionary name; rights in name order. */
  dictionaries: { dictionary: string; rights: string[] }[];
}

/** What a request needs of its account's role, read in one statement: none when the role is gone. */
export interface RoleGrant extends RoleRightRows {
  builtin: boolean;
}

/**
 * The one statement of `grant`, with `p` the placeholder of the role's name (`?` or `$1`): the
 * role's row, its defaults and its per-dictionary rows, one row each, so the check of every
 * request costs one round trip (shared by the PostgreSQL store).
 */
export function grantSql(p: string): string {
  return `SELECT 0 AS kind, NULL AS dictionary, CASE WHEN builtin = 1 THEN 'builtin' ELSE 'custom' END AS right_name FROM roles WHERE name = ${p}
          UNION ALL SELECT 1, NULL, right_name FROM role_rights WHERE role = ${p}
          UNION ALL SELECT 2, dictionary, right_name FROM role_dictionary_rights WHERE role = ${p}
          ORDER BY 1, 2`;
}

/** A row of grantSql. */
export interface GrantRow {
  kind: number;
  dictionary: string | null;
  right_name: string;
}

/** The RoleGrant of the rows of grantSql (shared by the PostgreSQL store). */
export function toGrant(rows: GrantRow[]): RoleGrant | undefined {
  const head = rows.find((r) => r.kind === 0);
  if (!head) return undefined;
  return {
    builtin: head.right_name === 'builtin',
    // Sorted here, not in SQL: PostgreSQL cannot sort a union of texts of mixed collations.
    defaults: rows
      .filter((r) => r.kind === 1)
      .map((r) => r.right_name)
      .sort(),
    dictionaries: groupByDictionary(rows.filter((r) => r.kind === 2) as { dictionary: string; right_name: string }[]).map((d) => ({
      ...d,
      rights: d.rights.sort(),
    })),
  };
}

/** A `roles` row as both stores return it (flag 0/1). */
export interface RawRole {
  name: string;
  builtin: number;
  created_at: string;
  updated_at: string;
}

/** The role a `roles` row holds (shared by the PostgreSQL store). */
export function toRole(r: RawRole): RoleRow {
  return { name: r.name, builtin: r.builtin === 1, createdAt: r.created_at, updatedAt: r.updated_at };
}

/** Groups `role_dictionary_rights` rows, ordered by dictionary then right, by dictionary (shared by the PostgreSQL store). */
export function groupByDictionary(rows: { dictionary: string; right_name: string }[]): RoleRightRows['dictionaries'] {
  const out: RoleRightRows['dictionaries'] = [];
  for (const r of rows) {
    const last = out.at(-1);
    if (last?.dictionary === r.dictionary) last.rights.push(r.right_name);
    else out.push({ dictionary: r.dictionary, rights: [r.right_name] });
  }
  return out;
}

/** Roles, their default rights and their per-dictionary rights. */
export class RolesRepo {
  constructor(private readonly db: Database) {}

  /** Every role, by name. */
  async list(): Promise<RoleRow[]> {
    return (this.db.prepare('SELECT * FROM roles ORDER BY name').all() as RawRole[]).map(toRole);
  }

  async find(name: string): Promise<RoleRow | undefined> {
    const r = this.db.prepare('SELECT * FROM roles WHERE name = ?').get(name) as RawRole | undefined;
    return r && toRole(r);
  }

  /** Roles whose name equals `name` ignoring ASCII case. */
  async findIgnoringCase(name: string): Promise<RoleRow[]> {
    return (this.db.prepare('SELECT * FROM roles WHERE name = ? COLLATE NOCASE ORDER BY name').all(name) as RawRole[]).map(toRole);
  }

  /** Adds a custom role with no rights. */
  async insert(name: string): Promise<RoleRow> {
    const now = nowIso();
    this.db.prepare('INSERT INTO roles (name, builtin, created_at, updated_at) VALUES (?, 0, ?, ?)').run(name, now, now);
    return (await this.find(name))!;
  }

  /** Deletes a custom role and its rights (built-in roles are never deleted); false when there was none. */
  async remove(name: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM roles WHERE name = ? AND builtin = 0').run(name).changes > 0;
  }

  /** The stored rights of role `name` (empty lists for a role without rows). */
  async rights(name: string): Promise<RoleRightRows> {
    const defaults = (
      this.db.prepare('SELECT right_name FROM role_rights WHERE role = ? ORDER BY right_name').all(name) as { right_name: string }[]
    ).map((r) => r.right_name);
    const rows = this.db
      .prepare('SELECT dictionary, right_name FROM role_dictionary_rights WHERE role = ? ORDER BY dictionary, right_name')
      .all(name) as { dictionary: string; right_name: string }[];
    return { defaults, dictionaries: groupByDictionary(rows) };
  }

  /** The role's kind and stored rights in one statement (the check of each request), or undefined when there is no such role. */
  async grant(name: string): Promise<RoleGrant | undefined> {
    return toGrant(this.db.prepare(grantSql('@name')).all({ name }) as GrantRow[]);
  }

  /** Replaces the default rights of role `name`. */
  async setDefaults(name: string, rights: readonly string[]): Promise<void> {
    this.db.prepare('DELETE FROM role_rights WHERE role = ?').run(name);
    const add = this.db.prepare('INSERT INTO role_rights (role, right_name) VALUES (?, ?)');
    for (const r of rights) add.run(name, r);
    this.touch(name);
  }

  /** Replaces the rows of role `name` for `dictionary`; an empty list removes them (back to the defaults). */
  async setDictionaryRights(name: string, dictionary: string, rights: readonly string[]): Promise<void> {
    this.db.prepare('DELETE FROM role_dictionary_rights WHERE role = ? AND dictionary = ?').run(name, dictionary);
    const add = this.db.prepare('INSERT INTO role_dictionary_rights (role, dictionary, right_name) VALUES (?, ?, ?)');
    for (const r of rights) add.run(name, dictionary, r);
    this.touch(name);
  }

  /** Names of the accounts that have role `name`, by name. */
  async holders(name: string): Promise<string[]> {
    return (this.db.prepare('SELECT username FROM users WHERE role = ? ORDER BY username').all(name) as { username: string }[]).map(
      (r) => r.username,
    );
  }

  /**
   * Gives every account of role `from` the role `to`, bumping their token versions so that no
   * token issued under the old role outlives the change (docs/http-api.md#what-ends-a-token).
   */
  async moveHolders(from: string, to: string): Promise<number> {
    return this.db
      .prepare('UPDATE users SET role = ?, token_version = token_version + 1, updated_at = ? WHERE role = ?')
      .run(to, nowIso(), from).changes;
  }

  private touch(name: string): void {
    this.db.prepare('UPDATE roles SET updated_at = ? WHERE name = ?').run(nowIso(), name);
  }
}
