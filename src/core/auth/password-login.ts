import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/open-store.js';
import type { UserRow } from '../../store/users-repo.js';
import { hashPassword, isBcryptHash, passwordScheme, verifyPassword } from './passwords.js';
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
    const { replaced, current } = await store.transaction(async (tx) => ({
      replaced: await tx.users.replaceHash(user.id, user.passwordHash, next),
      current: await tx.users.find(user.username),
    }));
    if (replaced) onRehash({ username: user.username, ok: true });
    // The refresh token about to be issued is stamped with the hash now stored.
    return current && current.id === user.id ? current : user;
  } catch (err) {
    onRehash({ username: user.username, ok: false, reason: err instanceof Error ? err.message : String(err) });
    return user;
  }
}

/** Checks a password against a stored hash; injected by tests to count the checks of each scheme. */
export type PasswordVerifier = (storedHash: string, password: string) => Promise<boolean>;

/**
 * The hashes a failed login is checked against, so that every failure costs the same whether the
 * account is unknown, has sds's argon2 hash or still has a bcrypt hash kept from CSWeb
 * (docs/migrating-from-csweb.md#passwords): one argon2 check and, while any account still has a
 * bcrypt hash, one bcrypt check of the same cost (against a stored one). Pure.
 */
function failureChecks(accountHash: string | undefined, argon2Dummy: string, storedBcrypt: string | undefined): string[] {
  // A malformed hash fails at once: its account costs the throw-away argon2 check too.
  const argon2 = accountHash !== undefined && passwordScheme(accountHash) === 'argon2' ? accountHash : argon2Dummy;
  const bcrypt = accountHash !== undefined && isBcryptHash(accountHash) ? accountHash : storedBcrypt;
  return bcrypt === undefined ? [argon2] : [argon2, bcrypt];
}

/**
 * Checks a user name and password. Every failure costs the same checks whatever the account
 * (`failureChecks`): an unknown user is checked against a throw-away argon2 hash, and while the
 * store holds bcrypt hashes kept from CSWeb every failure also costs one bcrypt check, so response
 * time does not tell which accounts exist or which still have a CSWeb password. Every failure is
 * the spec's 401 `invalid_grant`; a disabled account says so only once the password was right.
 * A right password checked against a bcrypt hash (kept from CSWeb) is re-hashed with argon2.
 */
export async function checkPassword(
  store: Store,
  username: string,
  password: string,
  onRehash: (o: RehashOutcome) => void = () => {},
  verify: PasswordVerifier = verifyPassword,
): Promise<Account> {
  const user = await store.users.find(username);
  const ok = user !== undefined && (await verify(user.passwordHash, password));
  if (!ok) {
    dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    const done = user?.passwordHash;
    for (const h of failureChecks(done, await dummyHash, await store.users.anyBcryptHash())) {
      // The account's own hash was checked above; every other check of the list costs its time.
      if (h !== done) await verify(h, password);
    }
    throw oauthError('AUTH-001', 'invalid_grant', 'invalid username and password combination');
  }
  if (user.disabled) throw oauthError('AUTH-001', 'invalid_grant', `the account ${user.username} is disabled`);
  return isBcryptHash(user.passwordHash) ? rehash(store, user, password, onRehash) : user;
}
