/**
 * Reads CSWeb's accounts, roles and rights from its database (docs/migrating-from-csweb.md#users-and-roles):
 * cspro_users, cspro_roles, cspro_permissions, cspro_role_permissions,
 * cspro_role_dictionary_permissions and the dictionary names of cspro_dictionaries.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { AppError } from '../shared/errors.js';
import type { CswebRole } from './role-mapping.js';
import type { Csweb81Rights } from './rights-81.js';
import type { CswebLayout } from './layout.js';

/** One row of cspro_users. `password` is the stored hash, bcrypt as CSWeb writes it. */
export interface CswebUser {
  username: string;
  password: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  roleId: number;
  /** CSWeb 8.1's `uuid`: the id its 8.1 clients were told at login; undefined for 8.0. */
  uuid?: string;
}

/** Everything of CSWeb's accounts an import needs. */
export interface CswebAccounts {
  users: CswebUser[];
  /** By role id. */
  roles: Map<number, CswebRole>;
  /** Every dictionary name of cspro_dictionaries (8.1: the dictionary's own name, sds's name for it). */
  dictionaries: string[];
  /** CSWeb 8.1's roles and rights by its own names (absent for 8.0), kept for sds's own rights. */
  rights81?: Csweb81Rights;
}

async function select(conn: Connection, table: string, sql: string): Promise<RowDataPacket[]> {
  try {
    const [rows] = await conn.query<RowDataPacket[]>(sql);
    return rows;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    throw new AppError('CSWEB_USERS_UNREADABLE', `cannot read CSWeb's table ${table}: ${e.message ?? String(err)}`, {
      table,
      ...(e.code ? { cause: e.code } : {}),
    });
  }
}

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** True when the accounts are CSWeb 8.1's (cspro_users has `uuid`): for an account import run without the schema check. */
export async function hasUserUuid(conn: Connection): Promise<boolean> {
  const rows = await select(
    conn,
    'cspro_users',
    "SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'cspro_users' AND COLUMN_NAME = 'uuid'",
  );
  return rows.length > 0;
}

/**
 * Reads CSWeb's users, their roles with each role's global and per-dictionary rights, and the
 * dictionary names, in the layout of the source's schema version; for 8.1 also the rights by
 * 8.1's names (rights-81.ts).
 */
export async function readCswebAccounts(conn: Connection, layout: CswebLayout): Promise<CswebAccounts> {
  const dictName = `d.${layout.ownNameColumn ?? layout.tableNameColumn}`;
  const users = await select(
    conn,
    'cspro_users',
    `SELECT username, password, first_name, last_name, email, phone, role${layout.userUuid ? ', uuid' : ''} FROM cspro_users ORDER BY username`,
  );
  const roles = await select(conn, 'cspro_roles', 'SELECT id, name FROM cspro_roles ORDER BY id');
  const permissions = await select(conn, 'cspro_permissions', 'SELECT id, name FROM cspro_permissions');
  const global = await select(conn, 'cspro_role_permissions', 'SELECT role_id, permission_id FROM cspro_role_permissions');
  const perDictionary = await select(
    conn,
    'cspro_role_dictionary_permissions',
    `SELECT p.role_id, ${dictName} AS dictionary_name, p.permission_id
       FROM cspro_role_dictionary_permissions p JOIN cspro_dictionaries d ON d.id = p.dictionary_id`,
  );
  const dictionaries = await select(
    conn,
    'cspro_dictionaries',
    `SELECT ${dictName} AS dictionary_name FROM cspro_dictionaries d ORDER BY 1`,
  );

  const permissionName = new Map(permissions.map((p) => [Number(p.id), String(p.name)]));
  const nameOf = (id: unknown) => permissionName.get(Number(id)) ?? `permission ${String(id)}`;
  const byRole = new Map<number, { permissions: string[]; dictionaryPermissions: { dictionary: string; permission: string }[] }>();
  const of = (id: unknown) => {
    const key = Number(id);
    let r = byRole.get(key);
    if (!r) byRole.set(key, (r = { permissions: [], dictionaryPermissions: [] }));
    return r;
  };
  for (const g of global) of(g.role_id).permissions.push(nameOf(g.permission_id));
  for (const d of perDictionary)
    of(d.role_id).dictionaryPermissions.push({ dictionary: String(d.dictionary_name), permission: nameOf(d.permission_id) });

  const roleMap = new Map(
    roles.map((r): [number, CswebRole] => {
      const rights = byRole.get(Number(r.id)) ?? { permissions: [], dictionaryPermissions: [] };
      return [Number(r.id), { id: Number(r.id), name: String(r.name), ...rights }];
    }),
  );
  return {
    users: users.map((u) => ({
      username: String(u.username),
      password: String(u.password),
      firstName: text(u.first_name),
      lastName: text(u.last_name),
      email: text(u.email),
      phone: text(u.phone),
      roleId: Number(u.role),
      ...(layout.userUuid && text(u.uuid) ? { uuid: String(u.uuid).toLowerCase() } : {}),
    })),
    roles: roleMap,
    dictionaries: dictionaries.map((d) => String(d.dictionary_name)),
    ...(layout.schemaVersion >= 8 ? { rights81: rights81Of(roleMap) } : {}),
  };
}

/** The 8.1 roles in the neutral structure: rights by name, per-dictionary rows grouped by dictionary. */
function rights81Of(roles: Map<number, CswebRole>): Csweb81Rights {
  return {
    roles: [...roles.values()].map((r) => {
      const byDictionary = new Map<string, string[]>();
      for (const d of r.dictionaryPermissions) byDictionary.set(d.dictionary, [...(byDictionary.get(d.dictionary) ?? []), d.permission]);
      return {
        id: r.id,
        name: r.name,
        rights: [...r.permissions],
        dictionaries: [...byDictionary].map(([dictionary, rights]) => ({ dictionary, rights })),
      };
    }),
  };
}
