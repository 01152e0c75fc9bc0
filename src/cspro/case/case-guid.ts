/**
 * Deterministic case GUIDs for imports that carry none (`.dat` files): an RFC 4122 version-5
 * UUID (SHA-1) of the dictionary name and the case key under a fixed sds namespace, so importing
 * the same file twice gives the same GUIDs and the second import updates instead of duplicating.
 */

import { createHash } from 'node:crypto';

/** The sds namespace for case GUIDs. Never change it: stored GUIDs depend on it. */
const SDS_CASE_NAMESPACE = '73751969-3f48-4833-86fe-59df7283aa1d';

/** True when `s` is a UUID in the 8-4-4-4-12 hex form (any version, any case). */
export function isUuid(s: unknown): s is string {
  // A loop over the characters, not a regular expression: every uploaded case is checked.
  if (typeof s !== 'string' || s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 0x2d) return false;
    } else if (!((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66))) return false;
  }
  return true;
}

/** RFC 4122 §4.3 name-based UUID, version 5, lower case. */
export function uuidV5(name: string, namespace: string): string {
  if (!isUuid(namespace)) throw new Error(`not a UUID: ${namespace}`);
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The GUID of a case without one: UUID v5 of `<dictionary name>:<case key>`. Dictionary names
 * cannot contain `:`, so the name is unambiguous; the key is used exactly (spaces included).
 */
export function caseGuid(dictionaryName: string, caseKey: string): string {
  return uuidV5(`${dictionaryName}:${caseKey}`, SDS_CASE_NAMESPACE);
}
