/**
 * CSWeb 8.1's roles and rights, read into a neutral structure (docs/migrating-from-csweb.md#csweb-81),
 * which src/core/csweb/roles-81.ts keeps as sds roles. CSWeb 8.1 names its rights
 * with dots (`data.read`, `users.write`, a bare group name such as `apps` for both halves, and
 * `login`); a role holds default rights (cspro_role_permissions), and per-dictionary rows
 * (cspro_role_dictionary_permissions) replace the role's data rights for that dictionary, where
 * `data.none` is nothing. Pure: users-reader.ts does the SQL.
 */

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
