/**
 * Roles and rights (docs/supervision.md#roles-and-rights): the catalogue of rights, the built-in
 * roles, the effective rights of an account on a dictionary, and the role use cases.
 */
export {
  ADMINISTRATOR,
  API_ROLE,
  BUILTIN_ROLES,
  CSWEB_RIGHTS,
  DATA_NONE,
  DEVELOPER,
  DICTIONARY_RIGHTS,
  RIGHTS,
  SDS_RIGHTS,
  STANDARD_USER,
  isBuiltinRole,
  isRight,
  sortRights,
} from './catalogue.js';
export type { Right } from './catalogue.js';
export { effectiveRights, readRoleRights, requireRight, resolveRights } from './effective.js';
export type { RoleRights } from './effective.js';
export { addRole, listRoles, parseRights, removeRole, requireGrantable, requireRoleName, setRoleRights, showRole } from './roles.js';
export type { RoleDetail, RoleRemoved, RoleView } from './roles.js';
