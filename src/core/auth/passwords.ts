/** Minimum password length: long enough to resist guessing over the token endpoint. */
const MIN_PASSWORD_LENGTH = 8;

/** What is wrong with a new password under sds's rules, or undefined. Pure. */
export function passwordProblem(password: string): string | undefined {
  return password.length < MIN_PASSWORD_LENGTH ? `the password must have at least ${MIN_PASSWORD_LENGTH} characters` : undefined;
}

let argon2Module: Promise<typeof import('@node-rs/argon2')> | undefined;
/** The native argon2, loaded on the first hash or check: most commands never need it (docs/cli.md#start-up-time). */
const loadArgon2 = () => (argon2Module ??= import('@node-rs/argon2'));

/** Hashes a password with argon2id (memory-hard), the library's OWASP-aligned defaults. */
export async function hashPassword(password: string): Promise<string> {
  const { hash } = await loadArgon2();
  return hash(password);
}

/**
 * How a stored hash was made: sds's own argon2, or bcrypt as CSWeb (PHP `password_hash`) writes
 * it and an import from CSWeb keeps it (docs/migrating-from-csweb.md#users-and-roles).
 */
export type PasswordScheme = 'argon2' | 'bcrypt' | 'unknown';

/** `$2y$`, `$2b$` or `$2a$`, a two-digit cost of 4-31, then 53 characters of salt and hash. */
const BCRYPT = /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/;

/** The scheme of a stored hash, told from its prefix. */
export function passwordScheme(storedHash: string): PasswordScheme {
  if (BCRYPT.test(storedHash)) return 'bcrypt';
  if (storedHash.startsWith('$argon2')) return 'argon2';
  return 'unknown';
}

/** True when `storedHash` is a well-formed bcrypt hash (`$2y$`, `$2b$` or `$2a$`, cost 4-31). */
export function isBcryptHash(storedHash: string): boolean {
  return BCRYPT.test(storedHash);
}

/**
 * Checks a password against a stored hash, argon2 or bcrypt; a malformed hash counts as a
 * mismatch. bcryptjs's promise API works in slices between which the event loop runs, so a
 * bcrypt check does not stall other requests.
 */
export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    if (isBcryptHash(storedHash)) return await (await import('bcryptjs')).compare(password, storedHash);
    return await (await loadArgon2()).verify(storedHash, password);
  } catch {
    return false;
  }
}
