/**
 * Access tokens whose signature this process has already checked, by their exact text, per
 * signing key: a tablet sends the same token with every request of its hour, and checking an
 * HS256 signature through WebCrypto cost a quarter of a download page's CPU
 * (docs/decisions.md, "Less CPU per sync request"). Only the signature's check is spared: the
 * expiry is compared with the clock on every request, and the account is read every time, so a
 * removed or disabled account, or a retired token, is refused at once as before.
 */
import { webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;

/** The claims of a token whose signature holds. */
export interface CheckedClaims {
  sub: string;
  jti: string;
  ver: unknown;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/**
 * Tokens remembered per key at most: one per tablet in the field for an hour (3,000 interviewers
 * take 3,000; about half a kilobyte each with its claims); past it the oldest is forgotten and
 * merely checked again.
 */
const MAX_REMEMBERED_TOKENS = 10_000;

const byKey = new WeakMap<Uint8Array, Map<string, CheckedClaims>>();

/** The claims of `token` if its signature under `key` was checked before (its expiry is the caller's to compare). */
export function rememberedClaims(key: Uint8Array, token: string): CheckedClaims | undefined {
  return byKey.get(key)?.get(token);
}

/** Remembers that `token`'s signature under `key` holds, with its claims. */
export function rememberClaims(key: Uint8Array, token: string, claims: CheckedClaims): void {
  let m = byKey.get(key);
  if (!m) byKey.set(key, (m = new Map()));
  m.set(token, claims);
  // A Map iterates in insertion order: forget the token checked longest ago.
  if (m.size > MAX_REMEMBERED_TOKENS) m.delete(m.keys().next().value!);
}

const cryptoKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

/**
 * The signing key as a WebCrypto key, imported once: jose imports a raw key again on every
 * signature and check, which was half of a check's cost.
 */
export function hmacKey(key: Uint8Array): Promise<CryptoKey> {
  let k = cryptoKeys.get(key);
  if (!k) {
    k = webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    cryptoKeys.set(key, k);
  }
  return k;
}
