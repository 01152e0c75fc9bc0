import type { Store } from '../store/open-store.js';
import type { Role, UserRow } from '../store/users-repo.js';
import { AppError } from '../shared/errors.js';
import { hashPassword } from './passwords.js';

export const ROLES: readonly Role[] = ['Administrator', 'API', 'Standard'];

/** Minimum password length: long enough to resist guessing over the token endpoint. */
export const MIN_PASSWORD_LENGTH = 8;

const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** A user as shown to operators and scripts (no hash). */
export interface UserView {
  username: string;
  role: Role;
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

function view(u: UserRow): UserView {
  return { username: u.username, role: u.role, disabled: u.disabled, created_at: u.createdAt, updated_at: u.updatedAt };
}

/** Checks that `role` is exactly one of the three roles (no case folding: roles are words of the spec). */
export function parseRole(role: unknown): Role {
  if (typeof role === 'string' && (ROLES as readonly string[]).includes(role)) return role as Role;
  throw new AppError('USAGE', `role must be one of ${ROLES.join(', ')}; got "${String(role)}"`, { field: 'role' });
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('USAGE', `the password must have at least ${MIN_PASSWORD_LENGTH} characters`, { field: 'password' });
  }
}

/** Creates an account; the password is stored only as an argon2id hash. */
export async function addUser(store: Store, username: string, role: unknown, password: string): Promise<UserView> {
  if (!USERNAME_PATTERN.test(username)) {
    throw new AppError('USAGE', `user name "${username}" is not valid: 1-64 letters, digits, ., _, @ or -, starting with a letter or digit`, {
      field: 'username',
    });
  }
  const r = parseRole(role);
  checkPassword(password);
  if (store.users.find(username)) throw new AppError('CONFLICT', `user ${username} already exists`, { user: username });
  return view(store.users.insert(username, r, await hashPassword(password)));
}

/** All accounts, by name. */
export function listUsers(store: Store): UserView[] {
  return store.users.list().map(view);
}

/** Deletes an account. */
export function removeUser(store: Store, username: string): { message: string; username: string } {
  if (!store.users.remove(username)) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
  return { message: `User ${username} removed`, username };
}

/** Replaces the password of an account. */
export async function changePassword(store: Store, username: string, password: string): Promise<UserView> {
  if (!store.users.find(username)) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
  checkPassword(password);
  store.users.update(username, { passwordHash: await hashPassword(password) });
  return view(store.users.find(username)!);
}

/** Changes the role or the disabled flag of an account. */
export function updateUser(store: Store, username: string, change: { role?: unknown; disabled?: boolean }): UserView {
  if (!store.users.find(username)) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
  store.users.update(username, { role: change.role === undefined ? undefined : parseRole(change.role), disabled: change.disabled });
  return view(store.users.find(username)!);
}
