/**
 * Roles and rights (docs/supervision.md#roles-and-rights): the catalogue of rights, the built-in
 * roles, the effective rights of an account on a dictionary, and the role use cases.
 */
export {
  ADMINISTRATOR,
  BUILTIN_ROLES,
  CSWEB_RIGHTS,
  DATA_NONE,
  DICTIONARY_RIGHTS,
  RIGHTS,
  SDS_RIGHTS,
  STANDARD_USER,
  isBuiltinRole,
  isRight,
  sortRights,
} from './catalogue.js';
export type { Right } from './catalogue.js';
export { dictionariesWithNothing, effectiveRights, requireRight, resolveRights } from './effective.js';
export type { RoleRights } from './effective.js';
export { addRole, listRoles, removeRole, setRoleRights, showRole } from './roles.js';
export type { RoleDetail, RoleRemoved, RoleView } from './roles.js';
