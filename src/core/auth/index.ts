/**
 * The auth module: users and passwords, OAuth clients, access and refresh tokens, roles and rights
 * (rights/), and the login throttle.
 */
export type { Principal } from './access-tokens.js';
export { DEFAULT_CLIENTS } from './clients.js';
export { LOGIN_THROTTLE_SETTINGS, loadLoginGuardSettings } from './login-throttle-policy.js';
export type { LoginThrottlePolicy } from './login-throttle-policy.js';
export type { LoginEvent } from './login-throttle.js';
export { oauthError } from './oauth-error.js';
export { isBcryptHash } from './passwords.js';
export {
  ADMINISTRATOR,
  BUILTIN_ROLES,
  CSWEB_RIGHTS,
  DATA_NONE,
  DICTIONARY_RIGHTS,
  RIGHTS,
  SDS_RIGHTS,
  STANDARD_USER,
  addRole,
  dictionariesWithNothing,
  effectiveRights,
  isBuiltinRole,
  isRight,
  listRoles,
  removeRole,
  requireRight,
  setRoleRights,
  showRole,
  sortRights,
} from './rights/index.js';
export type { Right, RoleDetail, RoleRemoved, RoleView } from './rights/index.js';
export { accessTokenKey } from './signing-key.js';
export { createTokenService } from './tokens.js';
export type { TokenGrant, TokenResponse, TokenService } from './tokens.js';
export { wrappedTokenReply } from './cspro-user.js';
export type { CsproUser } from './cspro-user.js';
export { addUser, changePassword, disableUser, enableUser, listUsers, removeUser, setUserRole } from './users.js';
export { showUser, updateUser } from './account-profile.js';
export type { ProfileInput } from './profile-input.js';
export type { UserListItem, UserView } from './users.js';
export { importUsersCsv } from './users-import.js';
export type { UsersImportOptions, UsersImportResult } from './users-import.js';
