import { createHash } from 'node:crypto';

/** Length of the hash part appended to a shortened identifier (hex characters). */
const HASH_SUFFIX_LENGTH = 8;

/**
 * Makes an identifier fit `maxLength` characters. A name that fits is returned unchanged; a
 * longer one keeps its head and ends in `_` plus the first 8 hex digits of the SHA-256 of the
 * whole original name, so the result is the same on every run and every machine, and two
 * long names that share a head still differ. Collisions that remain (a literal name equal to a
 * shortened one) are the planner's job to detect.
 *
 * Example (limit 20): `p_a_very_long_record_name` → `p_a_very_lo_3b1c0f2e`.
 */
export function shortenIdentifier(name: string, maxLength: number): string {
  if (name.length <= maxLength) return name;
  const keep = maxLength - HASH_SUFFIX_LENGTH - 1;
  if (keep < 1) throw new RangeError(`identifier limit ${maxLength} is too small to shorten "${name}"`);
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, HASH_SUFFIX_LENGTH);
  return `${name.slice(0, keep)}_${hash}`;
}
