/**
 * Variable names of an SPSS system file (docs/export.md#spss). The export's column name is the
 * long name (the 7.13 record keeps it as written, lower case); each variable record also needs a
 * short name of at most 8 bytes, upper case and unique, and each extra segment of a very long
 * string needs one of its own. All names are made in column order, so the same table gives the
 * same names every time.
 */

/** Words SPSS reserves: never a variable name, long or short. */
const RESERVED = new Set(['ALL', 'AND', 'BY', 'EQ', 'GE', 'GT', 'LE', 'LT', 'NE', 'NOT', 'OR', 'TO', 'WITH']);

/**
 * The long name of each column: the export name, except that SPSS names must begin with a
 * letter, so a leading `_` gets a `v` in front (`_x` → `v_x`), and a reserved word or a name
 * taken (ignoring case) by an earlier column gets a `_2`, `_3`, … suffix.
 */
export function longNames(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    const base = /^[A-Za-z]/.test(name) ? name : `v${name}`;
    let candidate = base;
    for (let n = 2; used.has(candidate.toUpperCase()) || RESERVED.has(candidate.toUpperCase()); n++) {
      candidate = `${base}_${n}`;
    }
    used.add(candidate.toUpperCase());
    return candidate;
  });
}

/** Makes unique short names (8 bytes, upper case) in the order they are asked for. */
export class ShortNames {
  private readonly used = new Set<string>();

  /**
   * A short name for a variable of long name `long` (ASCII: letters, digits, `_`): its first
   * 8 characters in upper case, or when that is taken, fewer characters and a number
   * (`HOUSEHOL`, `HOUSEH_2`, …). `segment` > 0 names the extra segments of a very long string
   * the same way from the start, `HOUSEH_1` style, so they stay next to their variable.
   */
  next(long: string, segment = 0): string {
    const upper = long.toUpperCase();
    let candidate = segment === 0 ? upper.slice(0, 8) : numbered(upper, segment);
    for (let n = segment === 0 ? 2 : segment + 1; this.used.has(candidate) || RESERVED.has(candidate); n++) {
      candidate = numbered(upper, n);
    }
    this.used.add(candidate);
    return candidate;
  }
}

function numbered(upper: string, n: number): string {
  const suffix = `_${n}`;
  return upper.slice(0, 8 - suffix.length) + suffix;
}
