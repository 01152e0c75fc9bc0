import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { Role, UserRow } from '../../store/users-repo.js';
import { checkProfileInput, type ProfileInput } from './profile-input.js';
import { AppError } from '../../shared/errors.js';
import { hashPassword, passwordProblem, passwordScheme, type PasswordScheme } from './passwords.js';
import { userKeyName } from './login-throttle.js';
import { DEFAULT_LOGIN_THROTTLE } from './login-throttle-policy.js';
import { requireGrantable, requireRoleName } from './rights/roles.js';
import type { Right } from './rights/catalogue.js';

const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** A user as shown to operators and scripts (no hash). */
export interface UserView {
  /** The account's UUID: what its tokens name, and never given to another account (docs/http-api.md#what-ends-a-token). */
  id: string;
  username: string;
  role: Role;
  disabled: boolean;
  /** Last successful login, a password or a refresh grant (ISO 8601), or null. */
  last_login_at: string | null;
  /** Who the account belongs to (docs/supervision.md#accounts); null when unknown. */
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  /**
   * How the stored password hash was made: `argon2` (sds's own), `bcrypt` (kept from CSWeb until
   * the account's first login re-hashes it; docs/migrating-from-csweb.md#users-and-roles) or `unknown`.
   */
  password_scheme: PasswordScheme;
  created_at: string;
  updated_at: string;
}

/** A user in the account list: also the failed logins counted against it in the current window. */
export interface UserListItem extends UserView {
  failed_logins: number;
}

/** An account as shown to operators and scripts (no hash). */
export function view(u: UserRow & { passwordHash: string }): UserView {
  return {
    id: u.uuid,
    username: u.username,
    role: u.role,
    disabled: u.disabled,
    last_login_at: u.lastLoginAt,
    first_name: u.profile.firstName,
    last_name: u.profile.lastName,
    email: u.profile.email,
    phone: u.profile.phone,
    password_scheme: passwordScheme(u.passwordHash),
    created_at: u.createdAt,
    updated_at: u.updatedAt,
  };
}

/**
 * The stored name of role `role`: a role of the store, exactly (no case folding), or `Standard`,
 * the old name of Standard User (docs/supervision.md#roles-and-rights). An unknown role is USAGE
 * naming the roles, as before custom roles.
 */
async function parseRole(store: StoreScope, role: unknown): Promise<Role> {
  try {
    if (typeof role === 'string') return await requireRoleName(store, role);
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'ROLE_NOT_FOUND')) throw err;
  }
  const roles = (await store.roles.list()).map((r) => r.name);
  throw new AppError('USAGE', `role must be one of ${roles.join(', ')}; got "${String(role)}"`, { field: 'role' });
}

function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw new AppError('USAGE', problem, { field: 'password' });
}

/** Creates an account, with who it belongs to if given; the password is stored only as an argon2id hash. */
export async function addUser(
  store: Store,
  username: string,
  role: unknown,
  password: string,
  profile: ProfileInput = {},
): Promise<UserView> {
  if (!USERNAME_PATTERN.test(username)) {
    throw new AppError(
      'USAGE',
      `user name "${username}" is not valid: 1-64 letters, digits, ., _, @ or -, starting with a letter or digit`,
      {
        field: 'username',
      },
    );
  }
  const r = await parseRole(store, role);
  const fields = checkProfileInput(profile);
  checkPassword(password);
  if (await store.users.find(username)) throw new AppError('CONFLICT', `user ${username} already exists`, { user: username });
  const hash = await hashPassword(password);
  // Looked for again with the insert, in one transaction: another request may have created it while the password was hashed.
  return store.transaction(async (tx) => {
    if (await tx.users.find(username)) throw new AppError('CONFLICT', `user ${username} already exists`, { user: username });
    await tx.users.insert(username, r, hash, { firstName: null, lastName: null, email: null, phone: null, ...fields });
    return view((await tx.users.find(username))!);
  });
}

/**
 * All accounts, by name, each with its failed logins: the failures of its (username, address)
 * counters whose window, `windowMs` long, is still open at `now`.
 */
export async function listUsers(store: Store, opts: { now?: number; windowMs?: number } = {}): Promise<UserListItem[]> {
  const now = opts.now ?? Date.now();
  const [failures, users] = await store.readTransaction(
    async (tx) =>
      [
        await tx.loginThrottle.failuresByUser(now - (opts.windowMs ?? DEFAULT_LOGIN_THROTTLE.windowMs)),
        await tx.users.listWithHashes(),
      ] as const,
  );
  return users.map((u) => ({ ...view(u), failed_logins: failures.get(userKeyName(u.username)) ?? 0 }));
}

/**
 * Disables an account: its password logins get `invalid_grant`, its refresh tokens are revoked
 * and its access tokens are refused from the next request on (the token version is bumped, so
 * they stay refused even after the account is enabled again).
 */
export async function disableUser(store: Store, username: string, now: number = Date.now()): Promise<UserView> {
  return store.transaction(async (tx) => {
    const u = await tx.users.find(username);
    if (!u) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
    // Disabled first: from then on no refresh can succeed, so the revocation cannot miss a rotation.
    await tx.users.setDisabled(username, true);
    await tx.refreshTokens.revokeUser(u.id, now);
    return view((await tx.users.find(username))!);
  });
}

/** Enables an account again and lifts its login throttle, so its owner can log in at once. */
export async function enableUser(store: Store, username: string): Promise<UserView> {
  return store.transaction(async (tx) => {
    if (!(await tx.users.find(username))) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
    await tx.users.setDisabled(username, false);
    await tx.loginThrottle.clearUser(userKeyName(username));
    return view((await tx.users.find(username))!);
  });
}

/**
 * Gives an account another role. Every token issued under the old role ends (the token version
 * is bumped and the refresh tokens revoked, in one transaction): its holder logs in again and gets
 * tokens of the new role (docs/http-api.md#what-ends-a-token). The same role again changes nothing.
 * `grantor`, the rights of an HTTP caller, may give only a role it could have itself (the CLI is
 * the operator: no such limit).
 */
export async function setUserRole(
  store: Store,
  username: string,
  role: unknown,
  now: number = Date.now(),
  grantor?: ReadonlySet<Right>,
): Promise<UserView & { changed: boolean; previous_role: Role }> {
  const r = await parseRole(store, role);
  if (grantor) await requireGrantable(store, r, grantor);
  return store.transaction(async (tx) => {
    const u = await tx.users.find(username);
    if (!u) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
    if (u.role !== r) {
      await tx.users.update(username, { role: r });
      await tx.refreshTokens.revokeUser(u.id, now);
    }
    return { ...view((await tx.users.find(username))!), changed: u.role !== r, previous_role: u.role };
  });
}

/**
 * Deletes an account, and with it its refresh tokens. Its access tokens name its UUID, which no
 * later account gets, even one of the same name: they are refused from the next request on.
 */
export async function removeUser(store: Store, username: string): Promise<{ message: string; username: string }> {
  if (!(await store.users.remove(username))) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
  return { message: `User ${username} removed`, username };
}

/** Replaces the password of an account. */
export async function changePassword(store: Store, username: string, password: string): Promise<UserView> {
  if (!(await store.users.find(username))) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
  checkPassword(password);
  const hash = await hashPassword(password);
  // Looked for again with the update, in one transaction: the account may have been removed while the password was hashed.
  return store.transaction(async (tx) => {
    if (!(await tx.users.find(username))) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
    await tx.users.update(username, { passwordHash: hash });
    return view((await tx.users.find(username))!);
  });
}
