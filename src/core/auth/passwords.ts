import { hash, verify } from '@node-rs/argon2';

/** Hashes a password with argon2id (memory-hard), the library's OWASP-aligned defaults. */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** Checks a password against a stored argon2 hash; a malformed hash counts as a mismatch. */
export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}
