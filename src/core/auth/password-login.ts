import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/open-store.js';
import type { UserRow } from '../../store/users-repo.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { oauthError } from './oauth-error.js';

let dummyHash: Promise<string> | undefined;

/**
 * Checks a user name and password. An unknown user still costs one argon2 verification (against
 * a throw-away hash), so response time does not tell which accounts exist. Every failure is the
 * spec's 401 `invalid_grant`; a disabled account says so only once the password was right.
 */
export async function checkPassword(store: Store, username: string, password: string): Promise<UserRow & { passwordHash: string }> {
  const user = store.users.find(username);
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), password);
  if (!user || !ok) throw oauthError('AUTH-001', 'invalid_grant', 'invalid username and password combination');
  if (user.disabled) throw oauthError('AUTH-001', 'invalid_grant', `the account ${user.username} is disabled`);
  return user;
}
