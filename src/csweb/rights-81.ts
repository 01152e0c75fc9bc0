/**
 * CSWeb 8.1's roles and rights, read into a neutral structure (docs/migrating-from-csweb.md#csweb-81),
 * and the one function that maps a CSWeb 8.1 role onto sds's roles. CSWeb 8.1 names its rights
 * with dots (`data.read`, `users.write`, a bare group name such as `apps` for both halves, and
 * `login`); a role holds default rights (cspro_role_permissions), and per-dictionary rows
 * (cspro_role_dictionary_permissions) replace the role's data rights for that dictionary, where
 * `data.none` is nothing. Pure: users-reader.ts does the SQL.
 */
import { mapCswebRole, type CswebRole, type RoleMapping } from './role-mapping.js';

/** A CSWeb 8.1 role as stored: its default rights and its per-dictionary rows, by CSWeb 8.1's names. */
export interface Csweb81Role {
  id: number;
  name: string;
  /** Default rights (cspro_role_permissions), e.g. `data.read`, `apps`, `login`. */
  rights: readonly string[];
  /** Per-dictionary rights (dictionary by sds's name for it); a dictionary without rows uses the defaults. */
  dictionaries: readonly { dictionary: string; rights: readonly string[] }[];
}

/** Every role of a CSWeb 8.1 database: what the rights of sds will take over exactly. */
export interface Csweb81Rights {
  roles: Csweb81Role[];
}

const holds = (rights: ReadonlySet<string>, group: string, half: 'read' | 'write') => rights.has(group) || rights.has(`${group}.${half}`);

/** The 8.1 data rights of `role` on one dictionary: its rows there, else its defaults; `data.none` is none. */
function dataRightsOn(role: Csweb81Role, dictionary: string): { read: boolean; write: boolean } {
  const rows = role.dictionaries.find((d) => d.dictionary.toUpperCase() === dictionary.toUpperCase());
  const rights = new Set(rows ? rows.rights : role.rights);
  if (rows && rights.has('data.none')) return { read: false, write: false };
  return { read: holds(rights, 'data', 'read'), write: holds(rights, 'data', 'write') };
}

/**
 * The 8.0 role a CSWeb 8.1 role amounts to, for the 8.0 mapping: each 8.0 right from the 8.1
 * rights that carry it, and the per-dictionary sync rights from the effective data rights of
 * every dictionary. 8.1 rights with no 8.0 counterpart (paradata, messages, files, dictionaries,
 * login, the read halves of apps, users, roles and settings) are not carried.
 */
function as80Role(role: Csweb81Role, dictionaries: readonly string[]): CswebRole {
  const r = new Set(role.rights);
  const permissions = [
    ...(holds(r, 'data', 'read') ? ['data_all'] : []),
    ...(holds(r, 'apps', 'write') ? ['apps_all'] : []),
    ...(holds(r, 'users', 'write') ? ['users_all'] : []),
    ...(holds(r, 'roles', 'write') ? ['roles_all'] : []),
    ...(holds(r, 'reports', 'read') ? ['reports_all'] : []),
    ...(holds(r, 'settings', 'write') ? ['settings_all'] : []),
  ];
  const dictionaryPermissions = dictionaries.flatMap((dictionary) => {
    const d = dataRightsOn(role, dictionary);
    return [
      ...(d.write ? [{ dictionary, permission: 'dictionary_sync_upload' }] : []),
      ...(d.read ? [{ dictionary, permission: 'dictionary_sync_download' }] : []),
    ];
  });
  // A negative id: 8.1's built-in roles have their rights in the tables, not fixed in code as 8.0's.
  return { id: -role.id, name: role.name, permissions, dictionaryPermissions };
}

/**
 * Maps one CSWeb 8.1 role to sds's roles, with the report lines of every right that differs, as
 * 8.0 roles are mapped (role-mapping.ts). The one place to change when sds keeps CSWeb 8.1's
 * rights themselves.
 */
export function mapCsweb81Role(role: Csweb81Role, dictionaries: readonly string[], holders: readonly string[] = []): RoleMapping {
  return mapCswebRole(as80Role(role, dictionaries), dictionaries, holders);
}
