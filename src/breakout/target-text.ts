/**
 * The one rule for text written to any breakout target (docs/breakout.md, "Text"): every
 * database gets the same characters. Two kinds of character cannot be written as they are:
 *
 * - a lone UTF-16 surrogate (half of a pair, which a JSON string can carry as `\ud800`) is not a
 *   character at all and has no UTF-8 form: PostgreSQL and MariaDB received U+FFFD (the drivers'
 *   UTF-8 encoder replaces it) while SQLite stored the raw invalid bytes, which other readers
 *   (Python's sqlite3) refuse. It becomes U+FFFD, the replacement character, everywhere;
 * - U+0000 (NUL), which PostgreSQL text cannot hold at all. It is dropped everywhere: CSPro data
 *   carries it only as padding or binary debris, it is invisible, and PostgreSQL targets already
 *   had it dropped, so their rows do not change.
 *
 * Pure. The flattener applies it to every text it produces (and warns when it changed a value);
 * each dialect's text encoder applies it again, so rows that do not come from the flattener
 * follow the same rule. A text without either kind returns as it is, after two native scans.
 */

interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** `s` as every target stores it: lone surrogates replaced by U+FFFD, NUL characters dropped. */
export function targetText(s: string): string {
  const w = s as unknown as WellFormedString;
  const wellFormed = w.isWellFormed();
  const hasNul = s.indexOf('\0') !== -1;
  if (wellFormed && !hasNul) return s;
  const fixed = wellFormed ? s : w.toWellFormed();
  return hasNul ? fixed.replaceAll('\0', '') : fixed;
}

/** Why targetText changed `s` (a warning's reason), or undefined when it did not. */
export function targetTextChange(s: string): string | undefined {
  const surrogates = !(s as unknown as WellFormedString).isWellFormed();
  const nul = s.indexOf('\0') !== -1;
  if (!surrogates && !nul) return undefined;
  const parts: string[] = [];
  if (surrogates) parts.push('a lone UTF-16 surrogate became U+FFFD');
  if (nul) parts.push('NUL characters were dropped');
  return `${parts.join('; ')}, as in every target`;
}
