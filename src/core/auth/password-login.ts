import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/open-store.js';
import type { UserRow } from '../../store/users-repo.js';
import { hashPassword, isBcryptHash, verifyPassword } from './passwords.js';
import { oauthError } from './oauth-error.js';

let dummyHash: Promise<string> | undefined;

/** What became of the re-hash of a bcrypt password after a successful login. */
export interface RehashOutcome {
  username: string;
  ok: boolean;
  /** Why the re-hash was not stored (a store or hashing error). */
  reason?: string;
}

type Account = UserRow & { passwordHash: string };

/**
 * Replaces a bcrypt hash (an account imported from CSWeb) by an argon2 hash of the password
 * just verified, in one store transaction that writes only if the hash is still the one that
 * was checked (a concurrent login may have replaced it already). Any failure leaves the bcrypt
 * hash in place and the login goes on (docs/migrating-from-csweb.md#users-and-roles).
 */
async function rehash(store: Store, user: Account, password: string, onRehash: (o: RehashOutcome) => void): Promise<Account> {
  try {
    const next = await hashPassword(password);
    const { replaced, current } = store.transaction(() => ({
      replaced: store.users.replaceHash(user.id, user.passwordHash, next),
      current: store.users.find(user.username),
    }));
    if (replaced) onRehash({ username: user.username, ok: true });
    // The refresh token about to be issued is stamped with the hash now stored.
    return current && current.id === user.id ? current : user;
  } catch (err) {
    onRehash({ username: user.username, ok: false, reason: err instanceof Error ? err.message : String(err) });
    return user;
  }
}

/**
 * Checks a user name and password. An unknown user still costs one argon2 verification (against
 * a throw-away hash), so response time does not tell which accounts exist. Every failure is the
 * spec's 401 `invalid_grant`; a disabled account says so only once the password was right.
 * A right password checked against a bcrypt hash (kept from CSWeb) is re-hashed with argon2.
 */
export async function checkPassword(
  store: Store,
  username: string,
  password: string,
  onRehash: (o: RehashOutcome) => void = () => {},
): Promise<Account> {
  const user = store.users.find(username);
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), password);
  if (!user || !ok) throw oauthError('AUTH-001', 'invalid_grant', 'invalid username and password combination');
  if (user.disabled) throw oauthError('AUTH-001', 'invalid_grant', `the account ${user.username} is disabled`);
  return isBcryptHash(user.passwordHash) ? rehash(store, user, password, onRehash) : user;
}
